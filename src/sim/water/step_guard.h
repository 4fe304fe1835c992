// The NaN guard and the step's verdict. A step that ends with a NaN or an infinite position
// or velocity (a bug: no physics here makes one) is thrown away: the particles go back to
// where the step started, and the step is taken again at half its time step, up to
// kRetries times. If it still fails, the state stays at the step's (finite) start and the
// simulation stops (stats().halted, step() does nothing) rather than loop. Either way the
// user is told once: take_note() gives the sentence the first time, stats().guard_note
// keeps it. A step whose neighbour lists ran out of slots is thrown away the same way
// (without the halving) and taken again with longer lists.
//
// When the verdict comes. The particles' flags, the lists' overflow and the statistics
// are reduced into the step's record (step_record.h) without a wait, and read at the next
// wait. That is the step's time-step reduction (SimulationImpl::flow_maxima), so that a
// step costs the host one wait on a GPU: a step is judged at the next step's wait (or at
// SimulationImpl::settle() from stats(), snapshot() or capture(), whichever comes first),
// and undone there if it failed: its start is restored, with what the steps between
// changed (the next step's outflows and emitters, its progress, the step count and time),
// and that next step retakes it. The CPU backend reads the record at the end of each solve
// (no wait there), so that there a failed step is retaken within its own step() call.
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
//
// StepGuard holds the guard's own state and decisions (host only); SimulationImpl's
// settle() reads the record, saves and restores the step's start and asks the guard.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "sim/water/simulation.h"

namespace tp {

class StepGuard {
 public:
  static constexpr int kRetries = 6;  ///< halvings before it stops: 1/64 of the step

  void reset() {
    halvings_ = 0;
    found_ = 0;
    dt_cap_ = INFINITY;
    note_.clear();
    inject_attempts_ = 0;
    verdict_pending_ = false;
  }

  // The save point of step `step` (its start at simulated time `time`): what it is called
  // in the sentences.
  void saved(uint64_t step, double time) {
    judged_step_ = step;
    judged_time_ = time;
  }
  // A solve completed with time step dt: its verdict is due at the next read.
  void completed(double dt) {
    verdict_pending_ = true;
    judged_dt_ = dt;
  }
  bool verdict_pending() const { return verdict_pending_; }
  // Whether a completed step awaits its verdict, which the caller now gives (accept or
  // reject).
  bool take_verdict() {
    const bool pending = verdict_pending_;
    verdict_pending_ = false;
    return pending;
  }
  // The judged step stands: a retaken one is reported (the first time, in the note).
  void accept(RunStats& stats);
  // The judged step was undone (the caller restored its start) for `nonfinite` particles
  // (0: its lists overflowed, retaken as it was): its time step is halved for the retake,
  // or after kRetries halvings the simulation halts (stats.halted) with a note.
  void reject(uint64_t nonfinite, RunStats& stats);

  // The time step a solver chose, halved as often as the guard has asked in this step.
  float limit_dt(float dt) const { return fminf(dt, dt_cap_); }

  // The sentence for the user not yet taken ("" when none), given once.
  std::string take_note() {
    std::string note;
    note.swap(note_);
    return note;
  }
  const std::string& pending_note() const { return note_; }
  void set_pending_note(const std::string& note) { note_ = note; }

  // The test hook (Simulation::inject_nan_for_test): the next `attempts` attempts poison
  // particle `index`. injection() says whether this attempt does, and which particle.
  void inject(uint index, int attempts) {
    inject_index_ = index;
    inject_attempts_ = attempts;
  }
  bool injection(uint n, uint* index) {
    if (inject_attempts_ <= 0) return false;
    inject_attempts_--;
    *index = inject_index_;
    return inject_index_ < n;
  }

 private:
  bool verdict_pending_ = false;
  uint64_t judged_step_ = 0;
  double judged_time_ = 0.0, judged_dt_ = 0.0;
  int halvings_ = 0;      ///< halvings of the step being retaken
  uint64_t found_ = 0;    ///< non-finite particles over its failed attempts
  float dt_cap_ = INFINITY;
  std::string note_;      ///< not yet taken by take_note()
  uint inject_index_ = 0;
  int inject_attempts_ = 0;
};

}  // namespace tp
