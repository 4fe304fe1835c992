// The mesh colliders' distances (src/sim/bodies, kernels/distance_field.h): the BVH's closest
// points against brute force, the signed distance field against exact distances and signs (a
// box, a cube's edges and corners, a torus), its sampling and gradient, the shipped meshes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernels/distance_field.h"
#include "sim/bodies/distance_field.h"
#include "sim/bodies/mass_properties.h"
#include "sim/bodies/mesh_shapes.h"
#include "sim/bodies/triangle_bvh.h"
#include "sim/bodies/triangle_mesh.h"

namespace tp {
namespace {

// The box's exact signed distance (negative inside).
float box_distance(Vec3 p, Vec3 h) {
  const Vec3 q{std::fabs(p.x) - h.x, std::fabs(p.y) - h.y, std::fabs(p.z) - h.z};
  const Vec3 out{maxf(q.x, 0.0f), maxf(q.y, 0.0f), maxf(q.z, 0.0f)};
  return length(out) + minf(maxf(q.x, maxf(q.y, q.z)), 0.0f);
}

Vec3 random_in(std::mt19937& rng, Vec3 lo, Vec3 hi) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  return Vec3{lo.x + (hi.x - lo.x) * u(rng), lo.y + (hi.y - lo.y) * u(rng),
              lo.z + (hi.z - lo.z) * u(rng)};
}

std::string data_path(const std::string& rel) {
  return std::string(TIDEPOOL_SOURCE_DIR) + "/" + rel;
}

// ---- closest points and the distance field -----------------------------------------------------

TEST(MeshCollider, BvhClosestPointEqualsBruteForce) {
  std::mt19937 rng(11);
  std::string error;
  const auto duck = load_triangle_mesh(data_path("assets/meshes/duck.obj"), 1.0f, &error);
  ASSERT_TRUE(duck) << error;
  for (const TriangleSoup& mesh : {make_torus_mesh(0.3f, 0.1f, 40, 20), *duck}) {
    const TriangleBvh bvh(mesh);
    EXPECT_EQ(bvh.triangle_count(), mesh.triangles.size());
    Vec3 lo, hi;
    mesh_bounds(mesh, &lo, &hi);
    const Vec3 pad = (hi - lo) * 0.3f;
    for (int n = 0; n < 400; ++n) {
      const Vec3 p = random_in(rng, lo - pad, hi + pad);
      float best = 1e30f;
      for (const auto& t : mesh.triangles) {
        const TrianglePoint q = closest_point_on_triangle(p, mesh.vertices[t[0]],
                                                          mesh.vertices[t[1]], mesh.vertices[t[2]]);
        best = minf(best, length(p - q.point));
      }
      const uint32_t hint = uint32_t(n * 37) % uint32_t(mesh.triangles.size());
      for (uint32_t h : {TriangleBvh::kNoHint, hint}) {
        const ClosestPoint c = bvh.closest_point(p, h);
        EXPECT_NEAR(c.distance, best, 1e-6f) << n;
        const auto& t = mesh.triangles[c.triangle];
        const TrianglePoint q = closest_point_on_triangle(p, mesh.vertices[t[0]],
                                                          mesh.vertices[t[1]], mesh.vertices[t[2]]);
        EXPECT_NEAR(length(q.point - c.point), 0.0f, 1e-6f);
      }
    }
    const float nan = std::nanf("");
    EXPECT_TRUE(std::isnan(bvh.closest_point(Vec3{nan, 0.0f, 0.0f}).distance));
    EXPECT_TRUE(std::isnan(SignedDistance(mesh)(Vec3{0.0f, nan, 0.0f})));
  }
}

TEST(MeshCollider, TriangleClosestPointAndFeature) {
  const Vec3 a{0, 0, 0}, b{1, 0, 0}, c{0, 1, 0};
  const auto check = [&](Vec3 p, Vec3 point, TriangleFeature f, int index) {
    const TrianglePoint q = closest_point_on_triangle(p, a, b, c);
    EXPECT_NEAR(length(q.point - point), 0.0f, 1e-6f);
    EXPECT_EQ(q.feature, f);
    EXPECT_EQ(q.index, index);
  };
  check(Vec3{0.2f, 0.2f, 1.0f}, Vec3{0.2f, 0.2f, 0.0f}, TriangleFeature::Face, 0);
  check(Vec3{0.5f, -1.0f, 0.3f}, Vec3{0.5f, 0.0f, 0.0f}, TriangleFeature::Edge, 0);
  check(Vec3{1.0f, 1.0f, -2.0f}, Vec3{0.5f, 0.5f, 0.0f}, TriangleFeature::Edge, 1);
  check(Vec3{-1.0f, 0.5f, 0.0f}, Vec3{0.0f, 0.5f, 0.0f}, TriangleFeature::Edge, 2);
  check(Vec3{-1.0f, -1.0f, 0.5f}, a, TriangleFeature::Vertex, 0);
  check(Vec3{2.0f, -0.5f, 0.0f}, b, TriangleFeature::Vertex, 1);
  check(Vec3{-0.1f, 3.0f, 0.0f}, c, TriangleFeature::Vertex, 2);
  // No area: its edges.
  const TrianglePoint q = closest_point_on_triangle(Vec3{0.5f, 1.0f, 0.0f}, a, b, Vec3{2, 0, 0});
  EXPECT_NEAR(q.point.y, 0.0f, 1e-6f);
  EXPECT_NEAR(q.point.x, 0.5f, 1e-6f);
}

TEST(MeshCollider, BoxFieldMatchesTheAnalyticDistance) {
  const Vec3 h{0.3f, 0.2f, 0.15f};
  const TriangleSoup box = make_box_mesh(h, 2);
  std::string error;
  DistanceFieldSettings settings;
  settings.resolution = 64;
  const auto field = build_distance_field(box, settings, &error);
  ASSERT_TRUE(field) << error;
  EXPECT_EQ(field->dims.x, 64);
  EXPECT_NEAR(field->cell, 0.6f / 57.0f, 1e-6f);
  const float cell = field->cell;
  // Every node: the exact signed distance.
  float worst = 0.0f;
  for (int k = 0; k < field->dims.z; ++k) {
    for (int j = 0; j < field->dims.y; ++j) {
      for (int i = 0; i < field->dims.x; ++i) {
        const Vec3 p = field->origin + Vec3{float(i), float(j), float(k)} * cell;
        const float v = field->value[(size_t(k) * field->dims.y + j) * field->dims.x + i];
        worst = maxf(worst, std::fabs(v - box_distance(p, h)));
      }
    }
  }
  EXPECT_LT(worst, 1e-3f * cell);
  // Random points, inside and outside: the exact distance within 1e-3 cell; the sampled field
  // (trilinear between exact nodes) within what interpolation across the medial axis and the
  // corners' curvature allows; the gradient along the analytic one away from those kinks.
  const SignedDistance exact(box);
  const DistanceFieldView view = field->view();
  const Vec3 grid_hi =
      field->origin +
      Vec3{float(field->dims.x - 1), float(field->dims.y - 1), float(field->dims.z - 1)} * cell;
  std::mt19937 rng(3);
  int inside = 0;
  float worst_sample = 0.0f, worst_outside = 0.0f, worst_gradient = 1.0f;
  for (int n = 0; n < 3000; ++n) {
    const Vec3 p = random_in(rng, field->origin, grid_hi);
    const float d = box_distance(p, h);
    inside += d < 0.0f;
    EXPECT_NEAR(exact(p), d, 1e-3f * cell) << n;
    worst_sample = maxf(worst_sample, std::fabs(sdf_sample(view, p) - d));
    if (d > 0.0f) worst_outside = maxf(worst_outside, std::fabs(sdf_sample(view, p) - d));
    if (d > cell) {  // outside, the cell's nodes all outside: the direction from the box
      const Vec3 q{clampf(p.x, -h.x, h.x), clampf(p.y, -h.y, h.y), clampf(p.z, -h.z, h.z)};
      worst_gradient =
          minf(worst_gradient, dot(sdf_gradient(view, p), (p - q) * (1.0f / length(p - q))));
    }
  }
  EXPECT_GT(inside, 300);
  // Inside, the distance has a crease on the box's medial planes (slopes +1 and -1 meeting):
  // interpolating across it errs by up to half a cell, and by less in the cells outside that
  // have nodes near the crease (along the edges).
  EXPECT_LT(worst_sample, 0.5f * cell);
  EXPECT_LT(worst_outside, 0.25f * cell);
  EXPECT_GT(worst_gradient, 0.95f);
  std::printf(
      "[ box field ] %dx%dx%d nodes, cell %.4f m: sampled field within %.3f cells of the exact "
      "distance (outside: %.3f), gradient beyond a cell outside within %.1f degrees of it\n",
      field->dims.x, field->dims.y, field->dims.z, double(cell), double(worst_sample / cell),
      double(worst_outside / cell), std::acos(double(worst_gradient)) * 180.0 / M_PI);
  // Beyond the grid: positive, never below the true distance by more than the grid's error,
  // its gradient pointing away.
  for (int n = 0; n < 500; ++n) {
    const Vec3 p = random_in(rng, h * -6.0f, h * 6.0f);
    if (p.x > field->origin.x && p.y > field->origin.y && p.z > field->origin.z &&
        p.x < grid_hi.x && p.y < grid_hi.y && p.z < grid_hi.z) {
      continue;
    }
    const float d = box_distance(p, h);
    EXPECT_GT(sdf_sample(view, p), d - 0.25f * cell) << n;
    const Vec3 q{clampf(p.x, -h.x, h.x), clampf(p.y, -h.y, h.y), clampf(p.z, -h.z, h.z)};
    EXPECT_GT(dot(sdf_gradient(view, p), (p - q) * (1.0f / length(p - q))), 0.5f) << n;
  }
}

TEST(MeshCollider, SignIsRightNearACubesEdgesAndCorners) {
  const TriangleSoup cube = make_box_mesh(Vec3{0.5f, 0.5f, 0.5f});  // two triangles a face
  const SignedDistance distance(cube);
  int checked = 0;
  for (float e : {1e-3f, 1e-2f, 0.1f}) {
    for (int corner = 0; corner < 8; ++corner) {
      const Vec3 c{corner & 1 ? 0.5f : -0.5f, corner & 2 ? 0.5f : -0.5f, corner & 4 ? 0.5f : -0.5f};
      const Vec3 out = c * 2.0f;  // (+-1, +-1, +-1): outward at the corner
      // Outside: beyond the planes of one, two or all three of the corner's faces (closest to a
      // face, an edge or the corner itself); inside: as far in along every axis.
      for (int m = 1; m < 8; ++m) {
        const Vec3 dir{m & 1 ? out.x : -0.3f * out.x, m & 2 ? out.y : -0.3f * out.y,
                       m & 4 ? out.z : -0.3f * out.z};
        const Vec3 outside = c + dir * e;
        EXPECT_GT(distance(outside), 0.0f) << corner << " " << m << " " << e;
        const Vec3 inside =
            c -
            Vec3{std::fabs(dir.x) * out.x, std::fabs(dir.y) * out.y, std::fabs(dir.z) * out.z} * e;
        EXPECT_LT(distance(inside), 0.0f) << corner << " " << m << " " << e;
        EXPECT_NEAR(std::fabs(distance(outside)),
                    std::fabs(box_distance(outside, Vec3{0.5f, 0.5f, 0.5f})), 1e-6f);
        checked += 2;
      }
      // Along an edge's middle, outward on its bisector and slightly off it either way.
      for (int axis = 0; axis < 3; ++axis) {
        Vec3 mid = c;
        (axis == 0 ? mid.x : axis == 1 ? mid.y : mid.z) = 0.0f;
        Vec3 normal = out;
        (axis == 0 ? normal.x : axis == 1 ? normal.y : normal.z) = 0.0f;
        for (float tilt : {0.0f, 0.2f, -0.2f}) {
          Vec3 d = normal;
          d.x *= axis == 0 ? 0.0f : 1.0f + tilt;
          EXPECT_GT(distance(mid + d * e), 0.0f);
          EXPECT_LT(distance(mid - d * e * 0.5f), 0.0f);
          checked += 2;
        }
      }
    }
  }
  EXPECT_GT(checked, 400);
}

TEST(MeshCollider, SignIsRightForATorus) {
  const float big = 0.3f, tube = 0.1f;
  const TriangleSoup torus = make_torus_mesh(big, tube, 64, 32);
  std::string error;
  DistanceFieldSettings settings;
  settings.resolution = 48;
  const auto field = build_distance_field(torus, settings, &error);
  ASSERT_TRUE(field) << error;
  const SignedDistance distance(torus);
  const auto exact = [&](Vec3 p) {
    const float rho = std::sqrt(p.x * p.x + p.z * p.z);
    return std::sqrt((rho - big) * (rho - big) + p.y * p.y) - tube;
  };
  std::mt19937 rng(5);
  int inside = 0, nodes_checked = 0;
  for (int n = 0; n < 4000; ++n) {
    const Vec3 p = random_in(rng, Vec3{-0.45f, -0.15f, -0.45f}, Vec3{0.45f, 0.15f, 0.45f});
    const float d = exact(p);
    if (std::fabs(d) < 2e-3f) continue;  // within the facets' distance from the true torus
    inside += d < 0.0f;
    const float s = distance(p);
    EXPECT_EQ(s < 0.0f, d < 0.0f) << n;
    EXPECT_NEAR(s, d, 2e-3f);
  }
  for (size_t v = 0; v < field->value.size(); ++v) {  // the grid's nodes alike
    const int i = int(v % size_t(field->dims.x)),
              j = int(v / size_t(field->dims.x) % size_t(field->dims.y));
    const int k = int(v / size_t(field->dims.x) / size_t(field->dims.y));
    const float d = exact(field->origin + Vec3{float(i), float(j), float(k)} * field->cell);
    if (std::fabs(d) < 2e-3f) continue;
    EXPECT_EQ(field->value[v] < 0.0f, d < 0.0f) << v;
    ++nodes_checked;
  }
  EXPECT_GT(inside, 400);
  EXPECT_GT(nodes_checked, 40000);
}

TEST(MeshCollider, SettingsThatMakeNoFieldAreRefused) {
  const TriangleSoup box = make_box_mesh(Vec3{1, 1, 1});
  std::string error;
  DistanceFieldSettings s;
  s.resolution = 6;
  EXPECT_FALSE(build_distance_field(box, s, &error));
  EXPECT_NE(error.find("no room"), std::string::npos) << error;
  s = DistanceFieldSettings{};
  s.cell_size = 1e-4f;
  EXPECT_FALSE(build_distance_field(box, s, &error));
  EXPECT_NE(error.find("nodes (at most"), std::string::npos) << error;
  EXPECT_FALSE(build_distance_field(TriangleSoup{}, DistanceFieldSettings{}, &error));
  EXPECT_NE(error.find("no triangles"), std::string::npos) << error;
}

// ---- the shipped meshes -----------------------------------------------------------------------

// The generalised winding number of a closed mesh at p: the triangles' solid angles (Van
// Oosterom & Strackee's formula) over 4 pi; 1 inside an outward-facing mesh, 0 outside. A
// sign test independent of the distance field's pseudonormals.
double winding_number(const TriangleSoup& m, Vec3 p) {
  double total = 0.0;
  for (const auto& t : m.triangles) {
    const Vec3 a = m.vertices[t[0]] - p, b = m.vertices[t[1]] - p, c = m.vertices[t[2]] - p;
    const double la = length(a), lb = length(b), lc = length(c);
    const double det = dot(a, cross(b, c));
    const double den = la * lb * lc + dot(a, b) * lc + dot(b, c) * la + dot(c, a) * lb;
    total += 2.0 * std::atan2(det, den);
  }
  return total / (4.0 * M_PI);
}

TEST(MeshCollider, ShippedMeshesAreClosedSolids) {
  std::mt19937 rng(13);
  const char* names[] = {"cup.obj", "boat_hull.obj", "duck.obj", "paddle_wheel.obj"};
  for (const char* name : names) {
    std::string error;
    const auto mesh =
        load_triangle_mesh(data_path(std::string("assets/meshes/") + name), 1.0f, &error);
    ASSERT_TRUE(mesh) << error;
    const MeshCheck check = check_closed(*mesh);
    EXPECT_TRUE(check.closed()) << closed_mesh_problem(name, check);
    EXPECT_LE(mesh->triangles.size(), 5000u) << name;
    const MassProperties props = compute_mass_properties(*mesh);
    EXPECT_GT(props.volume, 1e-3) << name;
    DistanceFieldSettings settings;
    settings.resolution = 32;
    const auto field = build_distance_field(*mesh, settings, &error);
    ASSERT_TRUE(field) << name << ": " << error;
    const float lowest = *std::min_element(field->value.begin(), field->value.end());
    EXPECT_LT(lowest, -0.5f * field->cell) << name;  // material more than half a cell thick
    EXPECT_GT(field->value.front(), 0.0f) << name;   // a corner of the grid: outside
    EXPECT_GT(field->value.back(), 0.0f) << name;
    // The exact signed distance's sign against the winding number, at random points.
    const SignedDistance distance(*mesh);
    Vec3 lo, hi;
    mesh_bounds(*mesh, &lo, &hi);
    int inside = 0, disagree = 0;
    for (int n = 0; n < 400; ++n) {
      const Vec3 p = random_in(rng, lo, hi);
      const float d = distance(p);
      if (std::fabs(d) < 1e-4f) continue;
      const bool in = winding_number(*mesh, p) > 0.5;
      inside += in;
      disagree += in != (d < 0.0f);
    }
    EXPECT_EQ(disagree, 0) << name;
    EXPECT_GT(inside, 10) << name;
  }
  // The cup's wall is solid and its hollow empty.
  std::string error;
  const auto cup = load_triangle_mesh(data_path("assets/meshes/cup.obj"), 1.0f, &error);
  ASSERT_TRUE(cup) << error;
  const SignedDistance cup_distance(*cup);
  EXPECT_LT(cup_distance(Vec3{0.16f, 0.1f, 0.0f}), -0.015f);
  EXPECT_GT(cup_distance(Vec3{0.0f, 0.15f, 0.0f}), 0.1f);
  EXPECT_LT(cup_distance(Vec3{0.0f, 0.02f, 0.0f}), -0.015f);
}

}  // namespace
}  // namespace tp
