// Walls with friction and restitution (kernels/obstacle.h wall_contact, applied by the
// final clamp, kernels/boundary.h): one particle and the clamp alone, no fluid around it
// (issue 25, part 3). A particle sliding on the floor keeps its tangential speed with
// friction 0 and loses it with friction 1; a particle dropped on the floor bounces to about
// restitution^2 of its height; an obstacle's surface acts relative to the obstacle's motion.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/boundary.h"
#include "sim/params.h"

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
    if (friction == 0.0f) EXPECT_EQ(p.v.x, 1.0f) << "friction 0: the sliding speed is kept";
    if (friction == 1.0f) EXPECT_EQ(p.v.x, 0.0f) << "friction 1: it sticks";
    if (friction == 0.5f) EXPECT_LT(p.v.x, 1e-6f) << "every step on the floor takes half";
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

}  // namespace
}  // namespace tp
