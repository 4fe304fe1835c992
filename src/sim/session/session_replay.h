// Replaying a session (session_file.h): the state it started from, then its records in
// order, each as the simulation met it (so many steps, an input, a state an edit left),
// checking each Hash record against the replayed particles. On the CPU, with the step
// threads the session was recorded with, the replay reaches the recorded state bit for
// bit; a mismatch is reported at the first record where it shows.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "sim/session/session_file.h"

namespace tp {

struct ReplayReport {
  uint64_t steps = 0;          ///< steps replayed
  int hashes = 0;              ///< Hash records checked
  int mismatches = 0;          ///< of them, not matched
  uint64_t first_mismatch_step = 0;  ///< the step of the first (mismatches > 0)
  bool stopped_at_mismatch = false;
  std::string scene;           ///< the Start record's scene
  int threads = 0;             ///< the steps' threads when recorded
  std::string cut;             ///< where a file cut short or damaged ends (read_session)
  bool ended = false;          ///< it had its End record
};

struct ReplayOptions {
  bool stop_at_mismatch = false;  ///< stop at the first Hash that does not match
  // Called after each Steps record (the simulation just stepped to `step`); returning false
  // stops the replay there (a seek, an offline render's frame).
  std::function<bool(Simulation& sim, uint64_t step)> after_steps;
};

// Replays `session` into `sim` (its state replaced by the Start's). Throws
// std::runtime_error with a sentence when a record cannot be applied (a damaged state).
ReplayReport replay_session(Simulation& sim, const SessionContents& session, const ReplayOptions& options = {});

// One line for the terminal: "replayed 300 steps (t = 1.234 s): 11 of 11 hashes match".
std::string replay_summary(const ReplayReport& report, double simulated_time);

}  // namespace tp
