#!/usr/bin/env bash
# ThreadSanitizer on the CPU backend's parallel code (OpenMP), on request (not in CI: a
# TSan build and run takes a while). GCC's libgomp is not instrumented and gives false
# reports, so this builds with clang and LLVM's OpenMP runtime (libomp), whose Archer tool
# (libarcher.so, loaded through OMP_TOOL_LIBRARIES) tells TSan about OpenMP's barriers,
# locks and tasks. Installs clang and libomp-dev when missing.
#   scripts/tsan.sh                  the unit and physics tests of tp_tests (label unit)
#                                    but the longest physics runs (label unit-heavy)
#   scripts/tsan.sh -R Pbf           ctest arguments instead, e.g. a subset
# Any report fails the test (halt_on_error). Build directory: build-tsan.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TIDEPOOL_BUILD_DIR:-build-tsan}
CC=clang CXX=clang++ TIDEPOOL_CUDA=OFF TIDEPOOL_SANITIZE=thread TIDEPOOL_BUILD_DIR="$build" \
  TIDEPOOL_EXTRA_PACKAGES="clang libomp-dev" TIDEPOOL_CMAKE_ARGS=-DTIDEPOOL_BUILD_APP=OFF \
  TIDEPOOL_TARGETS=tp_tests scripts/setup.sh test
archer=$(clang++ -print-resource-dir)/../../libarcher.so
if [[ ! -f $archer ]]; then
  echo "tidepool: $archer not found (Debian: libomp-dev); without it TSan reports OpenMP's own synchronisation" >&2
  exit 1
fi
export OMP_TOOL_LIBRARIES=$archer ARCHER_OPTIONS=verbose=1
# libomp itself is not instrumented: what it does to its own memory is not ours to check
# (Archer asks for ignore_noninstrumented_modules; without it TSan reports libomp's memsets).
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ignore_noninstrumented_modules=1 ${TSAN_OPTIONS:-}"
# Two threads at least, so that the parallel loops really run in parallel.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
if (($#)); then
  exec ctest --test-dir "$build" --output-on-failure "$@"
fi
exec ctest --test-dir "$build" --output-on-failure -L unit -LE heavy -E _NOT_BUILT
