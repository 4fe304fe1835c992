#!/usr/bin/env bash
# Regenerates the README's pictures (docs/*.png) from the built app under Xvfb: the
# default dam break at 30,000 particles, 0.6 s after the release (1200 fixed steps of
# 0.5 ms), in each render mode. Usage: scripts/make_screenshots.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
app="${1:-build}/bin/tidepool"
[ -x "$app" ] || { echo "no $app: build first (./run.sh or cmake --build build)" >&2; exit 1; }
common=(--scene dam_break --particles 30000 --set dt_min=0.0005 --set dt_max=0.0005
        --steps-per-frame 20 --frames 60)
shot() {  # name, then the app's options
  local name=$1
  shift
  xvfb-run -a -s "-screen 0 1920x1080x24" "$app" "${common[@]}" "$@" --screenshot "docs/$name.png"
}
shot screenshot --size 1280x800 --render surface             # the app as it opens, panel and all
shot spheres --size 960x600 --hide-panel --color speed       # spheres mode, coloured by speed
shot pressure --size 960x600 --hide-panel --color pressure   # spheres mode, coloured by pressure
shot surface --size 960x600 --hide-panel --render surface    # surface mode
