// The step: its phases in order (the scene's objects, the solver's phases, the spray), the
// solver it runs, and the NaN guard's retakes of a step that failed (step_guard.h); and
// advance(), the steps that fill a span of simulated time.
#pragma once

#include "sim/water/dfsph.h"
#include "sim/water/pbf.h"
#include "sim/water/pcisph.h"
#include "sim/water/wcsph.h"

namespace tp {

// Returns the simulated time the call advanced: the step's time step, less that of an
// earlier step its wait found had to be undone (step_guard.h; on a GPU only, rare).
template <class B>
double SimulationImpl<B>::step() {
  if (stats_.halted) return 0.0;  // the NaN guard stopped it: nothing moves until a reset
  undone_time_ = 0.0;
  timers_.collect_if_many();
  clamp_params(params_);
  const double last_dt = stats_.steps ? stats_.last_dt : double(params_.dt_min);
  const float rate = float(std::exp2(last_dt / kRestDensityDoublingTime));
  rest_density_ = clampf(params_.rest_density, rest_density_ / rate, rest_density_ * rate);
  refresh_constants();
  phase("emit", [&] {
    if (const uint removed = objects_.remove_outflow(fluid)) {
      stats_.removed += removed;
      sorted_ = density_valid_ = listed_ = false;
    }
    const auto emitted = objects_.emit(fluid, stats_.simulated_time, [&] {
      sort_particles();
      return grid_.view();
    });
    stats_.emitters_paused = emitted.paused;
    if (emitted.added) {
      stats_.emitted += emitted.added;
      sorted_ = density_valid_ = listed_ = false;
      // The new particles start with no pressure (DFSPH starts its solves from the last
      // step's: a device's new slots hold whatever memory they were given).
      float* p = fluid.pressure.data() + (fluid.n - emitted.added);
      float* impulse = fluid.divergence_impulse.data() + (fluid.n - emitted.added);
      B::for_each(emitted.added, [=] TP_HD(uint i) { p[i] = impulse[i] = 0.0f; });
    }
    // The obstacles' velocities for this step, from the last step's length.
    const double last = stats_.steps ? std::max(stats_.last_dt, double(params_.dt_min)) : double(params_.dt_min);
    if (objects_.plan_motion(last)) place_obstacle_samples();  // the same places, the new velocities
    objects_.copy_to(constants_);
  });
  double dt = 0.0;
  if (fluid.n == 0) {  // an emitter's scene before its first layer: time passes
    dt = params_.dt_max;
    constants_.dt = float(dt);
    // No water, no force: the sums of the last step with water go unused on either
    // backend (a GPU may not have read them yet: they are dropped from the record too).
    objects_.bodies().forget_sums();
    record_.unmark(StepRecorder<B>::kBodies);
    objects_.bodies().take_forces();
    advance_obstacles();
    objects_.advance_emitters(stats_.simulated_time, dt);
    stats_.steps++;
    stats_.simulated_time += dt;
    stats_.last_dt = dt;
    return dt;
  }
  const int solver = params_.solver;
  if (previous_solver_ >= 0 && solver != previous_solver_) {
    switched_at_ = stats_.simulated_time;
    switched_compression_ = float(stats_.last_density_error);
  }
  dt = guarded_solve(solver);
  if (stats_.halted) return 0.0;
  as_stepped_ = true;
  previous_solver_ = solver;
  pressures_kept_ = true;
  objects_.advance_emitters(stats_.simulated_time, dt);
  step_diffuse(dt);
  stats_.steps++;
  stats_.simulated_time += dt;
  stats_.last_dt = dt;
  return dt - undone_time_;
}

template <class B>
int SimulationImpl<B>::advance(double seconds, double budget_ms) {
  const auto t0 = std::chrono::steady_clock::now();
  time_debt_ += seconds;
  int steps = 0;
  while (time_debt_ > 0.0) {
    time_debt_ -= step();
    ++steps;
    if (stats_.halted) {
      time_debt_ = 0.0;
      break;
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (budget_ms > 0.0 && ms >= budget_ms) {
      time_debt_ = 0.0;  // fall behind real time rather than spiral: slow motion
      break;
    }
  }
  return steps;
}

template <class B>
void SimulationImpl<B>::step_diffuse(double dt) {
  if (!params_.diffuse) {
    diffuse_.clear();
    stats_.diffuse = DiffuseCounts{0, 0, 0, diffuse_.capacity(params_), stats_.diffuse.spawned};
    return;
  }
  if (!diffuse_.due(dt, params_.diffuse_interval)) return;
  // The step's own grid, lists and densities where it has them (every solver leaves the
  // densities it last measured, all finite): a sort and a density pass here would cost
  // PBF, whose next step sorts its predicted positions afresh, a fifth of its step.
  if (!listed_) ensure_density();
  StepConstants c = constants_;  // over the time since the last update
  c.dt = float(diffuse_.elapsed());
  phase("diffuse", [&] {
    diffuse_.update(fluid.view(), grid_.view(), fluid_list(), boundary_view(), c, fluid.id.data(),
                    uint(stats_.steps), diffuse_.capacity(params_), stats_.diffuse);
  });
  diffuse_.set_elapsed(0.0);
}

template <class B>
double SimulationImpl<B>::solve(int solver) {
  switch (SolverKind(solver)) {
#define TP_SOLVER_STEP(type, name, label) \
  case SolverKind::type:                  \
    return type<B>::step(*this);
    TP_SOLVERS(TP_SOLVER_STEP)
#undef TP_SOLVER_STEP
  }
  return 0.0;
}

template <class B>
double SimulationImpl<B>::guarded_solve(int solver) {
  struct Solving {  // measures go to the record while a solve runs; however it ends,
    bool& flag;      // the builds after it are no step's
    bool& saved;
    Solving(bool& f, bool& s) : flag(f), saved(s) { flag = true; }
    ~Solving() { flag = saved = false; }
  } solving(solving_, start_saved_);
  for (;;) {
    double dt = 0.0;
    start_saved_ = false;
    try {
      dt = solve(solver);
    } catch (const StepRetaken&) {
      start_saved_ = false;
      if (stats_.halted) return 0.0;
      continue;  // the solve starts again (from the start of the step it retakes)
    }
    start_saved_ = false;
    guard_.completed(dt);
    // The CPU reads its record for nothing: judged now, retaken at once when it failed.
    if (!B::kIsDevice && settle(false)) {
      if (stats_.halted) return 0.0;
      continue;
    }
    return dt;
  }
}

}  // namespace tp
