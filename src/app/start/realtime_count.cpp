#include "app/start/realtime_count.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

#include "sim/water/memory_need.h"

namespace tp {

namespace {

constexpr uint64_t kMaxRealtimeCount = 4000000;  ///< a ceiling for the extrapolation
constexpr int kWarmupSteps = 3, kMeasuredSteps = 7;

// Wall milliseconds per 1/60 s of simulated time at about `count` particles, over a few
// steps at the solver's own step size; 0 when it cannot run (the scene does not fit, the
// backend fails). Sets *actual to the count built.
double measure_frame_ms(const Scene& scene, const SimParams& params, BackendKind backend,
                        uint64_t count, uint64_t* actual) {
  try {
    std::unique_ptr<Simulation> sim = make_simulation(backend);
    sim->params() = params;
    sim->reset(build_initial_state(scene, spacing_for_count(scene, count),
                                   memory_budget_bytes(backend), diffuse_cap_for(params, backend)));
    *actual = sim->particle_count();
    for (int k = 0; k < kWarmupSteps; ++k) sim->step();
    const double t0 = sim->stats().simulated_time;  // (on CUDA: waits for the steps)
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < kMeasuredSteps; ++k) sim->step();
    const double simulated = sim->stats().simulated_time - t0;
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (sim->halted() || !(simulated > 0.0)) return 0.0;
    return ms * (1.0 / 60.0) / simulated;
  } catch (const std::exception&) {
    return 0.0;
  }
}

}  // namespace

uint64_t scale_count(uint64_t count, double step_ms, double budget_ms, int dimensions) {
  if (!(step_ms > 0.0) || !(budget_ms > 0.0) || count == 0) return 0;
  const double factor = std::min(std::pow(budget_ms / step_ms, count_exponent(dimensions)), 8.0);
  return uint64_t(std::llround(double(count) * factor));
}

RealtimeCount choose_realtime_count(const Scene& scene, const SimParams& params,
                                    BackendKind backend, int threads, uint64_t floor) {
  RealtimeCount result;
  const double scene_count = particles_at_own_spacing(scene);
  if (scene_count < 1.0) return result;  // emitters alone: nothing to size
  const uint64_t start = floor ? floor : uint64_t(scene_count);
  const double budget_ms = kRealtimeStepShare * 1000.0 / 60.0;
  // On the simulation thread's OpenMP thread count: a thread of its own, as it will run.
  uint64_t chosen = start, measured_at = 0, at_start = 0;  // at_start: the count built at the rule's
  double measured_ms = 0.0;
  std::thread([&] {
    if (threads > 0) omp_set_num_threads(threads);
    uint64_t count = start;
    for (int round = 0; round < 2; ++round) {
      uint64_t actual = 0;
      const double ms = measure_frame_ms(scene, params, backend, count, &actual);
      if (ms <= 0.0) break;
      if (round == 0) at_start = actual;
      measured_at = actual;
      measured_ms = ms;
      chosen = std::min(scale_count(actual, ms, budget_ms, scene.dimensions), kMaxRealtimeCount);
      // Close enough to what was measured: no second measurement needed.
      if (chosen > actual * 4 / 5 && chosen < actual * 5 / 4) break;
      count = std::max(chosen, start);
    }
  }).join();
  if (measured_at == 0) return result;
  // Not more than the rule's count: the rule's own spacing (a scene's, to the millimetre:
  // the tank's faces snap to whole spacings).
  result.particles = chosen > start ? chosen : 0;
  // The count the window will run: at the rule's spacing, the one built there in the first
  // round (a scene's shape, its bodies and obstacles make it other than the rule's round
  // number: 6,256 of the cup's 8,000); above it, about the count chosen.
  char note[256];
  std::snprintf(note, sizeof(note),
                "%s%llu particles for real time: 1/60 s of water took %.1f ms at %llu here%s",
                chosen > start ? "about " : "",
                static_cast<unsigned long long>(chosen > start ? chosen : at_start), measured_ms,
                static_cast<unsigned long long>(measured_at),
                chosen < start ? " (the least the scene starts with)" : "");
  result.note = note;
  return result;
}

}  // namespace tp
