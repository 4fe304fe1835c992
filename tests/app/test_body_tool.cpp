// Grabbing rigid bodies with the cursor (app/water/body_tool.h): the press picks the body
// the ray meets first and grabs the point hit, the drag's target follows the cursor in the
// plane through that point facing the camera, the release lets go; an obstacle in front,
// a kinematic body or a miss grab nothing; and the draws carry each body's shape and pose.
// The panel's text for a body (app/water/panel_bodies.h).
#include <gtest/gtest.h>

#include <glm/glm.hpp>

#include <cmath>
#include <cstdio>

#include "../body_builders.h"
#include "app/water/body_tool.h"
#include "app/water/panel_bodies.h"

using namespace tp;

namespace {

using tp::test::box_at;
using tp::test::sphere_at;

// The camera at z = 5 looking down -z; the cursor's ray from the eye through (x, y) at z = 0.
const glm::vec3 kEye(0.0f, 0.0f, 5.0f), kForward(0.0f, 0.0f, -1.0f);
glm::vec3 ray_to(float x, float y) { return glm::normalize(glm::vec3(x, y, 0.0f) - kEye); }

}  // namespace

TEST(BodyTool, PressGrabsTheNearestBodyAtThePointHit) {
  // A sphere in front of a box on the same ray: the sphere is taken.
  const std::vector<BodySpec> bodies{box_at(Vec3{0, 0, -1}, Vec3{0.5f, 0.5f, 0.5f}), sphere_at(Vec3{0, 0, 1}, 0.25f)};
  BodyDrag drag;
  const BodyDrag::Frame f = drag.update(bodies, true, true, kEye, ray_to(0, 0), kEye, kForward);
  ASSERT_TRUE(f.grab.has_value());
  EXPECT_EQ(f.grab->index, 1);
  EXPECT_EQ(f.highlighted, 1);
  EXPECT_TRUE(drag.dragging());
  // The sphere's front point, in world and body frames.
  EXPECT_NEAR(f.grab->target.z, 1.25f, 1e-3f);
  EXPECT_NEAR(f.grab->local.z, 0.25f, 1e-3f);
  EXPECT_NEAR(f.grab->local.x, 0.0f, 1e-3f);
  EXPECT_FALSE(f.release);
}

TEST(BodyTool, TheLocalPointIsInTheTurnedBodysFrame) {
  // A box turned 90 degrees about y: its own x axis points along world -z (towards the
  // camera is world +z, so its face hit is its local -x face).
  BodySpec b = box_at(Vec3{0, 0, 0}, Vec3{0.5f, 0.2f, 0.1f});
  b.pose.orientation = quat_from_axis_angle(Vec3{0, 1, 0}, 0.5f * 3.14159265f);
  BodyDrag drag;
  const BodyDrag::Frame f = drag.update({b}, true, false, kEye, ray_to(0, 0), kEye, kForward);
  ASSERT_TRUE(f.grab.has_value());
  EXPECT_NEAR(f.grab->target.z, 0.5f, 2e-3f) << "the turned box's long side faces the camera";
  EXPECT_NEAR(std::fabs(f.grab->local.x), 0.5f, 2e-3f);
  EXPECT_NEAR(f.grab->local.z, 0.0f, 2e-3f);
}

TEST(BodyTool, DragMovesTheTargetInThePlaneFacingTheCameraAndReleaseLetsGo) {
  const std::vector<BodySpec> bodies{sphere_at(Vec3{0, 0, 0}, 0.5f)};
  BodyDrag drag;
  const BodyDrag::Frame press = drag.update(bodies, true, true, kEye, ray_to(0, 0), kEye, kForward);
  ASSERT_TRUE(press.grab.has_value());
  const float depth = press.grab->target.z;  // 0.5
  // The cursor moves up: the target follows at the grab point's depth.
  const glm::vec3 d = glm::normalize(glm::vec3(0.0f, 1.0f, depth) - kEye);
  const BodyDrag::Frame held = drag.update(bodies, true, true, kEye, d, kEye, kForward);
  EXPECT_FALSE(held.grab.has_value()) << "one grab per press";
  ASSERT_TRUE(held.move.has_value());
  EXPECT_NEAR(held.move->x, 0.0f, 1e-4f);
  EXPECT_NEAR(held.move->y, 1.0f, 1e-4f);
  EXPECT_NEAR(held.move->z, depth, 1e-4f);
  EXPECT_EQ(held.highlighted, 0);
  // Even off every body the drag goes on.
  const BodyDrag::Frame far = drag.update(bodies, true, true, kEye, ray_to(3, 0), kEye, kForward);
  ASSERT_TRUE(far.move.has_value());
  EXPECT_GT(far.move->x, 2.0f);
  const BodyDrag::Frame up = drag.update(bodies, false, true, kEye, ray_to(0, 0), kEye, kForward);
  EXPECT_TRUE(up.release);
  EXPECT_FALSE(up.move.has_value());
  EXPECT_FALSE(drag.dragging());
  // With ctrl still held, the body under the cursor shows what a press would take.
  EXPECT_EQ(up.highlighted, 0);
  const BodyDrag::Frame next = drag.update(bodies, false, true, kEye, ray_to(0, 0), kEye, kForward);
  EXPECT_FALSE(next.release) << "released once";
}

TEST(BodyTool, AMissAnObstacleInFrontOrAKinematicBodyGrabsNothing) {
  const std::vector<BodySpec> bodies{sphere_at(Vec3{0, 0, 0}, 0.5f)};
  {
    BodyDrag drag;  // the ray misses
    const BodyDrag::Frame f = drag.update(bodies, true, true, kEye, ray_to(2, 0), kEye, kForward);
    EXPECT_FALSE(f.grab.has_value());
    EXPECT_EQ(f.highlighted, -1);
    // Moved onto the body while held: a drag begun on nothing stays nothing.
    const BodyDrag::Frame g = drag.update(bodies, true, true, kEye, ray_to(0, 0), kEye, kForward);
    EXPECT_FALSE(g.grab.has_value());
    EXPECT_FALSE(drag.dragging());
  }
  {
    BodyDrag drag;  // an obstacle 1 m from the eye, the body 4.5 m
    const BodyDrag::Frame hover = drag.update(bodies, false, true, kEye, ray_to(0, 0), kEye, kForward, 1.0f);
    EXPECT_EQ(hover.highlighted, -1);
    const BodyDrag::Frame f = drag.update(bodies, true, true, kEye, ray_to(0, 0), kEye, kForward, 1.0f);
    EXPECT_FALSE(f.grab.has_value()) << "the obstacle in front takes the press";
  }
  {
    std::vector<BodySpec> fixed = bodies;
    fixed[0].kinematic = true;
    BodyDrag drag;
    const BodyDrag::Frame f = drag.update(fixed, true, true, kEye, ray_to(0, 0), kEye, kForward);
    EXPECT_FALSE(f.grab.has_value());
  }
  {
    BodyDrag drag;  // no ctrl: no highlight
    EXPECT_EQ(drag.update(bodies, false, false, kEye, ray_to(0, 0), kEye, kForward).highlighted, -1);
  }
}

TEST(BodyTool, ABodyThatWentAwayIsLetGo) {
  const std::vector<BodySpec> bodies{sphere_at(Vec3{0, 0, 0}, 0.5f)};
  BodyDrag drag;
  ASSERT_TRUE(drag.update(bodies, true, true, kEye, ray_to(0, 0), kEye, kForward).grab.has_value());
  const BodyDrag::Frame f = drag.update({}, true, true, kEye, ray_to(0, 0), kEye, kForward);
  EXPECT_TRUE(f.release);
  EXPECT_FALSE(drag.dragging());
}

TEST(BodyTool, DrawsCarryShapePoseAndHighlight) {
  BodySpec capsule;
  capsule.shape = int(BodyShapeKind::Capsule);
  capsule.radius = 0.05f;
  capsule.half_height = 0.15f;
  capsule.pose.position = Vec3{0.1f, 0.2f, 0.3f};
  capsule.pose.orientation = quat_from_axis_angle(Vec3{0, 0, 1}, 0.5f);
  const std::vector<BodyDraw> d =
      body_draws({box_at(Vec3{1, 2, 3}, Vec3{0.1f, 0.2f, 0.3f}), sphere_at(Vec3{0, 0, 0}, 0.2f), capsule}, 2);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].kind, int(BodyKind::Box));
  EXPECT_EQ(d[0].position, glm::vec3(1, 2, 3));
  EXPECT_EQ(d[0].half_extent, glm::vec3(0.1f, 0.2f, 0.3f));
  EXPECT_EQ(d[1].kind, int(BodyKind::Sphere));
  EXPECT_FLOAT_EQ(d[1].radius, 0.2f);
  EXPECT_EQ(d[2].kind, int(BodyKind::Capsule));
  EXPECT_FLOAT_EQ(d[2].half_height, 0.15f);
  const Quat q = capsule.pose.orientation;
  EXPECT_EQ(d[2].orientation, glm::vec4(q.w, q.x, q.y, q.z));
  EXPECT_FALSE(d[0].highlighted);
  EXPECT_TRUE(d[2].highlighted);
}

TEST(PanelBodies, ShapeTextAndDensity) {
  EXPECT_EQ(body_shape_text(box_at(Vec3{0, 0, 0}, Vec3{0.2f, 0.1f, 0.2f})), "box 0.40 x 0.20 x 0.40 m");
  EXPECT_EQ(body_shape_text(sphere_at(Vec3{0, 0, 0}, 0.12f)), "sphere r 0.12 m");
  BodySpec capsule;
  capsule.shape = int(BodyShapeKind::Capsule);
  capsule.radius = 0.05f;
  capsule.half_height = 0.15f;
  EXPECT_EQ(body_shape_text(capsule), "capsule r 0.05 m, 0.30 m long");
  BodySpec b = box_at(Vec3{0, 0, 0}, Vec3{0.5f, 0.5f, 0.5f});
  b.density = 700.0f;
  EXPECT_FLOAT_EQ(body_density(b, 3), 700.0f);
  b.mass = 500.0f;  // 1 m^3: the mass gives the density
  EXPECT_NEAR(body_density(b, 3), 500.0f, 1e-2f);
}

// The panel's new body: above the water at the view's centre, near the tank's top, inside
// the tank; moved to the nearest clear place when another body stands in its column (a
// light box under the view's centre was hit and thrown 0.3 m); a collider on the floor; in
// 2D along x only, on the plane.
TEST(BodyTool, ANewBodyIsDroppedWhereNoOtherBodyStandsBelowIt) {
  const Vec3 lo{-1.0f, 0.0f, -0.5f}, hi{1.0f, 1.2f, 0.5f};
  const BodySpec box = box_at(Vec3{0, 0, 0}, Vec3{0.075f, 0.0375f, 0.075f});
  const float reach = solid_of(box).bound;
  Vec3 at = new_body_place(box, {}, Vec3{0.2f, 0.3f, -0.1f}, lo, hi, 3, 0.0f);
  EXPECT_FLOAT_EQ(at.x, 0.2f);
  EXPECT_FLOAT_EQ(at.z, -0.1f);
  EXPECT_FLOAT_EQ(at.y, 1.2f - 1.2f * reach) << "near the tank's top";
  at = new_body_place(box, {}, Vec3{5.0f, 0.3f, -5.0f}, lo, hi, 3, 0.0f);
  EXPECT_FLOAT_EQ(at.x, 1.0f - reach) << "kept inside the tank";
  EXPECT_FLOAT_EQ(at.z, -0.5f + reach);
  // A floating box under the view's centre.
  const BodySpec floating = box_at(Vec3{0.2f, 0.42f, -0.1f}, Vec3{0.2f, 0.1f, 0.2f});
  at = new_body_place(box, {floating}, Vec3{0.2f, 0.3f, -0.1f}, lo, hi, 3, 0.0f);
  const float apart = std::hypot(at.x - 0.2f, at.z + 0.1f);
  std::printf("moved %.3f m off the view's centre (reaches %.3f and %.3f)\n", apart, reach, solid_of(floating).bound);
  EXPECT_GE(apart, reach + solid_of(floating).bound - 1e-5f) << "clear of the floating box's column";
  EXPECT_LE(apart, reach + solid_of(floating).bound + reach + 1e-5f) << "the nearest clear ring";
  EXPECT_TRUE(at.x > lo.x + reach - 1e-5f && at.x < hi.x - reach + 1e-5f && at.z > lo.z + reach - 1e-5f &&
              at.z < hi.z - reach + 1e-5f);
  // A collider stands on the floor: its lowest point at the tank's floor.
  BodySpec post = box_at(Vec3{0, 0, 0}, Vec3{0.1f, 0.2f, 0.1f});
  post.kinematic = true;
  at = new_body_place(post, {}, Vec3{0.0f, 0.3f, 0.0f}, lo, hi, 3, 0.0f);
  EXPECT_FLOAT_EQ(at.y, 0.2f);
  // 2D: along x, on the plane.
  const Vec3 lo2{-0.6f, 0.0f, 0.0f}, hi2{0.6f, 0.8f, 0.0f};
  at = new_body_place(box, {box_at(Vec3{0.0f, 0.3f, 0.0f}, Vec3{0.1f, 0.05f, 0.05f})}, Vec3{0.0f, 0.3f, 0.0f}, lo2,
                      hi2, 2, 0.0f);
  EXPECT_EQ(at.z, 0.0f);
  EXPECT_GE(std::fabs(at.x), reach + solid_of(box_at(Vec3{0, 0, 0}, Vec3{0.1f, 0.05f, 0.05f})).bound - 1e-5f);
}
