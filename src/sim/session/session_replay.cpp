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

ReplayReport replay_session(Simulation& sim, const SessionContents& session, const ReplayOptions& options) {
  ReplayReport report;
  report.cut = session.cut;
  report.ended = session.ended;
  for (size_t k = 0; k < session.records.size(); ++k) {
    const SessionRecord& r = session.records[k];
    switch (r.kind) {
      case SessionKind::Start: {
        std::string state_bytes, ignored;
        if (!session_read_start(r.payload, &report.threads, &report.scene, &state_bytes))
          throw std::runtime_error("the session's start record is damaged or from a machine of the other byte order");
        sim.restore(decode_state(state_bytes, "the session's start", &ignored));
        break;
      }
      case SessionKind::State: {
        std::string ignored;
        sim.restore(decode_state(r.payload, "the session's state at byte " + std::to_string(r.offset), &ignored));
        break;
      }
      case SessionKind::Steps: {
        const uint64_t n = payload_of<uint64_t>(r, "steps");
        for (uint64_t s = 0; s < n; ++s) sim.step();
        report.steps += n;
        if (options.after_steps && !options.after_steps(sim, report.steps)) return report;
        break;
      }
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
      case SessionKind::Grab: {
        const GrabInput g = payload_of<GrabInput>(r, "grab");
        sim.grab_body(g.index, g.local, g.target);
        break;
      }
      case SessionKind::GrabMove:
        sim.move_grab(payload_of<Vec3>(r, "grab move"));
        break;
      case SessionKind::Release:
        sim.release_body();
        break;
      case SessionKind::Hash: {
        ++report.hashes;
        if (payload_of<uint64_t>(r, "hash") != session_hash(sim)) {
          if (report.mismatches++ == 0) report.first_mismatch_step = report.steps;
          if (options.stop_at_mismatch) {
            report.stopped_at_mismatch = true;
            return report;
          }
        }
        break;
      }
      case SessionKind::End:
        break;
    }
  }
  return report;
}

std::string replay_summary(const ReplayReport& report, double simulated_time) {
  char line[512];
  std::snprintf(line, sizeof line, "replayed %llu steps (t = %.3f s): %d of %d hashes match",
                static_cast<unsigned long long>(report.steps), simulated_time, report.hashes - report.mismatches,
                report.hashes);
  std::string out = line;
  if (report.mismatches > 0)
    out += "; the first mismatch at step " + std::to_string(report.first_mismatch_step) +
           (report.stopped_at_mismatch ? " (stopped there)" : "");
  if (!report.cut.empty()) out += "; " + report.cut + ": replayed up to its last complete record";
  else if (!report.ended) out += "; the session has no end mark (the program was stopped while recording)";
  return out;
}

}  // namespace tp
