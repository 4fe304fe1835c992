#!/bin/bash
# Device call (fresh machine), 2026-12-04 evening: build for this GPU, gpu tests, CUDA bench
# (first), then the sanitizers on the scenes with obstacles and bodies (the boxes stored side by
# side since 90a07dd never ran on a device) and on scenes without bodies, with what is left.
set -u
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi -L; nproc
GPU_CHECK_BENCH_SIZES=30000,1000000 GPU_CHECK_BENCH_STEPS=200,40 \
  scripts/gpu_check.sh --max-seconds 300 --copy-to "$OUT" first
echo "gpu_check first: exit $? at $(el) s"
source build-gpu/gpu_check/env.sh
for tool in memcheck initcheck; do
  left=$(( 430 - $(el) ))
  (( left > 15 )) || break
  GPU_CHECK_SCENES=obstacles,floating,boat,cup,water_wheel,pool,drop_into_pool_2d,fountain \
    scripts/gpu_check.sh --max-seconds $left --copy-to "$OUT" $tool
  echo "$tool: exit $? at $(el) s"
done
scripts/gpu_check.sh --copy-to "$OUT" report >/dev/null 2>&1
echo "call took $(el) s"
