#include "sim/session/session_replay.h"

#include <cstdio>
#include <stdexcept>

#include "sim/io/state_file.h"

namespace tp {

namespace {

template <class T>
T payload_of(const SessionRecord& r, const char* what) {
  T value;
  if (!session_unpod(r.payload, &value))
    throw std::runtime_error(std::string("the session's ") + what + " record at byte " + std::to_string(r.offset) +
                             " has the wrong size (a file from another build?)");
  return value;
}

}  // namespace

SessionPlayer::SessionPlayer(const SessionContents& session, uint64_t snapshot_steps)
    : session_(session), snapshot_steps_(snapshot_steps) {
  report_.cut = session.cut;
  report_.ended = session.ended;
  for (const SessionRecord& r : session.records)
    if (r.kind == SessionKind::Steps) total_steps_ += payload_of<uint64_t>(r, "steps");
}

void SessionPlayer::begin(Simulation& sim) {
  report_.tolerant = force_tolerant_ || sim.backend().kind != BackendKind::Cpu;
  report_.backend = sim.backend().kind == BackendKind::Cuda ? "CUDA" : "CPU";
  record_ = 0;
  done_in_record_ = 0;
  step_ = 0;
  grabbing_ = false;
  has_view_ = false;
  ++view_serial_;
  if (session_.records.empty() || session_.records.front().kind != SessionKind::Start)
    throw std::runtime_error("the session has no start record");
  apply(sim, session_.records.front(), false);
  record_ = 1;
  take_snapshot(sim);
}

bool SessionPlayer::let_go(Simulation& sim) {
  const bool held = sim.grabbed_body() >= 0;
  if (held) sim.release_body();
  sim.set_mouse(MouseForce{});
  grabbing_ = false;
  return held;
}

void SessionPlayer::apply(Simulation& sim, const SessionRecord& r, bool stop_at_mismatch) {
  switch (r.kind) {
    case SessionKind::Start: {
      std::string state_bytes, ignored;
      if (!session_read_start(r.payload, &report_.threads, &report_.lanes, &report_.scene, &state_bytes))
        throw std::runtime_error("the session's start record is damaged or from a machine of the other byte order");
      replay_with_recorded_lanes(report_.lanes);
      sim.restore(decode_state(state_bytes, "the session's start", &ignored));
      break;
    }
    case SessionKind::State: {
      std::string ignored;
      sim.restore(decode_state(r.payload, "the session's state at byte " + std::to_string(r.offset), &ignored));
      grabbing_ = false;  // a restore lets go; a Grab record follows when the edit kept it
      break;
    }
    case SessionKind::Steps:
      break;  // (advance takes them one by one)
    case SessionKind::Params:
      sim.params() = payload_of<SimParams>(r, "parameters");
      break;
    case SessionKind::Mouse:
      sim.set_mouse(payload_of<MouseForce>(r, "mouse"));
      break;
    case SessionKind::Move: {
      const MoveInput m = payload_of<MoveInput>(r, "obstacle move");
      sim.move_obstacle(m.index, m.center);
      break;
    }
    case SessionKind::Grab:
      grab_ = payload_of<GrabInput>(r, "grab");
      grabbing_ = true;
      sim.grab_body(grab_.index, grab_.local, grab_.target);
      break;
    case SessionKind::GrabMove:
      grab_.target = payload_of<Vec3>(r, "grab move");
      sim.move_grab(grab_.target);
      break;
    case SessionKind::Release:
      grabbing_ = false;
      sim.release_body();
      break;
    case SessionKind::Hash: {
      const bool match = payload_of<uint64_t>(r, "hash") == session_hash(sim);
      if (hash_checked_.emplace(record_, match).second) {
        ++report_.hashes;
        if (!match && report_.mismatches++ == 0) report_.first_mismatch_step = step_;
      }
      if (!match && stop_at_mismatch && !report_.tolerant) report_.stopped_at_mismatch = true;
      break;
    }
    case SessionKind::Check: {
      if (!report_.tolerant) break;  // (exact: the Hash beside it says more)
      const SessionCheck recorded = payload_of<SessionCheck>(r, "check");
      const SessionCheck now = session_check(sim, sim.snapshot());
      std::string why;
      const bool ok = within_device_tolerance(recorded, now, double(sim.mass()) * double(sim.particle_count()),
                                              sim.spacing(), &why);
      if (check_checked_.emplace(record_, ok).second) {
        ++report_.checks;
        if (!ok && report_.checks_outside++ == 0) {
          report_.first_outside_step = step_;
          report_.first_outside = why;
        }
      }
      if (!ok && stop_at_mismatch) report_.stopped_at_mismatch = true;
      break;
    }
    case SessionKind::End:
      break;
    case SessionKind::View:
      view_ = payload_of<SessionView>(r, "view");
      has_view_ = true;
      ++view_serial_;
      break;
  }
}

uint64_t SessionPlayer::advance(Simulation& sim, uint64_t max_steps, bool stop_at_mismatch,
                                const std::function<bool(Simulation&)>& keep_going) {
  uint64_t taken = 0;
  report_.stopped_at_mismatch = false;
  while (record_ < session_.records.size()) {
    const SessionRecord& r = session_.records[record_];
    if (r.kind != SessionKind::Steps) {
      apply(sim, r, stop_at_mismatch);
      ++record_;
      if (report_.stopped_at_mismatch) break;
      continue;
    }
    const uint64_t n = payload_of<uint64_t>(r, "steps");
    if (done_in_record_ >= n) {
      done_in_record_ = 0;
      ++record_;
      continue;
    }
    if (taken >= max_steps) break;
    sim.step();
    ++taken;
    ++step_;
    ++done_in_record_;
    report_.steps = std::max(report_.steps, step_);
    if (snapshot_steps_ > 0 && step_ % snapshot_steps_ == 0) take_snapshot(sim);
    if (keep_going && !keep_going(sim)) break;
  }
  return taken;
}

void SessionPlayer::take_snapshot(Simulation& sim) {
  if (snapshot_steps_ == 0 || snapshots_.count(step_)) return;
  Snapshot& s = snapshots_[step_];
  s.at = Position{record_, done_in_record_, step_, grabbing_, grab_, has_view_, view_};
  s.state = sim.capture();
}

uint64_t SessionPlayer::seek(Simulation& sim, uint64_t step) {
  step = std::min(step, total_steps_);
  if (step < step_) {
    auto it = snapshots_.upper_bound(step);  // the first after it
    if (it == snapshots_.begin()) {
      begin(sim);
    } else {
      --it;
      const Position& at = it->second.at;
      sim.restore(it->second.state);
      record_ = at.record;
      done_in_record_ = at.done_in_record;
      step_ = at.step;
      grabbing_ = at.grabbing;
      grab_ = at.grab;
      has_view_ = at.has_view;
      view_ = at.view;
      ++view_serial_;
      if (grabbing_) sim.grab_body(grab_.index, grab_.local, grab_.target);
    }
  }
  if (step > step_) advance(sim, step - step_);
  return step_;
}

ReplayReport replay_session(Simulation& sim, const SessionContents& session, const ReplayOptions& options) {
  SessionPlayer player(session);
  player.begin(sim);
  while (!player.finished()) {
    // A Steps record at a time, as recorded, for after_steps.
    const uint64_t before = player.step();
    player.advance(sim, UINT64_MAX, options.stop_at_mismatch, [&](Simulation&) { return false; });
    if (player.report().stopped_at_mismatch) break;
    if (player.step() > before && options.after_steps && !options.after_steps(sim, player.step())) break;
  }
  return player.report();
}

std::string replay_summary(const ReplayReport& report, double simulated_time) {
  char line[512];
  std::string out;
  if (report.tolerant) {
    std::snprintf(line, sizeof line, "replayed %llu steps (t = %.3f s) on %s: ",
                  static_cast<unsigned long long>(report.steps), simulated_time, report.backend.c_str());
    out = line;
    if (report.checks == 0) {
      out += "the session has no checks to compare with (recorded by an earlier Tidepool), so it is not judged";
    } else {
      std::snprintf(line, sizeof line,
                    "%d of %d checks within the device comparison's tolerance; %d of %d hashes match (the "
                    "device's sums round otherwise than the CPU's: the hashes are not expected to)",
                    report.checks - report.checks_outside, report.checks, report.hashes - report.mismatches,
                    report.hashes);
      out += line;
    }
    if (report.checks_outside > 0)
      out += "; it left the tolerance at step " + std::to_string(report.first_outside_step) + ": " +
             report.first_outside + (report.stopped_at_mismatch ? " (stopped there)" : "");
  } else {
    std::snprintf(line, sizeof line, "replayed %llu steps (t = %.3f s): %d of %d hashes match",
                  static_cast<unsigned long long>(report.steps), simulated_time, report.hashes - report.mismatches,
                  report.hashes);
    out = line;
    if (report.mismatches > 0)
      out += "; the first mismatch at step " + std::to_string(report.first_mismatch_step) +
             (report.stopped_at_mismatch ? " (stopped there)" : "");
  }
  if (!report.cut.empty()) out += "; " + report.cut + ": replayed up to its last complete record";
  else if (!report.ended) out += "; the session has no end mark (the program was stopped while recording)";
  return out;
}

void replay_with_recorded_lanes(bool lanes) {
  if (cpu_lanes() == lanes) return;
  std::fprintf(stderr, "tidepool: the session was recorded with the CPU's lanes %s; replayed so\n",
               lanes ? "on" : "off (TIDEPOOL_SCALAR=1)");
  set_cpu_lanes(lanes);
}

}  // namespace tp
