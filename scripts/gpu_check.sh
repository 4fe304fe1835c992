#!/usr/bin/env bash
# The one command for a machine with an NVIDIA GPU (docs/gpu-check.md): builds Tidepool for
# this GPU, runs the gpu-labelled tests, the --bench matrix on CUDA beside the CPU,
# compute-sanitizer's four tools on a short headless run of every shipped scene with every
# solver, the CUDA-GL interop test (on a display, under Xvfb, or through EGL without X),
# and writes one report.
# A borrowed machine gives 15 minutes in all, its start included, so the work comes in two
# calls: `first` (build, gpu-tests, bench: within 8 minutes with the start), then `second`
# (the sanitizers and interop) with the time left.
#
#   scripts/gpu_check.sh [options] [STAGE...]
#
# Stages, in order: build gpu-tests bench memcheck racecheck initcheck synccheck interop
# report (groups: first = build gpu-tests bench, second = the four tools and interop,
# sanitizers = the four tools, all = every stage). Without STAGE it runs
# every stage not yet done (a failed stage is done, a failed build is not); a named stage
# runs again. Each stage is a list of items (one
# configure, one sanitizer run, one bench invocation, ...); every item that finishes is
# recorded under build-gpu/gpu_check/, so a stage cut short by the time limit goes on where
# it stopped at the next call. The report is rewritten at the end of every call.
#
# Options:
#   --dry-run          print each stage's commands, run nothing (works without a GPU)
#   --from-scratch     forget every finished stage and item (the build tree stays)
#   --list             the stages and how far each has got
#   --max-seconds S    stop starting work after S seconds (default 570: one call of a
#                      borrowed machine is capped at 10 minutes); 0: no limit
#   --copy-to DIR      copy report.md, report.json and logs.tar.gz into DIR at the end
#   -h, --help         this text
# Environment: GPU_CHECK_BUILD_DIR (build-gpu), GPU_CHECK_BUNDLE (.gpu-bundle, made by
# scripts/gpu_bundle.sh), GPU_CHECK_CUDA_ARCHITECTURES (native), GPU_CHECK_JOBS (all cores),
# GPU_CHECK_TEST_JOBS (the gpu tests in parallel: half the cores), GPU_CHECK_STAGE_LIMIT (570 s per stage and call), GPU_CHECK_SAN_PARTICLES (5000),
# GPU_CHECK_SAN_STEPS (8), GPU_CHECK_SAN_TIMEOUT (150 s per run), GPU_CHECK_SCENES (the
# sanitizers' scenes, comma-separated; default every assets/scenes file), GPU_CHECK_BENCH_SIZES
# (30000,250000,1000000,4000000), GPU_CHECK_BENCH_STEPS (200,100,40,15: steps per size).
# Exit codes: 0 every stage run passed (or was skipped or unavailable), 1 a stage failed,
# 2 no usable GPU (one line says why), 3 the time limit came first: run it again, 64 usage.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

build=${GPU_CHECK_BUILD_DIR:-build-gpu}
bundle=${GPU_CHECK_BUNDLE:-.gpu-bundle}
archs=${GPU_CHECK_CUDA_ARCHITECTURES:-native}
jobs=${GPU_CHECK_JOBS:-$(nproc)}
test_jobs=${GPU_CHECK_TEST_JOBS:-$(( $(nproc) > 3 ? $(nproc) / 2 : 1 ))}
stage_limit=${GPU_CHECK_STAGE_LIMIT:-570}
san_particles=${GPU_CHECK_SAN_PARTICLES:-5000}
san_steps=${GPU_CHECK_SAN_STEPS:-8}
san_timeout=${GPU_CHECK_SAN_TIMEOUT:-150}
IFS=, read -r -a bench_sizes <<< "${GPU_CHECK_BENCH_SIZES:-30000,250000,1000000,4000000}"
IFS=, read -r -a bench_steps <<< "${GPU_CHECK_BENCH_STEPS:-200,100,40,15}"
[[ $build == /* ]] || build=$root/$build
[[ $bundle == /* ]] || bundle=$root/$bundle
state=$build/gpu_check      # markers, item results, logs, the report
prefix=$build/deps/root     # the bundle's packages, unpacked with dpkg -x
bin=$build/bin

all_stages=(build gpu-tests bench memcheck racecheck initcheck synccheck interop report)
sanitizer_tools=(memcheck racecheck initcheck synccheck)
solvers=(wcsph pcisph pbf dfsph)
scenes=()
if [[ -n ${GPU_CHECK_SCENES:-} ]]; then
  IFS=, read -r -a scenes <<< "$GPU_CHECK_SCENES"
else
  for f in assets/scenes/*.json; do scenes+=("$(basename "$f" .json)"); done
fi

dry_run=
from_scratch=
list_only=
max_seconds=570
copy_to=
requested=()

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die_usage() { echo "gpu_check: $*" >&2; echo "usage: scripts/gpu_check.sh [--dry-run] [--from-scratch] [--list] [--max-seconds S] [--copy-to DIR] [STAGE...]" >&2; exit 64; }

while (($#)); do
  case $1 in
    --dry-run) dry_run=1 ;;
    --from-scratch) from_scratch=1 ;;
    --list) list_only=1 ;;
    --max-seconds) [[ ${2:-} =~ ^[0-9]+$ ]] || die_usage "--max-seconds needs a number of seconds"
                   max_seconds=$2; shift ;;
    --copy-to) [[ -n ${2:-} ]] || die_usage "--copy-to needs a directory"; copy_to=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    first) requested+=(build gpu-tests bench) ;;
    second) requested+=("${sanitizer_tools[@]}" interop) ;;
    sanitizers) requested+=("${sanitizer_tools[@]}") ;;
    all) requested+=("${all_stages[@]}") ;;
    -*) die_usage "unknown option '$1'" ;;
    *) [[ " ${all_stages[*]} " == *" $1 "* ]] ||
         die_usage "unknown stage '$1' (stages: ${all_stages[*]}; groups: first, second, sanitizers, all)"
       requested+=("$1") ;;
  esac
  shift
done

# ---- helpers --------------------------------------------------------------------------------

say() { echo "gpu_check: $*"; }
# A command as it would be typed (for --dry-run and the logs).
show() {
  local arg out=+
  for arg in "$@"; do
    if [[ $arg =~ ^[][A-Za-z0-9_./:=,+%@~-]+$ ]]; then out+=" $arg"; else out+=" $(printf '%q' "$arg")"; fi
  done
  echo "$out"
}
now() { date +%s; }
started=$(now)

stage_status() { sed -n 's/^status=//p' "$state/stages/$1.status" 2>/dev/null || true; }
stage_done() {
  local s; s=$(stage_status "$1")
  case $1:$s in
    build:passed) return 0 ;;
    build:*) return 1 ;;           # a failed build is tried again
    *:passed|*:failed|*:skipped|*:unavailable) return 0 ;;
    *) return 1 ;;
  esac
}
# set_stage STAGE STATUS NOTE: the stage's marker (its status, its time so far, a note).
set_stage() {
  local seconds=0
  [[ -f $state/stages/$1.seconds ]] && seconds=$(awk '{s += $1} END {print s + 0}' "$state/stages/$1.seconds")
  mkdir -p "$state/stages"
  printf 'status=%s\nseconds=%s\nnote=%s\n' "$2" "$seconds" "$3" > "$state/stages/$1.status"
}
add_stage_time() { mkdir -p "$state/stages"; echo "$2" >> "$state/stages/$1.seconds"; }

item_file() { echo "$state/items/$1/$2.result"; }
item_done() { [[ -f $(item_file "$1" "$2") ]]; }
# record STAGE ITEM STATUS SECONDS DETAIL: one finished item (tab-separated, one line).
record() {
  mkdir -p "$state/items/$1"
  printf '%s\t%s\t%s\n' "$3" "$4" "${5//$'\n'/ }" > "$(item_file "$1" "$2")"
  printf '  %-28s %-11s %4ss  %s\n' "$2" "$3" "$4" "$5"
}

# The time this call may still spend: the --max-seconds budget and the current stage's cap.
invocation_left() { if ((max_seconds == 0)); then echo 999999; else echo $((started + max_seconds - $(now))); fi; }
stage_deadline=0
time_left() {
  local a b; a=$(invocation_left); b=$((stage_deadline - $(now)))
  echo $((a < b ? a : b))
}

# run_item STAGE ITEM LIMIT CMD...: runs CMD with its output in items/STAGE/ITEM.log, for at
# most LIMIT seconds or the time left. Sets rc (its exit status), log and took (seconds).
# Returns 0 when it ran to the end or to its own LIMIT, 1 in a dry run, and 2 when the time
# left was too short or cut it (then nothing is recorded and a later call runs it again).
rc=0 log='' took=0
run_item() {
  local stage=$1 item=$2 limit=$3 left cut=
  shift 3
  log=$state/items/$stage/$item.log
  if [[ -n $dry_run ]]; then show "$@"; return 1; fi
  left=$(time_left)
  if ((left < 15)); then return 2; fi
  if ((limit > left)); then limit=$left; cut=1; fi
  mkdir -p "$state/items/$stage"
  show "$@" > "$log"
  local t0; t0=$(now)
  if timeout -k 10 "$limit" "$@" >> "$log" 2>&1; then rc=0; else rc=$?; fi
  took=$(($(now) - t0))
  add_stage_time "$stage" "$took"
  if [[ -n $cut ]] && ((rc == 124 || rc == 137)); then return 2; fi
  return 0
}

# ---- is there a GPU? --------------------------------------------------------------------------

find_nvcc() {
  if command -v nvcc >/dev/null; then command -v nvcc
  elif [[ -x ${CUDA_HOME:-/usr/local/cuda}/bin/nvcc ]]; then echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc"
  fi
}
nvcc=$(find_nvcc || true)

no_gpu() { local why=$*; echo "gpu_check: no usable NVIDIA GPU here: ${why%.}; nothing was checked" >&2; exit 2; }

# One line and exit 2 unless nvidia-smi lists a GPU and cudaGetDeviceCount finds one. The
# answer (device, compute capability, driver) goes to device.txt for the report.
require_gpu() {
  local smi out probe=$build/deps/probe
  if [[ -n $dry_run ]]; then
    echo "# the GPU gate (the real run stops here with one line and exit 2 when there is none):"
    show nvidia-smi -L
    show "${nvcc:-nvcc}" -o "$probe/probe" "$probe/probe.cu"
    show "$probe/probe"
    if ! command -v nvidia-smi >/dev/null; then
      echo "#   on this machine: no nvidia-smi, so a real run would stop here"
    fi
    return 0
  fi
  smi=$(command -v nvidia-smi || true)
  [[ -n $smi ]] || no_gpu "nvidia-smi not found (no NVIDIA driver)"
  out=$("$smi" -L 2>&1) || no_gpu "nvidia-smi failed: $(head -n1 <<< "$out")"
  grep -q '^GPU [0-9]' <<< "$out" || no_gpu "nvidia-smi lists no GPU"
  [[ -n $nvcc ]] || no_gpu "nvcc not found (install the CUDA toolkit or set CUDA_HOME)"
  mkdir -p "$probe" "$state"
  if [[ ! -x $probe/probe ]]; then
    cat > "$probe/probe.cu" <<'EOF'
// gpu_check.sh's probe: is there a device the CUDA runtime can use, and which?
#include <cstdio>
#include <cuda_runtime.h>
int main() {
  int n = 0;  // left untouched when the call fails
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    std::printf("error=cudaGetDeviceCount: %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
    return 1;
  }
  if (n == 0) { std::printf("error=cudaGetDeviceCount found no device\n"); return 1; }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::printf("count=%d\ncuda_driver=%d.%d\ncuda_runtime=%d.%d\n", n, driver / 1000,
              driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) { std::printf("error=no properties\n"); return 1; }
  std::printf("name=%s\ncompute_capability=%d.%d\nmemory_mib=%zu\nmultiprocessors=%d\n", p.name,
              p.major, p.minor, p.totalGlobalMem >> 20, p.multiProcessorCount);
  return 0;
}
EOF
    "$nvcc" -Wno-deprecated-gpu-targets -o "$probe/probe" "$probe/probe.cu" > "$probe/build.log" 2>&1 ||
      no_gpu "the probe did not compile with $nvcc ($(tail -n1 "$probe/build.log"))"
  fi
  if ! out=$("$probe/probe" 2>&1); then
    no_gpu "$(sed -n 's/^error=//p' <<< "$out" | head -n1)"
  fi
  {
    echo "$out"
    "$smi" --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n1 | sed 's/^/driver=/'
    echo "nvcc=$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
    echo "cmake=$(cmake --version | sed -n '1s/cmake version //p')"
    echo "cxx=$(g++ --version | head -n1)"
    echo "glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')"
    echo "os=$(sed -n 's/^PRETTY_NAME=//p' /etc/os-release 2>/dev/null | tr -d '"')"
    echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
    echo "cores=$(nproc)"
    echo "commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  } > "$state/device.txt"
}

# ---- the bundle: Debian packages unpacked into a prefix, never into / -------------------------

libdir=$prefix/usr/lib/x86_64-linux-gnu
cmake_dep_args=()

unpack_bundle() {
  local stamp=$build/deps/stamp want deb tmp member
  want=$(cksum < "$bundle/MANIFEST")
  [[ -f $stamp && $(cat "$stamp") == "$want" && -d $prefix ]] && return 0
  say "unpacking $(find "$bundle/debs" -name '*.deb' | wc -l) packages of $bundle into $prefix"
  rm -rf "$prefix" && mkdir -p "$prefix/bin"
  for deb in "$bundle"/debs/*.deb; do
    if command -v dpkg >/dev/null; then
      dpkg -x "$deb" "$prefix"
    else  # no dpkg (not a Debian-based system): a .deb is an ar archive holding data.tar.*
      tmp=$(mktemp -d)
      member=$(cd "$tmp" && ar t "$deb" | grep '^data\.tar') && (cd "$tmp" && ar x "$deb" "$member")
      tar -xf "$tmp/$member" -C "$prefix"
      rm -rf "$tmp"
    fi
  done
  # Links that point to /usr/...: into the prefix instead.
  find "$prefix" -type l -lname '/*' -print0 | while IFS= read -r -d '' link; do
    ln -sfn "$prefix$(readlink "$link")" "$link"
  done
  # pkg-config files say prefix=/usr (glfw3.pc also libdir= and includedir=): the prefix's.
  sed -i -E "s#^([A-Za-z_]+)=/usr(/|\$)#\1=$prefix/usr\2#" "$libdir"/pkgconfig/*.pc "$prefix"/usr/share/pkgconfig/*.pc
  # glad: the output gpu_bundle.sh generated, copied where CMake asks for it, for exactly the
  # arguments it was made with (no Python or GL registry needed here).
  mkdir -p "$build/deps/glad" && cp -r "$bundle/glad/." "$build/deps/glad/"
  cat > "$prefix/bin/glad" <<EOF
#!/usr/bin/env bash
# gpu_check.sh's stand-in for glad: copies the loader that scripts/gpu_bundle.sh generated.
set -euo pipefail
out='' args=()
while ((\$#)); do
  case \$1 in --out-path) out=\$2; shift 2 ;; --out-path=*) out=\${1#*=}; shift ;; *) args+=("\$1"); shift ;; esac
done
if [[ \$(printf '%s\n' "\${args[@]}") != "\$(cat '$build/deps/glad/ARGS')" ]]; then
  echo "glad (gpu_check stand-in): asked for '\${args[*]}' but the bundle was generated for '\$(tr '\n' ' ' < '$build/deps/glad/ARGS')': run scripts/gpu_bundle.sh again" >&2
  exit 1
fi
mkdir -p "\$out" && cp -r '$build/deps/glad/out/.' "\$out/"
EOF
  chmod +x "$prefix/bin/glad"
  if [[ -x $prefix/usr/bin/pkgconf ]]; then
    # shellcheck disable=SC2016  # $LD_LIBRARY_PATH and $@ are the wrapper's, at its run time
    printf '#!/bin/sh\nLD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec %s "$@"\n' \
      "$libdir" "$prefix/usr/bin/pkgconf" > "$prefix/bin/pkg-config"
    chmod +x "$prefix/bin/pkg-config"
  fi
  echo "$want" > "$stamp"
}

# The environment that makes the prefix come first: CMake's search prefix, pkg-config's path,
# the compilers' system include path (GLM is included without a CMake target), the run-time
# library path (GLFW opens libXrandr and friends with dlopen; the linker's RUNPATH may not
# reach libX11's own libraries) and Xlib's locale data. Every library is linked by its full
# path, so LIBRARY_PATH stays as it is (it would also stop CMake from setting the RUNPATH).
use_bundle() {
  if [[ ! -f $bundle/MANIFEST ]]; then
    say "no bundle at $bundle: using the system's packages (on a machine without a registry," \
        "run scripts/gpu_bundle.sh on one that has it and carry $bundle along)"
    return 0
  fi
  # The bundle's binaries need the C library version they were built against, or newer.
  local need have
  need=$(sed -n 's/^# needs glibc >= //p' "$bundle/MANIFEST")
  have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
  if [[ -n $need && -n $have && $(printf '%s\n' "$need" "$have" | sort -V | head -n1) != "$need" ]]; then
    say "warning: the bundle's libraries need glibc $need, this machine has $have: expect link errors"
  fi
  if [[ -n $dry_run ]]; then
    echo "# unpack the bundle (done once; again when its MANIFEST changes):"
    show rm -rf "$prefix"
    for deb in "$bundle"/debs/*.deb; do show dpkg -x "$deb" "$prefix"; done
    printf '+ sed -i -E %s %s %s\n' "'s#^([A-Za-z_]+)=/usr(/|\$)#\1=$prefix/usr\2#'" \
      "$libdir/pkgconfig/*.pc" "$prefix/usr/share/pkgconfig/*.pc"
    echo "+ (write $prefix/bin/glad, a stand-in that copies $bundle/glad/out, and $prefix/bin/pkg-config)"
  else
    unpack_bundle
  fi
  export PATH=$prefix/bin:$PATH
  export PKG_CONFIG_PATH=$libdir/pkgconfig:$prefix/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
  export CPLUS_INCLUDE_PATH=$prefix/usr/include${CPLUS_INCLUDE_PATH:+:$CPLUS_INCLUDE_PATH}
  export C_INCLUDE_PATH=$prefix/usr/include${C_INCLUDE_PATH:+:$C_INCLUDE_PATH}
  export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export XLOCALEDIR=$prefix/usr/share/X11/locale
  cmake_dep_args=(-DCMAKE_PREFIX_PATH="$prefix/usr" -DGLAD_EXECUTABLE="$prefix/bin/glad")
  [[ -x $prefix/bin/pkg-config || -n $dry_run ]] && cmake_dep_args+=(-DPKG_CONFIG_EXECUTABLE="$prefix/bin/pkg-config")
  if [[ -n $dry_run ]]; then
    for v in PATH PKG_CONFIG_PATH CPLUS_INCLUDE_PATH C_INCLUDE_PATH LD_LIBRARY_PATH XLOCALEDIR; do
      echo "+ export $v=${!v}"
    done
  else
    # For building or running by hand afterwards: source build-gpu/gpu_check/env.sh
    mkdir -p "$state"
    for v in PATH PKG_CONFIG_PATH CPLUS_INCLUDE_PATH C_INCLUDE_PATH LD_LIBRARY_PATH XLOCALEDIR; do
      printf 'export %s=%q\n' "$v" "${!v}"
    done > "$state/env.sh"
  fi
}

# ---- stages ---------------------------------------------------------------------------------

# (a) Configure a Release build for this GPU's architecture and build the app and the test
# binaries that hold gpu-labelled tests.
stage_build() {
  local targets=(tidepool tp_data tp_bench_async) t status
  [[ -n $dry_run ]] || { rm -rf "$state/items/build"; mkdir -p "$state/build"; }
  if run_item build configure 300 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release \
       -DTIDEPOOL_CUDA=ON -DTIDEPOOL_CUDA_ARCHITECTURES="$archs" -DTIDEPOOL_NATIVE=ON \
       -DTIDEPOOL_BUILD_TESTS=ON -DTIDEPOOL_BUILD_APP=ON ${nvcc:+-DCMAKE_CUDA_COMPILER="$nvcc"} \
       "${cmake_dep_args[@]}"; then
    if ((rc != 0)); then
      record build configure failed "$took" "$(grep -m1 -A2 'CMake Error' "$log" | tr -s ' ' || tail -n1 "$log")"
      return 1
    fi
    record build configure passed "$took" "$(grep 'Tidepool: building the CUDA' "$log" | sed 's/^-- //')"
    where_from > "$state/build/dependencies.txt"
  else
    case $? in 1) ;; *) return 2 ;; esac
  fi
  # The app, its data, and every test binary that holds CUDA or GPU tests.
  if [[ -f $build/CMakeFiles/TargetDirectories.txt ]]; then
    while read -r t; do targets+=("$t"); done < <(grep -oE '/tp_[a-z_]*(cuda|gpu)[a-z_]*tests\.dir' \
      "$build/CMakeFiles/TargetDirectories.txt" | sed 's#^/##; s#\.dir$##' | sort -u)
  else
    targets+=(tp_cuda_tests tp_gpu_app_tests)
  fi
  run_item build compile 570 cmake --build "$build" -j "$jobs" --target "${targets[@]}"
  status=$?
  if ((status == 1)); then return 0; elif ((status == 2)); then return 2; fi
  if ((rc != 0)); then
    record build compile failed "$took" "$(grep -m1 -E 'error|Error' "$log")"
    return 1
  fi
  record build compile passed "$took" "${targets[*]}"
  where_from > "$state/build/dependencies.txt"
}

# Where each dependency came from (the bundle's prefix or the system), from CMake's cache and
# the compilers' dependency files: written after configuring and again after compiling.
where_from() {
  local cache=$build/CMakeCache.txt var value header
  for var in PKG_CONFIG_EXECUTABLE GLAD_EXECUTABLE pkgcfg_lib_GLFW3_glfw pkgcfg_lib_IMGUI_imgui \
             pkgcfg_lib_STB_stb pkgcfg_lib_BULLET_BulletDynamics IMGUI_INCLUDE_DIRS OPENGL_INCLUDE_DIR OPENGL_opengl_LIBRARY \
             OPENGL_glx_LIBRARY X11_X11_INCLUDE_PATH X11_X11_LIB GTest_DIR nlohmann_json_DIR \
             tinyobjloader_DIR CMAKE_CUDA_COMPILER CMAKE_CUDA_ARCHITECTURES_NATIVE; do
    value=$(sed -n "s/^$var:[A-Z]*=//p" "$cache" | head -n1)
    [[ -n $value ]] && printf '%-32s %s\n' "$var" "$value"
  done
  for header in glm/glm.hpp GL/gl.h GLFW/glfw3.h imgui.h gtest/gtest.h nlohmann/json.hpp \
                btBulletDynamicsCommon.h \
                tiny_obj_loader.h; do
    value=$(find "$build" -name '*.d' -path '*CMakeFiles*' -print0 2>/dev/null |
            xargs -0 -r grep -ohE "[^ :]*/$header" 2>/dev/null | sort -u | head -n1 || true)
    [[ -n $value ]] && printf '%-32s %s\n' "header $header" "$value"
  done
  true
}

# (b) The gpu-labelled tests.
stage_gpu_tests() {
  local summary
  # In parallel (each test is a few seconds of GPU beside a small CPU run): one job per two
  # cores, two OpenMP threads each. In turn they took 144 s for 65 of 75 on an H200.
  run_item gpu-tests ctest 570 env OMP_NUM_THREADS=2 ctest --test-dir "$build" -L gpu --no-tests=error \
    -j "$test_jobs" --output-on-failure --timeout 300 --output-junit "$state/items/gpu-tests/junit.xml" || return $(($? == 1 ? 0 : 2))
  local total skipped
  summary=$(grep -E 'tests passed|No tests were found' "$log" | tail -n1 || true)
  total=$(grep -oE 'out of [0-9]+' <<< "$summary" | grep -oE '[0-9]+' || echo 0)
  skipped=$(sed -n '/The following tests did not run/,/^$/p' "$log" | grep -c '(Skipped)' || true)
  ((skipped == 0)) || summary+="; $skipped skipped"
  if ((rc == 0 && total > 0 && skipped == total)); then
    # On a machine with a GPU, the device tests must run: all skipped means they found none.
    record gpu-tests ctest failed "$took" "$summary: every gpu-labelled test skipped: $(grep -s -m1 -A1 ': Skipped$' "$state/items/gpu-tests/junit.xml" | tail -n1)"
  elif ((rc == 0)); then
    record gpu-tests ctest passed "$took" "$summary"
  else
    record gpu-tests ctest failed "$took" "$summary; failed: $(sed -n '/The following tests FAILED/,/^$/p' "$log" | grep -oE '[^ ]+ \((Failed|Timeout|SEGFAULT|Subprocess[^)]*|Not Run|Exception)[^)]*\)' | tr '\n' ' ')"
  fi
}

# (c) compute-sanitizer, one tool per stage: every shipped scene with every solver, a few
# steps of a small count each, spray and foam as the scene has them.
sanitizer() {
  command -v compute-sanitizer 2>/dev/null ||
    { [[ -x ${nvcc%/nvcc}/compute-sanitizer ]] && echo "${nvcc%/nvcc}/compute-sanitizer"; } ||
    { [[ -x /usr/local/cuda/bin/compute-sanitizer ]] && echo /usr/local/cuda/bin/compute-sanitizer; } ||
    true
}
stage_sanitizer() {
  local tool=$1 cs scene solver item errors warnings reason='' status
  local unsupported='not supported|unsupported|not available|cannot be enabled|not enabled'
  cs=$(sanitizer)
  if [[ -z $cs ]]; then
    [[ -n $dry_run ]] && cs=compute-sanitizer
  fi
  for scene in "${scenes[@]}"; do
    for solver in "${solvers[@]}"; do
      item=$scene-$solver
      item_done "$tool" "$item" && continue
      if [[ -z $cs ]]; then record "$tool" "$item" unavailable 0 "compute-sanitizer not found"; continue; fi
      if [[ -n $reason ]]; then record "$tool" "$item" unavailable 0 "$reason"; continue; fi
      run_item "$tool" "$item" "$san_timeout" env TIDEPOOL_CUDA_SYNC=1 "$cs" --tool "$tool" \
        --error-exitcode 86 --print-limit 20 \
        "$bin/tidepool" --headless --backend cuda --scene "$scene" --solver "$solver" \
        --particles "$san_particles" --steps "$san_steps"
      status=$?
      if ((status == 1)); then continue; elif ((status == 2)); then return 2; fi
      errors=$(grep -oE '(ERROR SUMMARY: [0-9]+|\([0-9]+ errors)' "$log" | grep -oE '[0-9]+' | tail -n1 || true)
      warnings=$(grep -oE '[0-9]+ warnings\)' "$log" | grep -oE '[0-9]+' | tail -n1 || true)
      # The sanitizer's own lines start with =========. An error of its own saying that the
      # device or the tool is not supported (or such a line in a run that ended without the
      # tool's summary) makes the tool unavailable here, not the run failed.
      if grep -qiE "^=+ error.*($unsupported)" "$log" ||
         { [[ -z $errors ]] && ((rc != 0)) && grep -qiE "^=+ .*($unsupported)" "$log"; }; then
        reason="$tool unavailable here: $(grep -m1 -iE "^=+ .*($unsupported)" "$log" | sed 's/^=* *//')"
        record "$tool" "$item" unavailable "$took" "$reason"
      elif ((rc == 124 || rc == 137)); then
        record "$tool" "$item" timeout "$took" "no end within ${san_timeout}s"
      elif [[ -n $errors && $errors != 0 ]]; then
        record "$tool" "$item" failed "$took" "$errors errors: $(grep -m1 -E '^========= (Invalid|Race|Uninitialized|Barrier|Program hit|Error|Host API|Saved host)' "$log" | sed 's/^=* *//')"
      elif ((rc != 0)); then
        record "$tool" "$item" failed "$took" "exit $rc: $(grep -v '^=====' "$log" | tail -n1)"
      else
        record "$tool" "$item" passed "$took" "0 errors${warnings:+, $warnings warnings}"
      fi
    done
  done
}

# (d) The bench matrix: for each size, the three solvers at their defaults and PBF at the
# realtime quality, on the CPU (all cores) and on CUDA. One invocation per size and setting.
stage_bench() {
  local i size steps setting item json args status detail
  [[ -n $dry_run ]] || mkdir -p "$state/bench"
  for i in "${!bench_sizes[@]}"; do
    size=${bench_sizes[i]}
    steps=${bench_steps[i]:-${bench_steps[-1]}}
    for setting in defaults realtime-pbf; do
      item=$size-$setting
      item_done bench "$item" && continue
      json=$state/bench/$item.json
      if [[ $setting == defaults ]]; then args=(--solver "wcsph,pcisph,pbf,dfsph")
      else args=(--solver pbf --quality realtime); fi
      run_item bench "$item" 570 "$bin/tidepool" --bench --backend cpu,cuda "${args[@]}" \
        --particles "$size" --steps "$steps" --bench-json "$json"
      status=$?
      if ((status == 1)); then continue; elif ((status == 2)); then return 2; fi
      detail=$(bench_summary "$json")
      if ((rc == 0)) && [[ $detail != *skipped* && $detail != *failed* && $detail == *complete* ]]; then
        record bench "$item" passed "$took" "$detail"
      elif ((rc == 124 || rc == 137)); then
        record bench "$item" timeout "$took" "no end within 570s; $detail"
      elif ((rc == 0)); then
        record bench "$item" failed "$took" "$detail"
      else
        record bench "$item" failed "$took" "exit $rc; $detail; $(tail -n1 "$log")"
      fi
    done
  done
}
bench_summary() {
  [[ -f $1 ]] || { echo "no JSON written"; return 0; }
  if ! command -v python3 >/dev/null; then
    if grep -q '"complete": true' "$1"; then echo "complete"; else echo "incomplete"; fi
    return 0
  fi
  python3 - "$1" <<'EOF' 2>/dev/null || echo "unreadable JSON"
import json, sys
d = json.load(open(sys.argv[1]))
runs = d.get("runs", [])
count = {}
for r in runs:
    count[r.get("status")] = count.get(r.get("status"), 0) + 1
words = ["%d %s" % (n, s) for s, n in sorted(count.items())]
reasons = sorted({r.get("reason") for r in runs if r.get("reason")})
print(", ".join(words) + ("; complete" if d.get("complete") else "; incomplete") +
      ("; " + "; ".join(reasons) if reasons else ""))
EOF
}

# (e) CUDA-GL interop in a real GL context: on this display, or under Xvfb (Mesa's GLX, the
# host fallback; then NVIDIA's GLX client, the device path where the driver allows it), or
# without a display through EGL (NVIDIA's EGL device: the device path, where the driver's
# EGL libraries are there; not yet run on a lent machine).
stage_interop() {
  local exe=$bin/tp_gpu_app_tests item status display= egl_vendor=
  if [[ ! -x $exe && -z $dry_run ]]; then
    record interop tp_gpu_app_tests skipped 0 "not built (needs the app: TIDEPOOL_BUILD_APP=ON)"
    return 0
  fi
  local runs=()
  interop_total=1
  if [[ -n ${DISPLAY:-} ]]; then
    runs=(display)
  else
    # No X: OpenGL through EGL (tests/app/egl_context.h), on NVIDIA's device where the driver
    # has its EGL libraries (Xvfb's GLX is Mesa's, so only EGL can give the device path here).
    # GLVND finds a vendor by a file that the driver's installer writes; a machine given the
    # driver's libraries without one (some containers) gets one for this run (GLVND skips a
    # vendor whose library does not load, and the test then says why it skipped).
    runs=(egl)
    if command -v xvfb-run >/dev/null && command -v Xvfb >/dev/null; then
      runs=(xvfb-mesa xvfb-nvidia-glx egl)
      interop_total=3
    fi
    if ! compgen -G '/usr/share/glvnd/egl_vendor.d/*nvidia*.json' >/dev/null &&
       ! compgen -G '/etc/glvnd/egl_vendor.d/*nvidia*.json' >/dev/null; then
      egl_vendor=$state/egl/10_nvidia.json
      if [[ -n $dry_run ]]; then
        echo "# no NVIDIA EGL vendor file here: the egl run gets $egl_vendor (libEGL_nvidia.so.0)"
      else
        mkdir -p "$state/egl"
        printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "libEGL_nvidia.so.0"}}\n' > "$egl_vendor"
      fi
    fi
  fi
  for item in "${runs[@]}"; do
    item_done interop "$item" && continue
    local cmd=("$exe" "--gtest_output=json:$state/items/interop/$item.json")
    case $item in
      xvfb-mesa) cmd=(xvfb-run -a -s "-screen 0 1280x1024x24" "${cmd[@]}") ;;
      xvfb-nvidia-glx) cmd=(env __GLX_VENDOR_LIBRARY_NAME=nvidia xvfb-run -a -s "-screen 0 1280x1024x24" "${cmd[@]}") ;;
      egl) cmd=(env -u DISPLAY ${egl_vendor:+__EGL_VENDOR_LIBRARY_FILENAMES=$egl_vendor} "${cmd[@]}") ;;
    esac
    run_item interop "$item" 300 "${cmd[@]}"
    status=$?
    if ((status == 1)); then continue; elif ((status == 2)); then return 2; fi
    display=$(grep -m1 -iE 'GL_RENDERER|renderer' "$log" || true)
    if ((rc != 0)); then
      record interop "$item" failed "$took" "exit $rc: $(grep -m1 -E '^\[  FAILED  \]' "$log" || tail -n1 "$log")"
    elif grep -qE '^\[  PASSED  \] [1-9]' "$log" && ! grep -qE '^\[  SKIPPED \] [0-9]+ test' "$log"; then
      record interop "$item" passed "$took" "$(grep -m1 -E '^\[  PASSED  \]' "$log")${display:+; $display}"
    else
      record interop "$item" skipped "$took" "$(grep -m1 -A1 -E ': Skipped$' "$log" | tail -n1)"
    fi
  done
}

# (f) The report, from everything recorded so far.
stage_report() {
  if [[ -n $dry_run ]]; then show python3 scripts/gpu_check_report.py "$state"; return 0; fi
  if command -v python3 >/dev/null; then
    python3 scripts/gpu_check_report.py "$state"
  else
    { echo "# GPU check (python3 missing: stage markers only)"; echo
      for s in "${all_stages[@]}"; do echo "- $s: $(stage_status "$s")"; done; } > "$state/report.md"
    echo '{"note": "python3 missing"}' > "$state/report.json"
  fi
}

# A stage's status from its items' results.
summarise_stage() {
  local stage=$1 total=$2 f s n=0 failed=0 passed=0 skipped=0 unavailable=0
  for f in "$state/items/$stage"/*.result; do
    [[ -f $f ]] || continue
    n=$((n + 1)); s=$(cut -f1 "$f")
    case $s in
      passed) passed=$((passed + 1)) ;;
      skipped) skipped=$((skipped + 1)) ;;
      unavailable) unavailable=$((unavailable + 1)) ;;
      *) failed=$((failed + 1)) ;;
    esac
  done
  local note="$passed passed, $failed failed, $skipped skipped, $unavailable unavailable of $total"
  if ((n < total)); then set_stage "$stage" partial "$note"
  elif ((failed > 0)); then set_stage "$stage" failed "$note"
  elif ((unavailable == n)); then set_stage "$stage" unavailable "$note"
  elif ((passed == 0 && skipped > 0)); then set_stage "$stage" skipped "$note"
  else set_stage "$stage" passed "$note"
  fi
}

run_stage() {
  local stage=$1 result=0 total
  stage_deadline=$(($(now) + stage_limit))
  if [[ -n $dry_run ]]; then
    echo; echo "# stage $stage"
  elif [[ $stage != report ]]; then
    say "stage $stage"
    # Named again after it finished: start it afresh (a partial stage goes on instead).
    if stage_done "$stage"; then rm -rf "$state/items/$stage" "$state/stages/$stage.seconds"; fi
    rm -f "$state/stages/$stage.status"
  fi
  case $stage in
    build) stage_build || result=$?; total=2 ;;
    gpu-tests) stage_gpu_tests || result=$?; total=1 ;;
    memcheck|racecheck|initcheck|synccheck) stage_sanitizer "$stage" || result=$?
                                            total=$((${#scenes[@]} * ${#solvers[@]})) ;;
    bench) stage_bench || result=$?; total=$((${#bench_sizes[@]} * 2)) ;;
    interop) stage_interop || result=$?; total=$interop_total ;;
    report) stage_report; return 0 ;;
  esac
  [[ -n $dry_run ]] && return 0
  summarise_stage "$stage" "$total"
  if ((result == 1)) && [[ $(stage_status "$stage") == partial ]]; then
    set_stage "$stage" failed "$(sed -n 's/^note=//p' "$state/stages/$stage.status")"
  fi
  if ((result == 2)); then
    say "stage $stage: time is up ($(stage_status "$stage")); run again to go on"
    return 2
  fi
  say "stage $stage: $(stage_status "$stage") ($(sed -n 's/^note=//p' "$state/stages/$stage.status"))"
  [[ $(stage_status "$stage") != failed ]] || return 1
}

list_stages() {
  local s
  for s in "${all_stages[@]}"; do
    if [[ $s == report ]]; then
      [[ -f $state/report.md ]] && printf '%-10s %s\n' report "$state/report.md"
      continue
    fi
    printf '%-10s %-12s %s\n' "$s" "$(stage_status "$s" | sed 's/^$/not run/')" \
      "$(sed -n 's/^note=//p' "$state/stages/$s.status" 2>/dev/null)"
  done
}

# ---- main ---------------------------------------------------------------------------------

if [[ -n $list_only ]]; then list_stages; exit 0; fi
if [[ -n $from_scratch ]]; then
  if [[ -n $dry_run ]]; then show rm -rf "$state"; else rm -rf "$state"; say "forgot every stage ($state)"; fi
fi

stages=()
if ((${#requested[@]})); then
  for s in "${all_stages[@]}"; do [[ " ${requested[*]} " == *" $s "* ]] && stages+=("$s"); done
else
  for s in "${all_stages[@]}"; do
    if [[ -n $dry_run || $s == report ]] || ! stage_done "$s"; then stages+=("$s"); fi
  done
fi
[[ " ${stages[*]} " == *" report "* ]] || stages+=(report)
# Every stage but the report needs the build: build first when it is not done.
if [[ " ${stages[*]} " != " report " && " ${stages[*]} " != *" build "* ]] && ! stage_done build; then
  stages=(build "${stages[@]}")
fi

if [[ -n $dry_run ]]; then
  echo "# gpu_check --dry-run: the commands of each stage; nothing is run"
  echo "# stages: ${stages[*]}"
fi
if [[ " ${stages[*]} " != " report " ]]; then
  require_gpu
  use_bundle
fi
[[ -n $dry_run ]] || mkdir -p "$state"

exit_code=0
for s in "${stages[@]}"; do
  if [[ $s != report && -z $dry_run ]]; then
    if (($(invocation_left) < 30)); then
      say "stopping: the --max-seconds budget ($max_seconds s) is spent; run again for the rest"
      exit_code=3
      break
    fi
    if [[ $s != build ]] && ! stage_done build; then
      say "stage $s: not run, the build has not succeeded"
      exit_code=1
      continue
    fi
  fi
  if run_stage "$s"; then :; else
    case $? in
      2) exit_code=3; break ;;
      *) exit_code=1 ;;
    esac
  fi
done
if ((exit_code == 3)); then run_stage report; fi

if [[ -z $dry_run ]]; then
  if [[ -n $copy_to ]]; then
    mkdir -p "$copy_to"
    cp "$state/report.md" "$state/report.json" "$copy_to/" 2>/dev/null || true
    tar -czf "$copy_to/logs.tar.gz" -C "$build" gpu_check 2>/dev/null || true
    say "copied the report and logs.tar.gz to $copy_to"
  fi
  say "report: $state/report.md and $state/report.json"
  if ((exit_code == 3)); then
    say "not finished: run scripts/gpu_check.sh again to go on where it stopped"
  fi
fi
exit "$exit_code"
