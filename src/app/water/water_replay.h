// --replay SESSION in the window (docs/recording.md): the session recorded with F8 played
// back in the water's window, on the CPU and on the step threads it was recorded with, so
// that it reaches the recorded states exactly; its hashes are checked as it goes.
//
// Playing follows the wall clock at the chosen speed; Space pauses, S steps one step, R
// goes back to the start, and the replay bar's time slider seeks (sim/session's player:
// from the nearest in-memory snapshot, then forward). The mouse, the drags and the panel's
// edits do not reach the simulation while it replays; "Continue from here" hands it back
// to the window, live from the state shown (F8 then records on from there).
//
// Offline (--replay with --video): every frame is the state at the next 1/fps of
// simulated time, whatever the wall clock, with a progress bar on the terminal; the mode
// is done at the session's end.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "app/window/panel_common.h"
#include "sim/session/session_replay.h"

namespace tp {

class WaterReplay {
 public:
  // Steps between the snapshots the slider seeks from (a seek replays fewer than this).
  static constexpr uint64_t kSnapshotSteps = 120;

  // `session`: the one the setup read (its start already in the simulation). `offline_fps`
  // > 0: rendered offline at that rate.
  void open(std::shared_ptr<const SessionContents> session, const std::string& path, double offline_fps);
  bool active() const { return player_ != nullptr; }
  bool offline() const { return offline_fps_ > 0.0; }

  // The start (the mode's, before the first frame): the Start record's state and threads.
  void begin(Simulation& sim);
  // The frame's steps, on the window's thread (the runner's step_inline): as far as the
  // clock (or the offline frame) asks, or one for a single step, or to a seek.
  void play(Simulation& sim, double frame_seconds, WindowControls& controls);
  // The replay bar (an ImGui frame under way): play and pause, step, speed, the time slider,
  // the hashes' verdict, Continue from here. `panel_width`: the panel beside it.
  void draw_bar(WindowControls& controls, float panel_width);
  // R, or the slider: replays to `step` at the next play.
  void request_seek(uint64_t step);
  // The simulated time of the state drawn (the bar shows it).
  void set_time(double t) { last_time_ = t; }
  // Continue from here was pressed (taken once); the replay then ends (stop()).
  bool take_over_requested() { return take_request(take_over_); }
  // Ends the replay: the window takes the simulation as it is, less what the recording's
  // hands held (SessionPlayer::let_go; true when a body was held). `sim`: the runner's,
  // exclusively.
  bool stop(Simulation& sim);
  // The session's step shown (0 at its start; the bar's, the slider's and the seeks' count)
  // and its length.
  uint64_t step() const { return player_ ? player_->step() : 0; }
  uint64_t total_steps() const { return player_ ? player_->total_steps() : 0; }
  // The simulation's own step count at the session's start (the steps of the run it was
  // recorded in before F8), once a replay began; the simulation's count is this plus the
  // session's.
  uint64_t steps_before() const { return steps_before_; }
  // The recorded view (camera, render and colour modes) when the replay has just met a new
  // one and the bar's "Recorded view" is ticked (always offline): the window applies it,
  // and the user may move the camera until the next.
  bool take_view(SessionView* view);

  // Offline: the time of the frame drawn on the video's clock, and the end.
  double video_clock() const;
  bool done() const { return offline() && done_; }
  // The closing line (the hashes' verdict), for the mode's finish; 1 on a mismatch.
  int finish_line(double simulated_time) const;

 private:
  void progress(Simulation& sim, bool last);

  std::shared_ptr<const SessionContents> session_;
  std::unique_ptr<SessionPlayer> player_;
  std::string name_;              // the file's name, for the bar
  ReplayReport last_report_;      // kept after stop(), for the closing line
  bool ever_ = false;             // a replay ran (the closing line)
  uint64_t steps_before_ = 0;
  int threads_ = 0;
  double speed_ = 1.0;
  int64_t seek_to_ = -1;          // the slider's request
  bool take_over_ = false;
  bool at_end_said_ = false;
  bool follow_view_ = true;       // the bar's "Recorded view"
  uint64_t view_taken_ = 0;       // the player's view serial last applied
  uint64_t slider_ = 0;           // the slider's value (while held, the step dragged to)
  bool slider_held_ = false;
  double last_time_ = 0.0;
  // Offline
  double offline_fps_ = 0.0;
  double t0_ = 0.0;               // the simulated time at the start
  long frame_ = -1;               // the frame being drawn (0: the start)
  bool done_ = false;
  std::chrono::steady_clock::time_point offline_start_{}, last_progress_{};
};

}  // namespace tp
