#!/bin/bash
# Device call 2 (a fresh machine): build, the gpu tests (the energy check's new span), then
# initcheck on two scenes and every solver (the scans' last entry now written), the
# asynchronous step's bench on CUDA, and synccheck with what is left.
set -u
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
scripts/gpu_check.sh --max-seconds 250 --copy-to "$OUT" build gpu-tests
echo "build + gpu-tests: exit $? at $(el) s"
source build-gpu/gpu_check/env.sh
GPU_CHECK_SCENES=dam_break,floating scripts/gpu_check.sh --max-seconds 60 --copy-to "$OUT" initcheck
echo "initcheck: exit $? at $(el) s"
B=build-gpu/bin/tp_bench_async
{
  for n in 30000 250000 1000000; do timeout 30 $B --backend cuda --particles $n --seconds 3 --solver pbf; done
  timeout 30 $B --backend cuda --particles 250000 --seconds 3 --solver dfsph --quality accurate
} 2>&1 | tee "$OUT/async.txt"
echo "async bench done at $(el) s"
left=$(( 400 - $(el) ))
if (( left > 20 )); then
  GPU_CHECK_SCENES=dam_break,floating,boat,floating_2d scripts/gpu_check.sh --max-seconds $left --copy-to "$OUT" synccheck
  echo "synccheck: exit $? at $(el) s"
fi
echo "call 2 took $(el) s"
