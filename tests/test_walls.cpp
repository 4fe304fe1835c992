// Walls with friction and restitution (kernels/obstacle.h wall_contact, applied by the
// final clamp, kernels/boundary.h): one particle and the clamp alone, no fluid around it
// (issue 25, part 3). A particle sliding on the floor keeps its tangential speed with
// friction 0 and loses it with friction 1; a particle dropped on the floor bounces to about
// restitution^2 of its height; an obstacle's surface acts relative to the obstacle's motion.
// And the walls' part in the viscosity (wall_slip): a sheet of water sliding down a wall.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/boundary.h"
#include "sim/water/params.h"
#include "sim_helpers.h"

namespace tp {
namespace {

StepConstants tank(float friction, float restitution, float dt) {
  StepConstants c{};
  c.p = default_params();
  c.p.gravity_x = 0.0f, c.p.gravity_y = -9.81f, c.p.gravity_z = 0.0f;
  c.p.wall_friction = friction;
  c.p.wall_restitution = restitution;
  c.spacing = 0.02f;
  c.dt = dt;
  c.tank_lo = Vec3{0, 0, 0};
  c.tank_hi = Vec3{2, 2, 2};
  return c;
}

// One particle under gravity and nothing else, stepped as the solvers' integrator does.
struct Particle {
  Vec4 x, v, a;
  void step(const StepConstants& c) {
    a = make_vec4(Vec3{c.p.gravity_x, c.p.gravity_y, c.p.gravity_z}, 0.0f);
    integrate_particle(0, &x, &v, &a, c);
  }
};

TEST(Walls, FrictionTakesTheSlidingSpeedAtTheFloor) {
  for (const float friction : {0.0f, 0.5f, 1.0f}) {
    SCOPED_TRACE(friction);
    const StepConstants c = tank(friction, 0.0f, 1e-3f);
    Particle p{Vec4{0.2f, 0.0f, 1.0f, 0.0f}, Vec4{1.0f, 0.0f, 0.0f, 0.0f}, Vec4{}};
    p.step(c);  // lands on the floor (pressed by gravity): the first contact
    const float after_one = p.v.x;
    for (int k = 0; k < 99; ++k) p.step(c);
    EXPECT_NEAR(after_one, 1.0f - friction, 1e-6f);
    if (friction == 0.0f) {
      EXPECT_EQ(p.v.x, 1.0f) << "friction 0: the sliding speed is kept";
    } else if (friction == 1.0f) {
      EXPECT_EQ(p.v.x, 0.0f) << "friction 1: it sticks";
    } else {
      EXPECT_LT(p.v.x, 1e-6f) << "every step on the floor takes half";
    }
    EXPECT_NEAR(p.x.y, c.tank_lo.y + 0.01f * c.spacing, 1e-6f) << "it stays on the floor";
  }
}

// Dropped from 0.5 m: the highest point after the first bounce, against r^2 h.
TEST(Walls, RestitutionBouncesADropToAboutItsSquareOfTheHeight) {
  const float h = 0.5f;
  for (const float r : {0.0f, 0.5f, 0.8f, 1.0f}) {
    SCOPED_TRACE(r);
    const StepConstants c = tank(0.0f, r, 1e-4f);
    const float floor = c.tank_lo.y + 0.01f * c.spacing;
    Particle p{Vec4{1.0f, floor + h, 1.0f, 0.0f}, Vec4{}, Vec4{}};
    bool bounced = false;
    float apex = floor;
    for (int k = 0; k < 20000; ++k) {  // 2 s: the fall takes 0.32 s, a full rise as long
      const float before = p.v.y;
      p.step(c);
      if (!bounced && before < 0.0f && p.v.y >= 0.0f && p.x.y <= floor + 1e-6f) bounced = true;
      if (bounced) apex = std::fmax(apex, p.x.y);
      if (bounced && p.v.y < 0.0f) break;  // past the apex
    }
    ASSERT_TRUE(bounced);
    const float rise = apex - floor;
    std::printf("restitution %.1f: bounced to %.4f m of %.2f (r^2 h = %.4f)\n", r, rise, h, r * r * h);
    EXPECT_NEAR(rise, r * r * h, 0.03f * h + 1e-4f);
  }
}

// An obstacle's surface: a particle on a box's top, the box moving sideways at 0.5 m/s,
// takes the box's velocity with friction 1 and keeps its own with friction 0; dropped on a
// still ball with restitution 1 it comes back up as fast as it fell.
TEST(Walls, ObstaclesMeetParticlesRelativeToTheirOwnMotion) {
  ObstacleShape box{};
  box.kind = int(ShapeKind::Box);
  box.center = Vec3{1.0f, 0.5f, 1.0f};
  box.half_extent = Vec3{0.3f, 0.5f, 0.3f};
  box.velocity = Vec3{0.5f, 0.0f, 0.0f};
  for (const float friction : {0.0f, 1.0f}) {
    StepConstants c = tank(friction, 0.0f, 1e-3f);
    c.obstacles[0] = box;
    c.obstacle_count = 1;
    Particle p{Vec4{1.0f, 1.0f - 1e-4f, 1.0f, 0.0f}, Vec4{}, Vec4{}};  // just inside its top
    p.step(c);
    EXPECT_NEAR(p.v.x, friction * 0.5f, 1e-6f) << "friction " << friction;
  }
  ObstacleShape ball{};
  ball.kind = int(ShapeKind::Sphere);
  ball.center = Vec3{1.0f, 0.5f, 1.0f};
  ball.radius = 0.3f;
  StepConstants c = tank(0.0f, 1.0f, 1e-3f);
  c.obstacles[0] = ball;
  c.obstacle_count = 1;
  Particle p{Vec4{1.0f, 0.8f + 0.001f, 1.0f, 0.0f}, Vec4{0.0f, -2.0f, 0.0f, 0.0f}, Vec4{}};
  p.step(c);
  EXPECT_GT(p.v.y, 1.9f) << "bounced straight back up";
  EXPECT_NEAR(p.v.x, 0.0f, 1e-5f);
}

// A sheet of water three particles thick against the tank's left wall, across the tank's
// whole depth (so touching the front and back walls too), let fall for 0.2 s, in a fluid
// 1,000 times as viscous as water so that the walls' part shows. With free slip
// (wall_slip 1) the walls exert no shear: the sheet falls at g (its mean downward speed
// within 2 % of g t: the speed, which the integrator gets exactly in free fall, rather than
// the drop, which semi-implicit Euler overshoots by dt / t); with no slip (0) they hold back the water next to them and it falls
// measurably slower, and half slip falls between the two.
TEST(Walls, SheetSlidingDownAWallFallsAtGWithFreeSlipAndSlowerWithNoSlip) {
  const float s = 0.02f;
  const Scene scene = test::box_scene(Vec3{0, 0, 0}, Vec3{0.4f, 1.2f, 0.2f}, Vec3{0, 0.7f, 0},
                                      Vec3{3 * s, 1.1f, 0.2f}, s);
  for (const SolverKind solver : {SolverKind::Wcsph, SolverKind::Pcisph, SolverKind::Pbf, SolverKind::Dfsph}) {
    double fall[3] = {};
    const float slips[3] = {1.0f, 0.5f, 0.0f};
    for (int k = 0; k < 3; ++k) {
      auto sim = test::cpu_sim(scene, s);
      sim->params().solver = int(solver);
      sim->params().viscosity = 1e-3f;
      sim->params().wall_slip = slips[k];
      while (sim->stats().simulated_time < 0.2) sim->step();
      const Snapshot end = sim->snapshot();
      double speed = 0.0;
      for (const Vec4& v : end.velocity) speed -= v.y;
      speed /= double(end.velocity.size());
      const double t = sim->stats().simulated_time;
      fall[k] = speed / (9.81 * t);
      std::printf("%s, wall_slip %.1f: the sheet falls at %.4f m/s after %.3f s, %.4f of g t\n",
                  solver_name(int(solver)), slips[k], speed, t, fall[k]);
      EXPECT_EQ(test::check(*sim).outside, 0u);
    }
    SCOPED_TRACE(solver_name(int(solver)));
    EXPECT_NEAR(fall[0], 1.0, 0.02) << "free slip: it falls at g";
    EXPECT_LT(fall[2], fall[0] - 0.05) << "no slip: measurably slower";
    EXPECT_LT(fall[1], fall[0]) << "half slip: between";
    EXPECT_GT(fall[1], fall[2]);
  }
}

// What no slip did to a dam break (the complaint): Koshizuka & Oka's column
// (tests/test_solvers.cpp, four particle layers between the front and back walls) in a
// fluid at the old default viscosity, 1e-3 m^2/s. With no slip the walls held the water
// next to them, and in so thin a tank that is all of it: at T = t sqrt(2 g / L) = 3 the
// column at the wall stood 25-28 spacings tall against 19-20 with free slip (measured),
// while the water 3-4 spacings from the wall stood level with it (within 1.5 spacings at
// T = 2) only with free slip.
TEST(Walls, FreeSlipLetsADamBreakColumnFallAtTheWall) {
  const float L = 0.146f, s = L / 20.0f, depth = 4 * s;
  const Scene scene = test::box_scene(Vec3{0, 0, 0}, Vec3{4 * L, 3 * L, depth}, Vec3{0, 0, 0},
                                      Vec3{L, 2 * L, depth}, s);
  const double time_scale = std::sqrt(2.0 * 9.81 / L);
  for (const SolverKind solver : {SolverKind::Wcsph, SolverKind::Pcisph, SolverKind::Pbf, SolverKind::Dfsph}) {
    SCOPED_TRACE(solver_name(int(solver)));
    double wall[2][2] = {}, inside[2][2] = {};  // [free, no slip][T = 2, 3], in spacings
    for (int k = 0; k < 2; ++k) {
      auto sim = test::cpu_sim(scene, s);
      sim->params().solver = int(solver);
      sim->params().viscosity = 1e-3f;
      sim->params().wall_slip = k == 0 ? 1.0f : 0.0f;
      for (int m = 0; m < 2; ++m) {
        while (sim->stats().simulated_time * time_scale < 2.0 + m) sim->step();
        const Snapshot snap = sim->snapshot();
        for (const Vec4& x : snap.position) {
          if (x.x < s) wall[k][m] = std::max(wall[k][m], double(x.y / s));
          if (x.x > 3 * s && x.x < 4 * s) inside[k][m] = std::max(inside[k][m], double(x.y / s));
        }
      }
      std::printf("%s, wall_slip %d: the column at the wall %.1f / %.1f spacings tall at T = 2 / 3, "
                  "3-4 spacings in %.1f / %.1f\n",
                  solver_name(int(solver)), k == 0 ? 1 : 0, wall[k][0], wall[k][1], inside[k][0],
                  inside[k][1]);
    }
    EXPECT_GT(wall[1][1], wall[0][1] + 3.0) << "no slip holds the column up at the wall";
    EXPECT_LT(wall[0][0] - inside[0][0], 1.5) << "free slip: the surface meets the wall level";
    EXPECT_GT(wall[1][0] - inside[1][0], wall[0][0] - inside[0][0]);
  }
}

}  // namespace
}  // namespace tp
