#!/bin/bash
# Device call (fresh machine): build, the gpu tests (the runner's thread on the device), then
# tp_bench_async with the thread publishing only the states a frame takes (was: every step).
set -u
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
scripts/gpu_check.sh --max-seconds 230 --copy-to "$OUT" build gpu-tests
echo "build + gpu-tests: exit $? at $(el) s"
source build-gpu/gpu_check/env.sh
B=build-gpu/bin/tp_bench_async
{
  for n in 30000 250000 1000000; do timeout 30 $B --backend cuda --particles $n --seconds 3 --solver pbf; done
  timeout 30 $B --backend cuda --particles 250000 --seconds 3 --solver dfsph --quality accurate
  timeout 40 $B --backend cuda --particles 4000000 --seconds 3 --solver pbf
} 2>&1 | tee "$OUT/async.txt"
echo "async bench done at $(el) s"
echo "call took $(el) s"
