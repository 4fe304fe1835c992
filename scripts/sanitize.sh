#!/usr/bin/env bash
# The unit and physics tests built with AddressSanitizer and UndefinedBehaviorSanitizer (CPU
# only, no app): any report fails them. With them the emulated CUDA device
# (tests/test_emulated_device.cpp: the CUDA backend's own code compiled by g++ against a host
# shim of the runtime, its device memory poisoned for ASan outside the backend's loops and
# copies): every shipped scene on every solver against the CPU backend, and its failure paths.
# The longest physics runs (label unit-heavy) are left out. On request: about 40 minutes on
# 2 cores (the build alone 15 to 20), too long for CI's budget (docs/testing.md).
# Arguments go to ctest, e.g. scripts/sanitize.sh -R Emulated.
set -euo pipefail
cd "$(dirname "$0")/.."
TIDEPOOL_CUDA=OFF TIDEPOOL_SANITIZE=address,undefined TIDEPOOL_BUILD_DIR=build-asan \
  TIDEPOOL_CMAKE_ARGS="-DTIDEPOOL_BUILD_APP=OFF -DTIDEPOOL_CUDA_EMULATED=ON" \
  TIDEPOOL_TARGETS="tp_tests tp_alloc_tests tp_emulated_tests" scripts/setup.sh test
# 6,000 fuzzed scenes of each kind rather than 60,000: the sanitizers make each one ten
# times slower, and the fuzz label runs libFuzzer under them (tests/fuzz).
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 TIDEPOOL_SCENE_FUZZ=6000
if (($#)); then
  exec ctest --test-dir build-asan --output-on-failure -j 2 "$@"
fi
exec ctest --test-dir build-asan --output-on-failure -L unit -LE heavy -j 2
