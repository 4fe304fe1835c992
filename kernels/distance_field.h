// A body's signed distance field as kernels read it: values at the nodes of a regular grid in
// the body's own frame (negative inside the solid), sampled by trilinear interpolation.
// Built on the host by src/sim/bodies/distance_field.h; plain TP_HD code, no STL.
#pragma once

#include "common.h"

namespace tp {

// The grid: dims.x * dims.y * dims.z node values, x fastest (value[(z * dims.y + y) * dims.x + x]),
// node (i, j, k) at origin + cell * (i, j, k). Every dimension is at least 2.
struct DistanceFieldView {
  const float* value;  ///< [m] signed distance at each node, negative inside
  Int3 dims;           ///< nodes along x, y, z
  Vec3 origin;         ///< [m] node (0, 0, 0) in the body's frame
  float cell;          ///< [m] the spacing of the nodes
};

TP_HD TP_INLINE float sdf_node(const DistanceFieldView& f, int i, int j, int k) {
  return f.value[(k * f.dims.y + j) * f.dims.x + i];
}

// The cell that holds the grid coordinate u (clamped into the grid) and u's place in it [0, 1].
TP_HD TP_INLINE void sdf_cell(float u, int nodes, int* base, float* t) {
  const float c = clampf(u, 0.0f, float(nodes - 1));
  const int b = mini(int(c), nodes - 2);
  *base = b;
  *t = c - float(b);
}

// The eight node values of the cell holding the local point p and p's coordinates in it.
struct SdfCorners {
  float v[8];  ///< v[dx + 2 dy + 4 dz]
  Vec3 t;      ///< [0, 1] in the cell
};
TP_HD TP_INLINE SdfCorners sdf_corners(const DistanceFieldView& f, Vec3 p) {
  const float inv = 1.0f / f.cell;
  int i, j, k;
  SdfCorners c;
  sdf_cell((p.x - f.origin.x) * inv, f.dims.x, &i, &c.t.x);
  sdf_cell((p.y - f.origin.y) * inv, f.dims.y, &j, &c.t.y);
  sdf_cell((p.z - f.origin.z) * inv, f.dims.z, &k, &c.t.z);
  for (int n = 0; n < 8; ++n) c.v[n] = sdf_node(f, i + (n & 1), j + ((n >> 1) & 1), k + (n >> 2));
  return c;
}

// The point of the grid's box nearest to p (p itself inside the box).
TP_HD TP_INLINE Vec3 sdf_clamp_to_box(const DistanceFieldView& f, Vec3 p) {
  return Vec3{clampf(p.x, f.origin.x, f.origin.x + f.cell * float(f.dims.x - 1)),
              clampf(p.y, f.origin.y, f.origin.y + f.cell * float(f.dims.y - 1)),
              clampf(p.z, f.origin.z, f.origin.z + f.cell * float(f.dims.z - 1))};
}

TP_HD TP_INLINE float sdf_lerp(float a, float b, float t) { return a + (b - a) * t; }

// The signed distance [m] at p (body frame): trilinear inside the grid; outside it, the value at
// the nearest point of the grid's box plus the distance to that box. The grid reaches a margin
// beyond the surface, so the box's values are positive and so is everything outside.
TP_HD TP_INLINE float sdf_sample(const DistanceFieldView& f, Vec3 p) {
  const Vec3 q = sdf_clamp_to_box(f, p);
  const SdfCorners c = sdf_corners(f, q);
  const float x00 = sdf_lerp(c.v[0], c.v[1], c.t.x), x10 = sdf_lerp(c.v[2], c.v[3], c.t.x);
  const float x01 = sdf_lerp(c.v[4], c.v[5], c.t.x), x11 = sdf_lerp(c.v[6], c.v[7], c.t.x);
  const float inside = sdf_lerp(sdf_lerp(x00, x10, c.t.y), sdf_lerp(x01, x11, c.t.y), c.t.z);
  return inside + length(p - q);
}

// The unit gradient of sdf_sample at p: the outward normal near the surface. The analytic
// gradient of the trilinear interpolant in p's cell; outside the grid, along the axes where p
// is beyond the box, the gradient of the distance to the box instead. Zero where both vanish.
TP_HD TP_INLINE Vec3 sdf_gradient(const DistanceFieldView& f, Vec3 p) {
  const Vec3 q = sdf_clamp_to_box(f, p);
  const SdfCorners c = sdf_corners(f, q);
  const Vec3 t = c.t;
  // d/dt_x of the trilinear form: the x differences, weighted over y and z; likewise y, z.
  const float dx00 = c.v[1] - c.v[0], dx10 = c.v[3] - c.v[2], dx01 = c.v[5] - c.v[4],
              dx11 = c.v[7] - c.v[6];
  const float gx = sdf_lerp(sdf_lerp(dx00, dx10, t.y), sdf_lerp(dx01, dx11, t.y), t.z);
  const float dy0 = sdf_lerp(c.v[2], c.v[3], t.x) - sdf_lerp(c.v[0], c.v[1], t.x);
  const float dy1 = sdf_lerp(c.v[6], c.v[7], t.x) - sdf_lerp(c.v[4], c.v[5], t.x);
  const float gy = sdf_lerp(dy0, dy1, t.z);
  const float z0 = sdf_lerp(sdf_lerp(c.v[0], c.v[1], t.x), sdf_lerp(c.v[2], c.v[3], t.x), t.y);
  const float z1 = sdf_lerp(sdf_lerp(c.v[4], c.v[5], t.x), sdf_lerp(c.v[6], c.v[7], t.x), t.y);
  const float gz = z1 - z0;
  Vec3 g{gx, gy, gz};  // per cell; the common factor 1 / cell goes with the normalisation
  const Vec3 out = p - q;
  const float d = length(out);
  if (d > 0.0f) {
    const float s = f.cell / d;  // the box's distance gradient, in the same per-cell units
    if (out.x != 0.0f) g.x = out.x * s;
    if (out.y != 0.0f) g.y = out.y * s;
    if (out.z != 0.0f) g.z = out.z * s;
  }
  const float n = length(g);
  return n > 0.0f ? g * (1.0f / n) : Vec3{0.0f, 0.0f, 0.0f};
}

}  // namespace tp
