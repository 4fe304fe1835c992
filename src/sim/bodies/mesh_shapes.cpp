#include "sim/bodies/mesh_shapes.h"

#include <cmath>

#include "sim/bodies/mass_properties.h"

namespace tp {
namespace {

constexpr double kTwoPi = 6.283185307179586;

// Coordinate i of n + 1 evenly from -h to h, the ends exact (so that faces share them).
float even(int i, int n, float h) {
  if (i == 0) return -h;
  if (i == n) return h;
  return -h + 2.0f * h * float(i) / float(n);
}

void add_quad(TriangleSoup* m, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  m->triangles.push_back({a, b, c});
  m->triangles.push_back({a, c, d});
}

}  // namespace

TriangleSoup make_box_mesh(Vec3 half, int divisions) {
  const int n = divisions < 1 ? 1 : divisions;
  const float h[3] = {half.x, half.y, half.z};
  TriangleSoup mesh;
  for (int axis = 0; axis < 3; ++axis) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;  // e_u x e_v = e_axis
    for (int sign = -1; sign <= 1; sign += 2) {
      const uint32_t base = uint32_t(mesh.vertices.size());
      for (int j = 0; j <= n; ++j) {
        for (int i = 0; i <= n; ++i) {
          float p[3];
          p[axis] = float(sign) * h[axis];
          p[u] = even(i, n, h[u]);
          p[v] = even(j, n, h[v]);
          mesh.vertices.push_back(Vec3{p[0], p[1], p[2]});
        }
      }
      for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
          const uint32_t a = base + uint32_t(j * (n + 1) + i), b = a + 1, c = b + uint32_t(n + 1),
                         d = a + uint32_t(n + 1);
          if (sign > 0)
            add_quad(&mesh, a, b, c, d);  // counter-clockwise about +e_axis
          else
            add_quad(&mesh, a, d, c, b);
        }
      }
    }
  }
  weld_vertices(&mesh);  // the faces' shared edges and corners
  return mesh;
}

TriangleSoup make_sphere_mesh(float radius, int rings, int segments) {
  rings = rings < 2 ? 2 : rings;
  segments = segments < 3 ? 3 : segments;
  TriangleSoup mesh;
  mesh.vertices.push_back(Vec3{0.0f, -radius, 0.0f});
  for (int r = 1; r < rings; ++r) {
    const double lat = -0.5 * kTwoPi / 2.0 + 0.5 * kTwoPi * r / rings;
    for (int s = 0; s < segments; ++s) {
      const double lon = kTwoPi * s / segments;
      mesh.vertices.push_back(Vec3{float(radius * std::cos(lat) * std::cos(lon)),
                                   float(radius * std::sin(lat)),
                                   float(radius * std::cos(lat) * std::sin(lon))});
    }
  }
  const uint32_t top = uint32_t(mesh.vertices.size());
  mesh.vertices.push_back(Vec3{0.0f, radius, 0.0f});
  const auto ring = [&](int r, int s) { return uint32_t(1 + (r - 1) * segments + (s % segments)); };
  for (int s = 0; s < segments; ++s) {
    mesh.triangles.push_back({0, ring(1, s), ring(1, s + 1)});
    mesh.triangles.push_back({top, ring(rings - 1, s + 1), ring(rings - 1, s)});
    for (int r = 1; r + 1 < rings; ++r) {
      add_quad(&mesh, ring(r, s), ring(r + 1, s), ring(r + 1, s + 1), ring(r, s + 1));
    }
  }
  orient_outward(&mesh, std::string(), nullptr);
  return mesh;
}

TriangleSoup make_torus_mesh(float radius, float tube, int around, int tube_segments) {
  around = around < 3 ? 3 : around;
  tube_segments = tube_segments < 3 ? 3 : tube_segments;
  TriangleSoup mesh;
  for (int i = 0; i < around; ++i) {
    const double u = kTwoPi * i / around;
    for (int j = 0; j < tube_segments; ++j) {
      const double v = kTwoPi * j / tube_segments;
      const double rho = radius + tube * std::cos(v);
      mesh.vertices.push_back(
          Vec3{float(rho * std::cos(u)), float(tube * std::sin(v)), float(rho * std::sin(u))});
    }
  }
  const auto at = [&](int i, int j) {
    return uint32_t((i % around) * tube_segments + (j % tube_segments));
  };
  for (int i = 0; i < around; ++i) {
    for (int j = 0; j < tube_segments; ++j) {
      add_quad(&mesh, at(i, j), at(i, j + 1), at(i + 1, j + 1), at(i + 1, j));
    }
  }
  orient_outward(&mesh, std::string(), nullptr);
  return mesh;
}

}  // namespace tp
