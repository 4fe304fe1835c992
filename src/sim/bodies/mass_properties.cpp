#include "sim/bodies/mass_properties.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace tp {
namespace {

struct D3 {
  double x, y, z;
};
D3 d3(Vec3 v) { return D3{double(v.x), double(v.y), double(v.z)}; }
D3 sub(D3 a, D3 b) { return D3{a.x - b.x, a.y - b.y, a.z - b.z}; }
double component(D3 v, int k) { return k == 0 ? v.x : (k == 1 ? v.y : v.z); }

}  // namespace

// Over the tetrahedron T = (o, a, b, c), o the reference point at the origin and
// d = a . (b x c) = 6 vol(T) (signed): with x = a u + b v + c w over the unit simplex,
//   int_T dV = d / 6,   int_T x dV = d / 24 (a + b + c),
//   int_T x x^T dV = d / 120 (a a^T + b b^T + c c^T + s s^T),  s = a + b + c,
// from the simplex's moments int u^2 = 2 / 120 and int u v = 1 / 120 (Dirichlet's integral
// i! j! k! / (i + j + k + 3)!). Summed over a closed mesh's triangles, the tetrahedra outside
// the solid cancel (Gauss): the sums are the solid's own integrals.
MassProperties compute_mass_properties(const TriangleSoup& mesh) {
  MassProperties props;
  if (mesh.vertices.empty()) return props;
  Vec3 lo, hi;
  mesh_bounds(mesh, &lo, &hi);
  const D3 ref = d3((lo + hi) * 0.5f);  // near the middle: less cancellation than the origin
  double volume = 0.0;
  D3 first{0, 0, 0};
  double second[3][3] = {};
  for (const std::array<uint32_t, 3>& t : mesh.triangles) {
    const D3 a = sub(d3(mesh.vertices[t[0]]), ref), b = sub(d3(mesh.vertices[t[1]]), ref),
             c = sub(d3(mesh.vertices[t[2]]), ref);
    const double d = a.x * (b.y * c.z - b.z * c.y) + a.y * (b.z * c.x - b.x * c.z) +
                     a.z * (b.x * c.y - b.y * c.x);
    const D3 s{a.x + b.x + c.x, a.y + b.y + c.y, a.z + b.z + c.z};
    volume += d / 6.0;
    first = D3{first.x + d / 24.0 * s.x, first.y + d / 24.0 * s.y, first.z + d / 24.0 * s.z};
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        const double aa = component(a, i) * component(a, j) + component(b, i) * component(b, j) +
                          component(c, i) * component(c, j) + component(s, i) * component(s, j);
        second[i][j] += d / 120.0 * aa;
      }
    }
  }
  props.volume = volume;
  if (volume == 0.0) return props;
  const D3 m{first.x / volume, first.y / volume, first.z / volume};
  props.centroid = Vec3{float(ref.x + m.x), float(ref.y + m.y), float(ref.z + m.z)};
  // The second moment about the centroid (parallel axes), then I = tr(C) 1 - C.
  double c[3][3];
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) c[i][j] = second[i][j] - volume * component(m, i) * component(m, j);
  }
  const double trace = c[0][0] + c[1][1] + c[2][2];
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) props.inertia[i][j] = (i == j ? trace : 0.0) - c[i][j];
  }
  double axes[3][3];
  symmetric_eigen(props.inertia, props.principal_moments, axes);
  props.principal_to_mesh = quat_from_matrix(axes);
  return props;
}

bool orient_outward(TriangleSoup* mesh, const std::string& name, std::string* note) {
  const MassProperties props = compute_mass_properties(*mesh);
  if (!(props.volume < 0.0)) return false;
  for (std::array<uint32_t, 3>& t : mesh->triangles) std::swap(t[1], t[2]);
  if (note) {
    char text[64];
    std::snprintf(text, sizeof text, "%.4g", props.volume);
    *note = name + ": its triangles face inward (volume " + text + " m^3); turned outward";
  }
  return true;
}

Quat to_principal_frame(TriangleSoup* mesh, const MassProperties& props) {
  const Quat q = props.principal_to_mesh;
  for (Vec3& v : mesh->vertices) v = rotate_inverse(q, v - props.centroid);
  return q;
}

void symmetric_eigen(const Mat3& m, double values[3], Mat3& vectors) {
  double a[3][3], v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double norm = 0.0;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      a[i][j] = 0.5 * (m[i][j] + m[j][i]);
      norm += a[i][j] * a[i][j];
    }
  }
  for (int sweep = 0; sweep < 50; ++sweep) {
    const double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    if (off <= 1e-30 * norm) break;  // (1e-15 of the norm, squared)
    for (int p = 0; p < 2; ++p) {
      for (int q = p + 1; q < 3; ++q) {
        if (a[p][q] == 0.0) continue;
        // The rotation J in the (p, q) plane (J_pp = J_qq = c, J_pq = s, J_qp = -s) with
        // (J^T A J)_pq = (c^2 - s^2) a_pq + c s (a_pp - a_qq) = 0: t = s / c solves
        // t^2 + 2 theta t - 1 = 0, theta = (a_qq - a_pp) / (2 a_pq); the smaller root.
        const double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
        const double t =
            (theta >= 0.0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        double j[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        j[p][p] = c;
        j[q][q] = c;
        j[p][q] = s;
        j[q][p] = -s;
        double aj[3][3] = {}, next[3][3] = {}, vj[3][3] = {};
        for (int r = 0; r < 3; ++r) {
          for (int k = 0; k < 3; ++k) {
            for (int l = 0; l < 3; ++l) {
              aj[r][k] += a[r][l] * j[l][k];
              vj[r][k] += v[r][l] * j[l][k];
            }
          }
        }
        for (int r = 0; r < 3; ++r) {
          for (int k = 0; k < 3; ++k) {
            for (int l = 0; l < 3; ++l) next[r][k] += j[l][r] * aj[l][k];
          }
        }
        for (int r = 0; r < 3; ++r) {
          for (int k = 0; k < 3; ++k) {
            a[r][k] = next[r][k];
            v[r][k] = vj[r][k];
          }
        }
        a[p][q] = a[q][p] = 0.0;
      }
    }
  }
  // Ascending, the vectors following their values; then a right-handed frame.
  int order[3] = {0, 1, 2};
  std::sort(order, order + 3, [&](int x, int y) { return a[x][x] < a[y][y]; });
  for (int k = 0; k < 3; ++k) {
    values[k] = a[order[k]][order[k]];
    for (int r = 0; r < 3; ++r) vectors[r][k] = v[r][order[k]];
  }
  const double det =
      vectors[0][0] * (vectors[1][1] * vectors[2][2] - vectors[1][2] * vectors[2][1]) -
      vectors[0][1] * (vectors[1][0] * vectors[2][2] - vectors[1][2] * vectors[2][0]) +
      vectors[0][2] * (vectors[1][0] * vectors[2][1] - vectors[1][1] * vectors[2][0]);
  if (det < 0.0) {
    for (int r = 0; r < 3; ++r) vectors[r][2] = -vectors[r][2];
  }
}

// Shepperd's method: the largest of 4w^2, 4x^2, 4y^2, 4z^2 (from the trace and the diagonal)
// gives one component by a square root, the off-diagonal sums and differences the others.
Quat quat_from_matrix(const Mat3& r) {
  const double trace = r[0][0] + r[1][1] + r[2][2];
  double w, x, y, z;
  if (trace >= r[0][0] && trace >= r[1][1] && trace >= r[2][2]) {
    const double s = 2.0 * std::sqrt(std::max(0.0, 1.0 + trace));  // 4w
    w = 0.25 * s;
    x = (r[2][1] - r[1][2]) / s;
    y = (r[0][2] - r[2][0]) / s;
    z = (r[1][0] - r[0][1]) / s;
  } else if (r[0][0] >= r[1][1] && r[0][0] >= r[2][2]) {
    const double s = 2.0 * std::sqrt(std::max(0.0, 1.0 + r[0][0] - r[1][1] - r[2][2]));  // 4x
    w = (r[2][1] - r[1][2]) / s;
    x = 0.25 * s;
    y = (r[0][1] + r[1][0]) / s;
    z = (r[0][2] + r[2][0]) / s;
  } else if (r[1][1] >= r[2][2]) {
    const double s = 2.0 * std::sqrt(std::max(0.0, 1.0 + r[1][1] - r[0][0] - r[2][2]));  // 4y
    w = (r[0][2] - r[2][0]) / s;
    x = (r[0][1] + r[1][0]) / s;
    y = 0.25 * s;
    z = (r[1][2] + r[2][1]) / s;
  } else {
    const double s = 2.0 * std::sqrt(std::max(0.0, 1.0 + r[2][2] - r[0][0] - r[1][1]));  // 4z
    w = (r[1][0] - r[0][1]) / s;
    x = (r[0][2] + r[2][0]) / s;
    y = (r[1][2] + r[2][1]) / s;
    z = 0.25 * s;
  }
  return quat_normalized(Quat{float(w), float(x), float(y), float(z)});
}

}  // namespace tp
