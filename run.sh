#!/usr/bin/env bash
# Installs what is missing, builds Tidepool (Release) and launches it. Arguments go to the
# app, e.g. ./run.sh --scene pool --particles 20000
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh app
exec "${TIDEPOOL_BUILD_DIR:-build}/bin/tidepool" "$@"
