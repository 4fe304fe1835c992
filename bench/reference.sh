#!/usr/bin/env bash
# The benchmark matrices of issue 7, against the reference library's dam break
# (bench/reference_dam_break.json). Each mode writes MODE.json (tidepool --bench-json) and
# MODE.txt (the table) into OUT_DIR. See docs/bench-mode.md.
#
#   bench/reference.sh MODE OUT_DIR [extra tidepool options...]
#
#   small        reference settings, WCSPH, PCISPH and PBF, spacing 0.03125 m (29,791
#                particles), 1 simulated second                      (minutes on 2 cores)
#   large        the same at spacing 0.02 m (117,649 = 49^3 particles, the reference's
#                r = 0.01 run)                        (about 10 minutes on 2 cores)
#   matched      the reference settings, but WCSPH stiffer and PBF to a tighter tolerance
#                at a shorter step, so that each solver's error is no worse than the
#                reference's: WCSPH and PCISPH into matched.json, PBF (whose step setting
#                the others share) into matched-pbf.json, DFSPH to 0.02 % into
#                matched-dfsph.json                                         (minutes)
#   matched-large  the same at spacing 0.02 m (matched-large.json, matched-large-pbf.json)
#                                                                   (tens of minutes)
#   interactive  the default parameters (what a user runs), the same scene and solvers as
#                small, 1 simulated second
#   interactive-pbf  issue 7's interactive goal: PBF with 3 iterations, CFL 1, steps up
#                to 1/60 s, no spray, vorticity confinement or XSPH, the same scene, 1
#                simulated second (the goal: at most 2 wall s per simulated s at <= 2 %)
#   scaling      WCSPH at a fixed time step of 0.5 ms, 20 steps, 10k to 1M particles
#                (1M needs about 1 GB of memory; a quarter of a second a step on 2 cores)
#   threads      --threads 1,2 on the 29,791-particle scene, all three solvers, 100 steps
#   all          every mode above, large last
#
# Environment: TIDEPOOL (the binary; default build/bin/tidepool), BACKENDS (default auto;
# e.g. cpu,cuda), SIM_TIME (simulated seconds of small, large and the interactive ones;
# default 1.0), STEPS (steps of scaling and threads; default 20 and 100). Extra options go
# to every run, e.g. `bench/reference.sh small out --threads 1,2`.
set -euo pipefail

usage() {
  sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
[ $# -ge 2 ] || usage
MODE=$1
OUT=$2
shift 2

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TIDEPOOL=${TIDEPOOL:-$ROOT/build/bin/tidepool}
SCENE=$ROOT/bench/reference_dam_break.json
BACKENDS=${BACKENDS:-auto}
SIM_TIME=${SIM_TIME:-1.0}
SOLVERS=wcsph,pcisph,pbf

# The reference library's settings, for every solver.
REFERENCE=(--set diffuse=0 --set viscosity=0.01 --set cfl=0.4 --set stiffness=50000
           --set exponent=7 --set dt_max=0.005)
# Per-solver settings. Each key belongs to one solver and the others ignore it, so one
# matrix run can carry all of them.
# PBF as the reference runs it: iterations until the mean compression is within 0.1 %
# (at least two, at most 100), and neither vorticity confinement nor XSPH, which the
# reference's PBF step does not have (the viscosity above is the one they share).
WCSPH_SETTINGS=()
PCISPH_SETTINGS=(--set pcisph_tolerance=0.1)
PBF_SETTINGS=(--set pbf_iterations=100 --set pbf_tolerance=0.1 --set pbf_vorticity=0 --set pbf_xsph=0)
PER_SOLVER=("${WCSPH_SETTINGS[@]}" "${PCISPH_SETTINGS[@]}" "${PBF_SETTINGS[@]}")
# The reference's settings changed where our error exceeds the reference's at them, so
# that each solver is timed at an error no worse than the reference's (issue 7's goal):
# WCSPH stiffer (0.419 % against 0.45 %; 0.545 % at 50,000), PBF to a tolerance of 0.03 %
# (0.026 % against 0.03 %; 0.084 % at 0.1 %). PCISPH keeps the reference's (0.025 %).
MATCHED=(--set stiffness=65000 --set pbf_tolerance=0.03)
# PBF's step, matched: CFL 0.2 rather than the reference's 0.4 (a mean step of 1.6 ms at
# 29,791 particles, still longer than the reference PBF's 1.22 ms). The iterations that a
# tolerance of 0.03 % needs grow faster than the step: at CFL 0.4 (3.25 ms) 13.7 a step,
# at 0.2 4.5, and the second costs 30 % less (docs/perf-log.md). The other solvers
# share the CFL number, so PBF runs as a matrix of its own.
MATCHED_PBF=(--set cfl=0.2)
# DFSPH against the reference's DFSPH (0.027 % mean density error): its constant-density
# solve to 0.02 % (0.024 % measured; 0.052 % at the accurate quality's 0.05 %), the
# divergence solve at the accurate quality's 0.1 %, the reference's CFL and step.
MATCHED_DFSPH=(--set dfsph_tolerance=0.02)

if [ ! -x "$TIDEPOOL" ]; then
  echo "reference.sh: no tidepool binary at $TIDEPOOL (build it, or set TIDEPOOL=...)" >&2
  exit 2
fi
mkdir -p "$OUT"

# bench NAME OPTIONS...: one matrix, its JSON and its table.
bench() {
  local name=$1
  shift
  echo "reference.sh: $name -> $OUT/$name.json" >&2
  "$TIDEPOOL" --bench --scene "$SCENE" --backend "$BACKENDS" "$@" \
    --bench-json "$OUT/$name.json" | tee "$OUT/$name.txt"
}

# plot NAME: the SVG of ms per step against particles (python3 only, no other package).
plot() {
  if command -v python3 >/dev/null; then
    python3 "$ROOT/scripts/plot_bench.py" "$OUT/$1.json" "$OUT/$1.svg"
  fi
}

run_mode() {
  case $1 in
    small)
      bench small --solver "$SOLVERS" --spacing 0.03125 --time "$SIM_TIME" \
        "${REFERENCE[@]}" "${PER_SOLVER[@]}" "${EXTRA[@]}" ;;
    matched)
      bench matched --solver wcsph,pcisph --spacing 0.03125 --time "$SIM_TIME" \
        "${REFERENCE[@]}" "${PER_SOLVER[@]}" "${MATCHED[@]}" "${EXTRA[@]}"
      bench matched-pbf --solver pbf --spacing 0.03125 --time "$SIM_TIME" \
        "${REFERENCE[@]}" "${PER_SOLVER[@]}" "${MATCHED[@]}" "${MATCHED_PBF[@]}" "${EXTRA[@]}"
      bench matched-dfsph --solver dfsph --spacing 0.03125 --time "$SIM_TIME" \
        "${REFERENCE[@]}" "${MATCHED_DFSPH[@]}" "${EXTRA[@]}" ;;
    large)
      # The block of reference_dam_break.json gives 49 particles per axis at 0.02 m too.
      bench large --solver "$SOLVERS" --spacing 0.02 --time "$SIM_TIME" \
        "${REFERENCE[@]}" "${PER_SOLVER[@]}" "${EXTRA[@]}" ;;
    matched-large)
      bench matched-large --solver wcsph,pcisph --spacing 0.02 --time "$SIM_TIME" \
        "${REFERENCE[@]}" "${PER_SOLVER[@]}" "${MATCHED[@]}" "${EXTRA[@]}"
      bench matched-large-pbf --solver pbf --spacing 0.02 --time "$SIM_TIME" \
        "${REFERENCE[@]}" "${PER_SOLVER[@]}" "${MATCHED[@]}" "${MATCHED_PBF[@]}" "${EXTRA[@]}" ;;
    interactive)
      bench interactive --solver "$SOLVERS" --spacing 0.03125 --time "$SIM_TIME" "${EXTRA[@]}" ;;
    interactive-pbf)
      bench interactive-pbf --solver pbf --spacing 0.03125 --time "$SIM_TIME" \
        --set pbf_iterations=3 --set pbf_tolerance=0 --set cfl=1 --set dt_max=0.016667 \
        --set diffuse=0 --set pbf_vorticity=0 --set pbf_xsph=0 "${EXTRA[@]}" ;;
    scaling)
      bench scaling --solver wcsph --particles 10000,30000,100000,300000,1000000 \
        --steps "${STEPS:-20}" "${REFERENCE[@]}" --set dt_min=0.0005 --set dt_max=0.0005 \
        "${EXTRA[@]}"
      plot scaling ;;
    threads)
      bench threads --solver "$SOLVERS" --spacing 0.03125 --threads 1,2 --steps "${STEPS:-100}" \
        "${REFERENCE[@]}" "${PER_SOLVER[@]}" "${EXTRA[@]}" ;;
    all)
      for mode in small matched interactive interactive-pbf threads scaling large matched-large; do
        run_mode "$mode"
      done ;;
    *)
      usage ;;
  esac
}

EXTRA=("$@")
run_mode "$MODE"
