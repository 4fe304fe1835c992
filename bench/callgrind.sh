#!/usr/bin/env bash
# Instruction counts of a fixed, small, deterministic run of each solver under callgrind:
# a figure that does not move with the machine's load, for comparing two versions of the
# code (docs/bench-mode.md). Builds nothing.
#
#   bench/callgrind.sh BUILD_DIR [OUT_DIR]
#
# BUILD_DIR must hold bin/tidepool and its data (cmake --build BUILD_DIR --target tidepool
# tp_data). Valgrind 3.19 cannot decode AVX-512, so a build with TIDEPOOL_NATIVE=ON on a
# CPU that has it stops at the first such instruction: use a build without it, e.g.
#   cmake -S . -B build-cg -DCMAKE_BUILD_TYPE=Release -DTIDEPOOL_CUDA=OFF -DTIDEPOOL_BUILD_TESTS=OFF
#   cmake --build build-cg -j2 --target tidepool tp_data
#   bench/callgrind.sh build-cg
#
# The run (fixed; change it and the figures are no longer comparable):
#   tidepool --headless --scene dam_break --particles 2000 --steps 20 --threads 1
#            --set diffuse=0 --solver S            for S in wcsph pcisph pbf
# (2,028 particles; about 10-25 s each under valgrind on one core.)
#
# Printed per solver: total Ir of the whole process (start-up, scene, report included), Ir
# inside SimulationImpl::step() (inclusive), that per particle and step, and the five
# functions with the most Ir of their own (exclusive). The callgrind files stay in OUT_DIR
# (default: a new directory under /tmp) for callgrind_annotate or kcachegrind.
set -euo pipefail

PARTICLES=2000
STEPS=20
SOLVERS=(wcsph pcisph pbf)

usage() { echo "usage: $0 BUILD_DIR [OUT_DIR]" >&2; exit 2; }
[[ $# -ge 1 && $# -le 2 ]] || usage
build=$1
exe=$build/bin/tidepool
[[ -x $exe ]] || { echo "$0: $exe not found: build the tidepool target in $build first" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "$0: valgrind not found (apt-get install valgrind)" >&2; exit 2; }
command -v callgrind_annotate >/dev/null || { echo "$0: callgrind_annotate not found (it comes with valgrind)" >&2; exit 2; }
if grep -q '^TIDEPOOL_NATIVE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null && grep -qw avx512f /proc/cpuinfo; then
  echo "$0: $build was built with TIDEPOOL_NATIVE=ON on an AVX-512 CPU, which valgrind cannot" >&2
  echo "run; configure a build without it (see the top of this script)." >&2
  exit 2
fi
out=${2:-$(mktemp -d /tmp/tidepool-callgrind.XXXXXX)}
mkdir -p "$out"

# A callgrind_annotate function name, shortened for the table: no object file, no
# namespace, no backend template argument, no lambda call operators.
short_name() {
  sed -e 's/ \[[^]]*\]$//' -e 's/^[^:]*:\([^:]\)/\1/' -e 's/^???://' \
      -e 's/tp::CpuBackend//g' -e 's/tp::SimulationImpl<>&//g' -e 's/tp:://g' -e 's/<>//g' \
      -e 's/::operator()(unsigned int) const//g' -e 's/::operator()() const//g' \
      -e 's/(unsigned int)/(uint)/g' \
      -e 's/^void ::for_each<\(.*\)>(unsigned int, .*) \[clone \._omp_fn\.[0-9]*\]$/for_each<\1> (OpenMP loop)/'
}

commas() { printf '%s' "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta'; }

declare -A total step particles top
for solver in "${SOLVERS[@]}"; do
  file=$out/callgrind.$solver.out
  echo "callgrind: $solver ..." >&2
  valgrind --tool=callgrind --callgrind-out-file="$file" --log-file="$out/valgrind.$solver.log" \
    "$exe" --headless --scene dam_break --particles "$PARTICLES" --steps "$STEPS" --threads 1 \
    --set diffuse=0 --solver "$solver" --report "$out/report.$solver.json" \
    >"$out/stdout.$solver.log" 2>"$out/stderr.$solver.log" ||
    { echo "$0: the $solver run failed; see $out/valgrind.$solver.log" >&2; exit 1; }
  total[$solver]=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$file")
  particles[$solver]=$(sed -n 's/^ *"particles": *\([0-9]*\).*/\1/p' "$out/report.$solver.json")
  # To files first: a pipe that stops reading early would fail the script (pipefail).
  callgrind_annotate --inclusive=yes "$file" >"$out/annotate.$solver.inclusive.txt"
  callgrind_annotate --threshold=100 "$file" >"$out/annotate.$solver.txt"
  step[$solver]=$(awk '/SimulationImpl<tp::CpuBackend>::step\(\)/ {gsub(",", "", $1); print $1; exit}' \
                  "$out/annotate.$solver.inclusive.txt")
  top[$solver]=$(awk '/file:function/ {on = 1; getline; next} on && NF && n < 5 {print; n++}' \
                   "$out/annotate.$solver.txt" |
                 sed -e 's/^ *\([0-9,]*\) *(\([ 0-9.]*%\)) *\(.*\)$/\1\t\2\t\3/' |
                 while IFS=$'\t' read -r ir pct name; do
                   printf '    %15s %7s  %s\n' "$ir" "$pct" "$(printf '%s' "$name" | short_name)"
                 done)
done

echo
echo "callgrind, dam_break, $STEPS steps, --particles $PARTICLES, 1 thread, diffuse off ($(valgrind --version))"
printf '%-7s %9s %6s %16s %16s %14s\n' solver particles steps "total Ir" "step() Ir" "Ir/particle-step"
for solver in "${SOLVERS[@]}"; do
  per=$(awk -v s="${step[$solver]}" -v n="${particles[$solver]}" -v k="$STEPS" 'BEGIN {printf "%.0f", s / (n * k)}')
  printf '%-7s %9s %6s %16s %16s %14s\n' "$solver" "${particles[$solver]}" "$STEPS" \
    "$(commas "${total[$solver]}")" "$(commas "${step[$solver]}")" "$(commas "$per")"
done
for solver in "${SOLVERS[@]}"; do
  echo
  echo "$solver: top 5 functions by Ir (exclusive)"
  echo "${top[$solver]}"
done
echo
echo "callgrind files: $out"
