// The bodies' surface samples (src/sim/bodies/surface_samples.h): no two closer than 0.75
// spacing and every point of the surface within 0.75 spacing of one (checked on random points
// of the surface), for the primitives in 3D and 2D and for meshes; the same points every time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "sim/bodies/mesh_shapes.h"
#include "sim/bodies/surface_samples.h"
#include "sim/bodies/triangle_mesh.h"

namespace tp {
namespace {

constexpr float kPi = 3.14159265f;

float min_pair_distance(const std::vector<Vec3>& s) {
  float best = 1e30f;
  for (size_t i = 0; i < s.size(); ++i) {
    for (size_t j = i + 1; j < s.size(); ++j) best = minf(best, length2(s[i] - s[j]));
  }
  return std::sqrt(best);
}

// The largest distance from any of the points to its nearest sample.
float cover_distance(const std::vector<Vec3>& samples, const std::vector<Vec3>& points) {
  float worst = 0.0f;
  for (const Vec3& p : points) {
    float best = 1e30f;
    for (const Vec3& s : samples) best = minf(best, length2(p - s));
    worst = maxf(worst, best);
  }
  return std::sqrt(worst);
}

Vec3 random_direction(std::mt19937& rng) {
  std::normal_distribution<float> n(0.0f, 1.0f);
  for (;;) {
    const Vec3 v{n(rng), n(rng), n(rng)};
    if (length(v) > 1e-3f) return v * (1.0f / length(v));
  }
}

std::vector<Vec3> points_on_capsule(std::mt19937& rng, float r, float hh, int count) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const float side = 2.0f * kPi * r * 2.0f * hh, caps = 4.0f * kPi * r * r;
  std::vector<Vec3> out;
  for (int n = 0; n < count; ++n) {
    if (u(rng) * (side + caps) < side) {
      const float a = 2.0f * kPi * u(rng);
      out.push_back(Vec3{r * std::cos(a), -hh + 2.0f * hh * u(rng), r * std::sin(a)});
    } else {
      const Vec3 d = random_direction(rng);
      out.push_back(d * r + Vec3{0.0f, d.y > 0.0f ? hh : -hh, 0.0f});
    }
  }
  return out;
}

std::vector<Vec3> points_on_box(std::mt19937& rng, Vec3 h, int count) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const float area[3] = {h.y * h.z, h.x * h.z, h.x * h.y};
  std::vector<Vec3> out;
  for (int n = 0; n < count; ++n) {
    const float pick = (u(rng) + 1.0f) * 0.5f * (area[0] + area[1] + area[2]);
    const int axis = pick < area[0] ? 0 : (pick < area[0] + area[1] ? 1 : 2);
    Vec3 p{h.x * u(rng), h.y * u(rng), h.z * u(rng)};
    const float sign = u(rng) < 0.0f ? -1.0f : 1.0f;
    (axis == 0 ? p.x : axis == 1 ? p.y : p.z) = sign * (axis == 0 ? h.x : axis == 1 ? h.y : h.z);
    out.push_back(p);
  }
  return out;
}

std::vector<Vec3> points_on_mesh(std::mt19937& rng, const TriangleSoup& m, int count) {
  std::vector<double> cumulative;
  double total = 0.0;
  for (const auto& t : m.triangles) {
    total +=
        length(cross(m.vertices[t[1]] - m.vertices[t[0]], m.vertices[t[2]] - m.vertices[t[0]]));
    cumulative.push_back(total);
  }
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Vec3> out;
  for (int n = 0; n < count; ++n) {
    const size_t t = size_t(std::lower_bound(cumulative.begin(), cumulative.end(), u(rng) * total) -
                            cumulative.begin());
    float a = float(u(rng)), b = float(u(rng));
    if (a + b > 1.0f) a = 1.0f - a, b = 1.0f - b;
    const auto& tri = m.triangles[std::min(t, m.triangles.size() - 1)];
    const Vec3 p0 = m.vertices[tri[0]];
    out.push_back(p0 + (m.vertices[tri[1]] - p0) * a + (m.vertices[tri[2]] - p0) * b);
  }
  return out;
}

TEST(MeshCollider, SphereSamplesAreEvenlySpaced) {
  std::mt19937 rng(1);
  for (float r : {0.05f, 0.12f, 0.3f, 0.5f}) {
    const float s = 0.04f;
    const std::vector<Vec3> samples = sample_sphere(r, s);
    for (const Vec3& p : samples) EXPECT_NEAR(length(p), r, 1e-5f);
    std::vector<Vec3> points;
    for (int n = 0; n < 3000; ++n) points.push_back(random_direction(rng) * r);
    EXPECT_GE(min_pair_distance(samples), 0.75f * s) << r;
    EXPECT_LE(cover_distance(samples, points), 0.75f * s) << r;
    // About one per (0.95 s)^2 sqrt(3)/2 of area, as a triangular lattice would have.
    const float lattice = 4.0f * kPi * r * r / (0.866f * 0.95f * 0.95f * s * s);
    EXPECT_NEAR(float(samples.size()), lattice, 0.25f * lattice) << r;
  }
}

TEST(MeshCollider, BoxSamplesAreEvenlySpaced) {
  std::mt19937 rng(2);
  for (const Vec3 h :
       {Vec3{0.3f, 0.2f, 0.15f}, Vec3{0.07f, 0.5f, 0.1f}, Vec3{0.25f, 0.25f, 0.25f}}) {
    const float s = 0.04f;
    const std::vector<Vec3> samples = sample_box(h, s);
    for (const Vec3& p : samples) {  // on the surface
      const float q = maxf(std::fabs(p.x) - h.x, maxf(std::fabs(p.y) - h.y, std::fabs(p.z) - h.z));
      EXPECT_NEAR(q, 0.0f, 1e-6f);
    }
    EXPECT_GE(min_pair_distance(samples), 0.75f * s);
    EXPECT_LE(cover_distance(samples, points_on_box(rng, h, 4000)), 0.75f * s);
  }
}

TEST(MeshCollider, CapsuleSamplesAreEvenlySpaced) {
  std::mt19937 rng(3);
  for (const float r : {0.1f, 0.2f}) {
    for (const float hh : {0.0f, 0.13f, 0.3f}) {
      const float s = 0.03f;
      const std::vector<Vec3> samples = sample_capsule(r, hh, s);
      EXPECT_GE(min_pair_distance(samples), 0.75f * s) << r << " " << hh;
      EXPECT_LE(cover_distance(samples, points_on_capsule(rng, r, hh, 4000)), 0.75f * s)
          << r << " " << hh;
    }
  }
}

TEST(MeshCollider, OutlineSamplesAreEvenlySpaced) {
  const float s = 0.02f;
  const struct {
    std::vector<Vec3> samples;
    float perimeter;
    std::function<Vec3(float)> at;  // the outline by arc length
  } shapes[] = {
      {sample_circle(0.1f, s), 2 * kPi * 0.1f,
       [](float u) {
         return Vec3{0.1f * std::cos(u / 0.1f), 0.1f * std::sin(u / 0.1f), 0};
       }},
      {sample_rectangle(0.15f, 0.05f, s), 0.8f,
       [](float u) {
         if (u < 0.3f) return Vec3{-0.15f + u, -0.05f, 0};
         if (u < 0.4f) return Vec3{0.15f, -0.05f + (u - 0.3f), 0};
         if (u < 0.7f) return Vec3{0.15f - (u - 0.4f), 0.05f, 0};
         return Vec3{-0.15f, 0.05f - (u - 0.7f), 0};
       }},
      {sample_stadium(0.05f, 0.1f, s), 0.4f + 2 * kPi * 0.05f,
       [](float u) {
         const float arc = kPi * 0.05f;
         if (u < 0.2f) return Vec3{0.05f, -0.1f + u, 0};
         if ((u -= 0.2f) < arc)
           return Vec3{0.05f * std::cos(u / 0.05f), 0.1f + 0.05f * std::sin(u / 0.05f), 0};
         if ((u -= arc) < 0.2f) return Vec3{-0.05f, 0.1f - u, 0};
         u -= 0.2f;
         return Vec3{-0.05f * std::cos(u / 0.05f), -0.1f - 0.05f * std::sin(u / 0.05f), 0};
       }},
  };
  for (const auto& shape : shapes) {
    std::vector<Vec3> points;
    for (int n = 0; n <= 2000; ++n)
      points.push_back(shape.at(shape.perimeter * float(n) / 2000.0f));
    for (const Vec3& p : shape.samples) EXPECT_EQ(p.z, 0.0f);
    EXPECT_GE(min_pair_distance(shape.samples), 0.75f * s);
    EXPECT_LE(cover_distance(shape.samples, points), 0.75f * s);
    EXPECT_NEAR(float(shape.samples.size()), shape.perimeter / s, 2.0f);
  }
  EXPECT_EQ(sample_rectangle(0.15f, 0.05f, s).size(), 40u);  // 15 + 5 + 15 + 5, corners once
}

TEST(MeshCollider, MeshSamplesAreEvenlySpacedAndRepeatable) {
  std::mt19937 rng(4);
  std::string error;
  const auto duck = load_triangle_mesh(std::string(TIDEPOOL_SOURCE_DIR) + "/assets/meshes/duck.obj",
                                       1.0f, &error);
  ASSERT_TRUE(duck) << error;
  const struct {
    const char* name;
    TriangleSoup mesh;
    float spacing;
  } cases[] = {{"sphere", make_sphere_mesh(0.2f, 24, 48), 0.03f},
               {"box", make_box_mesh(Vec3{0.2f, 0.1f, 0.05f}), 0.025f},
               {"duck", *duck, 0.012f}};
  for (const auto& c : cases) {
    const std::vector<Vec3> samples = sample_mesh_surface(c.mesh, c.spacing);
    const float closest = min_pair_distance(samples);
    const float cover = cover_distance(samples, points_on_mesh(rng, c.mesh, 3000));
    EXPECT_GE(closest, 0.75f * c.spacing) << c.name;
    // Every candidate (a tenth of the spacing apart) is within 0.75: the surface within that
    // and the candidates' own gaps.
    EXPECT_LE(cover, 0.85f * c.spacing) << c.name;
    std::printf(
        "[ mesh samples ] %s: %zu samples at spacing %g: closest pair %.3f s, farthest surface "
        "point %.3f s\n",
        c.name, samples.size(), double(c.spacing), double(closest / c.spacing),
        double(cover / c.spacing));
    const std::vector<Vec3> again = sample_mesh_surface(c.mesh, c.spacing);
    ASSERT_EQ(again.size(), samples.size());
    for (size_t k = 0; k < samples.size(); ++k) {
      EXPECT_EQ(again[k].x, samples[k].x);
      EXPECT_EQ(again[k].y, samples[k].y);
      EXPECT_EQ(again[k].z, samples[k].z);
    }
  }
  EXPECT_TRUE(sample_mesh_surface(*duck, 0.0f).empty());
  EXPECT_TRUE(sample_sphere(-1.0f, 0.1f).empty());
  EXPECT_TRUE(sample_box(Vec3{1, 1, 1}, std::nanf("")).empty());
}

}  // namespace
}  // namespace tp
