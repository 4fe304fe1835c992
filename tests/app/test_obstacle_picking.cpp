// Picking obstacles with the cursor's ray (app/window/obstacle_picking.h): ray against sphere and
// box, the nearest of several, a ray starting inside, and the ctrl + left drag that moves
// the grabbed obstacle in the plane facing the camera without making it jump.
#include <gtest/gtest.h>

#include <glm/glm.hpp>

#include "app/window/obstacle_picking.h"

using namespace tp;

namespace {

ObstacleShape sphere(glm::vec3 c, float r) {
  ObstacleShape o{};
  o.kind = int(ShapeKind::Sphere);
  o.center = Vec3{c.x, c.y, c.z};
  o.radius = r;
  return o;
}

ObstacleShape box(glm::vec3 c, glm::vec3 half) {
  ObstacleShape o{};
  o.kind = int(ShapeKind::Box);
  o.center = Vec3{c.x, c.y, c.z};
  o.half_extent = Vec3{half.x, half.y, half.z};
  return o;
}

glm::vec3 center_of(const ObstacleShape& o) {
  return glm::vec3(o.center.x, o.center.y, o.center.z);
}

}  // namespace

TEST(ObstaclePicking, RaySphereHitsTheNearSide) {
  const auto t = ray_sphere({0, 0, 5}, {0, 0, -1}, {0, 0, 0}, 1.0f);
  ASSERT_TRUE(t.has_value());
  EXPECT_NEAR(*t, 4.0f, 1e-5f);
  // Off centre: the hit lies on the surface.
  const glm::vec3 o(0.5f, 0.0f, 5.0f), d(0, 0, -1);
  const auto t2 = ray_sphere(o, d, {0, 0, 0}, 1.0f);
  ASSERT_TRUE(t2.has_value());
  EXPECT_NEAR(glm::length(o + d * *t2), 1.0f, 1e-5f);
  EXPECT_NEAR((o + d * *t2).z, std::sqrt(0.75f), 1e-5f);
}

TEST(ObstaclePicking, RaySphereMisses) {
  EXPECT_FALSE(ray_sphere({1.01f, 0, 5}, {0, 0, -1}, {0, 0, 0}, 1.0f)) << "passes beside it";
  EXPECT_FALSE(ray_sphere({0, 0, 5}, {0, 0, 1}, {0, 0, 0}, 1.0f)) << "points away from it";
  EXPECT_FALSE(ray_sphere({0, 0, 5}, {0, 0, -1}, {0, 0, 0}, 0.0f)) << "no radius";
}

TEST(ObstaclePicking, RayStartingInsideHitsWhereItLeaves) {
  const auto s = ray_sphere({0, 0, 0.5f}, {0, 0, -1}, {0, 0, 0}, 1.0f);
  ASSERT_TRUE(s.has_value());
  EXPECT_NEAR(*s, 1.5f, 1e-5f);
  const auto b = ray_box({0.2f, 0, 0}, {1, 0, 0}, {0, 0, 0}, {1, 2, 3});
  ASSERT_TRUE(b.has_value());
  EXPECT_NEAR(*b, 0.8f, 1e-5f);
}

TEST(ObstaclePicking, RayBoxHitsEachFace) {
  const glm::vec3 c(0.3f, 0.5f, -0.2f), half(0.2f, 0.1f, 0.4f);
  for (int axis = 0; axis < 3; ++axis) {
    for (float side : {-1.0f, 1.0f}) {
      SCOPED_TRACE(testing::Message() << "axis " << axis << ", side " << side);
      // From outside that face, aimed slightly off its centre, towards the box.
      glm::vec3 origin = c, dir(0.0f);
      origin[axis] += side * 3.0f;
      origin[(axis + 1) % 3] += 0.5f * half[(axis + 1) % 3];
      dir[axis] = -side;
      const auto t = ray_box(origin, dir, c, half);
      ASSERT_TRUE(t.has_value());
      const glm::vec3 hit = origin + dir * *t;
      EXPECT_NEAR(hit[axis], c[axis] + side * half[axis], 1e-5f) << "on that face";
      EXPECT_NEAR(*t, 3.0f - half[axis], 1e-5f);
    }
  }
}

TEST(ObstaclePicking, RayBoxAtAnAngleAndMisses) {
  const glm::vec3 c(0, 0, 0), half(1, 1, 1);
  // Diagonal through the corner region: enters through the face it reaches first.
  const glm::vec3 o(-3, 0.5f, -2.5f), d = glm::normalize(glm::vec3(1, 0, 1));
  const auto t = ray_box(o, d, c, half);
  ASSERT_TRUE(t.has_value());
  const glm::vec3 hit = o + d * *t;
  EXPECT_NEAR(hit.x, -1.0f, 1e-5f) << "the x = -1 face, reached before z = -1";
  EXPECT_LE(std::abs(hit.z), 1.0f + 1e-5f);
  // Misses: beside it, parallel to a face outside it, pointing away, no size.
  EXPECT_FALSE(ray_box({-3, 1.2f, 0}, {1, 0, 0}, c, half));
  EXPECT_FALSE(ray_box({-3, 0, 0}, {-1, 0, 0}, c, half));
  EXPECT_FALSE(ray_box({-3, -3, 0}, glm::normalize(glm::vec3(1, 0.2f, 0)), c, half));
  EXPECT_FALSE(ray_box({-3, 0, 0}, {1, 0, 0}, c, {1, 0, 1}));
  // Parallel to two axes inside their slabs: a hit.
  EXPECT_TRUE(ray_box({0.99f, 0.99f, 5}, {0, 0, -1}, c, half));
}

TEST(ObstaclePicking, PicksTheNearestOfTwo) {
  // A box in front of a sphere on the same line of sight, listed in either order.
  const std::vector<ObstacleShape> both = {sphere({0, 0, -2}, 0.5f),
                                           box({0, 0, 1}, {0.3f, 0.3f, 0.3f})};
  const auto hit = pick_obstacle({0, 0, 5}, {0, 0, -1}, both);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->index, 1);
  EXPECT_NEAR(hit->distance, 3.7f, 1e-5f);
  const std::vector<ObstacleShape> swapped = {both[1], both[0]};
  EXPECT_EQ(pick_obstacle({0, 0, 5}, {0, 0, -1}, swapped)->index, 0);
  // Beside the box, the sphere behind is what the ray meets.
  const auto side = pick_obstacle({0.4f, 0, 5}, {0, 0, -1}, both);
  ASSERT_TRUE(side.has_value());
  EXPECT_EQ(side->index, 0);
  EXPECT_FALSE(pick_obstacle({3, 0, 5}, {0, 0, -1}, both)) << "beside both";
  EXPECT_FALSE(pick_obstacle({0, 0, 5}, {0, 0, -1}, {})) << "no obstacles";
}

TEST(ObstaclePicking, DrawsCarryShapeAndHighlight) {
  const std::vector<ObstacleShape> shapes = {sphere({1, 2, 3}, 0.5f),
                                             box({0, 1, 0}, {0.1f, 0.2f, 0.3f})};
  const std::vector<ObstacleDraw> d = obstacle_draws(shapes, 1);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].kind, int(ObstacleKind::Sphere));
  EXPECT_EQ(d[0].center, glm::vec3(1, 2, 3));
  EXPECT_EQ(d[0].radius, 0.5f);
  EXPECT_FALSE(d[0].highlighted);
  EXPECT_EQ(d[1].kind, int(ObstacleKind::Box));
  EXPECT_EQ(d[1].half_extent, glm::vec3(0.1f, 0.2f, 0.3f));
  EXPECT_TRUE(d[1].highlighted);
}

namespace {
// A camera at z = 5 looking along -z; the cursor's ray from the eye through (x, y, 0).
const glm::vec3 kEye(0, 0, 5), kForward(0, 0, -1);
glm::vec3 ray_to(float x, float y) { return glm::normalize(glm::vec3(x, y, 0) - kEye); }
}  // namespace

TEST(ObstacleDrag, MovesTheGrabbedObstacleInThePlaneFacingTheCamera) {
  std::vector<ObstacleShape> shapes = {sphere({0, 0, 0}, 1.0f), box({3, 0, 0}, {0.5f, 0.5f, 0.5f})};
  ObstacleDrag drag;
  // Press off the sphere's centre (grab point on its front, about z = 0.97).
  ObstacleDrag::Frame f = drag.update(shapes, true, true, kEye, ray_to(0.2f, 0.1f), kEye, kForward);
  ASSERT_TRUE(drag.dragging());
  EXPECT_EQ(drag.index(), 0);
  EXPECT_EQ(f.highlighted, 0);
  ASSERT_TRUE(f.move.has_value());
  EXPECT_LT(glm::length(f.move->center - glm::vec3(0, 0, 0)), 1e-4f) << "no jump at the press";

  // The cursor moves: the centre follows in the plane z = const through the grab point,
  // by the grab point's own displacement.
  const glm::vec3 grab =
      kEye + ray_to(0.2f, 0.1f) * *ray_sphere(kEye, ray_to(0.2f, 0.1f), {0, 0, 0}, 1.0f);
  const glm::vec3 dir = ray_to(0.6f, -0.3f);
  f = drag.update(shapes, true, true, kEye, dir, kEye, kForward);
  ASSERT_TRUE(f.move.has_value());
  const glm::vec3 on_plane = kEye + dir * ((grab.z - kEye.z) / dir.z);
  EXPECT_LT(glm::length(f.move->center - (on_plane - grab)), 1e-4f);
  EXPECT_NEAR(f.move->center.z, 0.0f, 1e-5f) << "stays at its depth";
  EXPECT_GT(f.move->center.x, 0.3f);
  EXPECT_LT(f.move->center.y, -0.3f);

  // The simulation moved it; the drag keeps going from the same grab.
  shapes[0].center = Vec3{f.move->center.x, f.move->center.y, f.move->center.z};
  f = drag.update(shapes, true, false, kEye, dir, kEye, kForward);
  ASSERT_TRUE(f.move.has_value());
  EXPECT_LT(glm::length(f.move->center - center_of(shapes[0])), 1e-4f) << "a still cursor holds it";

  // Released: no move, nothing grabbed.
  f = drag.update(shapes, false, false, kEye, dir, kEye, kForward);
  EXPECT_FALSE(f.move.has_value());
  EXPECT_FALSE(drag.dragging());
  EXPECT_EQ(f.highlighted, -1);
}

TEST(ObstacleDrag, PressOnEmptySpaceGrabsNothingEvenWhenTheCursorReachesAnObstacle) {
  const std::vector<ObstacleShape> shapes = {sphere({0, 0, 0}, 1.0f)};
  ObstacleDrag drag;
  ObstacleDrag::Frame f = drag.update(shapes, true, true, kEye, ray_to(3, 3), kEye, kForward);
  EXPECT_FALSE(drag.dragging());
  EXPECT_FALSE(f.move.has_value());
  f = drag.update(shapes, true, true, kEye, ray_to(0, 0), kEye, kForward);
  EXPECT_FALSE(drag.dragging()) << "only a press grabs";
  EXPECT_FALSE(f.move.has_value());
  // A new press on it does.
  drag.update(shapes, false, true, kEye, ray_to(0, 0), kEye, kForward);
  f = drag.update(shapes, true, true, kEye, ray_to(0, 0), kEye, kForward);
  EXPECT_TRUE(drag.dragging());
}

TEST(ObstacleDrag, HoverHighlightsWhatAPressWouldGrab) {
  const std::vector<ObstacleShape> shapes = {box({3, 0, 0}, {0.5f, 0.5f, 0.5f}),
                                             sphere({0, 0, 0}, 1.0f)};
  ObstacleDrag drag;
  EXPECT_EQ(drag.update(shapes, false, true, kEye, ray_to(0, 0), kEye, kForward).highlighted, 1);
  EXPECT_EQ(drag.update(shapes, false, true, kEye, ray_to(3, 0), kEye, kForward).highlighted, 0);
  EXPECT_EQ(drag.update(shapes, false, true, kEye, ray_to(1.5f, 2), kEye, kForward).highlighted,
            -1);
  EXPECT_EQ(drag.update(shapes, false, false, kEye, ray_to(0, 0), kEye, kForward).highlighted, -1)
      << "without ctrl (or over the panel) nothing is highlighted";
  const ObstacleDrag::Frame f =
      drag.update(shapes, false, true, kEye, ray_to(0, 0), kEye, kForward);
  EXPECT_FALSE(f.move.has_value()) << "hovering moves nothing";
}

TEST(ObstacleDrag, AnObstacleThatGoesAwayEndsTheDrag) {
  std::vector<ObstacleShape> shapes = {sphere({0, 0, 0}, 1.0f)};
  ObstacleDrag drag;
  drag.update(shapes, true, true, kEye, ray_to(0, 0), kEye, kForward);
  ASSERT_TRUE(drag.dragging());
  shapes.clear();  // a reset into a scene without it
  const ObstacleDrag::Frame f = drag.update(shapes, true, true, kEye, ray_to(0, 0), kEye, kForward);
  EXPECT_FALSE(drag.dragging());
  EXPECT_FALSE(f.move.has_value());
}
