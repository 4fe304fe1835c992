#include "sim/session/session_recorder.h"

#include "sim/io/state_file.h"

namespace tp {

bool SessionRecorder::start(SimRunner& runner, const std::string& path, const std::string& scene,
                            std::string* error) {
  stop(runner);
  bool ok = true;
  runner.set_observer(this, [&](Simulation& sim) {
    if (!writer_.open(path, error)) {
      ok = false;
      return;
    }
    writer_.write(SessionKind::Start,
                  session_start_payload(runner.step_threads(), cpu_lanes(), scene, encode_state(sim.capture(), scene)));
    counted_ = sim.stats_as_stepped().steps;
    steps_ = since_hash_ = 0;
    view_written_ = false;
    write_hash(sim);
    write_view();
  });
  if (!ok) runner.set_observer(nullptr);
  return ok;
}

void SessionRecorder::stop(SimRunner& runner) {
  if (!writer_.is_open()) return;
  runner.set_observer(nullptr, [&](Simulation& sim) {
    write_steps(sim, true);
    writer_.close(sim.simulated_time());
  });
}

void SessionRecorder::write_steps(Simulation& sim, bool hash_now) {
  const uint64_t now = sim.stats_as_stepped().steps;
  const uint64_t n = now >= counted_ ? now - counted_ : 0;
  if (n > 0) {
    writer_.write(SessionKind::Steps, session_pod(n));
    steps_ += n;
    since_hash_ += n;
  }
  counted_ = now;
  if (hash_now || since_hash_ >= kHashSteps) {
    write_hash(sim);
    since_hash_ = 0;
  }
}

void SessionRecorder::write_hash(Simulation& sim) {
  const Snapshot s = sim.snapshot();
  writer_.write(SessionKind::Hash, session_pod(session_hash(s, sim.simulated_time())));
  writer_.write(SessionKind::Check, session_pod(session_check(sim, s)));
}

void SessionRecorder::before_inputs(Simulation& sim) {
  write_steps(sim, false);
  write_view();
}

void SessionRecorder::set_view(const SessionView& view) {
  std::lock_guard<std::mutex> lock(view_mutex_);
  view_ = view;
  have_view_ = true;
}

void SessionRecorder::write_view() {
  SessionView view;
  {
    std::lock_guard<std::mutex> lock(view_mutex_);
    if (!have_view_ || (view_written_ && view_ == written_view_)) return;
    view = view_;
  }
  writer_.write(SessionKind::View, session_pod(view));
  written_view_ = view;
  view_written_ = true;
}

void SessionRecorder::params(const SimParams& p) { writer_.write(SessionKind::Params, session_pod(p)); }

void SessionRecorder::mouse(const MouseForce& force) { writer_.write(SessionKind::Mouse, session_pod(force)); }

void SessionRecorder::move_obstacle(int index, Vec3 center) {
  writer_.write(SessionKind::Move, session_pod(MoveInput{index, center}));
}

void SessionRecorder::grab_body(int index, Vec3 local, Vec3 target) {
  grab_ = GrabInput{index, local, target};
  grabbing_ = true;
  writer_.write(SessionKind::Grab, session_pod(grab_));
}

void SessionRecorder::move_grab(Vec3 target) {
  grab_.target = target;
  writer_.write(SessionKind::GrabMove, session_pod(target));
}

void SessionRecorder::release_body() {
  grabbing_ = false;
  writer_.write(SessionKind::Release, "");
}

void SessionRecorder::before_edit(Simulation& sim) { write_steps(sim, false); }

void SessionRecorder::after_edit(Simulation& sim) {
  writer_.write(SessionKind::State, encode_state(sim.capture(), ""));
  // (The state holds the mouse force but not the mouse joint, a thing of the window's.)
  if (grabbing_ && sim.grabbed_body() == grab_.index) writer_.write(SessionKind::Grab, session_pod(grab_));
  counted_ = sim.stats_as_stepped().steps;
  write_hash(sim);
  since_hash_ = 0;
}

}  // namespace tp
