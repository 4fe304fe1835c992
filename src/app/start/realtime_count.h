// The particle count the window starts a scene with at the realtime quality: chosen from a
// short measurement of this machine's step cost, so that a faster machine (more cores, a
// GPU) gets more water at the same real-time rate, never fewer particles than the fixed
// rule gave (start_particle_count).
#pragma once

#include <cstdint>
#include <string>

#include "sim/scene/scene.h"
#include "sim/water/simulation.h"

namespace tp {

// The share of a 60 Hz frame that simulating a frame's time (1/60 s) may take, as measured
// before the window opens, with the water at rest. In the window the same step costs about
// 1.3 times that on 2 cores without a GPU (it shares the cores and caches with the
// renderer; llvmpipe renders on the CPU, its threads yielding to the simulation's: 1.7
// times before they did) and a splash takes about 1.3 steps per frame (the CFL condition),
// so 0.25 keeps the simulation thread under half busy, with room for the mouse and for
// bursts.
constexpr double kRealtimeStepShare = 0.25;

// The count whose frame of simulated time would take `budget_ms`, from `count` taking
// `step_ms`: the cost of a simulated second grows as count^(4/3) (count times the steps,
// whose size follows the spacing, count^(-1/3)); in 2D as count^(3/2) (steps as
// count^(1/2)). At most 8 times `count` from one measurement (the next measurement corrects
// it); 0 when nothing was measured.
uint64_t scale_count(uint64_t count, double step_ms, double budget_ms, int dimensions = 3);
// The exponent that turns a ratio of costs into a ratio of counts: D / (D + 1).
inline double count_exponent(int dimensions) { return dimensions == 2 ? 2.0 / 3.0 : 0.75; }

struct RealtimeCount {
  uint64_t particles = 0;  ///< the count to start with; 0 = the rule's count (no more fit)
  std::string note;        ///< for the panel and the log: what was measured and chosen
};

// Measures a few steps of `scene` with `params` on this backend with `threads` OpenMP threads (the simulation thread's; 0 = the default) at the
// rule's count `floor` (0: the scene's own), then at the count that measurement suggests.
// Returns the count that fits kRealtimeStepShare when it is above the rule's, else 0 (keep
// the rule), with a note either way. Takes a
// fraction of a second; throws nothing (on any failure it keeps the rule: particles 0).
RealtimeCount choose_realtime_count(const Scene& scene, const SimParams& params, BackendKind backend,
                                    int threads, uint64_t floor);

}  // namespace tp
