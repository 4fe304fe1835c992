#!/usr/bin/env bash
# Regenerates the manual's pictures (docs/*.png) from the built app under Xvfb: the
# default dam break at 30,000 particles with fixed 0.5 ms steps (20 per frame), at 0.6 s
# after the release in each render mode (the mesh mode with its default settings), and at
# 1.1 s (the wave on the far wall) for the spray and foam; then the README's window and
# bodies pictures (below). Usage: scripts/make_screenshots.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
app="${1:-build}/bin/tidepool"
[ -x "$app" ] || { echo "no $app: build first (./run.sh or cmake --build build)" >&2; exit 1; }
common=(--scene dam_break --particles 30000 --set dt_min=0.0005 --set dt_max=0.0005
        --steps-per-frame 20)
shot() {  # name, frames (of 10 ms), then the app's options
  local name=$1 frames=$2
  shift 2
  xvfb-run -a -s "-screen 0 1920x1080x24" "$app" "${common[@]}" --frames "$frames" "$@" \
    --screenshot "docs/$name.png"
}
shot spheres 60 --size 960x600 --hide-panel --color speed      # spheres mode, coloured by speed
shot pressure 60 --size 960x600 --hide-panel --color pressure  # spheres mode, coloured by pressure
shot surface 60 --size 960x600 --hide-panel --render surface   # surface mode
shot mesh 60 --size 960x600 --hide-panel --render mesh         # mesh mode
shot diffuse 110 --size 960x600 --hide-panel --render surface  # spray and foam at the far wall
# The README's window picture: the app as it opens, panel and all, on its own clock (not
# lockstep: the panel's frames a second and real-time ratio are the machine's), about 2.8 s
# after the dam breaks at 30 frames a second. Make it on a quiet machine.
xvfb-run -a -s "-screen 0 1920x1080x24" "$app" --frames 85 --size 1280x800 --screenshot docs/screenshot.png
# The README's bodies picture: the cup scene 3.7 s in (the window's own settings), the
# ball riding in the cup as the tap fills it.
xvfb-run -a -s "-screen 0 1920x1080x24" "$app" --scene cup --frames 300 --steps-per-frame 2 \
  --size 1280x720 --hide-panel --render surface --screenshot docs/bodies.png
