// Session files (.tpsession): a play session recorded as what changed the simulation, so
// that replaying it reaches the recorded state exactly on the CPU (issue 38 part 2).
//
// Format: the line "TIDEPOOL SESSION 1\n", then records, each written whole and flushed
// as it happens (a session is complete up to its last record even if the program is
// killed): a u32 kind, a u64 length and the payload, then a u32 CRC-32 of those, all in
// the machine's byte order (the Start record says which). The records, in the order the
// simulation met them:
// - Start: the threads the steps ran on and whether the CPU's lanes were on, the byte
//   order, the scene's name and the whole
//   state at the start (a state file's bytes, src/sim/io/state_file.h).
// - Steps: so many steps of the simulation (Simulation::step, whose time step is the
//   solver's own choice from the state: the same on replay).
// - Params, Mouse, Move (an obstacle), Grab, GrabMove, Release: the inputs the simulation
//   thread applied before the next step, as it applied them (the mouse force's point and
//   velocity, not the window's ray).
// - State: the whole state after something replaced or edited it at once (a reset, a
//   scene or state load, a body added, removed or its density set).
// - Hash: a hash of the particles (ids, positions, velocities) and the time, every
//   kHashSteps steps, checked on replay.
// - End: the session was closed; its payload is the simulated time at the end (a double;
//   empty from a writer that did not know it), which an offline render's progress shows.
// - View: the window's camera, render mode and colour mode, whenever they changed (written
//   before the next step; the view draws the simulation, never changes it).
// - Check: beside each Hash, the statistics a replay on another backend (CUDA, whose sums
//   round otherwise: its hashes depart) is compared with, within the device comparison's
//   tolerance: the kinetic energy, the mean density error and the bodies' positions.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "sim/water/simulation.h"

namespace tp {

enum class SessionKind : uint32_t {
  Start = 1,
  Steps = 2,
  Params = 3,
  Mouse = 4,
  Move = 5,
  Grab = 6,
  GrabMove = 7,
  Release = 8,
  State = 9,
  Hash = 10,
  End = 11,
  View = 12,
  Check = 13,
};

// 2 added View records, 3 Check records (files of earlier versions, which have none, are
// read as before).
constexpr int kSessionVersion = 3;
constexpr uint64_t kHashSteps = 30;  ///< a Hash record at least this often (in steps)

struct SessionRecord {
  SessionKind kind = SessionKind::End;
  std::string payload;
  uint64_t offset = 0;  ///< where it starts in the file
};

// A hash of what a replay must reproduce exactly: the fluid's ids, positions and
// velocities in memory order, and the simulated time (FNV-1a, 64 bits).
uint64_t session_hash(Simulation& sim);
uint64_t session_hash(const Snapshot& s, double simulated_time);

// A Check record's payload: what a replay on another backend must stay near.
constexpr int kCheckBodies = 8;  ///< the first bodies' positions (a scene rarely has more)
struct SessionCheck {
  double kinetic_energy = 0.0;      ///< [J] of the fluid
  double density_error_mean = 0.0;  ///< over the particles, the latest state's (RunStats::last_density_error)
  int32_t bodies = 0;               ///< of them, this many positions below (at most kCheckBodies)
  Vec3 body_position[kCheckBodies] = {};
};
SessionCheck session_check(Simulation& sim, const Snapshot& s);
// Whether `replayed` is within the device comparison's tolerance of `recorded`
// (tests/backend_comparison.h): the kinetic energy within 25 % (and 1 cm/s of speed for
// the whole fluid), the mean density error within 1 point, each body within a particle
// spacing (the finest thing the water resolves; bodies the flow carries drift apart as the
// flow does). When not, *why says what left it.
bool within_device_tolerance(const SessionCheck& recorded, const SessionCheck& replayed, double fluid_mass,
                             float spacing, std::string* why);

// Appends records to a session file; each record is flushed as it is written.
class SessionWriter {
 public:
  SessionWriter() = default;
  ~SessionWriter();  // closes (with End) if open
  SessionWriter(const SessionWriter&) = delete;
  SessionWriter& operator=(const SessionWriter&) = delete;

  // Creates `path` (replacing a file of that name) and writes the header. false with a
  // sentence naming the path.
  bool open(const std::string& path, std::string* error);
  bool is_open() const { return file_ != nullptr; }
  const std::string& path() const { return path_; }
  // false once a write has failed (a full disk): *error says so; the rest is not written.
  bool write(SessionKind kind, const std::string& payload);
  bool failed() const { return failed_; }
  const std::string& error() const { return error_; }
  // Writes End (with the simulated time at the end when it is given, >= 0) and closes.
  void close(double end_time = -1.0);
  uint64_t bytes() const { return bytes_; }

 private:
  FILE* file_ = nullptr;
  std::string path_, error_;
  bool failed_ = false;
  uint64_t bytes_ = 0;
};

struct SessionContents {
  std::vector<SessionRecord> records;  ///< the complete records, in order
  bool ended = false;                  ///< it has its End record
  double end_time = -1.0;              ///< [s] the simulated time at its End; -1: not known
  /// Where and why reading stopped before an End: "" when it ended properly, else e.g. "the
  /// file ends inside a record at byte 1234 (cut short)".
  std::string cut;
};

// Reads a session file. Throws std::runtime_error with a sentence naming the file when it
// is not a session file (or of a later version, or its Start record is missing or
// damaged); a file cut short or damaged after its Start reads up to its last complete
// record, and `cut` says where it stopped.
SessionContents read_session(const std::string& path);

// Payloads of the input records, in the machine's byte order.
std::string session_pod(const void* data, size_t size);
template <class T>
std::string session_pod(const T& value) {
  return session_pod(&value, sizeof value);
}
// Reads a payload written by session_pod; false when its size is not T's.
template <class T>
bool session_unpod(const std::string& payload, T* value) {
  if (payload.size() != sizeof(T)) return false;
  std::memcpy(value, payload.data(), sizeof(T));
  return true;
}

struct GrabInput {
  int32_t index = -1;
  Vec3 local{0, 0, 0}, target{0, 0, 0};
};
// A View record's payload: the orbit camera (target, distance, yaw and pitch in degrees)
// and the render and colour modes as the window numbers them.
struct SessionView {
  Vec3 target{0, 0, 0};
  float distance = 0.0f, yaw = 0.0f, pitch = 0.0f;
  int32_t render_mode = 0, color_mode = 0;
  bool operator==(const SessionView& o) const {
    return target.x == o.target.x && target.y == o.target.y && target.z == o.target.z && distance == o.distance &&
           yaw == o.yaw && pitch == o.pitch && render_mode == o.render_mode && color_mode == o.color_mode;
  }
  bool operator!=(const SessionView& o) const { return !(*this == o); }
};
struct MoveInput {
  int32_t index = -1;
  Vec3 center{0, 0, 0};
};

// The Start record's payload and its reading: the step threads, whether the CPU ran its
// loops a block of lanes a call (cpu_lanes(): the two round otherwise, so a replay must run
// as the recording did; stored as kStartScalarBit in the threads' field, clear in files
// that predate it, which were recorded with the lanes on unless a test turned them off),
// the scene's name and the state.
constexpr int32_t kStartScalarBit = int32_t(1) << 30;
std::string session_start_payload(int threads, bool lanes, const std::string& scene, const std::string& state_bytes);
bool session_read_start(const std::string& payload, int* threads, bool* lanes, std::string* scene,
                        std::string* state_bytes);

}  // namespace tp
