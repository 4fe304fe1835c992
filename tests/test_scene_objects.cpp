// Obstacles, emitters and outflows in the simulation (src/sim/water/scene_objects.h), on the CPU
// backend, which runs the same kernels as CUDA.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "kernels/boundary.h"
#include "sim/bodies/body_spec.h"
#include "sim/water/scene_objects.h"
#include "sim_helpers.h"

namespace tp {
namespace {

using test::box_scene;

constexpr float kSpacing = 0.05f;

ObstacleShape sphere(Vec3 c, float r) { return ObstacleShape{int(ShapeKind::Sphere), c, {0, 0, 0}, r, {0, 0, 0}}; }
ObstacleShape box(Vec3 c, Vec3 half) { return ObstacleShape{int(ShapeKind::Box), c, half, 0.0f, {0, 0, 0}}; }

TEST(SceneObjects, ObstacleSamplesLieHalfASpacingToTwoAndAHalfInside) {
  for (const ObstacleShape& shape : {sphere({0.3f, 0.2f, 0.1f}, 0.23f), box({0, 0, 0}, {0.2f, 0.1f, 0.35f})}) {
    const std::vector<Vec4> samples = obstacle_samples(shape, kSpacing, 0.125f);
    ObstacleShape local = shape;
    local.center = Vec3{0, 0, 0};
    ASSERT_GT(samples.size(), 100u);
    float shallowest = INFINITY, deepest = -INFINITY;
    for (const Vec4& p : samples) {
      EXPECT_EQ(p.w, 0.125f);
      const float depth = -obstacle_distance(local, xyz(p));
      shallowest = std::min(shallowest, depth);
      deepest = std::max(deepest, depth);
    }
    EXPECT_GE(shallowest, 0.5f * kSpacing * 0.999f);
    EXPECT_LT(deepest, 2.5f * kSpacing);
    // Each sample stands for a cell of s^3: about the volume within two spacings of the
    // surface, over s^3 (the box is thinner than that along y: solid).
    const double s = kSpacing;
    const double shell = shape.kind == int(ShapeKind::Sphere)
                             ? 4.0 / 3.0 * M_PI * (std::pow(0.23, 3) - std::pow(0.23 - 2.0 * s, 3))
                             : 8.0 * 0.2 * 0.1 * 0.35;
    const double expected = shell / std::pow(s, 3);
    EXPECT_NEAR(double(samples.size()), expected, 0.3 * expected) << "kind " << shape.kind;
  }
}

// The clamp never leaves a particle inside an obstacle that rests on the tank's floor: a
// particle in the wedge under a ball, or under the edge of a box, goes out along the floor,
// not into it (from where the floor's clamp would put it back inside).
TEST(SceneObjects, TheClampFreesParticlesCaughtBetweenAnObstacleAndTheFloor) {
  StepConstants c{};
  c.spacing = 0.05f;
  c.tank_lo = Vec3{-1, 0, -1};
  c.tank_hi = Vec3{1, 1, 1};
  c.obstacle_count = 2;
  c.obstacles[0] = ObstacleShape{int(ShapeKind::Sphere), Vec3{-0.5f, 0.2f, 0}, Vec3{0, 0, 0}, 0.2f, Vec3{0, 0, 0}};
  c.obstacles[1] = ObstacleShape{int(ShapeKind::Box), Vec3{0.5f, 0.2f, 0}, Vec3{0.2f, 0.2f, 0.2f}, 0.0f, Vec3{0, 0, 0}};
  const Vec3 starts[] = {Vec3{-0.52f, 0.001f, 0.01f}, Vec3{-0.45f, 0.01f, 0}, Vec3{-0.5f, 0.0f, 0},
                         Vec3{0.31f, 0.001f, 0}, Vec3{0.5f, 0.002f, 0.19f}, Vec3{0.5f, 0.0f, 0.0f}};
  for (const Vec3& start : starts) {
    Vec3 x = start, v{0, -1, 0};
    clamp_to_tank(x, v, c);
    for (int k = 0; k < 2; ++k)
      EXPECT_GE(obstacle_distance(c.obstacles[k], x), 0.0f)
          << "from (" << start.x << ", " << start.y << ", " << start.z << ") to (" << x.x << ", " << x.y << ", " << x.z << ")";
    EXPECT_GE(x.y, c.tank_lo.y);
    if (x.y < c.tank_lo.y + 0.01f * c.spacing + 1e-6f) {
      EXPECT_GE(v.y, 0.0f) << "no velocity into the floor";
    }
  }
}

TEST(SceneObjects, EmitterLayerFillsItsNozzleASpacingApart) {
  Emitter disk;
  disk.radius = 0.2f;
  const std::vector<Vec3> d = emitter_layer(disk, kSpacing);
  const double expected = M_PI * std::pow(0.2 - 0.5 * kSpacing, 2) / (kSpacing * kSpacing);
  EXPECT_NEAR(double(d.size()), expected, 0.15 * expected);
  Emitter rect;
  rect.shape = 1;
  rect.width = 0.5f;
  rect.height = 0.2f;
  const std::vector<Vec3> r = emitter_layer(rect, kSpacing);
  EXPECT_EQ(r.size(), 10u * 4u);
  for (const auto* layer : {&d, &r})
    for (size_t i = 0; i < layer->size(); ++i)
      for (size_t j = i + 1; j < layer->size(); ++j)
        ASSERT_GE(length((*layer)[i] - (*layer)[j]), 0.999f * kSpacing);
  // The frame: the axis along the velocity, the nozzle across it.
  rect.velocity = Vec3{0, 0, 2};
  Vec3 a, u, w;
  emitter_frame(rect, &a, &u, &w);
  EXPECT_NEAR(a.z, 1.0f, 1e-6f);
  EXPECT_NEAR(dot(a, u), 0.0f, 1e-6f);
  EXPECT_NEAR(dot(a, w), 0.0f, 1e-6f);
  EXPECT_NEAR(std::abs(u.x), 1.0f, 1e-6f) << "across a horizontal jet is horizontal";
}

// A jet into a pool, on every solver: no emitted particle lands within 0.9 spacings of a
// particle that was there (the check at spawn), and points under water are skipped.
class EachSolverObjects : public testing::TestWithParam<int> {};

TEST_P(EachSolverObjects, EmittedParticlesNeverOverlapTheFluid) {
  Scene scene = box_scene({-0.5f, 0, -0.3f}, {0.5f, 0.8f, 0.3f}, {-0.5f, 0, -0.3f}, {0.5f, 0.2f, 0.3f}, kSpacing);
  Emitter jet;  // aimed down into the pool, from above it
  jet.position = Vec3{0.0f, 0.45f, 0.0f};
  jet.velocity = Vec3{0.5f, -2.0f, 0.0f};
  jet.radius = 0.15f;
  scene.emitters.push_back(jet);
  auto sim = test::cpu_sim(scene, kSpacing);
  sim->params().solver = GetParam();
  const uint n0 = sim->particle_count();
  std::set<uint> known;
  for (uint id : sim->snapshot().id) known.insert(id);
  float closest = INFINITY;
  uint64_t emitted = 0;
  while (sim->stats().simulated_time < 0.4) {
    const Snapshot before = sim->snapshot();
    sim->step();
    const Snapshot after = sim->snapshot();
    const RunStats st = sim->stats();
    // Every particle moves at most max_speed * dt in a step: allow twice that.
    const float slack = 2.0f * float(st.last_max_speed * st.last_dt);
    std::map<uint, Vec3> old_now;
    for (size_t i = 0; i < after.id.size(); ++i)
      if (known.count(after.id[i])) old_now[after.id[i]] = xyz(after.position[i]);
    for (size_t i = 0; i < after.id.size(); ++i) {
      if (known.count(after.id[i])) continue;
      for (const auto& [id, x] : old_now) closest = std::min(closest, length(x - xyz(after.position[i])) + slack);
    }
    for (uint id : after.id) known.insert(id);
    emitted = st.emitted;
    ASSERT_EQ(uint64_t(sim->particle_count()), n0 + st.emitted);
    (void)before;
  }
  std::printf("emitted %lu particles; closest to older ones at spawn (bound) %.3f spacings\n", emitted,
              closest / kSpacing);
  EXPECT_GT(emitted, 200u);
  EXPECT_GE(closest, 0.9f * kSpacing);
  const ParticleCheck c = test::check(*sim);
  EXPECT_EQ(c.nonfinite, 0u);
  EXPECT_EQ(c.outside, 0u);
}

INSTANTIATE_TEST_SUITE_P(Solvers, EachSolverObjects, testing::Values(0, 1, 2),
                         [](const testing::TestParamInfo<int>& info) { return std::string(solver_name(info.param)); });

TEST(SceneObjects, ANozzleUnderStillWaterAddsNothing) {
  Scene scene = box_scene({-0.5f, 0, -0.3f}, {0.5f, 0.8f, 0.3f}, {-0.5f, 0, -0.3f}, {0.5f, 0.4f, 0.3f}, kSpacing);
  Emitter e;
  e.position = Vec3{0.0f, 0.2f, 0.0f};
  e.velocity = Vec3{1.0f, 0.0f, 0.0f};
  e.radius = 0.1f;
  scene.emitters.push_back(e);
  auto sim = test::cpu_sim(scene, kSpacing);
  for (int k = 0; k < 200; ++k) sim->step();
  EXPECT_EQ(sim->stats().emitted, 0u) << "every nozzle point has water within 0.9 spacings";
}

// An emitter in an empty tank: it starts and stops on time, the buffers grow many times
// over without a reset (the first particles keep their ids and go on falling), and at
// max_particles it pauses.
TEST(SceneObjects, EmittersGrowTheBuffersAndPauseAtTheLimit) {
  Scene scene = box_scene({-0.5f, 0, -0.5f}, {0.5f, 1.5f, 0.5f}, {-0.5f, 0, -0.5f}, {0.5f, 0.05f, 0.5f}, kSpacing);
  Emitter e;
  e.position = Vec3{0.0f, 1.2f, 0.0f};
  e.velocity = Vec3{0.0f, -1.5f, 0.0f};
  e.radius = 0.3f;
  e.start = 0.05f;
  e.stop = 0.7f;
  scene.emitters.push_back(e);
  InitialState init = build_initial_state(scene, kSpacing);
  init.max_particles = 1500;
  auto sim = make_simulation(BackendKind::Cpu);
  sim->params().solver = int(SolverKind::Pbf);
  sim->reset(init);
  const uint n0 = sim->particle_count();
  while (sim->stats().simulated_time < 0.05) sim->step();
  EXPECT_EQ(sim->stats().emitted, 0u) << "not before its start";
  bool paused = false;
  uint64_t at_stop = 0;
  while (sim->stats().simulated_time < 0.9) {
    sim->step();
    const RunStats st = sim->stats();
    paused = paused || st.emitters_paused;
    ASSERT_LE(sim->particle_count(), 1500u);
    if (st.simulated_time < 0.7) at_stop = st.emitted;
  }
  const RunStats st = sim->stats();
  std::printf("initial %u, emitted %lu, now %u, paused %d\n", n0, st.emitted, sim->particle_count(), paused);
  EXPECT_GT(st.emitted, 2u * n0) << "the buffers grew well past their first size";
  EXPECT_TRUE(paused) << "it reached max_particles";
  EXPECT_EQ(st.emitted, at_stop) << "nothing after its stop time";
  const Snapshot s = sim->snapshot();
  for (uint i = 0; i < n0; ++i) ASSERT_EQ(s.id[i], i) << "the first particles are still there";
  for (size_t i = 1; i < s.id.size(); ++i) ASSERT_LT(s.id[i - 1], s.id[i]) << "ids unique, in order";
  const ParticleCheck c = check_particles(s, sim->tank_lo(), sim->tank_hi());
  EXPECT_EQ(c.nonfinite, 0u);
  EXPECT_EQ(c.outside, 0u);
}

// A block falling onto a drain: the particles that reach it are removed, the others stay
// in order, and the counts add up.
TEST(SceneObjects, OutflowRemovesWhatReachesIt) {
  Scene scene = box_scene({-0.5f, 0, -0.3f}, {0.5f, 1.0f, 0.3f}, {-0.5f, 0.3f, -0.3f}, {0.0f, 0.8f, 0.3f}, kSpacing);
  scene.outflows.push_back(Outflow{Vec3{-0.5f, 0.0f, -0.3f}, Vec3{-0.2f, 0.1f, 0.3f}});
  auto sim = test::cpu_sim(scene, kSpacing);
  const uint n0 = sim->particle_count();
  sim->params().solver = int(SolverKind::Pbf);
  while (sim->stats().simulated_time < 1.0) sim->step();
  const RunStats st = sim->stats();
  const Snapshot s = sim->snapshot();
  std::printf("of %u particles %lu removed\n", n0, st.removed);
  EXPECT_GT(st.removed, n0 / 10);
  EXPECT_LT(st.removed, uint64_t(n0));
  EXPECT_EQ(uint64_t(sim->particle_count()) + st.removed, uint64_t(n0));
  for (size_t i = 1; i < s.id.size(); ++i) ASSERT_LT(s.id[i - 1], s.id[i]);
  EXPECT_LT(s.id.back(), n0);
  const ParticleCheck c = check_particles(s, sim->tank_lo(), sim->tank_hi());
  EXPECT_EQ(c.nonfinite + c.outside, 0u);
}

// A ball dragged through still water on every solver: the water gains momentum along the
// ball's motion, and no particle is ever left inside it.
TEST_P(EachSolverObjects, AMovingObstaclePushesTheWaterAndNoneEndsInside) {
  Scene scene = box_scene({-0.6f, 0, -0.3f}, {0.6f, 0.8f, 0.3f}, {-0.6f, 0, -0.3f}, {0.6f, 0.35f, 0.3f}, kSpacing);
  scene.obstacles.push_back(sphere({-0.3f, 0.18f, 0.0f}, 0.12f));
  scene.obstacles.push_back(box({0.35f, 0.2f, 0.0f}, {0.06f, 0.2f, 0.12f}));
  auto sim = test::cpu_sim(scene, kSpacing);
  sim->params().solver = GetParam();
  // Settle, then move the ball 0.3 m along +x in 0.5 s (0.6 m/s).
  while (sim->stats().simulated_time < 0.3) sim->step();
  EXPECT_GE(test::closest_to_obstacles(sim->snapshot(), sim->obstacles()), 0.0f);
  auto momentum_x = [&] {
    double p = 0.0;
    for (const Vec4& v : sim->snapshot().velocity) p += double(sim->mass()) * v.x;
    return p;
  };
  const double p0 = momentum_x();
  const double t0 = sim->stats().simulated_time;
  float closest = INFINITY;
  double peak = p0;
  while (sim->stats().simulated_time < t0 + 0.5) {
    const double t = sim->stats().simulated_time - t0;
    ASSERT_TRUE(sim->move_obstacle(0, Vec3{float(-0.3 + 0.6 * std::min(t + 0.01, 0.5)), 0.18f, 0.0f}));
    sim->step();
    closest = std::min(closest, test::closest_to_obstacles(sim->snapshot(), sim->obstacles()));
    peak = std::max(peak, momentum_x());
  }
  const ObstacleShape ball = sim->obstacles()[0];
  const double displaced = 1000.0 * 4.0 / 3.0 * M_PI * std::pow(0.12, 3);  // [kg]
  std::printf("%s: ball at x = %.3f m; water momentum %.3f -> peak %.3f kg m/s (ball's displaced "
              "mass x speed %.3f); closest particle %.4f m from an obstacle's surface\n",
              solver_name(GetParam()), ball.center.x, p0, peak, displaced * 0.6, closest);
  EXPECT_NEAR(ball.center.x, 0.0f, 0.02f) << "the ball reached its target";
  EXPECT_GT(peak - p0, 0.3 * displaced * 0.6) << "the water was pushed along +x";
  EXPECT_GE(closest, 0.0f) << "no particle inside an obstacle";
  EXPECT_NEAR(sim->obstacles()[1].center.x, 0.35f, 1e-6f) << "the box stayed";
  const ParticleCheck c = test::check(*sim);
  EXPECT_EQ(c.nonfinite + c.outside, 0u);
}

}  // namespace

// The bodies' boxes along the world's axes (solid_half_box, BodyArrayView::lo) only let the
// clamp and PBF's projection skip work: a point beyond a body's box by more than m is
// farther than m from its surface at any pose, and the clamp, given the boxes, moves every
// particle exactly as it does testing every body, thin-wall search along the move included.
TEST(SceneObjects, TheBodiesBoxesHoldThemAtAnyPoseAndTheClampIsTheSameWithThem) {
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<SolidBody> solids;
  for (int k = 0; k < 9; ++k) {
    BodySpec b;
    b.shape = k % 3 == 0 ? int(BodyShapeKind::Sphere) : k % 3 == 1 ? int(BodyShapeKind::Box) : int(BodyShapeKind::Capsule);
    b.radius = 0.05f + 0.03f * float(k % 4);
    b.half_extent = Vec3{0.12f, 0.04f, 0.09f};
    b.half_height = 0.08f;
    b.pose.position = Vec3{0.3f * u(rng), 0.3f * u(rng), 0.3f * u(rng)};
    const Vec3 axis{u(rng), u(rng), u(rng) + 2.0f};  // (never 0)
    b.pose.orientation = quat_from_axis_angle(axis / length(axis), 3.0f * u(rng));
    b.motion.velocity = Vec3{2.0f * u(rng), 2.0f * u(rng), 0.0f};
    b.motion.angular_velocity = Vec3{0.0f, 0.0f, 4.0f * u(rng)};
    solids.push_back(solid_of(b));
  }
  // A flat box at rest is held by its extents, not by the sphere about it.
  BodySpec flat;
  flat.half_extent = Vec3{0.12f, 0.04f, 0.09f};
  const SolidBody f = solid_of(flat);
  EXPECT_FLOAT_EQ(f.half_box.y, 0.04f);
  EXPECT_LT(f.half_box.y, 0.5f * f.bound);
  int beyond = 0;
  for (const SolidBody& b : solids)
    for (int t = 0; t < 4000; ++t) {
      const Vec3 rel{0.4f * u(rng), 0.4f * u(rng), 0.4f * u(rng)};
      for (float m : {-0.01f, 0.0f, 0.02f}) {
        if (!beyond_half_box(b, rel, m)) continue;
        ++beyond;
        ASSERT_GT(solid_distance(b, rotate_inverse(b.pose.orientation, rel)), m) << "shape " << b.shape;
      }
    }
  EXPECT_GT(beyond, 10000);
  // The boxes as RigidBodies::upload makes them.
  BodyArrayView with{solids.data(), int(solids.size()), {}, {}};
  set_body_boxes(&with, solids.data(), int(solids.size()));
  ASSERT_EQ(with.boxes.count, BodyArrayView::kBoxes);
  BodyArrayView without = with;
  without.boxes.count = 0;
  const float spacing = 0.02f, dt = 0.01f;
  int pushed = 0, skipped = 0;
  for (int t = 0; t < 20000; ++t) {
    const Vec3 from{0.6f * u(rng), 0.6f * u(rng), 0.6f * u(rng)};
    const Vec3 to = from + Vec3{0.05f * u(rng), 0.05f * u(rng), 0.05f * u(rng)};
    Vec3 x1 = to, v1{1.0f, -2.0f, 0.5f}, x2 = to, v2 = v1;
    const int a = push_out_of_bodies(x1, v1, with, -0.25f * spacing, 0.3f, 0.1f, &from, spacing, dt);
    const int b = push_out_of_bodies(x2, v2, without, -0.25f * spacing, 0.3f, 0.1f, &from, spacing, dt);
    ASSERT_EQ(a, b);
    ASSERT_TRUE(x1.x == x2.x && x1.y == x2.y && x1.z == x2.z && v1.x == v2.x && v1.y == v2.y && v1.z == v2.z);
    pushed += a >= 0;
    skipped += near_body_slots(with, to, from, 0.0f, dt) == 0u;
    Vec3 p1 = to, p2 = to, d1, d2;
    ASSERT_EQ(pbf_project_from_bodies(p1, from, with, spacing, dt, &d1), pbf_project_from_bodies(p2, from, without, spacing, dt, &d2));
    ASSERT_TRUE(p1.x == p2.x && p1.y == p2.y && p1.z == p2.z);
  }
  EXPECT_GT(pushed, 100);   // the comparison met bodies
  EXPECT_GT(skipped, 1000);  // and the boxes let the clamp skip some
  // A move that passes through a body with both ends outside its box is still looked at.
  BodyArrayView one{solids.data() + 1, 1, {}, {}};
  set_body_boxes(&one, solids.data() + 1, 1);
  const Vec3 c = solids[1].pose.position;
  EXPECT_EQ(near_body_slots(one, c - Vec3{0.5f, 0.0f, 0.0f}, c + Vec3{0.5f, 0.0f, 0.0f}, 0.0f, 0.0f), 1u);
  EXPECT_EQ(near_body_slots(one, c + Vec3{0.5f, 0.0f, 0.0f}, c + Vec3{0.6f, 0.0f, 0.0f}, 0.0f, 0.0f), 0u);
  one.speed[0] = 100.0f;  // a body that may have come 1 m in the step
  EXPECT_EQ(near_body_slots(one, c + Vec3{0.5f, 0.0f, 0.0f}, c + Vec3{0.6f, 0.0f, 0.0f}, 0.0f, dt), 1u);
}

}  // namespace tp
