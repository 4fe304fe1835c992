// Recording a session (session_file.h) from a running simulation: a SimRunner's observer
// that writes, as they happen, the steps, the inputs the simulation thread applied before
// each step, the state an edit left, and a hash of the particles every kHashSteps steps.
// The window's F8 (and the headless tests) drive it; replay with session_replay.h.
#pragma once

#include <mutex>
#include <string>

#include "sim/runner/sim_runner.h"
#include "sim/session/session_file.h"

namespace tp {

class SessionRecorder : public RunnerObserver {
 public:
  // Starts recording `runner`'s simulation into `path`: the state now (the Start record,
  // with the runner's step threads and `scene`), then everything after. false with a
  // sentence when the file cannot be written.
  bool start(SimRunner& runner, const std::string& path, const std::string& scene, std::string* error);
  // Stops: the steps since the last record, a last hash, End. Safe when not recording.
  void stop(SimRunner& runner);
  bool recording() const { return writer_.is_open(); }
  // The window's view now (from the window's thread, each frame): written as a View record
  // before the next step when it differs from the last one written.
  void set_view(const SessionView& view);
  const std::string& path() const { return writer_.path(); }
  // Steps recorded so far, the file's size, and why writing stopped (a full disk).
  uint64_t steps() const { return steps_; }
  uint64_t bytes() const { return writer_.bytes(); }
  bool failed() const { return writer_.failed(); }
  const std::string& error() const { return writer_.error(); }

  // RunnerObserver (on the simulation's thread):
  void before_inputs(Simulation& sim) override;
  void params(const SimParams& params) override;
  void mouse(const MouseForce& force) override;
  void move_obstacle(int index, Vec3 center) override;
  void grab_body(int index, Vec3 local, Vec3 target) override;
  void move_grab(Vec3 target) override;
  void release_body() override;
  void before_edit(Simulation& sim) override;
  void after_edit(Simulation& sim) override;

 private:
  // The steps taken since the last record, as one Steps record; a Hash when due.
  void write_steps(Simulation& sim, bool hash_now);
  void write_hash(Simulation& sim);  // a Hash and its Check

  void write_view();  // the pending view, when it changed (the simulation's side)

  SessionWriter writer_;
  std::mutex view_mutex_;
  SessionView view_{}, written_view_{};
  bool have_view_ = false, view_written_ = false;
  // The grab the inputs made, to make again after a State (whose restore on replay lets
  // go of it) when the edit left the body held.
  GrabInput grab_{};
  bool grabbing_ = false;
  uint64_t counted_ = 0;     // the simulation's step count at the last record
  uint64_t steps_ = 0;       // steps recorded
  uint64_t since_hash_ = 0;  // steps since the last Hash
};

}  // namespace tp
