#!/usr/bin/env bash
# The window benchmark's table (docs/benchmarks.md, "The window"): the real app under
# Xvfb (Mesa's llvmpipe) at 1280x800, the default scene, every solver x render mode at the
# default (realtime) quality, and the default itself, each run three times for SECONDS of
# wall time with a scripted left drag half-way; prints the medians as a Markdown table.
#   bench/window.sh [SECONDS] [extra tidepool options...]   (default 20 s)
# Needs a build (./run.sh or scripts/setup.sh app) and xvfb-run. A benchmark: it prints
# figures and passes or fails nothing. Run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
shift || true
bin=${TIDEPOOL_BUILD_DIR:-build}/bin/tidepool
[[ -x $bin ]] || { echo "window.sh: $bin not found; build first (scripts/setup.sh app)" >&2; exit 1; }
command -v xvfb-run >/dev/null || { echo "window.sh: xvfb-run not found (Debian: xvfb)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

configs=("default|" "wcsph spheres|--solver wcsph" "pcisph spheres|--solver pcisph"
         "pbf spheres|--solver pbf" "wcsph surface|--solver wcsph --render surface"
         "pcisph surface|--solver pcisph --render surface" "pbf surface|--solver pbf --render surface"
         "pbf surface, spheres|--solver pbf --render surface --surface-anisotropic off"
         "pbf mesh|--solver pbf --render mesh")
for run in 1 2 3; do  # interleaved, so that a slow spell of the machine spreads over all rows
  for k in "${!configs[@]}"; do
    args=${configs[$k]#*|}
    # shellcheck disable=SC2086
    xvfb-run -a -s "-screen 0 1280x800x24" "$bin" --size 1280x800 --bench-window "$seconds" \
      --bench-drag --bench-json "$out/$k-$run.json" $args "$@" >"$out/$k-$run.log" 2>&1 ||
      { echo "window.sh: run failed:"; cat "$out/$k-$run.log"; exit 1; } >&2
    echo "window.sh: ${configs[$k]%%|*}, run $run: $(grep -o '[0-9.]* simulated s per wall s' "$out/$k-$run.log")" >&2
  done
done

python3 - "$out" "${configs[@]}" <<'PY'
import json, statistics, sys
out, configs = sys.argv[1], sys.argv[2:]
def med(rows, key, default=float("nan")):
    vals = [r[key] for r in rows if key in r]
    return statistics.median(vals) if vals else default
print("| run | particles | frames/s (p5) | frame ms p50 / p95 | states/s | sim s per wall s | press to force (ms) | ms per step | render passes ms (GPU) |")
print("|---|---|---|---|---|---|---|---|---|")
for k, config in enumerate(configs):
    name = config.split("|")[0]
    rows = [json.load(open(f"{out}/{k}-{r}.json")) for r in (1, 2, 3)]
    step = statistics.median(sum(r["phase_ms_per_step"].values()) for r in rows)
    passes = statistics.median(sum(p["gpu_ms"] for p in r["pass_ms_per_frame"].values())
                               for r in rows)
    quality = rows[0]["solver"] + " (" + rows[0]["quality"] + ")"
    print(f"| {name}: {quality}, {rows[0]['render']} | {rows[0]['particles']:,} | "
          f"{med(rows, 'fps_mean'):.1f} ({med(rows, 'fps_p5'):.1f}) | "
          f"{med(rows, 'frame_ms_p50'):.1f} / {med(rows, 'frame_ms_p95'):.1f} | "
          f"{med(rows, 'states_per_second'):.1f} | {med(rows, 'realtime_ratio'):.3f} | "
          f"{med(rows, 'drag_latency_ms', -1):.0f} | {step:.2f} | "
          f"{passes:.1f} |")
PY
