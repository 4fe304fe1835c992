// The NaN guard and the step's verdict. A step that ends with a NaN or an infinite position
// or velocity (a bug: no physics here makes one) is thrown away: the particles go back to
// where the step started, and the step is taken again at half its time step, up to
// kGuardRetries times. If it still fails, the state stays at the step's (finite) start
// and the simulation stops (stats().halted, step() does nothing) rather than loop. Either
// way the user is told once: take_guard_note() gives the sentence the first time,
// stats().guard_note keeps it. A step whose neighbour lists ran out of slots is thrown
// away the same way (without the halving) and taken again with longer lists.
//
// When the verdict comes. The particles' flags, the lists' overflow and the statistics
// are reduced into the record (StepRecord) without a wait, and read at the next wait.
// That is the step's time-step reduction (flow_maxima), so that a step costs the host one
// wait on a GPU: a step is judged at the next step's wait (or at settle() from stats(),
// snapshot() or capture(), whichever comes first), and undone there if it failed: its
// start is restored, with what the steps between changed (the next step's outflows and
// emitters, its progress, the step count and time), and that next step retakes it. The
// CPU backend reads the record at the end of each solve (no wait there), so that there a
// failed step is retaken within its own step() call, as before.
//
// The save point is flow_maxima's read, once the work before it stands: every solver
// moves no particle before its time step (a grid build only reorders them), so the start
// saved there is the step's, and the last step's start is still there when its verdict
// comes.
//
// Cost per step: one pass copying position, velocity and id (36 B per particle read and
// written) into fluid.start_*, and a few host values; the detection reuses the
// integration's per-particle "was not finite" flags, reduced without a wait. Memory: the
// three start arrays, 36 B per particle (memory_need.cpp).
#pragma once

#include <cstdio>

#include "sim/water/simulation_impl.h"

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
  struct Solving {  // measures go to the record while a solve runs; however it ends,
    bool& flag;      // the builds after it are no step's
    bool& saved;
    Solving(bool& f, bool& s) : flag(f), saved(s) { flag = true; }
    ~Solving() { flag = saved = false; }
  } solving(solving_, step_saved_);
  for (;;) {
    double dt = 0.0;
    step_saved_ = false;
    try {
      dt = solve(solver);
    } catch (const StepRetaken&) {
      step_saved_ = false;
      if (stats_.halted) return 0.0;
      continue;  // the solve starts again (from the start of the step it retakes)
    }
    step_saved_ = false;
    verdict_pending_ = true;
    judged_dt_ = dt;
    // The CPU reads its record for nothing: judged now, retaken at once when it failed.
    if (!B::kIsDevice && settle(false)) {
      if (stats_.halted) return 0.0;
      continue;
    }
    return dt;
  }
}

template <class B>
template <class F>
void SimulationImpl<B>::record_max3(Max3* slot, RecordField bit, uint n, F f) {
  NeighborLists<B>::record_max3(n, f, slot, (written_ & bit) != 0);  // with what it holds, when written
  written_ |= bit;
}

template <class B>
template <class F>
void SimulationImpl<B>::record_sum_max(SumMax* slot, RecordField bit, uint n, F f) {
  if (written_ & bit)  // counts: exact in a float below 2^24
    B::reduce_sum_max_to(n + 1, [=] TP_HD(uint i) { return i < n ? f(i) : float(slot->sum); }, slot);
  else
    B::reduce_sum_max_to(n, f, slot);
  written_ |= bit;
}

template <class B>
void SimulationImpl<B>::record_first_error(const float* err, uint n) {
  record_sum_max(&record()->first, kFirst, n, [=] TP_HD(uint i) { return err[i]; });
  first_n_ = n;
}

// How far the lists that ran out of slots must grow (NeighborLists::grow), and whether any did.
inline bool lists_overflowed(const Max3& over) { return over.a > 0.0f || over.b > 0.0f || over.c > 0.0f; }

template <class B>
bool SimulationImpl<B>::settle(bool in_solve) {
  if (written_ == 0 && !verdict_pending_) return false;
  const unsigned w = written_;
  if (w) B::copy_to_host(&seen_, record_.data(), 1);  // the wait
  written_ = 0;
  const Max3 none{0.0f, 0.0f, 0.0f};
  const Max3 over = (w & kOver) ? seen_.over : none;
  const Max3 over_done = (w & kOverDone) ? seen_.over_done : none;
  const Max3 most{fmaxf(over.a, over_done.a), fmaxf(over.b, over_done.b), fmaxf(over.c, over_done.c)};
  const uint64_t nonfinite = (w & kNonfinite) ? uint64_t(seen_.nonfinite.sum + 0.5) : 0u;
  const bool judged = verdict_pending_;
  verdict_pending_ = false;
  // The verdict first, then the lists' growth (which may refuse for memory, and throw).
  if (judged && (nonfinite > 0 || lists_overflowed(over_done))) {
    undo_step(nonfinite);  // the completed step goes; what was measured of it too
    lists_.grow(most);
    if (in_solve) throw StepRetaken{};
    return true;
  }
  if ((w & kError) && error_n_) add_measure(seen_.error.sum / error_n_, seen_.error.max);
  if ((w & kFirst) && first_n_) stats_.last_solver_error = seen_.first.sum / first_n_;
  if (judged) accept_step();
  lists_.grow(most);
  if (lists_overflowed(over)) {  // lists of this solve (or of a state between steps)
    sorted_ = density_valid_ = false;
    if (in_solve) throw StepRetaken{};
  }
  if (in_solve) {  // the save point: what a failed step goes back to
    save_step_start();
    step_saved_ = true;
  }
  return false;
}

// The judged step stands: a retaken one is reported.
template <class B>
void SimulationImpl<B>::accept_step() {
  if (guard_halvings_ == 0) {
    dt_cap_ = INFINITY;
    return;
  }
  const uint64_t found = guard_found_;
  char text[320], part[32] = "half";
  if (guard_halvings_ > 1) std::snprintf(part, sizeof part, "1/%d", 1 << guard_halvings_);
  std::snprintf(text, sizeof text,
                "NaN or infinite values appeared in step %llu (t = %.4f s, in %llu particle%s); "
                "the step was taken again from its start at %s its time step (%.3g ms) and "
                "the simulation goes on. This is a bug: please report it.",
                (unsigned long long)judged_step_, judged_time_, (unsigned long long)found,
                found == 1 ? "" : "s", part, 1000.0 * judged_dt_);
  stats_.nonfinite_resets += found;
  if (stats_.nonfinite_steps++ == 0) guard_note_ = stats_.guard_note = text;
  guard_halvings_ = 0;
  guard_found_ = 0;
  dt_cap_ = INFINITY;
}

// The judged step failed: back to its start, with everything the steps since have changed.
// Non-finite particles halve its time step (at most kGuardRetries times, then it stops);
// lists that overflowed have grown already (settle).
template <class B>
void SimulationImpl<B>::undo_step(uint64_t nonfinite) {
  const double time = stats_.simulated_time;
  restore_step_start();
  undone_time_ += time - stats_.simulated_time;
  // A device judges a step after step() has moved the spray with it: that goes too (the
  // retaken step would move it a second time). The CPU judges before.
  if (B::kIsDevice) diffuse_.clear();
  if (nonfinite == 0) return;
  guard_found_ += nonfinite;
  if (guard_halvings_ < kGuardRetries) {
    guard_halvings_++;
    dt_cap_ = 0.5f * float(judged_dt_);
    return;
  }
  dt_cap_ = INFINITY;
  stats_.nonfinite_resets += guard_found_;
  stats_.nonfinite_steps++;
  stats_.halted = true;
  char text[320];
  std::snprintf(text, sizeof text,
                "The simulation stopped at t = %.4f s: step %llu still gave NaN or infinite values "
                "after halving its time step %d times (to %.3g ms). The particles are as the last "
                "finite step left them; reset the scene to go on. This is a bug: please report it.",
                judged_time_, (unsigned long long)judged_step_, kGuardRetries, 1000.0 * judged_dt_);
  guard_note_ = stats_.guard_note = text;
  guard_halvings_ = 0;
  guard_found_ = 0;
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
  f.start_n = f.n;
  start_.values = step_values();
  start_.obstacles = obstacles_;
  judged_step_ = stats_.steps + 1;
  judged_time_ = stats_.simulated_time;
}

template <class B>
void SimulationImpl<B>::restore_step_start() {
  FluidState<B>& f = fluid;
  f.n = f.start_n;
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
  if (record_.size()) settle(false);  // a step not yet judged may have something to say
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

// The integration's flags (fluid.scratch: 1 where the end state was not finite) summed
// into the record.
template <class B>
void SimulationImpl<B>::count_nonfinite() {
  const float* flags = fluid.scratch.data();
  record_sum_max(&record()->nonfinite, kNonfinite, fluid.n, [=] TP_HD(uint i) { return flags[i]; });
}

}  // namespace tp
