// How close one quality's water comes to another's, measured the way a user sees a dam
// break: where the surge front is and how high the water stands at the wall it left,
// every 1/60 s, and the density errors over the run. The realtime quality is judged
// against the accurate quality of the same solver with it (docs/realtime.md, the fidelity
// table; tests/test_realtime_fidelity.cpp; bench/realtime_fidelity.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/water/simulation.h"

namespace tp {

// The largest x reached by connected water: the tip of the surge [m]. A particle counts
// when at least two others are within 1.5 spacings, so that a lone droplet thrown ahead
// does not (the experiments' front, read off photographs, is the edge of the connected
// water).
float surge_front(const Snapshot& s, float spacing);

// The height of the water along the wall x = wall_x, on the side of `direction` (+1: the
// water lies at larger x) [m], as a gauge reads it: the particles within two spacings of
// the wall, each a cube of the lattice's spacing, over the strip's area (two spacings
// times the water's extent in z; in 2D its volume per spacing of depth). A mean level:
// the highest particle alone jumps with every drop that runs up the wall.
float wall_height(const Snapshot& s, float spacing, float wall_x, float direction = 1.0f);

// The top of the highest particle within two spacings of that wall that has two others
// within 1.5 spacings [m]: the surface at the wall as a photograph shows it, and as
// noisy as one (a drop running up the wall lifts it); 0 when no water is there.
float wall_top(const Snapshot& s, float spacing, float wall_x, float direction = 1.0f);

struct DamBreakSample {
  double t = 0.0;       ///< [s]
  double front = 0.0;   ///< [m] surge front's distance from the wall the water left
  double height = 0.0;  ///< [m] the water's height at that wall (wall_height)
  double top = 0.0;     ///< [m] its surface there (wall_top)
};

struct DamBreakRun {
  std::vector<DamBreakSample> samples;  ///< every 1/60 s from t = 0, interpolated between steps
  uint64_t particles = 0;
  uint64_t steps = 0;
  double wall_s = 0.0;          ///< wall time of the steps alone (not the measuring)
  double simulated_s = 0.0;
  double mean_error = 0.0;      ///< the run's mean density error (a fraction)
  double max_error = 0.0;       ///< the worst particle's, over the run
  double max_error_at = 0.0;    ///< [s] when it was reached
  double mean_iterations = 0.0; ///< PBF, PCISPH, DFSPH: solver iterations per step
  double max_speed = 0.0;       ///< [m/s]
  double wall_per_simulated() const { return simulated_s > 0.0 ? wall_s / simulated_s : 0.0; }
};

// Steps `sim` (already reset to a dam break whose water starts against the wall x =
// wall_x) for `seconds` of simulated time, measuring the front and the height at that
// wall after every step.
DamBreakRun run_dam_break(Simulation& sim, float spacing, float wall_x, double seconds);

// The speed of the particle `rank` places below the fastest (0: the fastest) among
// `velocity`; 0 when there are no more particles than that.
double ranked_speed(const std::vector<Vec4>& velocity, size_t rank);

// A pool left to rest: steps `sim` to `settle` seconds, then on to `until`, and returns
// over that last part the fastest particle, the largest RMS speed over the particles and
// the largest mean density error.
struct RestingRun {
  double fastest = 0.0;  ///< [m/s]
  double fastest_thousandth = 0.0;  ///< [m/s] the speed that a thousandth of the particles exceed
  double rms = 0.0;      ///< [m/s]
  double error = 0.0;
  int steps = 0;  ///< in the measured part
};
RestingRun run_resting(Simulation& sim, double settle, double until);

// RMS over the samples after t = 0 of the relative differences (run - reference) /
// reference, for the front, the height and the top: 0.05 is 5 %. The runs must cover the same
// times.
struct Deviation {
  double front = 0.0, height = 0.0, top = 0.0;
};
Deviation rms_deviation(const DamBreakRun& run, const DamBreakRun& reference);

}  // namespace tp
