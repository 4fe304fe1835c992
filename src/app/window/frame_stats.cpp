#include "app/window/frame_stats.h"

#include <algorithm>

namespace tp {

namespace {

bool timers_restarted(const std::vector<PhaseTime>& before, const std::vector<PhaseTime>& now) {
  for (const PhaseTime& phase : now)
    for (const PhaseTime& old : before)
      if (old.name == phase.name && phase.total_ms < old.total_ms) return true;
  return false;
}

}  // namespace

void FrameStats::add(double now, const RunStats& stats) {
  ++frames_;
  if (samples_.empty() || stats.steps != samples_.back().steps) ++new_states_;
  // A reset restarts the simulation's counters, and an edit that rebuilds the simulation
  // (a body added or removed) its phase timers: differences across either mean nothing. The
  // last figures stay on show until new ones are measured, so the panel does not jump.
  if (!samples_.empty()) {
    const bool reset = stats.steps < samples_.back().steps;
    if (reset || timers_restarted(samples_.back().phases, stats.phases)) samples_.clear();
    if (reset) shown_.clear();  // (a rebuild keeps the solver and its rows)
  }
  // A solver switch: the window starts again at the last state of the old solver, so that
  // the phases shown are the new solver's alone, each per step of it (over a window that
  // spanned the switch, both solvers' phases showed for a second, each divided by every
  // step of the window).
  if (!samples_.empty() && stats.last_solver != samples_.back().solver) {
    Sample last = samples_.back();
    samples_.clear();
    shown_.clear();
    if (last.solver >= 0) samples_.push_back(std::move(last));
  }
  samples_.push_back(
      Sample{now, frames_, stats.steps, stats.simulated_time, new_states_, stats.phases, stats.last_solver});
  // Keep one sample at or beyond the window's start so the window is always full length.
  while (samples_.size() > 2 && now - samples_[1].time >= window_) samples_.pop_front();
  recompute();
}

void FrameStats::recompute() {
  const Sample& a = samples_.front();
  const Sample& b = samples_.back();
  const double seconds = b.time - a.time;
  if (samples_.size() < 2 || seconds <= 0.0) return;
  const double frames = double(b.frame - a.frame);
  const double steps = double(b.steps - a.steps);
  fps_ = frames / seconds;
  speed_ = (b.simulated_time - a.simulated_time) / seconds;
  states_ = double(b.new_states - a.new_states) / seconds;
  steps_per_frame_ = frames > 0 ? steps / frames : 0.0;
  // While paused there are no new steps: keep showing the last measured phase times.
  if (steps <= 0) return;
  phase_ms_.clear();
  ms_per_step_ = 0.0;
  for (const PhaseTime& phase : b.phases) {
    double before = 0.0;
    bool ran_before = false;
    for (const PhaseTime& old : a.phases) {
      if (old.name == phase.name) {
        before = old.total_ms;
        ran_before = true;
      }
    }
    // The simulation keeps every phase it has ever timed; after a solver switch those of
    // the previous solver stop growing. They are not part of a step now: leave them out.
    // A phase that has run since the switch (or the reset) keeps its row even when it did
    // not run in the window (the spray's phase runs every other step, the density only
    // while frames are recorded): rows that came and went moved the panel's widgets below
    // them under the pointer.
    const bool grew = !ran_before || phase.total_ms > before;
    const bool shown = std::find(shown_.begin(), shown_.end(), phase.name) != shown_.end();
    if (!grew && !shown) continue;
    if (!shown) shown_.push_back(phase.name);
    const double ms = grew ? (phase.total_ms - before) / steps : 0.0;
    phase_ms_.emplace_back(phase.name, ms);
    ms_per_step_ += ms;
  }
  most_phase_rows_ = std::max(most_phase_rows_, phase_ms_.size());
}

}  // namespace tp
