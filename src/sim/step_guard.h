// The NaN guard. A step that ends with a NaN or an infinite position or velocity (a bug:
// no physics here makes one) is thrown away: the particles go back to where the step
// started, and the step is taken again at half its time step, up to kGuardRetries times.
// If it still fails, the state stays at the step's (finite) start and the simulation stops
// (stats().halted, step() does nothing) rather than loop. Either way the user is told
// once: take_guard_note() gives the sentence the first time, stats().guard_note keeps it.
//
// Cost per step: one pass copying position, velocity and id (36 B per particle read and
// written) into fluid.start_*, and a few host scalars; detection reuses the reduction the
// integration already did over its per-particle "was not finite" flags, so it costs no
// pass of its own. Memory: the three start arrays, 36 B per particle (memory_need.cpp).
//
// Scope of the restore: everything the solver phase of a step changes. The step's first
// phase (outflows, emitters, the obstacles' planned velocities) runs before the copy and
// is not repeated; the emitters' progress and the diffuse particles run after the check,
// from a finite fluid.
#pragma once

#include <cstdio>

#include "sim/simulation_impl.h"

namespace tp {

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
  save_step_start();
  uint64_t found = 0;  // non-finite particles over the failed attempts
  double dt = 0.0;
  for (int halvings = 0;; ++halvings) {
    step_nonfinite_ = 0;
    dt = solve(solver);
    if (step_nonfinite_ == 0) {
      dt_cap_ = INFINITY;
      if (halvings == 0) return dt;
      stats_.nonfinite_resets += found;
      char text[320], part[32] = "half";
      if (halvings > 1) std::snprintf(part, sizeof part, "1/%d", 1 << halvings);
      std::snprintf(text, sizeof text,
                    "NaN or infinite values appeared in step %llu (t = %.4f s, in %llu particle%s); "
                    "the step was taken again from its start at %s its time step (%.3g ms) and "
                    "the simulation goes on. This is a bug: please report it.",
                    (unsigned long long)(stats_.steps + 1), stats_.simulated_time,
                    (unsigned long long)found, found == 1 ? "" : "s", part, 1000.0 * dt);
      if (stats_.nonfinite_steps++ == 0) guard_note_ = stats_.guard_note = text;
      return dt;
    }
    found += step_nonfinite_;
    restore_step_start();
    if (halvings == kGuardRetries) break;
    dt_cap_ = 0.5f * float(dt);
  }
  dt_cap_ = INFINITY;
  stats_.nonfinite_resets += found;
  stats_.nonfinite_steps++;
  stats_.halted = true;
  char text[320];
  std::snprintf(text, sizeof text,
                "The simulation stopped at t = %.4f s: step %llu still gave NaN or infinite values "
                "after halving its time step %d times (to %.3g ms). The particles are as the last "
                "finite step left them; reset the scene to go on. This is a bug: please report it.",
                stats_.simulated_time, (unsigned long long)(stats_.steps + 1), kGuardRetries,
                1000.0 * dt);
  guard_note_ = stats_.guard_note = text;
  return 0.0;
}

// Copies position, velocity and id from one set of arrays into another (one pass).
template <class B>
void copy_particles(uint n, const Vec4* x, const Vec4* v, const uint* id, Vec4* x_to, Vec4* v_to,
                    uint* id_to) {
  B::for_each(n, [=] TP_HD(uint i) {
    x_to[i] = x[i];
    v_to[i] = v[i];
    id_to[i] = id[i];
  });
}

template <class B>
void SimulationImpl<B>::save_step_start() {
  FluidState<B>& f = fluid;
  copy_particles<B>(f.n, f.position.data(), f.velocity.data(), f.id.data(), f.start_position.data(),
                    f.start_velocity.data(), f.start_id.data());
  start_.values = step_values();
  start_.obstacles = obstacles_;
}

template <class B>
void SimulationImpl<B>::restore_step_start() {
  FluidState<B>& f = fluid;
  copy_particles<B>(f.n, f.start_position.data(), f.start_velocity.data(), f.start_id.data(),
                    f.position.data(), f.velocity.data(), f.id.data());
  step_values() = start_.values;
  if (!obstacles_.empty()) {
    obstacles_ = start_.obstacles;
    place_obstacle_samples();
    copy_obstacles_to_constants();
  }
  // Every derived array (grid order, neighbour lists, densities) belongs to the failed
  // attempt: the next one rebuilds them.
  sorted_ = density_valid_ = false;
}

template <class B>
std::string SimulationImpl<B>::take_guard_note() {
  std::string note;
  note.swap(guard_note_);
  return note;
}

// The test hook (inject_nan_for_test): NaN into values[index].
template <class B>
void SimulationImpl<B>::inject_nan(Vec4* values) {
  if (inject_attempts_ <= 0) return;
  inject_attempts_--;
  if (inject_index_ >= fluid.n) return;
  const uint k = inject_index_;
  B::for_each(1, [=] TP_HD(uint) { values[k] = make_vec4(Vec3{NAN, NAN, NAN}, 0.0f); });
}

// The integration's flags (fluid.scratch: 1 where the end state was not finite) summed.
template <class B>
void SimulationImpl<B>::count_nonfinite() {
  const float* flags = fluid.scratch.data();
  step_nonfinite_ += uint64_t(B::reduce_sum(fluid.n, [=] TP_HD(uint i) { return flags[i]; }));
}

}  // namespace tp
