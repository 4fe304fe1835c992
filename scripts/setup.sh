#!/usr/bin/env bash
# Shared set-up for ./run.sh and ./test.sh: install the Debian packages that are missing
# (with sudo when not root), then configure and build a Release build in build/.
#   scripts/setup.sh app     packages to build and run the app
#   scripts/setup.sh test    the same plus what the tests need (Xvfb, xdotool)
# Environment: TIDEPOOL_CUDA (AUTO|ON|OFF, default AUTO), TIDEPOOL_CUDA_ARCHITECTURES (default:
# native, this GPU's only, when nvidia-smi lists one; else CMakeLists.txt's list),
# TIDEPOOL_BUILD_DIR (default build), TIDEPOOL_JOBS (default: all cores), TIDEPOOL_SANITIZE
# (e.g. address,undefined; docs/testing.md), TIDEPOOL_TARGETS (only these targets, e.g.
# "tp_tests tp_alloc_tests"), TIDEPOOL_EXTRA_PACKAGES (more Debian packages, e.g. clang),
# TIDEPOOL_CMAKE_ARGS (more configure arguments, e.g. -DTIDEPOOL_BUILD_APP=OFF), TIDEPOOL_CCACHE
# (0: do not compile through ccache even when it is installed).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-app}
packages=(cmake g++ pkg-config libglfw3-dev libglm-dev libimgui-dev libstb-dev python3-glad
          nlohmann-json3-dev libtinyobjloader-dev libgtest-dev libgl-dev libx11-dev libbullet-dev
          libxrandr2 libxcursor1 libxi6 libxinerama1 ffmpeg)
if [[ $mode == test ]]; then
  packages+=(xvfb xauth xdotool x11-utils libgl1-mesa-dri libegl-dev python3-numpy)
fi
read -r -a extra <<< "${TIDEPOOL_EXTRA_PACKAGES:-}"
packages+=("${extra[@]}")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "tidepool: installing missing packages: ${missing[*]}"
  if ! command -v apt-get >/dev/null; then
    echo "tidepool: apt-get not found; install these packages with your package manager and rerun." >&2
    exit 1
  fi
  sudo=()
  if [[ $(id -u) != 0 ]]; then
    command -v sudo >/dev/null || { echo "tidepool: need root or sudo to install packages" >&2; exit 1; }
    sudo=(sudo)
  fi
  # The variable goes after sudo: sudo resets the environment.
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

build=${TIDEPOOL_BUILD_DIR:-build}
jobs=${TIDEPOOL_JOBS:-$(nproc)}
# A local build for this machine: -march=native (an installable, portable build leaves
# TIDEPOOL_NATIVE at its default, OFF).
args=(-DCMAKE_BUILD_TYPE=Release -DTIDEPOOL_CUDA="${TIDEPOOL_CUDA:-AUTO}" -DTIDEPOOL_NATIVE=ON)
# CUDA architectures: the user's TIDEPOOL_CUDA_ARCHITECTURES; else, when a GPU is here and
# the CUDA backend can be built, that GPU's only (CMake's "native": one device pass instead
# of the default list's six); else CMake's default list (every GPU from sm_75).
gpus=$(nvidia-smi -L 2>/dev/null || true)  # "GPU 0: NVIDIA ... (UUID: ...)" per GPU
gpu=$(grep -m1 '^GPU ' <<< "$gpus" || true)
gpu=${gpu#GPU *: }
if [[ -n ${TIDEPOOL_CUDA_ARCHITECTURES:-} ]]; then
  args+=(-DTIDEPOOL_CUDA_ARCHITECTURES="$TIDEPOOL_CUDA_ARCHITECTURES")
elif [[ -n $gpu && ${TIDEPOOL_CUDA:-AUTO} != OFF ]] &&
     { [[ -n ${CUDACXX:-} ]] || [[ -x /usr/local/cuda/bin/nvcc ]] || command -v nvcc >/dev/null; }; then
  more=$(( $(grep -c '^GPU ' <<< "$gpus") - 1 ))
  ((more > 0)) && gpu="${gpu% (UUID*} and $more more" || gpu=${gpu% (UUID*}
  echo "tidepool: building the CUDA backend for the GPU(s) here only ($gpu):" \
       "architectures native; set TIDEPOOL_CUDA_ARCHITECTURES for others"
  args+=(-DTIDEPOOL_CUDA_ARCHITECTURES=native)
elif grep -qs '^TIDEPOOL_CUDA_ARCHITECTURES:STRING=native$' "$build/CMakeCache.txt"; then
  args+=(-UTIDEPOOL_CUDA_ARCHITECTURES)  # built for a GPU no longer here: the default again
fi
args+=(-DTIDEPOOL_SANITIZE="${TIDEPOOL_SANITIZE:-}")
# ccache when it is installed (TIDEPOOL_CCACHE=0: never): a rebuild after a small change,
# and a second build directory of the same sources (CI's CPU-only and full builds), compile
# only what differs. Paths under the checkout are hashed relative to it, so that build
# directories and clones share.
if [[ ${TIDEPOOL_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
  args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
else
  args+=(-UCMAKE_C_COMPILER_LAUNCHER -UCMAKE_CXX_COMPILER_LAUNCHER)
fi
read -r -a more_args <<< "${TIDEPOOL_CMAKE_ARGS:-}"
args+=("${more_args[@]}")
targets=()
if [[ $mode == test ]]; then
  args+=(-DTIDEPOOL_BUILD_TESTS=ON)
  [[ -n ${TIDEPOOL_TARGETS:-} ]] && read -r -a targets <<< "--target $TIDEPOOL_TARGETS"
else
  args+=(-DTIDEPOOL_BUILD_TESTS=OFF)  # the app alone builds much faster
  targets=(--target tidepool tp_data)
fi
# Configure quietly but keep Tidepool's own lines (which backends, how to get CUDA).
cmake -S . -B "$build" "${args[@]}" | grep "Tidepool:" || true
cmake --build "$build" -j "$jobs" "${targets[@]}"
