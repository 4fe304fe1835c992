// The particle simulation's parts, each alone (src/sim/water/): the NaN guard's decisions
// (StepGuard), the step's record read at one wait (StepRecorder), the phase timers, the
// scene objects (obstacles, emitters, outflows) and the diffuse particles' store. The
// simulation's own tests (test_nan_guard.cpp, test_scene_objects.cpp, test_diffuse.cpp)
// check them working together.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "sim/backend/backend_cpu.h"
#include "sim/water/diffuse.h"
#include "sim/water/phase_timers.h"
#include "sim/water/rigid_bodies.h"
#include "sim/water/scene_objects.h"
#include "sim/water/step_guard.h"
#include "sim/water/step_record.h"

namespace tp {
namespace {

TEST(StepGuard, HalvesTheRetakenStepAndReportsItOnceAccepted) {
  StepGuard guard;
  guard.reset();
  RunStats stats;
  EXPECT_EQ(guard.limit_dt(1e-3f), 1e-3f) << "no cap before a failure";
  guard.saved(12, 0.5);
  guard.completed(1e-3);
  ASSERT_TRUE(guard.take_verdict());
  EXPECT_FALSE(guard.take_verdict()) << "a verdict is given once";
  guard.reject(3, stats);
  EXPECT_EQ(guard.limit_dt(1e-3f), 0.5e-3f);
  EXPECT_FALSE(stats.halted);
  EXPECT_EQ(guard.take_note(), "") << "nothing said before the retake stands";

  guard.completed(0.5e-3);
  guard.reject(2, stats);  // the retake failed too: a quarter
  EXPECT_EQ(guard.limit_dt(1e-3f), 0.25e-3f);
  guard.completed(0.25e-3);
  guard.accept(stats);
  EXPECT_EQ(stats.nonfinite_steps, 1u);
  EXPECT_EQ(stats.nonfinite_resets, 5u);
  EXPECT_EQ(guard.limit_dt(1e-3f), 1e-3f) << "the cap is lifted once the step stands";
  const std::string note = guard.take_note();
  EXPECT_NE(note.find("step 12"), std::string::npos) << note;
  EXPECT_NE(note.find("1/4 its time step"), std::string::npos) << note;
  EXPECT_EQ(note, stats.guard_note);
  EXPECT_EQ(guard.take_note(), "") << "the sentence is given once";

  // A second retaken step counts, but the first sentence stays the one said.
  guard.completed(1e-3);
  guard.reject(1, stats);
  guard.accept(stats);
  EXPECT_EQ(stats.nonfinite_steps, 2u);
  EXPECT_EQ(guard.take_note(), "");
}

TEST(StepGuard, StopsAfterItsRetriesInsteadOfLooping) {
  StepGuard guard;
  guard.reset();
  RunStats stats;
  guard.saved(7, 1.25);
  float dt = 1e-3f;
  for (int k = 0; k < StepGuard::kRetries; ++k) {
    guard.completed(dt);
    guard.reject(1, stats);
    ASSERT_FALSE(stats.halted) << "after " << k + 1 << " failures";
    dt = guard.limit_dt(1e-3f);
  }
  EXPECT_FLOAT_EQ(dt, 1e-3f / 64.0f);
  guard.completed(dt);
  guard.reject(1, stats);
  EXPECT_TRUE(stats.halted);
  EXPECT_EQ(stats.nonfinite_resets, uint64_t(StepGuard::kRetries + 1));
  const std::string note = guard.take_note();
  EXPECT_NE(note.find("stopped at t = 1.2500 s"), std::string::npos) << note;
  // An overflow (no non-finite particle) is retaken as it was, without a halving.
  StepGuard lists;
  lists.reset();
  RunStats other;
  lists.completed(1e-3);
  lists.reject(0, other);
  EXPECT_EQ(lists.limit_dt(1e-3f), 1e-3f);
  EXPECT_FALSE(other.halted);
}

TEST(StepGuard, InjectsIntoTheNamedParticleForTheAttemptsAsked) {
  StepGuard guard;
  guard.reset();
  uint k = 0;
  EXPECT_FALSE(guard.injection(100, &k));
  guard.inject(42, 2);
  EXPECT_TRUE(guard.injection(100, &k));
  EXPECT_EQ(k, 42u);
  EXPECT_FALSE(guard.injection(10, &k)) << "an index past the particles poisons nothing";
  EXPECT_FALSE(guard.injection(100, &k)) << "two attempts, then clean";
}

TEST(StepRecorder, KeepsMaximaAndSumsAcrossWritesUntilRead) {
  StepRecorder<CpuBackend> record;
  EXPECT_FALSE(record.ready());
  record.reset();
  EXPECT_EQ(record.read(), 0u) << "nothing written: nothing read";
  using R = StepRecorder<CpuBackend>;
  record.max3(&record.slots()->flow, R::kFlow, 5, [](uint i) { return Max3{float(i), 2.0f * i, 1.0f}; });
  record.max3(&record.slots()->flow, R::kFlow, 3, [](uint i) { return Max3{10.0f, 0.0f, 0.5f}; });
  std::vector<float> err{0.01f, 0.03f, 0.02f, 0.0f};
  record.error(err.data(), 4);
  EXPECT_TRUE(record.written(R::kFlow));
  EXPECT_FALSE(record.written(R::kFirst));
  const unsigned fields = record.read();
  EXPECT_EQ(fields, unsigned(R::kFlow | R::kError));
  EXPECT_EQ(record.seen().flow.a, 10.0f) << "the second write's maximum, kept with the first";
  EXPECT_EQ(record.seen().flow.b, 8.0f);
  EXPECT_EQ(record.seen().flow.c, 1.0f);
  EXPECT_NEAR(record.mean_error(fields), 0.015, 1e-7);
  EXPECT_FLOAT_EQ(record.seen().error.max, 0.03f);
  EXPECT_TRUE(std::isnan(record.mean_first_error(fields))) << "not written";
  // After a read a write starts afresh.
  record.max3(&record.slots()->flow, R::kFlow, 2, [](uint i) { return Max3{1.0f, 1.0f, 1.0f}; });
  record.read();
  EXPECT_EQ(record.seen().flow.a, 1.0f);
  std::vector<float> flags{1.0f, 0.0f, 1.0f};
  record.sum_max(&record.slots()->nonfinite, R::kNonfinite, 3, [&](uint i) { return flags[i]; });
  record.sum_max(&record.slots()->nonfinite, R::kNonfinite, 3, [&](uint i) { return flags[i]; });
  record.read();
  EXPECT_EQ(record.seen().nonfinite.sum, 4.0) << "sums add up across writes until read";
}

TEST(PhaseTimers, SumsEachNamedPhaseAndClears) {
  PhaseTimers<CpuBackend> timers;
  for (int k = 0; k < 3; ++k) {
    timers.time("grid", [] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); });
    timers.time("density", [] {});
  }
  ASSERT_EQ(timers.totals().size(), 2u);
  EXPECT_EQ(timers.totals()[0].name, "grid") << "in the order first met";
  EXPECT_GE(timers.totals()[0].total_ms, 6.0);
  EXPECT_LT(timers.totals()[1].total_ms, timers.totals()[0].total_ms);
  timers.clear();
  EXPECT_TRUE(timers.totals().empty());
}

InitialState tank_with_obstacle() {
  InitialState s;
  s.tank_lo = Vec3{0, 0, 0};
  s.tank_hi = Vec3{1, 1, 1};
  s.spacing = 0.05f;
  ObstacleShape ball{};
  ball.kind = int(ShapeKind::Sphere);
  ball.radius = 0.1f;
  ball.center = Vec3{0.5f, 0.5f, 0.5f};
  ball.velocity = Vec3{3, 0, 0};  // a scene's obstacles start at rest whatever it says
  s.obstacles.push_back(ball);
  Outflow drain;
  drain.lo = Vec3{0, 0, 0};
  drain.hi = Vec3{0.2f, 0.2f, 1};
  s.outflows.push_back(drain);
  return s;
}

TEST(SceneObjects, MovesAnObstacleTowardsItsTargetAtMostHalfASpacingAStep) {
  SceneObjects<CpuBackend> objects;
  const InitialState s = tank_with_obstacle();
  objects.setup(s, 0, s.spacing, 1e-4f);
  ASSERT_EQ(objects.obstacles().size(), 1u);
  EXPECT_EQ(objects.obstacles()[0].velocity.x, 0.0f);
  EXPECT_GT(objects.sample_count(), 0u);
  EXPECT_FALSE(objects.plan_motion(0.01)) << "at its target: nothing changes";

  EXPECT_TRUE(objects.move_obstacle(0, Vec3{0.7f, 0.5f, 0.5f}));
  EXPECT_FALSE(objects.move_obstacle(1, Vec3{0.7f, 0.5f, 0.5f})) << "no such obstacle";
  EXPECT_TRUE(objects.plan_motion(0.01));
  EXPECT_FLOAT_EQ(objects.obstacles()[0].velocity.x, 0.5f * s.spacing / 0.01f);
  EXPECT_TRUE(objects.advance(0.01f));
  EXPECT_FLOAT_EQ(objects.obstacles()[0].center.x, 0.5f + 0.5f * s.spacing);
  // A target outside the tank is kept inside it (the ball's radius from the wall).
  objects.move_obstacle(0, Vec3{5.0f, 0.5f, 0.5f});
  EXPECT_FLOAT_EQ(objects.targets()[0].x, 0.9f);

  // The step's moment goes back as it was.
  const auto moment = objects.moment();
  objects.plan_motion(0.01);
  objects.advance(0.01f);
  EXPECT_NE(objects.obstacles()[0].center.x, moment.obstacles[0].center.x);
  objects.restore(moment);
  EXPECT_EQ(objects.obstacles()[0].center.x, moment.obstacles[0].center.x);

  // The samples follow the ball, sorted, with its velocity.
  std::vector<Vec4> sample(objects.sample_count()), velocity(objects.sample_count());
  objects.place_samples(sample.data(), velocity.data());
  const Vec3 c = objects.obstacles()[0].center;
  for (size_t k = 0; k < sample.size(); ++k) {
    ASSERT_LE(length(xyz(sample[k]) - c), 0.1f) << "a sample outside the ball";
    ASSERT_EQ(velocity[k].x, objects.obstacles()[0].velocity.x);
  }
  EXPECT_LE(objects.box_lo().x, c.x - 0.1f - 2 * s.spacing);
  EXPECT_GE(objects.box_hi().x, c.x + 0.1f + 2 * s.spacing);
}

TEST(SceneObjects, AnOutflowRemovesWhatIsInsideItAndKeepsTheOrder) {
  SceneObjects<CpuBackend> objects;
  const InitialState s = tank_with_obstacle();
  FluidState<CpuBackend> fluid;
  fluid.resize(4);
  const Vec4 x[4] = {{0.1f, 0.1f, 0.5f, 0}, {0.6f, 0.1f, 0.5f, 0}, {0.15f, 0.05f, 0.2f, 0}, {0.9f, 0.9f, 0.9f, 0}};
  for (uint i = 0; i < 4; ++i) {
    fluid.position.data()[i] = x[i];
    fluid.velocity.data()[i] = Vec4{0, 0, 0, 0};
    fluid.id.data()[i] = 10 + i;
    fluid.pressure.data()[i] = float(i);
  }
  objects.setup(s, fluid.n, s.spacing, 1e-4f);
  EXPECT_EQ(objects.remove_outflow(fluid), 2u);
  ASSERT_EQ(fluid.n, 2u);
  EXPECT_EQ(fluid.id.data()[0], 11u);
  EXPECT_EQ(fluid.id.data()[1], 13u);
  EXPECT_EQ(fluid.pressure.data()[1], 3.0f);
  EXPECT_EQ(objects.remove_outflow(fluid), 0u);
  EXPECT_EQ(objects.max_particles(), automatic_max_particles(4));
  EXPECT_EQ(objects.next_id(), 4u);
}

TEST(DiffuseParticles, AddsUpToItsCapDroppingTheOldestFirst) {
  DiffuseParticles<CpuBackend> diffuse;
  RunStats stats;
  std::vector<DiffuseParticle> some;
  for (int k = 0; k < 5; ++k)
    some.push_back(DiffuseParticle{Vec3{float(k), 0, 0}, Vec3{0, 1, 0}, k % 3, 0.5f});
  diffuse.add(some, 4, stats.diffuse);
  ASSERT_EQ(diffuse.size(), 4u);
  const std::vector<DiffuseParticle> kept = diffuse.snapshot();
  EXPECT_EQ(kept.front().position.x, 1.0f) << "the oldest went";
  EXPECT_EQ(kept.back().position.x, 4.0f);
  EXPECT_EQ(stats.diffuse.spray + stats.diffuse.foam + stats.diffuse.bubbles, 4u);
  EXPECT_EQ(stats.diffuse.foam, 2u) << "kinds 1, 2, 0, 1 kept";
  EXPECT_EQ(stats.diffuse.spray, 1u);
  EXPECT_EQ(stats.diffuse.capacity, 4u);
  SimParams params{};
  params.diffuse_cap = 0;
  EXPECT_EQ(DiffuseParticles<CpuBackend>::capacity(params), 50000u) << "the CPU's own cap";
  params.diffuse_cap = 123;
  EXPECT_EQ(DiffuseParticles<CpuBackend>::capacity(params), 123u);
  // Updated every diffuse_interval of simulated time, whatever the steps.
  EXPECT_FALSE(diffuse.due(0.001, 0.0025));
  EXPECT_FALSE(diffuse.due(0.001, 0.0025));
  EXPECT_TRUE(diffuse.due(0.001, 0.0025));
  EXPECT_DOUBLE_EQ(diffuse.elapsed(), 0.003);
  diffuse.clear();
  EXPECT_EQ(diffuse.size(), 0u);
  EXPECT_EQ(diffuse.elapsed(), 0.0);
}


// DFSPH's bodies inside its solves (RigidBodies::solve_*): a body's samples carry, beyond
// its own motion, the change the latest sums will make at its next move (impulse over mass,
// the torque's impulse through its inertia), and in each iteration a share m / (m + 2 rho0 V)
// more of the change the solve's force gives; none for a kinematic body, only the turn about
// its axle for one on an axle; gravity's change added between the solves.
TEST(RigidBodies, InASolveABodyTakesItsShareOfTheChangeTheFluidsForceGives) {
  BodySpec free_box;  // 0.2 m cube of 500 kg/m^3: 4 kg, I = m (0.2^2 + 0.2^2) / 12
  free_box.pose.position = Vec3{0.0f, 0.5f, 0.0f};
  BodySpec held = free_box, wheel = free_box;
  held.kinematic = true;
  held.pose.position.x = 0.4f;
  wheel.axle = 2;
  wheel.pose.position.x = -0.4f;
  RigidBodies<CpuBackend> bodies;
  bodies.setup({free_box, held, wheel}, 0.02f, 3, Vec3{-1, 0, -1}, Vec3{1, 2, 1});
  const float m = 4.0f, inertia = m * 0.08f / 12.0f, rho0 = 1000.0f, dt = 0.01f;
  const Vec3 force{10.0f, -20.0f, 5.0f}, torque{0.0f, 0.0f, 0.3f}, gravity{0.0f, -9.81f, 0.0f};
  bodies.restore_sums({force, force, force}, {torque, torque, torque});
  bodies.solve_start(dt, gravity, rho0);
  const Vec4* o = bodies.solve_offsets();
  auto near = [](Vec3 a, Vec3 b) { return length(a - b) < 1e-5f; };
  EXPECT_TRUE(near(xyz(o[0]), force * (dt / m))) << "the pending change: impulse over mass";
  EXPECT_TRUE(near(xyz(o[1]), torque * (dt / inertia)));
  EXPECT_TRUE(near(xyz(o[2]), Vec3{0, 0, 0}) && near(xyz(o[3]), Vec3{0, 0, 0})) << "a kinematic body: none";
  EXPECT_TRUE(near(xyz(o[4]), Vec3{0, 0, 0})) << "on an axle: no move";
  EXPECT_TRUE(near(xyz(o[5]), torque * (dt / inertia))) << "on an axle: the turn about it";

  // An iteration's force: every sample of the free box pushed along x by 0.01 N.
  std::vector<Vec4> local;
  std::vector<uint> owner;
  bodies.append_samples(&local, &owner, 0);
  std::vector<Vec4> push(local.size(), Vec4{0, 0, 0, 0}), world(local.size());
  const BodySpec placed[3] = {free_box, held, wheel};
  uint pushed = 0;
  for (size_t k = 0; k < local.size(); ++k) {
    world[k] = make_vec4(placed[owner[k]].pose.position + xyz(local[k]), 0.0f);
    if (owner[k] == 0) push[k] = Vec4{0.01f, 0, 0, 0}, ++pushed;
  }
  ASSERT_GT(pushed, 100u);
  bodies.sum_forces(push.data(), world.data(), true);
  const float share = bodies.in_solve_share(0, rho0);
  EXPECT_NEAR(share, m / (m + 2.0f * rho0 * 0.008f), 1e-6f);
  const Vec3 target{0.01f * float(pushed) * dt / m, 0.0f, 0.0f};
  bodies.solve_iterate(dt);
  EXPECT_TRUE(near(xyz(o[0]), force * (dt / m) + target * share)) << "a share of the change a first iteration";
  bodies.solve_iterate(dt);
  const float taken = 1.0f - (1.0f - share) * (1.0f - share);
  EXPECT_TRUE(near(xyz(o[0]), force * (dt / m) + target * taken)) << "and a share of the rest the next";
  EXPECT_TRUE(near(xyz(o[2]), Vec3{0, 0, 0})) << "the kinematic body still none";
  // Between the solves: kept, and gravity's change within dt for the body free to fall.
  bodies.solve_next(dt);
  EXPECT_TRUE(near(xyz(o[0]), force * (dt / m) + target * taken + gravity * dt));
  EXPECT_TRUE(near(xyz(o[4]), Vec3{0, 0, 0})) << "the wheel does not fall";
  // The sums the next move takes are the start's, not the iterations'.
  std::vector<Vec3> f, t;
  bodies.latest_sums(&f, &t);
  EXPECT_TRUE(near(f[0], force));
}
}  // namespace
}  // namespace tp
