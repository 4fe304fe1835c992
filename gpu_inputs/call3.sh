#!/bin/bash
# Device call 3 (a fresh machine): build, then initcheck on the scenes with bodies and every
# solver (SumMax's padding now a member), memcheck on the same with what is left.
set -u
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
scripts/gpu_check.sh --max-seconds 150 --copy-to "$OUT" build
echo "build: exit $? at $(el) s"
S=dam_break,floating,boat,floating_2d,cup,water_wheel
for tool in initcheck memcheck; do
  left=$(( 200 - $(el) ))
  (( left > 10 )) || break
  GPU_CHECK_SCENES=$S scripts/gpu_check.sh --max-seconds $left --copy-to "$OUT" $tool
  echo "$tool: exit $? at $(el) s"
done
echo "call 3 took $(el) s"
