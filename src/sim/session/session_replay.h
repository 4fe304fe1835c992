// Replaying a session (session_file.h): the state it started from, then its records in
// order, each as the simulation met it (so many steps, an input, a state an edit left),
// checking each Hash record against the replayed particles. On the CPU, with the step
// threads the session was recorded with, the replay reaches the recorded state bit for
// bit; a mismatch is reported at the first record where it shows.
//
// SessionPlayer replays step by step (the window's replay: play, pause, single steps, a
// time slider) and seeks: back to the start or to the nearest snapshot at or before the
// step asked for, then forward. Snapshots are whole states kept in memory every so many
// steps as the replay first passes them; a restored state continues bit for bit (state
// files carry what the solvers keep between steps), so a seek reaches the state the
// straight replay reaches, and the hashes after it still match.
//
// On another backend (CUDA), whose sums round otherwise, the hashes depart soon after the
// first input: there the replay is compared as the device comparison compares, each Check
// record within tolerance (session_file.h), and says so; the hashes are counted but do not
// make it fail.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
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
  bool lanes = true;           ///< whether the CPU's lanes were on when recorded (cpu_lanes())
  std::string cut;             ///< where a file cut short or damaged ends (read_session)
  bool ended = false;          ///< it had its End record
  // A replay on another backend than the CPU (or compare_as_device): judged by the Check
  // records, within the device comparison's tolerance, rather than by the hashes.
  bool tolerant = false;
  std::string backend = "CPU";  ///< the backend replayed on
  int checks = 0;               ///< Check records compared (tolerant)
  int checks_outside = 0;       ///< of them, outside the tolerance
  uint64_t first_outside_step = 0;
  std::string first_outside;    ///< what left the tolerance there
};

// Whether the replay departed from the recording: a hash that does not match (on the
// CPU), a check outside the tolerance (tolerant).
inline bool replay_departed(const ReplayReport& r) { return r.tolerant ? r.checks_outside > 0 : r.mismatches > 0; }

struct ReplayOptions {
  bool stop_at_mismatch = false;  ///< stop at the first Hash that does not match
  // Called after each step (the simulation just stepped to `step`); returning false stops
  // the replay there.
  std::function<bool(Simulation& sim, uint64_t step)> after_steps;
};

class SessionPlayer {
 public:
  // `session` must outlive the player. Snapshots every `snapshot_steps` steps (0: none).
  explicit SessionPlayer(const SessionContents& session, uint64_t snapshot_steps = 0);

  // Restores the Start record's state into `sim` (step 0). Throws std::runtime_error with
  // a sentence when the record is damaged. A `sim` on another backend than the CPU makes
  // the replay tolerant (above).
  void begin(Simulation& sim);
  // Judges the replay by its Check records even on the CPU (the tests of the judging).
  void compare_as_device(bool on) { force_tolerant_ = on; }
  // Applies records until `max_steps` more steps have been taken or the session ends (or,
  // with stop_at_mismatch, a Hash does not match). `keep_going`, when given, is asked after
  // each step; false stops there. Returns the steps taken. Throws std::runtime_error when
  // a record cannot be applied.
  uint64_t advance(Simulation& sim, uint64_t max_steps, bool stop_at_mismatch = false,
                   const std::function<bool(Simulation&)>& keep_going = {});
  // Replays to `step` (at most the session's last): forward from here when it lies ahead,
  // else from the nearest snapshot at or before it (or the start). Returns the step reached.
  uint64_t seek(Simulation& sim, uint64_t step);
  // Lets go of what the recording's hands hold at this step, for a window that takes the
  // simulation over here (Continue from here): the body held by the mouse joint and the
  // mouse's force on the water, which no one's mouse would ever release. Returns whether a
  // body was held.
  bool let_go(Simulation& sim);

  // The view the session recorded up to here (View records), and a count that grows each
  // time a new one is met (so that a window applies it once and lets the user move on).
  bool view(SessionView* out) const {
    if (has_view_) *out = view_;
    return has_view_;
  }
  uint64_t view_serial() const { return view_serial_; }

  uint64_t step() const { return step_; }
  uint64_t total_steps() const { return total_steps_; }
  // The simulated time at the session's end as its End record says, -1 when it does not
  // (a session cut short, or written before the End carried it).
  double end_time() const { return session_.end_time; }
  bool finished() const { return record_ >= session_.records.size(); }
  const ReplayReport& report() const { return report_; }
  size_t snapshots() const { return snapshots_.size(); }

 private:
  struct Position {
    size_t record = 0;          // the next record to apply
    uint64_t done_in_record = 0;  // of a Steps record, the steps already taken
    uint64_t step = 0;
    bool grabbing = false;      // the mouse joint the inputs left (a state does not hold it)
    GrabInput grab{};
    bool has_view = false;      // the view recorded up to there
    SessionView view{};
  };
  struct Snapshot {
    Position at;
    SimState state;
  };
  void apply(Simulation& sim, const SessionRecord& r, bool stop_at_mismatch);
  void take_snapshot(Simulation& sim);

  const SessionContents& session_;
  uint64_t snapshot_steps_ = 0;
  uint64_t total_steps_ = 0;
  size_t record_ = 0;
  uint64_t done_in_record_ = 0;
  uint64_t step_ = 0;
  bool grabbing_ = false;
  GrabInput grab_{};
  bool has_view_ = false;
  SessionView view_{};
  uint64_t view_serial_ = 0;
  ReplayReport report_;
  bool force_tolerant_ = false;
  std::map<size_t, bool> hash_checked_;     // by record: matched (a seek passes some again)
  std::map<size_t, bool> check_checked_;    // by record: within the tolerance
  std::map<uint64_t, Snapshot> snapshots_;  // by step
};

// Replays `session` into `sim` (its state replaced by the Start's). Throws
// std::runtime_error with a sentence when a record cannot be applied (a damaged state).
ReplayReport replay_session(Simulation& sim, const SessionContents& session, const ReplayOptions& options = {});

// One line for the terminal: "replayed 300 steps (t = 1.234 s): 11 of 11 hashes match", or
// on another backend "replayed 300 steps (t = 1.234 s) on CUDA: 11 of 11 checks within the
// device comparison's tolerance (...)".
std::string replay_summary(const ReplayReport& report, double simulated_time);

// Sets the CPU's lanes (cpu_lanes()) as the session was recorded, saying so on stderr when
// that differs from this run's: on the other path the sums round otherwise and the replay
// departs at its first hash.
void replay_with_recorded_lanes(bool lanes);

}  // namespace tp
