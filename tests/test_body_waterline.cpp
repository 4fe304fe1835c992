// The panel's draft of a body (sim/bodies/body_waterline.h): measured off a lattice of water
// whose surface is known, beside boxes, balls and a turned box, in 3D and 2D.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "body_builders.h"
#include "sim/bodies/body_waterline.h"

namespace tp::test {
namespace {

constexpr float kSpacing = 0.02f;

// Water on a lattice from y = 0 to `surface` (the top particles half a spacing under it),
// x and z in [-0.5, 0.5] (z = 0 only in 2D), none inside the body's box of half size `keep`
// around its centre.
std::vector<Vec4> pool(float surface, int dimensions, Vec3 centre, Vec3 keep) {
  std::vector<Vec4> p;
  const int layers = int(std::lround(surface / kSpacing));
  for (int k = 0; k < layers; ++k)
    for (int i = 0; i < 50; ++i)
      for (int j = 0; j < (dimensions == 2 ? 1 : 50); ++j) {
        const float x = -0.49f + kSpacing * float(i), y = kSpacing * (float(k) + 0.5f);
        const float z = dimensions == 2 ? 0.0f : -0.49f + kSpacing * float(j);
        if (std::fabs(x - centre.x) < keep.x && std::fabs(y - centre.y) < keep.y && std::fabs(z - centre.z) < keep.z)
          continue;
        p.push_back(Vec4{x, y, z, 0.0f});
      }
  return p;
}

TEST(BodyWaterline, AFloatingBoxsDraftIsTheSurfaceLessItsLowestPoint) {
  const BodySpec b = box_at(Vec3{0.05f, 0.28f, -0.02f}, Vec3{0.1f, 0.1f, 0.1f});
  std::vector<Vec4> water = pool(0.30f, 3, b.pose.position, b.half_extent);
  BodyWaterline w = body_waterline(b, water.data(), water.size(), kSpacing, 3);
  ASSERT_TRUE(w.found);
  EXPECT_NEAR(w.surface, 0.30f, 1e-4f);
  EXPECT_NEAR(w.depth, 0.12f, 1e-4f);
  EXPECT_NEAR(w.height, 0.2f, 1e-5f);
  // A drop thrown above one column beside it moves nothing (the median of the columns).
  water.push_back(Vec4{0.05f + 0.16f, 0.6f, -0.02f, 0.0f});
  w = body_waterline(b, water.data(), water.size(), kSpacing, 3);
  EXPECT_NEAR(w.surface, 0.30f, 1e-4f);
}

TEST(BodyWaterline, ABallWhollyUnderWaterIsDeeperThanItIsTall) {
  const BodySpec ball = sphere_at(Vec3{-0.2f, 0.1f, 0.1f}, 0.06f);
  const std::vector<Vec4> water = pool(0.40f, 3, ball.pose.position, Vec3{0.06f, 0.06f, 0.06f});
  const BodyWaterline w = body_waterline(ball, water.data(), water.size(), kSpacing, 3);
  ASSERT_TRUE(w.found);
  EXPECT_NEAR(w.depth, 0.40f - 0.04f, 1e-4f);
  EXPECT_GT(w.depth, w.height) << "its top is under the surface too";
}

TEST(BodyWaterline, ATurnedBoxReachesDownByItsHalfDiagonal) {
  BodySpec b = box_at(Vec3{0.0f, 0.35f, 0.0f}, Vec3{0.1f, 0.1f, 0.1f});
  const float s = std::sin(0.25f * 3.14159265f * 0.5f), c = std::cos(0.25f * 3.14159265f * 0.5f);
  b.pose.orientation = Quat{c, 0.0f, 0.0f, s};  // 45 degrees about z
  const std::vector<Vec4> water = pool(0.30f, 3, b.pose.position, Vec3{0.15f, 0.15f, 0.1f});
  const BodyWaterline w = body_waterline(b, water.data(), water.size(), kSpacing, 3);
  ASSERT_TRUE(w.found);
  EXPECT_NEAR(w.depth, 0.30f - (0.35f - 0.1f * std::sqrt(2.0f)), 1e-4f);
  EXPECT_NEAR(w.height, 0.2f * std::sqrt(2.0f), 1e-4f);
}

// A mesh's extent is its vertices', turned: an octahedron turned 45 degrees about z reaches
// down 0.0707 m, where its box in its own frame, turned, would reach 0.141 m.
TEST(BodyWaterline, ATurnedMeshReachesDownToItsLowestVertex) {
  auto mesh = std::make_shared<BodyMesh>();
  for (int a = 0; a < 3; ++a)
    for (float sign : {-0.1f, 0.1f}) {
      Vec3 v{0.0f, 0.0f, 0.0f};
      (a == 0 ? v.x : a == 1 ? v.y : v.z) = sign;
      mesh->mesh.vertices.push_back(v);
    }
  mesh->lo = Vec3{-0.1f, -0.1f, -0.1f};
  mesh->hi = Vec3{0.1f, 0.1f, 0.1f};
  BodySpec b;
  b.shape = int(BodyShapeKind::Mesh);
  b.mesh = mesh;
  b.pose.position = Vec3{0.0f, 0.5f, 0.0f};
  const float s = std::sin(0.25f * 3.14159265f * 0.5f), c = std::cos(0.25f * 3.14159265f * 0.5f);
  b.pose.orientation = Quat{c, 0.0f, 0.0f, s};
  float lowest = 0.0f, highest = 0.0f;
  body_vertical_extent(b, &lowest, &highest);
  EXPECT_NEAR(lowest, 0.5f - 0.1f * std::sqrt(0.5f), 1e-5f);
  EXPECT_NEAR(highest, 0.5f + 0.1f * std::sqrt(0.5f), 1e-5f);
}

// In 2D the ring is measured from the body's reach in x alone: a box 0.3 m deep in z (as
// floating_2d's are) with water only within 4 spacings of its sides still finds it.
TEST(BodyWaterline, InTwoDimensionsTheRingIgnoresTheBodysDepth) {
  const BodySpec b = box_at(Vec3{0.0f, 0.25f, 0.0f}, Vec3{0.12f, 0.04f, 0.15f});
  std::vector<Vec4> water;
  for (const Vec4& p : pool(0.24f, 2, b.pose.position, b.half_extent))
    if (std::fabs(p.x) < 0.12f + 4.0f * kSpacing) water.push_back(p);
  const BodyWaterline w = body_waterline(b, water.data(), water.size(), kSpacing, 2);
  ASSERT_TRUE(w.found) << "the water beside it is within the ring";
  EXPECT_NEAR(w.depth, 0.24f - 0.21f, 1e-4f);
}

TEST(BodyWaterline, InTwoDimensionsAndAboveTheWater) {
  const BodySpec b = box_at(Vec3{0.1f, 0.25f, 0.0f}, Vec3{0.12f, 0.04f, 0.04f});
  const std::vector<Vec4> water = pool(0.24f, 2, b.pose.position, b.half_extent);
  BodyWaterline w = body_waterline(b, water.data(), water.size(), kSpacing, 2);
  ASSERT_TRUE(w.found);
  EXPECT_NEAR(w.depth, 0.24f - 0.21f, 1e-4f);
  const BodySpec above = box_at(Vec3{0.1f, 0.5f, 0.0f}, Vec3{0.12f, 0.04f, 0.04f});
  w = body_waterline(above, water.data(), water.size(), kSpacing, 2);
  ASSERT_TRUE(w.found);
  EXPECT_LT(w.depth, 0.0f) << "clear of the water";
  // No water beside it at all (an empty tank, or the water elsewhere).
  EXPECT_FALSE(body_waterline(b, nullptr, 0, kSpacing, 2).found);
  const Vec4 far{0.45f, 0.01f, 0.0f, 0.0f};
  EXPECT_FALSE(body_waterline(b, &far, 1, kSpacing, 2).found);
}

}  // namespace
}  // namespace tp::test
