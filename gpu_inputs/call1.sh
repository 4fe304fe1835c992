#!/bin/bash
# Device call 1 (fresh machine): the GPU check's first part (build for this GPU, gpu tests,
# CUDA bench up to a million), a CUDA replay of a CPU-recorded session, then initcheck on two
# scenes and every solver (the two causes fixed after the last check) with what is left.
set -u
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi -L; nproc
GPU_CHECK_BENCH_SIZES=30000,250000,1000000 GPU_CHECK_BENCH_STEPS=200,100,40 \
  scripts/gpu_check.sh --max-seconds 300 --copy-to "$OUT" first
echo "gpu_check first: exit $? at $(el) s"
source build-gpu/gpu_check/env.sh
for b in cuda cpu; do
  { time timeout 60 build-gpu/bin/tidepool --replay gpu_inputs/tp_emulated.tpsession --headless --backend $b; } > "$OUT/replay_$b.txt" 2>&1
  tail -4 "$OUT/replay_$b.txt"
done
left=$(( 375 - $(el) ))
echo "initcheck with $left s left"
if (( left > 30 )); then
  GPU_CHECK_SCENES=dam_break,floating scripts/gpu_check.sh --max-seconds $left --copy-to "$OUT" initcheck
  echo "initcheck: exit $?"
fi
echo "call 1 took $(el) s"
