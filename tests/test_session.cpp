// Sessions (src/sim/session, issue 38 part 2): a scripted session recorded through the
// window's simulation runner (its mailbox and its edits, as the window drives it) replays
// to the identical final state on the CPU; a file cut at any byte replays up to its last
// complete record and says where it stopped; damaged and foreign files are refused or
// stop with a sentence.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/runner/sim_runner.h"
#include "sim/scene/scene.h"
#include "sim/session/session_recorder.h"
#include "sim/session/session_replay.h"
#include "sim/io/state_file.h"
#include "sim_helpers.h"

using namespace tp;
using namespace tp::test;

namespace {

// A pool with a box floating in it (2,000 particles or so, 4 cm spacing).
Scene pool_with_box() {
  return parse_scene(
      "{\"tank\": {\"min\": [-0.4, 0, -0.3], \"max\": [0.4, 0.8, 0.3]}, \"particle_spacing\": 0.04,"
      " \"fluid_blocks\": [{\"min\": [-0.4, 0, -0.3], \"max\": [0.4, 0.2, 0.3]}],"
      " \"bodies\": [{\"shape\": \"box\", \"position\": [0.1, 0.3, 0], \"size\": [0.2, 0.1, 0.16], \"density\": 500}]}",
      "session_test.json");
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

const SessionView kViewA{Vec3{0.1f, 0.2f, 0.0f}, 2.5f, 30.0f, -20.0f, 0, 0};
const SessionView kViewB{Vec3{-0.2f, 0.1f, 0.05f}, 1.8f, -45.0f, -35.0f, 2, 1};

// The script: 300 steps of a PBF pool driven through the runner inline (one step a
// "frame"): mouse drags, slider edits, a switch to PCISPH, a body grabbed, thrown and let
// go, and an edit through exclusive_edit (a reset of the particle velocities' frame:
// here the density of the box, as the panel sets it). Returns the final hash.
uint64_t run_script(SimRunner& runner, SessionRecorder* recorder, const std::string& path) {
  std::string error;
  if (recorder) {
    EXPECT_TRUE(recorder->start(runner, path, "session_test", &error)) << error;
  }
  SimParams p = runner.exclusive([](Simulation& sim) { return sim.params(); });
  for (int frame = 0; frame < 300; ++frame) {
    if (frame >= 20 && frame < 60) {  // a drag across the water
      MouseForce m{1, Vec3{-0.3f + 0.01f * float(frame - 20), 0.15f, 0.0f}, Vec3{0.5f, 0.0f, 0.0f}};
      runner.set_mouse(m);
    }
    if (frame == 60) runner.set_mouse(MouseForce{0, Vec3{0, 0, 0}, Vec3{0, 0, 0}});
    if (frame == 80) {  // slider edits
      p.viscosity *= 3.0f;
      runner.set_params(p);
    }
    if (frame == 100) {  // the solver switch
      p.solver = 1;
      runner.set_params(p);
    }
    if (frame == 140) runner.grab_body(0, Vec3{0, 0, 0}, Vec3{0.0f, 0.45f, 0.0f});
    if (frame > 140 && frame < 170) runner.move_grab(Vec3{-0.01f * float(frame - 140), 0.5f, 0.0f});
    if (frame == 170) runner.release_body();  // thrown
    // The window's view (camera, render and colour modes), twice: it draws the water and
    // never changes it; replays show it.
    if (recorder && frame == 50) recorder->set_view(kViewA);
    if (recorder && frame == 200) recorder->set_view(kViewB);
    if (frame == 220) {
      runner.exclusive_edit([](Simulation& sim) { sim.params().gravity_y = -7.0f; });
      p = runner.exclusive([](Simulation& sim) { return sim.params(); });
    }
    runner.step_inline([](Simulation& sim) { sim.step(); }, false);
  }
  if (recorder) recorder->stop(runner);
  return runner.exclusive([](Simulation& sim) { return session_hash(sim); });
}

// The script recorded into `path` from a fresh simulation of `scene`.
void record_script(const Scene& scene, const std::string& path) {
  auto live = cpu_sim(scene, 0.04f);
  SimRunner runner(*live);
  SessionRecorder recorder;
  run_script(runner, &recorder, path);
}

}  // namespace

// The live run, recorded, and its replay into a fresh simulation: every Hash record
// matches and the final state is the same to the bit.
TEST(Session, AScriptedSessionReplaysToTheIdenticalState) {
  const Scene scene = pool_with_box();
  const std::string path = testing::TempDir() + "tp_script.tpsession";
  auto live = cpu_sim(scene, 0.04f);
  live->params().solver = 2;  // PBF, the window's
  SimRunner runner(*live);
  SessionRecorder recorder;
  const uint64_t final_hash = run_script(runner, &recorder, path);
  EXPECT_EQ(recorder.steps(), 300u);
  EXPECT_FALSE(recorder.failed()) << recorder.error();
  const double live_time = live->simulated_time();
  const Vec3 box = live->bodies()[0].pose.position;

  const SessionContents session = read_session(path);
  EXPECT_TRUE(session.ended);
  EXPECT_EQ(session.cut, "");
  EXPECT_EQ(session.end_time, live_time) << "the End record holds the time at the end";
  auto replay = cpu_sim(scene, 0.04f);  // any state: the Start record replaces it
  const ReplayReport report = replay_session(*replay, session);
  std::printf("%s; the box at (%.3f %.3f %.3f); %zu records, %zu bytes\n",
              replay_summary(report, replay->simulated_time()).c_str(), box.x, box.y, box.z, session.records.size(),
              read_bytes(path).size());
  EXPECT_EQ(report.steps, 300u);
  EXPECT_GE(report.hashes, 11);
  EXPECT_EQ(report.mismatches, 0);
  EXPECT_EQ(session_hash(*replay), final_hash);
  EXPECT_EQ(replay->simulated_time(), live_time);
  EXPECT_EQ(replay->params().solver, 1) << "the switch to PCISPH was replayed";
  EXPECT_EQ(replay->params().gravity_y, -7.0f) << "the edit was replayed";
  EXPECT_EQ(replay->bodies()[0].pose.position.x, box.x);
  EXPECT_GT(std::abs(box.x - 0.1f), 0.02f) << "the throw moved the box (the script does something)";

  // A replay that is not the recorded run is caught at its first hash after it departs:
  // the same session with its first parameter edit (frame 80) changed.
  SessionContents changed = session;
  for (SessionRecord& r : changed.records)
    if (r.kind == SessionKind::Params) {
      SimParams q;
      ASSERT_TRUE(session_unpod(r.payload, &q));
      q.viscosity *= 2.0f;
      r.payload = session_pod(q);
      break;
    }
  auto other = cpu_sim(scene, 0.04f);
  const ReplayReport off = replay_session(*other, changed, ReplayOptions{true, {}});
  std::printf("changed: %s\n", replay_summary(off, other->simulated_time()).c_str());
  EXPECT_TRUE(off.stopped_at_mismatch);
  EXPECT_GE(off.first_mismatch_step, 80u) << "not before the changed edit";
  EXPECT_LE(off.first_mismatch_step, 80u + 2 * kHashSteps) << "at the first hash after it";
}

// A replay on another backend than the CPU (CUDA: its sums round otherwise, so its hashes
// depart) is judged by the Check records beside the hashes, within the device comparison's
// tolerance. Judged so on the CPU (compare_as_device), the script's session is within it at
// every check; a check made to differ (the kinetic energy doubled, a body moved by more
// than a spacing) is caught at its step, says what left the tolerance, and makes the
// replay depart; a session without checks (an earlier version's) is said not to be judged.
TEST(Session, AReplayOnAnotherBackendIsJudgedByItsChecksWithinTheTolerance) {
  const Scene scene = pool_with_box();
  const std::string path = testing::TempDir() + "tp_checks.tpsession";
  record_script(scene, path);
  const SessionContents session = read_session(path);
  const auto judged = [&](const SessionContents& contents, bool as_device) {
    auto sim = cpu_sim(scene, 0.04f);
    SessionPlayer player(contents);
    player.compare_as_device(as_device);
    player.begin(*sim);
    player.advance(*sim, UINT64_MAX);
    std::printf("%s\n", replay_summary(player.report(), sim->simulated_time()).c_str());
    return player.report();
  };
  size_t checks_recorded = 0;
  for (const SessionRecord& r : session.records) checks_recorded += r.kind == SessionKind::Check;
  EXPECT_GE(checks_recorded, 11u) << "a Check beside each Hash";

  const ReplayReport exact = judged(session, false);
  EXPECT_FALSE(exact.tolerant);
  EXPECT_EQ(exact.checks, 0) << "on the CPU the hashes judge";
  EXPECT_FALSE(replay_departed(exact));

  const ReplayReport within = judged(session, true);
  EXPECT_TRUE(within.tolerant);
  EXPECT_EQ(size_t(within.checks), checks_recorded);
  EXPECT_EQ(within.checks_outside, 0);
  EXPECT_FALSE(replay_departed(within));
  EXPECT_NE(replay_summary(within, 0.0).find("checks within the device comparison's tolerance"), std::string::npos);

  // The sixth check changed, twice over: its kinetic energy, then a body's position.
  for (int kind = 0; kind < 2; ++kind) {
    SessionContents changed = session;
    int seen = 0;
    uint64_t step_at = 0, steps = 0;
    for (SessionRecord& r : changed.records) {
      if (r.kind == SessionKind::Steps) {
        uint64_t n = 0;
        ASSERT_TRUE(session_unpod(r.payload, &n));
        steps += n;
      }
      if (r.kind != SessionKind::Check || ++seen != 6) continue;
      SessionCheck c;
      ASSERT_TRUE(session_unpod(r.payload, &c));
      if (kind == 0) c.kinetic_energy = 2.0 * c.kinetic_energy + 1.0;
      else c.body_position[0].x += 0.05f;  // (a spacing: 4 cm)
      r.payload = session_pod(c);
      step_at = steps;
    }
    const ReplayReport off = judged(changed, true);
    EXPECT_EQ(off.checks_outside, 1);
    EXPECT_EQ(off.first_outside_step, step_at);
    EXPECT_NE(off.first_outside.find(kind == 0 ? "kinetic energy" : "body 0"), std::string::npos) << off.first_outside;
    EXPECT_TRUE(replay_departed(off));
    EXPECT_NE(replay_summary(off, 0.0).find("it left the tolerance at step " + std::to_string(step_at)),
              std::string::npos);
  }

  // An earlier version's session: no checks, so nothing to judge by on another backend.
  SessionContents old = session;
  std::vector<SessionRecord> kept;
  for (const SessionRecord& r : old.records)
    if (r.kind != SessionKind::Check) kept.push_back(r);
  old.records = kept;
  const ReplayReport unjudged = judged(old, true);
  EXPECT_EQ(unjudged.checks, 0);
  EXPECT_NE(replay_summary(unjudged, 0.0).find("no checks"), std::string::npos);
}

// A session cut at any byte (the program killed while writing) reads up to its last
// complete record, says where it stopped, and replays that far, matching every hash it
// has; one cut inside its start state is refused with a sentence.
TEST(Session, ACutSessionReplaysUpToItsLastCompleteRecord) {
  const Scene scene = pool_with_box();
  const std::string path = testing::TempDir() + "tp_cut_source.tpsession";
  record_script(scene, path);
  const std::string bytes = read_bytes(path);
  const SessionContents whole = read_session(path);
  ASSERT_GE(whole.records.size(), 3u);
  const uint64_t start_end = whole.records[1].offset;  // the Start record ends here
  const std::string cut_path = testing::TempDir() + "tp_cut.tpsession";
  // Cuts inside the header and the start state, then inside twenty records spread over
  // the file (at a different byte of each), and one byte short of the end.
  std::vector<size_t> cuts = {0, 5, 30, size_t(start_end / 2), size_t(start_end) - 1};
  for (size_t k = 1; k < whole.records.size(); k += std::max<size_t>(1, whole.records.size() / 20))
    cuts.push_back(size_t(whole.records[k].offset) + 1 + k % 11);
  cuts.push_back(bytes.size() - 1);
  int tried = 0;
  for (size_t at : cuts) {
    SCOPED_TRACE("cut at byte " + std::to_string(at));
    write_bytes(cut_path, bytes.substr(0, at));
    if (at < start_end) {
      try {
        read_session(cut_path);
        ADD_FAILURE() << "a session without its whole start was read";
      } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(cut_path), std::string::npos) << e.what();
      }
      continue;
    }
    const SessionContents part = read_session(cut_path);
    EXPECT_FALSE(part.ended);
    EXPECT_LT(part.end_time, 0.0) << "no End, so no end time";
    EXPECT_NE(part.cut.find("ends inside a record at byte"), std::string::npos) << part.cut;
    auto sim = cpu_sim(scene, 0.04f);
    const ReplayReport r = replay_session(*sim, part);
    EXPECT_EQ(r.mismatches, 0);
    uint64_t steps = 0;
    for (const SessionRecord& rec : part.records)
      if (rec.kind == SessionKind::Steps) steps += *reinterpret_cast<const uint64_t*>(rec.payload.data());
    EXPECT_EQ(r.steps, steps);
    ++tried;
  }
  EXPECT_GE(tried, 20);
}

// A damaged record stops the reading there with a sentence; a file that is not a session,
// or of a later version, is refused naming it.
TEST(Session, DamagedAndForeignFilesAreSaidSo) {
  const std::string path = testing::TempDir() + "tp_damaged_source.tpsession";
  record_script(pool_with_box(), path);
  std::string bytes = read_bytes(path);
  const SessionContents whole = read_session(path);
  const SessionRecord& middle = whole.records[whole.records.size() / 2];
  bytes[size_t(middle.offset) + 14] ^= 0x5A;  // inside its length or payload
  const std::string damaged = testing::TempDir() + "tp_damaged.tpsession";
  write_bytes(damaged, bytes);
  const SessionContents part = read_session(damaged);
  EXPECT_FALSE(part.ended);
  EXPECT_NE(part.cut.find("byte " + std::to_string(middle.offset)), std::string::npos) << part.cut;
  EXPECT_LT(part.records.size(), whole.records.size());

  const std::string foreign = testing::TempDir() + "tp_foreign.tpsession";
  write_bytes(foreign, "TIDEPOOL STATE 1\nnot a session");
  try {
    read_session(foreign);
    ADD_FAILURE() << "a state file was read as a session";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is not a Tidepool session file"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(foreign), std::string::npos) << e.what();
  }
  write_bytes(foreign, "TIDEPOOL SESSION 7\n");
  try {
    read_session(foreign);
    ADD_FAILURE() << "a later version was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("version '7'"), std::string::npos) << e.what();
  }
  // Versions 1 (before View records) and 2 (before Check records) are read as before.
  std::string v1 = read_bytes(path);
  ASSERT_EQ(v1.rfind("TIDEPOOL SESSION 3\n", 0), 0u);
  for (const char version : {'1', '2'}) {
    v1[17] = version;
    write_bytes(foreign, v1);
    EXPECT_EQ(read_session(foreign).records.size(), whole.records.size()) << "version " << version;
  }
  try {
    read_session(testing::TempDir() + "no_such.tpsession");
    ADD_FAILURE() << "a missing file was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
}

// What replaying a session's edits rests on: a state captured and restored continues as
// the run it came from, to the bit, on every solver, with a floating box and without one.
// (Until 2026-11-30 it did not: the solvers' warm starts, DFSPH's impulse and the last time
// step were not in the state, and the box's orientation was normalised once more on restore.)
TEST(Session, ARestoredStateContinuesBitForBitOnEverySolver) {
  for (const bool box : {true, false}) {
    for (int solver : {0, 1, 2, 3}) {
      SCOPED_TRACE(std::string(box ? "with" : "without") + " the box, solver " + std::to_string(solver));
      const Scene scene = box ? pool_with_box()
                              : box_scene(Vec3{-0.4f, 0, -0.3f}, Vec3{0.4f, 0.8f, 0.3f}, Vec3{-0.4f, 0, -0.3f},
                                          Vec3{0.0f, 0.4f, 0.3f}, 0.04f);
      auto a = cpu_sim(scene, 0.04f);
      a->params().solver = solver;
      a->params().pbf_warm_start = 1.0f;  // (the realtime quality's: the warm start must be restored)
      for (int k = 0; k < 60; ++k) a->step();
      if (solver != 1) {  // and a switch shortly before (DFSPH eases from it)
        a->params().solver = 1;
        a->step();
        a->params().solver = solver;
      }
      for (int k = 0; k < 5; ++k) a->step();
      std::string ignored;
      auto b = make_simulation(BackendKind::Cpu);
      b->restore(decode_state(encode_state(a->capture(), ""), "test", &ignored));
      EXPECT_EQ(encode_state(b->capture(), ""), encode_state(a->capture(), "")) << "the state reads back as it was";
      int first = -1;
      for (int k = 0; k < 40 && first < 0; ++k) {
        a->step();
        b->step();
        if (session_hash(*a) != session_hash(*b)) first = k;
      }
      EXPECT_EQ(first, -1) << "the restored run departs at its step " << first;
    }
  }
}

// The window's replay seeks with its time slider: back to the nearest snapshot (whole
// states kept every 40 steps here) or the start, then forward. Every seek, back and forth
// and into the grab (a snapshot at step 160 holds the box by the mouse joint, which the
// state does not carry), reaches the state the straight replay reaches at that step, and
// the hashes passed on the way all match, each counted once.
TEST(Session, SeekingBackAndForthReachesTheStraightReplaysStates) {
  const Scene scene = pool_with_box();
  const std::string path = testing::TempDir() + "tp_seek.tpsession";
  record_script(scene, path);
  const SessionContents session = read_session(path);
  const std::vector<uint64_t> targets = {0, 75, 150, 155, 165, 230, 300};
  std::map<uint64_t, uint64_t> straight;  // step -> hash
  {
    auto sim = cpu_sim(scene, 0.04f);
    SessionPlayer player(session);
    player.begin(*sim);
    EXPECT_EQ(player.total_steps(), 300u);
    for (uint64_t t : targets) {
      ASSERT_EQ(player.seek(*sim, t), t);
      straight[t] = session_hash(*sim);
    }
    EXPECT_TRUE(player.finished() || player.step() == 300u);
  }
  auto sim = cpu_sim(scene, 0.04f);
  SessionPlayer player(session, 40);
  player.begin(*sim);
  int compared = 0;
  for (uint64_t t : {230, 75, 300, 165, 155, 0, 150, 300, 165}) {
    SCOPED_TRACE("seek to step " + std::to_string(t));
    ASSERT_EQ(player.seek(*sim, t), uint64_t(t));
    EXPECT_EQ(session_hash(*sim), straight.at(t));
    // The recorded view as it was at that step: none before frame 50, A, then B from 200.
    SessionView view;
    const bool has = player.view(&view);
    EXPECT_EQ(has, t > 50);
    if (has) {
      EXPECT_TRUE(view == (t > 200 ? kViewB : kViewA)) << "the view at step " << t;
    }
    ++compared;
  }
  // Play on to the end (the last Hash and End records).
  player.advance(*sim, UINT64_MAX);
  EXPECT_TRUE(player.finished());
  const ReplayReport& r = player.report();
  std::printf("%d seeks matched; %zu snapshots; %s\n", compared, player.snapshots(),
              replay_summary(r, sim->simulated_time()).c_str());
  EXPECT_GE(player.snapshots(), 7u);
  EXPECT_EQ(r.mismatches, 0);
  EXPECT_GE(r.hashes, 11);
  EXPECT_LE(r.hashes, int(300 / kHashSteps) + 4) << "each Hash record counted once";
  EXPECT_EQ(r.steps, 300u);
}

// Continue from here in the window's replay, at a step where the recording held the box
// by the mouse joint or pulled the water: the recording's hands let go (let_go), or the
// box would hang at the cursor's last point for good and the water be pulled on. The box
// let go falls back towards the water where the one still held stays up.
TEST(Session, TakingOverMidGrabLetsGoOfTheBodyAndTheMouse) {
  const Scene scene = pool_with_box();
  const std::string path = testing::TempDir() + "tp_let_go.tpsession";
  record_script(scene, path);
  const SessionContents session = read_session(path);
  auto held = cpu_sim(scene, 0.04f), freed = cpu_sim(scene, 0.04f);
  SessionPlayer keeps(session), lets_go(session);
  keeps.begin(*held);
  lets_go.begin(*freed);
  // In the drag across the water (frames 20 to 60): the mouse force is on.
  ASSERT_EQ(lets_go.seek(*freed, 40), 40u);
  EXPECT_EQ(freed->capture().mouse.active, 1);
  EXPECT_FALSE(lets_go.let_go(*freed)) << "no body held at step 40";
  EXPECT_EQ(freed->capture().mouse.active, 0) << "the recording's drag let go";
  // In the grab (frames 140 to 170).
  ASSERT_EQ(keeps.seek(*held, 160), 160u);
  ASSERT_EQ(lets_go.seek(*freed, 160), 160u);
  ASSERT_EQ(freed->grabbed_body(), 0) << "the recording holds the box at step 160";
  EXPECT_TRUE(lets_go.let_go(*freed));
  EXPECT_EQ(freed->grabbed_body(), -1);
  EXPECT_EQ(held->grabbed_body(), 0);
  const float y0 = freed->bodies()[0].pose.position.y;
  // (It was rising to the cursor when let go: it flies on a little, then falls.)
  const double t0 = freed->simulated_time();
  while (freed->simulated_time() < t0 + 0.6) freed->step();
  while (held->simulated_time() < t0 + 0.6) held->step();
  const float y_held = held->bodies()[0].pose.position.y, y_freed = freed->bodies()[0].pose.position.y;
  std::printf("the box at step 160: y = %.3f m; 0.6 s on, still held %.3f m, let go %.3f m\n", y0, y_held, y_freed);
  EXPECT_LT(y_freed, y_held - 0.05f) << "the box let go falls; the one held stays at the cursor";
}

// The CPU's lanes (a block of particles a call) and its scalar loops round their sums
// otherwise, so a session records which ran and its replay runs the same: a session
// recorded with the lanes off (as the emulated device's tests run the CPU) replays to its
// hashes with them on in the replaying process, which says so and turns them off. The
// Start record keeps the threads apart from the flag, and files from before it read as
// recorded with the lanes on.
TEST(Session, ASessionRecordedWithTheLanesOffReplaysWithThemOff) {
  int threads = 0;
  bool lanes = false;
  std::string scene_name, state;
  ASSERT_TRUE(session_read_start(session_start_payload(2, true, "s", "x"), &threads, &lanes, &scene_name, &state));
  EXPECT_EQ(threads, 2);
  EXPECT_TRUE(lanes);
  ASSERT_TRUE(session_read_start(session_start_payload(3, false, "s", "x"), &threads, &lanes, &scene_name, &state));
  EXPECT_EQ(threads, 3);
  EXPECT_FALSE(lanes);
  EXPECT_EQ(scene_name, "s");

  const Scene scene = pool_with_box();
  const std::string path = testing::TempDir() + "tp_scalar.tpsession";
  struct LanesBack {
    ~LanesBack() { set_cpu_lanes(true); }
  } back;
  set_cpu_lanes(false);
  record_script(scene, path);
  set_cpu_lanes(true);
  const SessionContents session = read_session(path);
  ASSERT_TRUE(session_read_start(session.records.front().payload, &threads, &lanes, &scene_name, &state));
  EXPECT_FALSE(lanes) << "the Start record says the lanes were off";
  auto replay = cpu_sim(scene, 0.04f);
  const ReplayReport report = replay_session(*replay, session);
  std::printf("%s\n", replay_summary(report, replay->simulated_time()).c_str());
  EXPECT_FALSE(cpu_lanes()) << "the replay turned them off as recorded";
  EXPECT_EQ(report.steps, 300u);
  EXPECT_GE(report.hashes, 11);
  EXPECT_EQ(report.mismatches, 0);
}
