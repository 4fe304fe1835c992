// Rates over the last second or so of frames: frame rate, simulation speed, steps per
// frame and milliseconds per phase per step. Recent means, not since start, so that the
// panel shows what a parameter change does now.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "sim/water/simulation.h"

namespace tp {

class FrameStats {
 public:
  explicit FrameStats(double window_seconds = 1.0) : window_(window_seconds) {}

  // Call once per rendered frame with the wall clock [s] and the statistics of the state it
  // draws (a frame whose state has new steps counts as a new state).
  void add(double now, const RunStats& stats);

  double frames_per_second() const { return fps_; }
  double ms_per_frame() const { return fps_ > 0 ? 1000.0 / fps_ : 0.0; }
  double simulation_speed() const { return speed_; }  ///< simulated s per wall s
  double states_per_second() const { return states_; }  ///< distinct states drawn
  double steps_per_frame() const { return steps_per_frame_; }
  double ms_per_step() const { return ms_per_step_; }  ///< all phases together
  // Mean wall milliseconds per step of each phase over the window (empty before 2 steps).
  const std::vector<std::pair<std::string, double>>& phase_ms() const { return phase_ms_; }
  // The most phases ever listed at once: the panel keeps the table's room for them, so
  // that a solver with fewer phases does not move the widgets below it up and down.
  size_t most_phase_rows() const { return most_phase_rows_; }

 private:
  struct Sample {
    double time;
    uint64_t frame;
    uint64_t steps;
    double simulated_time;
    uint64_t new_states;  ///< frames so far that drew a state not drawn before
    std::vector<PhaseTime> phases;
    int solver;
  };
  void recompute();

  double window_;
  uint64_t frames_ = 0, new_states_ = 0;
  std::deque<Sample> samples_;
  double fps_ = 0, speed_ = 0, states_ = 0, steps_per_frame_ = 0, ms_per_step_ = 0;
  std::vector<std::pair<std::string, double>> phase_ms_;
  std::vector<std::string> shown_;  ///< phases that ran since the last solver switch or reset
  size_t most_phase_rows_ = 0;
};

}  // namespace tp
