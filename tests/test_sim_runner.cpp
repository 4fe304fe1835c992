// The simulation thread of the window (src/sim/runner/sim_runner.h): every input reaches the
// simulation, the clock is never ahead, exclusive access really parks the thread, and
// the inline (lockstep) mode is bit-for-bit deterministic. scripts/tsan.sh runs these
// under ThreadSanitizer.
#include <gtest/gtest.h>
#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>

#include "sim/scene/quality.h"
#include "sim/runner/sim_runner.h"
#include "sim_helpers.h"

namespace tp {
namespace {

using namespace std::chrono_literals;
using test::box_scene;
using test::cpu_sim;

// A small block of water at rest on the floor of a closed tank.
std::unique_ptr<Simulation> resting_block(float gravity_y = -9.81f) {
  const float s = 0.05f;
  auto sim = cpu_sim(box_scene(Vec3{0, 0, 0}, Vec3{0.8f, 0.6f, 0.4f}, Vec3{0, 0, 0},
                               Vec3{0.8f, 0.25f, 0.4f}, s),
                     s);
  sim->params().solver = int(SolverKind::Pbf);
  apply_quality(sim->params(), Quality::Realtime, BackendKind::Cpu);
  sim->params().gravity_y = gravity_y;
  return sim;
}

// Polls the runner's latest state until `done` holds or `seconds` pass.
template <class F>
bool wait_for(SimRunner& runner, F done, double seconds = 20.0) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (done(runner.latest())) return true;
    std::this_thread::sleep_for(2ms);
  }
  return false;
}

TEST(SimRunner, DeliversEveryParameterEditInOrderAndTheLastWins) {
  auto sim = resting_block();
  SimParams p = sim->params();  // read before the thread runs: the window's copy
  SimRunner runner(*sim);
  runner.start(1);
  uint64_t serial = 0;
  for (int k = 1; k <= 50; ++k) {
    p.viscosity = 0.0001f * float(k);
    serial = runner.set_params(p);
    std::this_thread::sleep_for(200us);  // edits faster than steps: they coalesce
  }
  ASSERT_TRUE(wait_for(runner, [&](const PublishedState& s) { return s.input_serial >= serial; }))
      << "the last edit never reached a step";
  EXPECT_FLOAT_EQ(runner.latest().params.viscosity, 0.005f);
  runner.stop();
  EXPECT_FLOAT_EQ(sim->params().viscosity, 0.005f);
}

TEST(SimRunner, AClickReleasedBeforeAnyStepStillPushesTheWater) {
  // Zero gravity: the water stays at rest unless the mouse moves it.
  auto sim = resting_block(0.0f);
  SimRunner runner(*sim);
  runner.set_paused(true);
  runner.start(1);
  const uint64_t press =
      runner.set_mouse(MouseForce{1, Vec3{0.4f, 0.12f, 0.2f}, Vec3{0, 0, 0}});
  runner.set_mouse(MouseForce{0, Vec3{0, 0, 0}, Vec3{0, 0, 0}});  // released at once
  runner.request_advance(1.0 / 60.0);                              // one frame's steps
  ASSERT_TRUE(wait_for(runner, [&](const PublishedState& s) { return s.mouse_serial >= press; }))
      << "no step felt the press";
  runner.stop();
  EXPECT_GT(sim->stats().last_max_speed, 0.05) << "the push moved nothing";
}

TEST(SimRunner, MovesObstaclesAsAsked) {
  Scene scene = box_scene(Vec3{0, 0, 0}, Vec3{1.0f, 0.6f, 0.4f}, Vec3{0, 0, 0},
                          Vec3{0.3f, 0.2f, 0.4f}, 0.05f);
  scene.obstacles.push_back(
      ObstacleShape{int(ShapeKind::Sphere), Vec3{0.7f, 0.3f, 0.2f}, Vec3{0, 0, 0}, 0.1f, Vec3{0, 0, 0}});
  auto sim = test::cpu_sim(scene, 0.05f);
  SimRunner runner(*sim);
  runner.start(1);
  const uint64_t serial = runner.move_obstacle(0, Vec3{0.6f, 0.35f, 0.2f});
  ASSERT_TRUE(wait_for(runner, [&](const PublishedState& s) {
    return s.input_serial >= serial && !s.obstacles.empty() &&
           std::fabs(s.obstacles[0].center.x - 0.6f) < 1e-4f;
  })) << "the obstacle did not get there";
  runner.stop();
}

TEST(SimRunner, NeverAheadOfTheClockAndPausedMeansStill) {
  auto sim = resting_block();
  SimRunner runner(*sim);
  const auto start = std::chrono::steady_clock::now();
  runner.start(1);
  std::this_thread::sleep_for(600ms);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double simulated = runner.latest().stats.simulated_time;
  const double step = runner.latest().stats.last_dt;
  EXPECT_GT(simulated, 0.0) << "it did not run";
  EXPECT_LE(simulated, wall + 1e-3) << "the simulation ran ahead of the wall clock";
  EXPECT_GT(step, 0.0);
  runner.set_paused(true);
  std::this_thread::sleep_for(100ms);  // a step under way ends
  const double paused_at = runner.exclusive([](Simulation& s) { return s.simulated_time(); });
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(runner.exclusive([](Simulation& s) { return s.simulated_time(); }), paused_at);
  // A single step while paused: a frame's time, then still again.
  runner.request_advance(1.0 / 60.0);
  ASSERT_TRUE(wait_for(runner, [&](const PublishedState& s) {
    return s.stats.simulated_time >= paused_at + 1.0 / 60.0 - 1e-9;
  }));
  runner.stop();
  EXPECT_LT(sim->simulated_time(), paused_at + 1.0 / 60.0 + 0.017);
}

TEST(SimRunner, ExclusiveAccessParksTheThreadAndPublishesWhatItDid) {
  auto sim = resting_block();
  SimRunner runner(*sim);
  runner.start(1);
  ASSERT_TRUE(wait_for(runner, [](const PublishedState& s) { return s.stats.steps >= 3; }));
  const uint n = runner.latest().particle_count;
  runner.exclusive([&](Simulation& s) {
    const uint64_t steps = s.stats_as_stepped().steps;
    std::this_thread::sleep_for(100ms);  // several steps' time: none may be taken meanwhile
    EXPECT_EQ(s.stats_as_stepped().steps, steps);
    const float sp = 0.04f;  // a finer lattice: more particles
    s.reset(build_initial_state(box_scene(Vec3{0, 0, 0}, Vec3{0.8f, 0.6f, 0.4f}, Vec3{0, 0, 0},
                                          Vec3{0.8f, 0.25f, 0.4f}, sp),
                                sp));
  });
  // The state published on leaving shows the reset at once.
  EXPECT_GT(runner.latest().particle_count, n);
  runner.stop();
}

// The mesh render mode on the thread: the thread steps several times per frame, and the
// mesh it builds for a state the window skips goes on with the newer states, so nearly
// every frame that takes a new state gets a mesh (before, only the rare frame that took
// exactly the state built after the previous frame did). After a reset the mesh is the
// new water's at once, not the old one carried on.
TEST(SimRunner, TheWindowGetsAMeshNearlyEveryFrameWhileTheThreadRunsAhead) {
  auto sim = resting_block();
  sim->params().dt_max = 0.001f;  // several steps per 40 ms frame
  SimRunner runner(*sim);
  runner.set_mesh(true);
  runner.start(1);
  int taken = 0, with_mesh = 0, ahead = 0;
  uint64_t last = runner.latest().serial;
  float top = 0.0f;
  for (int frame = 0; frame < 30; ++frame) {
    std::this_thread::sleep_for(40ms);
    const PublishedState& s = runner.latest();
    if (s.serial == last) continue;
    ahead += s.serial > last + 1 ? 1 : 0;  // states published that this frame skipped
    last = s.serial;
    ++taken;
    if (!s.has_mesh) continue;
    ++with_mesh;
    EXPECT_TRUE(s.mesh_error.empty()) << s.mesh_error;
    EXPECT_GT(s.mesh.triangle_count(), 100u);
    for (const Vec3& p : s.mesh.position) top = std::max(top, p.y);
  }
  std::printf("%d of %d frames that took a new state got a mesh (%d skipped states)\n", with_mesh, taken, ahead);
  ASSERT_GT(taken, 10);
  ASSERT_GT(with_mesh, 0);
  EXPECT_NEAR(top, 0.25f, 0.05f) << "the block's top";
  if (ahead > taken / 2) {
    EXPECT_GE(with_mesh, taken - 2);
  } else {
    // A loaded machine (the sanitizer build, other jobs on the cores) may mesh slower than
    // the frames come: the thread does not run ahead, and the claim is not tested this run.
    std::printf("the thread did not run ahead of the frames (%d skipped of %d): the mesh count is "
                "not checked this run\n", ahead, taken);
  }

  // A taller block: the state published on leaving carries its mesh, not the old one's.
  runner.exclusive([](Simulation& s) {
    const float sp = 0.05f;
    s.reset(build_initial_state(box_scene(Vec3{0, 0, 0}, Vec3{0.8f, 0.6f, 0.4f}, Vec3{0, 0, 0},
                                          Vec3{0.4f, 0.5f, 0.4f}, sp),
                                sp));
  });
  const PublishedState& after = runner.latest();
  ASSERT_TRUE(after.has_mesh);
  float new_top = 0.0f;
  for (const Vec3& p : after.mesh.position) new_top = std::max(new_top, p.y);
  EXPECT_GT(new_top, 0.4f) << "the reset's water, not the mesh from before it";
  runner.stop();
}

// The CPU time the machine spent on other processes than this one, in clock ticks so far
// (/proc/stat's busy time less this process's own, /proc/self/stat); -1 where not readable.
long long others_busy_ticks() {
  long long busy = 0, own = 0;
  FILE* f = std::fopen("/proc/stat", "r");
  if (!f) return -1;
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  const int got = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &system, &idle,
                              &iowait, &irq, &softirq, &steal);
  std::fclose(f);
  if (got < 7) return -1;
  busy = (long long)(user + nice + system + irq + softirq);
  f = std::fopen("/proc/self/stat", "r");
  if (!f) return -1;
  char line[1024] = {0};
  const bool read = std::fgets(line, sizeof line, f) != nullptr;
  std::fclose(f);
  const char* after_name = read ? std::strrchr(line, ')') : nullptr;  // (the name may hold spaces)
  unsigned long long utime = 0, stime = 0;
  if (!after_name || std::sscanf(after_name + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
                                 &stime) != 2)
    return -1;
  own = (long long)(utime + stime);
  return busy - own;
}

// Where a publish is dear beside a step (a GPU's), the thread copies out only the states a
// frame will take: with many steps a frame it publishes about one state a frame (not one a
// step), the one finished last before the frame's take, so each frame still gets a new
// state a step or two old (publishing only after a take would leave it most of a frame
// old). Here on the CPU every publish is cheap: the test times them all by the takes. A
// pause then publishes the last step, which the timing had skipped.
TEST(SimRunner, PublishesOnlyTheStatesAFrameTakesAndTheyAreFresh) {
  using Clock = std::chrono::steady_clock;
  auto sim = resting_block();
  sim->params().dt_max = 0.001f;  // a step a millisecond of the clock: about 16 a frame
  SimRunner runner(*sim);
  runner.set_cheap_publish(0.0);
  runner.start(1);
  const auto period = std::chrono::duration_cast<Clock::duration>(1s / 60.0);
  auto next = Clock::now();
  Clock::time_point before_last{}, last_take{};
  int frames = 0, on_time = 0, fresh = 0, fresh_on_time = 0;
  double age_ms = 0.0;
  uint64_t serial = 0, first_serial = 0, first_steps = 0, last_steps = 0;
  long long others_start = -1;
  Clock::time_point window_start{};
  for (int frame = 0; frame < 90; ++frame) {
    next += period;
    std::this_thread::sleep_until(next);
    const auto taken = Clock::now();
    const PublishedState& s = runner.latest();
    // A frame on time: this take and the one before within a millisecond of the schedule
    // (a late wake, on a loaded machine, moves the take from where the thread predicted it).
    const bool punctual = taken - next < 1ms && last_take - (next - period) < 1ms && before_last != Clock::time_point{};
    before_last = last_take;
    last_take = taken;
    if (frame < 20) {  // the takes' period settles
      serial = first_serial = s.serial;
      first_steps = s.stats.steps;
      others_start = others_busy_ticks();
      window_start = Clock::now();
      continue;
    }
    ++frames;
    on_time += punctual ? 1 : 0;
    if (s.serial == serial) continue;
    serial = s.serial;
    ++fresh;
    fresh_on_time += punctual ? 1 : 0;
    last_steps = s.stats.steps;
    age_ms += std::chrono::duration<double, std::milli>(taken - s.published_at).count();
  }
  const long long others_end = others_busy_ticks();
  const double window_s = std::chrono::duration<double>(Clock::now() - window_start).count();
  // Cores' worth of other processes' work over the measured frames.
  const double others =
      others_start >= 0 && others_end >= 0 && window_s > 0.0
          ? double(others_end - others_start) / double(sysconf(_SC_CLK_TCK)) / window_s
          : 0.0;
  const double steps = double(last_steps - first_steps) / frames;
  const double copies = double(serial - first_serial) / frames;
  const double age = age_ms / std::max(fresh, 1);
  std::printf("%.1f steps, %.2f states published a frame, %.2f ms old when taken; %d of %d frames on time "
              "took a new state\n",
              steps, copies, age, fresh_on_time, on_time);
  // Paused: the state a frame then takes is the last one stepped, though the timing skipped it.
  runner.set_paused(true);
  std::this_thread::sleep_for(100ms);
  const uint64_t shown_steps = runner.latest().stats.steps;
  EXPECT_EQ(shown_steps, runner.exclusive([](Simulation& s) { return s.stats_as_stepped().steps; }))
      << "the pause publishes the last step";
  runner.stop();
  // A loaded machine: nothing to skip, or the schedule not kept. A tenth of the frames late
  // says the machine was loaded; the simulation thread was then descheduled too, and frames
  // on time went without a state though the publishing was right (47 of 58 beside a
  // `ctest -j2` on 2 cores, 2026-12-05, 12 of 70 frames late): not a fault of the runner.
  // The frames can keep time while the simulation thread does not (53 of 66 beside a CI run
  // and another test run on 2 cores, 2026-12-06, 4 late), so other processes using more than
  // a core over the measured frames (the reading swings by half a core on a quiet machine,
  // its ticks counted per thread) says so too.
  std::printf("other processes used %.2f cores over the measured frames\n", others);
  if (steps < 4.0 || on_time < 20 || on_time < frames * 9 / 10 || others > 1.0) {
    GTEST_SKIP() << steps << " steps a frame, " << on_time << " of " << frames << " frames on time, other processes "
                 << others << " cores: the timing is not checked this run";
  }
  EXPECT_GE(fresh_on_time, on_time * 9 / 10) << "frames on time went without a new state";
  EXPECT_LE(copies, std::max(2.0, steps / 4.0)) << "a copy for states no frame took";
  EXPECT_LT(age, 1000.0 / 60.0 * 0.4) << "the frames took states most of a frame old";
}

// With the mesh drawn, the timed copies still build it right after a take and carry it on,
// so the frames that take a new state get a mesh.
TEST(SimRunner, TimedPublishesStillCarryAMeshToTheFrames) {
  auto sim = resting_block();
  sim->params().dt_max = 0.001f;
  SimRunner runner(*sim);
  runner.set_cheap_publish(0.0);
  runner.set_mesh(true);
  runner.start(1);
  int taken = 0, with_mesh = 0;
  uint64_t last = runner.latest().serial;
  for (int frame = 0; frame < 40; ++frame) {
    std::this_thread::sleep_for(30ms);
    const PublishedState& s = runner.latest();
    if (frame < 10 || s.serial == last) continue;
    last = s.serial;
    ++taken;
    with_mesh += s.has_mesh && s.mesh.triangle_count() > 100u ? 1 : 0;
  }
  runner.stop();
  std::printf("%d of %d frames that took a new state got a mesh\n", with_mesh, taken);
  ASSERT_GT(taken, 10);
  // Nearly every one (30 of 30 and 29 of 30 here; 27 of 30 under ThreadSanitizer beside a
  // CI build): without the mesh carried on to the newer states, none would.
  EXPECT_GE(with_mesh, taken * 4 / 5);
}

TEST(SimRunner, InlineStepsAreBitForBitThoseOfThePlainSimulation) {
  // --steps-per-frame: the frame's steps on the window's thread, through the mailbox.
  auto a = resting_block();
  auto b = resting_block();
  a->params().dt_min = a->params().dt_max = 0.004f;
  b->params() = a->params();
  SimRunner runner(*a);
  SimParams edited = a->params();
  edited.viscosity = 0.01f;
  for (int frame = 0; frame < 20; ++frame) {
    if (frame == 5) runner.set_params(edited);
    runner.step_inline(
        [](Simulation& s) {
          for (int k = 0; k < 3; ++k) s.step();
        },
        true);
    if (frame == 5) b->params() = edited;
    for (int k = 0; k < 3; ++k) b->step();
  }
  const Snapshot sa = a->snapshot(), sb = b->snapshot();
  ASSERT_EQ(sa.position.size(), sb.position.size());
  EXPECT_EQ(std::memcmp(sa.position.data(), sb.position.data(), sa.position.size() * sizeof(Vec4)), 0);
  EXPECT_EQ(std::memcmp(sa.velocity.data(), sb.velocity.data(), sa.velocity.size() * sizeof(Vec4)), 0);
}

// Inline (the CUDA window, --steps-per-frame, recording): a state publishes its mesh kept
// on the backend when the window writes the particles itself (no copy), and an exclusive()
// with nothing stepped (new settings or a reset while paused) still brings a new mesh.
TEST(SimRunner, InlineMeshesStayOnTheDeviceAndComeAfterAPausedChange) {
  auto sim = resting_block();
  SimRunner runner(*sim);
  runner.set_mesh(true);
  runner.step_inline([](Simulation& s) { s.step(); }, /*copy_particles=*/false);
  const PublishedState& first = runner.latest();
  ASSERT_TRUE(first.has_mesh) << first.mesh_error;
  EXPECT_TRUE(first.mesh_on_device);
  EXPECT_EQ(first.mesh.triangle_count(), 0u) << "not downloaded: the window publishes it";
  struct Count final : MeshTarget {
    size_t triangles = 0;
    void upload(const TriangleMesh& m) override { triangles = m.triangle_count(); }
  } target;
  sim->publish_mesh(target);
  EXPECT_GT(target.triangles, 100u) << "the mesh the state announced is the backend's";

  // Paused: nothing stepped, so no new mesh...
  runner.step_inline([](Simulation&) {}, true);
  EXPECT_FALSE(runner.latest().has_mesh);
  // ...until the settings change (the window asks through exclusive()).
  MeshSettings coarse;
  coarse.cell = 1.0f;
  runner.set_mesh(true, coarse);
  runner.exclusive([](Simulation&) {});
  runner.step_inline([](Simulation&) {}, true);
  const PublishedState& after = runner.latest();
  ASSERT_TRUE(after.has_mesh);
  EXPECT_FALSE(after.mesh_on_device);
  EXPECT_GT(after.mesh.triangle_count(), 10u);
  EXPECT_LT(after.mesh.triangle_count(), target.triangles) << "built with the coarser cells";
}

// Memory follows the draw mode: a publish that draws neither the mesh nor the splats
// gives back the mesher's arrays (the simulation's own, beside the published copies), and
// the mesh comes back whole when it is drawn again.
TEST(SimRunner, NeitherMeshNorSplatsDrawnGivesBackTheMesher) {
  auto sim = resting_block();
  SimRunner runner(*sim);
  struct Count final : MeshTarget {
    size_t triangles = 0;
    void upload(const TriangleMesh& m) override { triangles = m.triangle_count(); }
  };
  runner.set_mesh(true);
  runner.step_inline([](Simulation& s) { s.step(); }, /*copy_particles=*/false);
  ASSERT_TRUE(runner.latest().has_mesh) << runner.latest().mesh_error;
  Count before;
  sim->publish_mesh(before);
  ASSERT_GT(before.triangles, 100u);

  runner.set_mesh(false);
  runner.step_inline([](Simulation&) {}, false);
  EXPECT_FALSE(runner.latest().has_mesh);
  Count gone;
  gone.triangles = 1;
  sim->publish_mesh(gone);
  EXPECT_EQ(gone.triangles, 0u) << "the mesher still held the last mesh";

  runner.set_mesh(true);
  runner.exclusive([](Simulation&) {});
  runner.step_inline([](Simulation&) {}, false);
  ASSERT_TRUE(runner.latest().has_mesh) << runner.latest().mesh_error;
  Count again;
  sim->publish_mesh(again);
  EXPECT_EQ(again.triangles, before.triangles) << "the same water meshed again";
}

TEST(SimRunner, PicksThePublishedParticlesAsTheSimulationDoes) {
  auto sim = resting_block();
  SimRunner runner(*sim);
  runner.step_inline([](Simulation& s) { s.step(); }, true);
  const PublishedState& state = runner.latest();
  for (float x : {0.1f, 0.4f, 0.75f}) {
    const Ray ray{Vec3{x, 1.0f, 0.2f}, Vec3{0, -1, 0}};
    const std::optional<Vec3> a = sim->pick(ray);
    const std::optional<Vec3> b = pick_points(state.particles, sim->spacing(), ray);
    ASSERT_TRUE(a && b);
    EXPECT_NEAR(a->y, b->y, 1e-5f);
  }
  EXPECT_FALSE(pick_points(state.particles, sim->spacing(), Ray{Vec3{5, 1, 5}, Vec3{0, -1, 0}}));
}

// A grab asked through the runner (the window's ctrl + left drag on a body) reaches the
// simulation before a step: the floating box rises towards the target above it, the
// published states carry it as held and where it is, and a release lets it fall back.
TEST(SimRunner, GrabsLiftsAndReleasesABody) {
  const Scene scene = parse_scene(R"({ "tank": { "min": [-0.4, 0.0, -0.2], "max": [0.4, 0.8, 0.2] },
    "particle_spacing": 0.05,
    "fluid_blocks": [ { "min": [-0.4, 0.0, -0.2], "max": [0.4, 0.25, 0.2] } ],
    "bodies": [ { "shape": "box", "position": [0.0, 0.3, 0.0], "size": [0.2, 0.1, 0.2], "density": 500 } ] })",
                                  "grab_test");
  auto sim = cpu_sim(scene, 0.05f);
  SimRunner runner(*sim);
  // The ray through the box's centre from above picks it in the published bodies as the
  // simulation picks it in its own.
  runner.step_inline([](Simulation& s) { s.step(); }, true);
  const Ray down{Vec3{0.0f, 1.0f, 0.0f}, Vec3{0, -1, 0}};
  const auto mine = pick_bodies(runner.latest().bodies, down);
  const auto its = sim->pick_body(down);
  ASSERT_TRUE(mine && its);
  EXPECT_EQ(mine->index, 0);
  EXPECT_NEAR(mine->distance, its->distance, 1e-5f);
  EXPECT_FALSE(pick_bodies(runner.latest().bodies, Ray{Vec3{0.35f, 1.0f, 0.0f}, Vec3{0, -1, 0}}));

  runner.start(1);
  // Settled a while on the water.
  ASSERT_TRUE(wait_for(runner, [](const PublishedState& s) { return s.stats.simulated_time > 0.3; }, 60.0));
  ASSERT_EQ(runner.latest().bodies.size(), 1u);
  const float y0 = runner.latest().bodies[0].pose.position.y;
  EXPECT_EQ(runner.latest().grabbed_body, -1);
  const uint64_t serial = runner.grab_body(0, Vec3{0, 0, 0}, Vec3{0.0f, y0 + 0.1f, 0.0f});
  runner.move_grab(Vec3{0.0f, y0 + 0.3f, 0.0f});
  float top = y0;
  ASSERT_TRUE(wait_for(runner, [&](const PublishedState& s) {
    if (s.input_serial < serial || s.bodies.empty()) return false;
    EXPECT_EQ(s.grabbed_body, 0);
    top = s.bodies[0].pose.position.y;
    return top > y0 + 0.2f;
  }, 60.0)) << "the body rose from " << y0 << " m only to " << top << " m";
  const uint64_t released = runner.release_body();
  float low = top;
  ASSERT_TRUE(wait_for(runner, [&](const PublishedState& s) {
    if (s.input_serial < released || s.bodies.empty()) return false;
    EXPECT_EQ(s.grabbed_body, -1);
    low = std::min(low, s.bodies[0].pose.position.y);
    return low < top - 0.1f;
  }, 60.0)) << "released at " << top << " m, the body fell only to " << low << " m";
  std::printf("the box floated at y = %.3f m, held it rose to %.3f m, released it fell to %.3f m\n", y0, top, low);
  runner.stop();
}

// The panel's Device line says how many threads the steps really use: the thread's own
// OpenMP count (the window's simulation thread runs on all cores but one), not the window
// thread's.
TEST(SimRunner, DescribesTheBackendWithTheThreadsItSteps) {
  auto sim = resting_block();
  SimRunner runner(*sim);
  // A count other than this thread's, so that the two descriptions differ.
  const int here = omp_get_max_threads(), there = here == 1 ? 2 : here - 1;
  runner.start(there);
  const auto threads = [](int n) {
    return "OpenMP, " + std::to_string(n) + (n == 1 ? " thread" : " threads");
  };
  const std::string want = threads(there);
  EXPECT_NE(runner.backend_description().find(want), std::string::npos)
      << runner.backend_description();
  runner.stop();
  EXPECT_EQ(runner.backend_description(), sim->backend().description);
  EXPECT_NE(runner.backend_description().find(threads(here)),
            std::string::npos)
      << "stopped: the simulation's own count";
}

}  // namespace
}  // namespace tp
