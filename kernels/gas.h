// A gas (smoke, ink) on a staggered (MAC) grid: the per-cell and per-face physics of
// src/sim/gas/, written once for the CPU and CUDA backends. The pressure's Poisson equation
// and its multigrid are in gas_pressure.h, what is drawn of the cells in gas_shade.h.
//
// Layout. Cells (i, j, k), i < n.x, ..., index i + n.x (j + n.y k), centred at
// lo + (i + 1/2, j + 1/2, k + 1/2) dx, carry the scalars (density, temperature, dye colour:
// planar channels). Velocity components live on the faces normal to them: u on the x-faces
// (n.x + 1) x n.y x n.z at lo + (i, j + 1/2, k + 1/2) dx, v on the y-faces, w on the
// z-faces. 2D is the same grid with n.z = 1: its two z-faces are walls, so w = 0 and
// nothing varies along z (no copy of the code for the plane).
//
// Faces. A face is fixed when it lies on a wall side of the box or touches a solid cell
// (an obstacle): its velocity is the wall's (0 across it) or the solid's. The other faces
// are free: advection, forces and the projection change them. A side of the box may be
// open (outflow): its faces are free and the pressure beyond it is 0.
#pragma once

#include "common.h"
#include "obstacle.h"

namespace tp {

enum GasChannel : int {
  kGasDensity = 0,      ///< smoke or ink [1]
  kGasTemperature = 1,  ///< above the ambient [K]
  kGasRed = 2,          ///< dye colour, carried like the density
  kGasGreen = 3,
  kGasBlue = 4,
  kGasChannels = 5,
};

// Sides of the box: 0 -x, 1 +x, 2 -y (floor), 3 +y (top), 4 -z, 5 +z.
struct GasGrid {
  Int3 n{1, 1, 1};  ///< cells
  float dx = 1.0f;  ///< [m]
  Vec3 lo{0, 0, 0};  ///< [m] the box's lower corner
  unsigned open = 0;  ///< bit s set: side s is open (outflow), else a wall

  TP_HD TP_INLINE uint cells() const { return uint(n.x) * uint(n.y) * uint(n.z); }
  TP_HD TP_INLINE uint cell(int i, int j, int k) const { return uint(i + n.x * (j + n.y * k)); }
  TP_HD TP_INLINE Int3 cell_of(uint c) const {
    return Int3{int(c % uint(n.x)), int((c / uint(n.x)) % uint(n.y)), int(c / (uint(n.x) * uint(n.y)))};
  }
  TP_HD TP_INLINE Int3 face_dims(int axis) const {
    return Int3{n.x + (axis == 0), n.y + (axis == 1), n.z + (axis == 2)};
  }
  TP_HD TP_INLINE uint faces(int axis) const {
    const Int3 d = face_dims(axis);
    return uint(d.x) * uint(d.y) * uint(d.z);
  }
  TP_HD TP_INLINE uint face(int axis, int i, int j, int k) const {
    const Int3 d = face_dims(axis);
    return uint(i + d.x * (j + d.y * k));
  }
  TP_HD TP_INLINE Int3 face_of(int axis, uint f) const {
    const Int3 d = face_dims(axis);
    return Int3{int(f % uint(d.x)), int((f / uint(d.x)) % uint(d.y)), int(f / (uint(d.x) * uint(d.y)))};
  }
  TP_HD TP_INLINE bool side_open(int side) const { return (open >> side) & 1u; }
};

TP_HD TP_INLINE int gas_get(Int3 v, int axis) { return axis == 0 ? v.x : axis == 1 ? v.y : v.z; }
TP_HD TP_INLINE float gas_get(Vec3 v, int axis) { return axis == 0 ? v.x : axis == 1 ? v.y : v.z; }
TP_HD TP_INLINE Int3 gas_step(Int3 v, int axis, int by) {
  return Int3{v.x + (axis == 0) * by, v.y + (axis == 1) * by, v.z + (axis == 2) * by};
}
TP_HD TP_INLINE bool gas_inside(const GasGrid& g, Int3 c) {
  return c.x >= 0 && c.y >= 0 && c.z >= 0 && c.x < g.n.x && c.y < g.n.y && c.z < g.n.z;
}

// The walls' velocities: tangential motion of a side (the lid of a driven cavity), and
// whether the walls hold the gas's tangential velocity (no-slip) in the viscosity.
struct GasWalls {
  Vec3 velocity[6] = {};  ///< [m/s] each side's own motion (only its tangential part counts)
  int no_slip = 0;
};

// Face `f` of `axis` (at face-index f3): fixed or free, and a fixed face's velocity.
// `solid` is 1 for obstacle cells, `solid_velocity` their velocity (w unused).
TP_HD TP_INLINE bool gas_face_fixed(const GasGrid& g, const unsigned char* solid,
                                    const Vec4* solid_velocity, int axis, Int3 f3, float* value) {
  const int a = gas_get(f3, axis);
  const Int3 below = gas_step(f3, axis, -1);
  if (a == 0 || a == gas_get(g.n, axis)) {
    const int side = 2 * axis + (a == 0 ? 0 : 1);
    const Int3 in = a == 0 ? f3 : below;
    if (!g.side_open(side)) {
      *value = 0.0f;
      return true;
    }
    if (solid[g.cell(in.x, in.y, in.z)]) {
      const Vec4 s = solid_velocity[g.cell(in.x, in.y, in.z)];
      *value = axis == 0 ? s.x : axis == 1 ? s.y : s.z;
      return true;
    }
    return false;
  }
  const uint ca = g.cell(below.x, below.y, below.z), cb = g.cell(f3.x, f3.y, f3.z);
  const bool sa = solid[ca] != 0, sb = solid[cb] != 0;
  if (!sa && !sb) return false;
  float v = 0.0f;
  int count = 0;
  if (sa) v += axis == 0 ? solid_velocity[ca].x : axis == 1 ? solid_velocity[ca].y : solid_velocity[ca].z, ++count;
  if (sb) v += axis == 0 ? solid_velocity[cb].x : axis == 1 ? solid_velocity[cb].y : solid_velocity[cb].z, ++count;
  *value = v / float(count);
  return true;
}

// ---------------------------------------------------------------------------------------
// Sampling

// Trilinear interpolation of a field of dims d at continuous index position p (node k at
// p = k), clamped to the field's nodes. With `lo_hi`, also the least and greatest of the
// nodes used (the MacCormack clamp).
TP_HD TP_INLINE float gas_sample(const float* f, Int3 d, Vec3 p, float* lo = nullptr, float* hi = nullptr) {
  const float px = minf(maxf(p.x, 0.0f), float(d.x - 1));
  const float py = minf(maxf(p.y, 0.0f), float(d.y - 1));
  const float pz = minf(maxf(p.z, 0.0f), float(d.z - 1));
  const int i0 = int(px) < d.x - 1 ? int(px) : (d.x > 1 ? d.x - 2 : 0);
  const int j0 = int(py) < d.y - 1 ? int(py) : (d.y > 1 ? d.y - 2 : 0);
  const int k0 = int(pz) < d.z - 1 ? int(pz) : (d.z > 1 ? d.z - 2 : 0);
  const int i1 = d.x > 1 ? i0 + 1 : i0, j1 = d.y > 1 ? j0 + 1 : j0, k1 = d.z > 1 ? k0 + 1 : k0;
  const float tx = px - float(i0), ty = py - float(j0), tz = pz - float(k0);
  const int sy = d.x, sz = d.x * d.y;
  if (d.z == 1) {  // the plane: four nodes
    const float c00 = f[i0 + sy * j0], c10 = f[i1 + sy * j0], c01 = f[i0 + sy * j1], c11 = f[i1 + sy * j1];
    if (lo) {
      *lo = minf(minf(c00, c10), minf(c01, c11));
      *hi = maxf(maxf(c00, c10), maxf(c01, c11));
    }
    const float x0 = c00 + (c10 - c00) * tx, x1 = c01 + (c11 - c01) * tx;
    return x0 + (x1 - x0) * ty;
  }
  const float c000 = f[i0 + sy * j0 + sz * k0], c100 = f[i1 + sy * j0 + sz * k0];
  const float c010 = f[i0 + sy * j1 + sz * k0], c110 = f[i1 + sy * j1 + sz * k0];
  const float c001 = f[i0 + sy * j0 + sz * k1], c101 = f[i1 + sy * j0 + sz * k1];
  const float c011 = f[i0 + sy * j1 + sz * k1], c111 = f[i1 + sy * j1 + sz * k1];
  if (lo) {
    *lo = minf(minf(minf(c000, c100), minf(c010, c110)), minf(minf(c001, c101), minf(c011, c111)));
    *hi = maxf(maxf(maxf(c000, c100), maxf(c010, c110)), maxf(maxf(c001, c101), maxf(c011, c111)));
  }
  const float x00 = c000 + (c100 - c000) * tx, x10 = c010 + (c110 - c010) * tx;
  const float x01 = c001 + (c101 - c001) * tx, x11 = c011 + (c111 - c011) * tx;
  const float y0 = x00 + (x10 - x00) * ty, y1 = x01 + (x11 - x01) * ty;
  return y0 + (y1 - y0) * tz;
}

// The offset of a field's node 0 from the box's corner, in cells: cells (1/2, 1/2, 1/2),
// the faces of `axis` 0 along it.
TP_HD TP_INLINE Vec3 gas_offset(int axis) {
  return Vec3{axis == 0 ? 0.0f : 0.5f, axis == 1 ? 0.0f : 0.5f, axis == 2 ? 0.0f : 0.5f};
}
constexpr int kGasCells = 3;  ///< the "axis" of the cell-centred fields

// Position [m] of node `k3` of a field (a face axis, or kGasCells).
TP_HD TP_INLINE Vec3 gas_node_position(const GasGrid& g, int axis, Int3 k3) {
  const Vec3 o = gas_offset(axis);
  return g.lo + Vec3{(float(k3.x) + o.x) * g.dx, (float(k3.y) + o.y) * g.dx, (float(k3.z) + o.z) * g.dx};
}

struct GasVelocity {
  const float* c[3];  ///< u, v, w on their faces
};

TP_HD TP_INLINE Vec3 gas_velocity_at(const GasGrid& g, const GasVelocity& u, Vec3 x) {
  const Vec3 p = (x - g.lo) * (1.0f / g.dx);
  Vec3 r;
  r.x = gas_sample(u.c[0], g.face_dims(0), p - gas_offset(0));
  r.y = gas_sample(u.c[1], g.face_dims(1), p - gas_offset(1));
  r.z = g.n.z > 1 ? gas_sample(u.c[2], g.face_dims(2), p - gas_offset(2)) : 0.0f;
  return r;
}

// The velocity at cell c's centre (the mean of its two faces along each axis).
TP_HD TP_INLINE Vec3 gas_cell_velocity(const GasGrid& g, const GasVelocity& u, Int3 c) {
  return Vec3{0.5f * (u.c[0][g.face(0, c.x, c.y, c.z)] + u.c[0][g.face(0, c.x + 1, c.y, c.z)]),
              0.5f * (u.c[1][g.face(1, c.x, c.y, c.z)] + u.c[1][g.face(1, c.x, c.y + 1, c.z)]),
              0.5f * (u.c[2][g.face(2, c.x, c.y, c.z)] + u.c[2][g.face(2, c.x, c.y, c.z + 1)])};
}

// The same as one Vec4 (w 0), and 0 in a solid cell: what the vorticity is taken from.
TP_HD TP_INLINE Vec4 gas_fluid_cell_velocity(const GasGrid& g, const unsigned char* solid, const GasVelocity& u,
                                             uint c) {
  return solid[c] ? Vec4{0, 0, 0, 0} : make_vec4(gas_cell_velocity(g, u, g.cell_of(c)), 0.0f);
}

// The velocity at node k3 of a field (a face axis, or kGasCells) without interpolating
// across cells: a face's own component as it is and the others the mean of the four faces
// of the two cells it separates (of the one inside, at the box's edge); a cell's centre
// the mean of its two faces along each axis. The first stage of a trace from a node.
TP_HD TP_INLINE Vec3 gas_node_velocity(const GasGrid& g, const GasVelocity& u, int axis, Int3 k3) {
  if (axis == kGasCells) return gas_cell_velocity(g, u, k3);
  float v[3];
  for (int b = 0; b < 3; ++b) {
    if (b == axis) {
      v[b] = u.c[axis][g.face(axis, k3.x, k3.y, k3.z)];
      continue;
    }
    if (b == 2 && g.n.z == 1) {
      v[b] = 0.0f;
      continue;
    }
    float sum = 0.0f, count = 0.0f;
    for (int side = -1; side <= 0; ++side) {
      const Int3 c = gas_step(k3, axis, side);  // the cells below and above the face
      if (!gas_inside(g, c)) continue;
      const Int3 c1 = gas_step(c, b, 1);
      sum += u.c[b][g.face(b, c.x, c.y, c.z)] + u.c[b][g.face(b, c1.x, c1.y, c1.z)];
      count += 2.0f;
    }
    v[b] = count > 0.0f ? sum / count : 0.0f;
  }
  return Vec3{v[0], v[1], v[2]};
}

// Where the gas at node k3 (at x) was dt ago: second-order Runge-Kutta, the first
// stage's velocity read at the node itself.
TP_HD TP_INLINE Vec3 gas_trace_node(const GasGrid& g, const GasVelocity& u, int axis, Int3 k3, Vec3 x, float dt) {
  const Vec3 mid = x - gas_node_velocity(g, u, axis, k3) * (0.5f * dt);
  return x - gas_velocity_at(g, u, mid) * dt;
}

// The continuous index of position x in a field of `axis`.
TP_HD TP_INLINE Vec3 gas_index_of(const GasGrid& g, int axis, Vec3 x) {
  return (x - g.lo) * (1.0f / g.dx) - gas_offset(axis);
}

// ---------------------------------------------------------------------------------------
// Advection: a field of `axis` (a face axis, or kGasCells) with dims d, `channels` planar
// copies of it (the five scalars share one trace)

// Node e of a field of dims d as its index triple.
TP_HD TP_INLINE Int3 gas_node_of(Int3 d, uint e) {
  return Int3{int(e % uint(d.x)), int((e / uint(d.x)) % uint(d.y)), int(e / (uint(d.x) * uint(d.y)))};
}

// Semi-Lagrangian advection (Stam 1999) of node e: trace it back along u for dt
// (gas_trace_node), keep where it came from in `trace` (as an index position) and sample
// every channel of `src` there into `dst`.
TP_HD TP_INLINE void gas_advect_node(const GasGrid& g, const GasVelocity& u, int axis, Int3 d, int channels,
                                     float dt, const float* src, uint e, Vec4* trace, float* dst) {
  const uint count = uint(d.x) * uint(d.y) * uint(d.z);
  const Int3 k3 = gas_node_of(d, e);
  const Vec3 x = gas_node_position(g, axis, k3);
  const Vec3 back = gas_index_of(g, axis, gas_trace_node(g, u, axis, k3, x, dt));
  trace[e] = make_vec4(back, 0.0f);
  for (int ch = 0; ch < channels; ++ch) dst[size_t(ch) * count + e] = gas_sample(src + size_t(ch) * count, d, back);
}

// MacCormack's correction (Selle et al. 2008, with their clamp) of node e after
// gas_advect_node put `first`: back along the flow from where the first sample landed, then
// half the round trip's error added back, kept within the nodes the first sample read (else
// the first sample as it is), into `dst`.
TP_HD TP_INLINE void gas_maccormack_node(Int3 d, int channels, const Vec4* trace, const float* src,
                                         const float* first, uint e, float* dst) {
  const uint count = uint(d.x) * uint(d.y) * uint(d.z);
  const Int3 k3 = gas_node_of(d, e);
  // Where the node's gas goes in dt: the backtrace reflected through the node (the same to
  // second order as a forward trace, for half the samples).
  const Vec3 back = xyz(trace[e]);
  const Vec3 ahead{2.0f * float(k3.x) - back.x, 2.0f * float(k3.y) - back.y, 2.0f * float(k3.z) - back.z};
  for (int ch = 0; ch < channels; ++ch) {
    const float* s = src + size_t(ch) * count;
    const float* f = first + size_t(ch) * count;
    const float round_trip = gas_sample(f, d, ahead);
    float lo, hi;
    gas_sample(s, d, back, &lo, &hi);
    const float corrected = f[e] + 0.5f * (s[e] - round_trip);
    dst[size_t(ch) * count + e] = corrected >= lo && corrected <= hi ? corrected : f[e];
  }
}

// ---------------------------------------------------------------------------------------
// Forces

// The curl of the cell-centred velocities `cv` at cell c (central differences, one-sided
// at the box's edge and next to solids; none along z in the plane).
TP_HD TP_INLINE Vec3 gas_vorticity(const GasGrid& g, const unsigned char* solid, const Vec4* cv, Int3 c) {
  Vec3 d[3];  // d[axis] = d(velocity)/d(axis)
  for (int axis = 0; axis < 3; ++axis) {
    Int3 a = gas_step(c, axis, -1), b = gas_step(c, axis, 1);
    if (!gas_inside(g, a) || solid[g.cell(a.x, a.y, a.z)]) a = c;
    if (!gas_inside(g, b) || solid[g.cell(b.x, b.y, b.z)]) b = c;
    const int span = gas_get(b, axis) - gas_get(a, axis);
    if (span == 0) {
      d[axis] = Vec3{0, 0, 0};
      continue;
    }
    d[axis] = (xyz(cv[g.cell(b.x, b.y, b.z)]) - xyz(cv[g.cell(a.x, a.y, a.z)])) * (1.0f / (float(span) * g.dx));
  }
  return Vec3{d[1].z - d[2].y, d[2].x - d[0].z, d[0].y - d[1].x};
}

// Vorticity confinement (Fedkiw, Stam & Jensen 2001, Eq. 9-11): f = eps dx (N x omega),
// N = grad|omega| / |grad|omega||, at cell c from the cells' vorticity `om` (w = |omega|).
TP_HD TP_INLINE Vec3 gas_confinement(const GasGrid& g, const unsigned char* solid, const Vec4* om, Int3 c,
                                     float epsilon) {
  float grad[3];
  for (int axis = 0; axis < 3; ++axis) {
    Int3 a = gas_step(c, axis, -1), b = gas_step(c, axis, 1);
    if (!gas_inside(g, a) || solid[g.cell(a.x, a.y, a.z)]) a = c;
    if (!gas_inside(g, b) || solid[g.cell(b.x, b.y, b.z)]) b = c;
    const int span = gas_get(b, axis) - gas_get(a, axis);
    grad[axis] = span == 0 ? 0.0f : (om[g.cell(b.x, b.y, b.z)].w - om[g.cell(a.x, a.y, a.z)].w) / (float(span) * g.dx);
  }
  const float len = sqrtf(grad[0] * grad[0] + grad[1] * grad[1] + grad[2] * grad[2]);
  if (!(len > 1e-12f)) return Vec3{0, 0, 0};
  const Vec3 N{grad[0] / len, grad[1] / len, grad[2] / len};
  const Vec3 w = xyz(om[g.cell(c.x, c.y, c.z)]);
  return Vec3{N.y * w.z - N.z * w.y, N.z * w.x - N.x * w.z, N.x * w.y - N.y * w.x} * (epsilon * g.dx);
}

// Buoyancy (Fedkiw, Stam & Jensen 2001, Eq. 8): f = (lift T - weight rho) up, T the
// temperature above the ambient. Free y-face f gains dt f, T and rho the mean of its cells.
TP_HD TP_INLINE void gas_buoyancy_face(const GasGrid& g, const unsigned char* fixed, const float* rho,
                                       const float* temperature, float lift, float weight, float dt, uint f, float* v) {
  if (fixed[f]) return;
  const Int3 f3 = g.face_of(1, f);
  const Int3 below = gas_step(f3, 1, -1);
  float r = 0.0f, t = 0.0f, k = 0.0f;
  if (gas_inside(g, below)) {
    const uint c = g.cell(below.x, below.y, below.z);
    r += rho[c], t += temperature[c], k += 1.0f;
  }
  if (gas_inside(g, f3)) {
    const uint c = g.cell(f3.x, f3.y, f3.z);
    r += rho[c], t += temperature[c], k += 1.0f;
  }
  if (k > 0.0f) v[f] += dt * (lift * t - weight * r) / k;
}

// A force given per cell (`force`, w unused) on free face f of `axis`: dt x the mean of the
// two cells' (the one inside, at the box's edge). How the confinement reaches the faces.
TP_HD TP_INLINE void gas_add_cell_force_face(const GasGrid& g, const unsigned char* fixed, const Vec4* force,
                                             int axis, float dt, uint f, float* ua) {
  if (fixed[f]) return;
  const Int3 f3 = g.face_of(axis, f);
  const Int3 below = gas_step(f3, axis, -1);
  float sum = 0.0f, k = 0.0f;
  if (gas_inside(g, below)) sum += gas_get(xyz(force[g.cell(below.x, below.y, below.z)]), axis), k += 1.0f;
  if (gas_inside(g, f3)) sum += gas_get(xyz(force[g.cell(f3.x, f3.y, f3.z)]), axis), k += 1.0f;
  ua[f] += dt * sum / k;
}

// One Jacobi sweep of implicit viscosity (Stam 1999's diffusion: (1 - nu dt Laplacian) u' =
// u, alpha = nu dt / dx^2) at face f of `axis`: next = (old + alpha (sum of the neighbours in
// cur)) / (1 + alpha k), over the faces of the same axis beside it. Beyond a wall side the
// no-slip walls give the ghost face 2 u_wall - u (the wall's own tangential motion, the
// cavity's lid); free-slip walls and open sides give nothing. A fixed face keeps cur.
TP_HD TP_INLINE void gas_viscosity_face(const GasGrid& g, const GasWalls& walls, const unsigned char* fixed,
                                        int axis, float alpha, const float* old, const float* cur, uint f,
                                        float* next) {
  if (fixed[f]) {
    next[f] = cur[f];
    return;
  }
  const Int3 d = g.face_dims(axis);
  const Int3 f3 = g.face_of(axis, f);
  float sum = 0.0f, k = 0.0f;
  for (int b = 0; b < 3; ++b) {
    if (b == 2 && g.n.z == 1) continue;
    for (int s = -1; s <= 1; s += 2) {
      const Int3 nb = gas_step(f3, b, s);
      const int at = gas_get(nb, b);
      if (at < 0 || at >= gas_get(d, b)) {  // beyond a side, across the tangent
        const int side = 2 * b + (s > 0);
        if (!g.side_open(side) && walls.no_slip) {  // ghost 2 u_wall - u
          sum += 2.0f * gas_get(walls.velocity[side], axis);
          k += 2.0f;
        }
        continue;
      }
      sum += cur[g.face(axis, nb.x, nb.y, nb.z)];
      k += 1.0f;
    }
  }
  next[f] = (old[f] + alpha * sum) / (1.0f + alpha * k);
}

// Smoke, dye and heat fade over a step: cell c's density and dye times kd = exp(-k_rho dt),
// its temperature times kt = exp(-k_T dt) (`n` cells per channel).
TP_HD TP_INLINE void gas_decay_cell(uint n, float kd, float kt, uint c, float* scalars) {
  scalars[size_t(kGasDensity) * n + c] *= kd;
  scalars[size_t(kGasRed) * n + c] *= kd;
  scalars[size_t(kGasGreen) * n + c] *= kd;
  scalars[size_t(kGasBlue) * n + c] *= kd;
  scalars[size_t(kGasTemperature) * n + c] *= kt;
}

// A source: smoke, heat and dye added inside a sphere, and the gas there pulled toward a
// velocity (the plume's nozzle, the mouse). Smoothly weighted: 1 at the centre, 0 at r.
struct GasSource {
  Vec3 center{0, 0, 0};  ///< [m]
  float radius = 0.0f;   ///< [m]
  float density = 0.0f;      ///< [1/s] smoke added per second at the centre
  float temperature = 0.0f;  ///< [K/s]
  Vec3 color{1, 1, 1};      ///< the dye the added smoke carries
  Vec3 velocity{0, 0, 0};    ///< [m/s] the gas in the sphere is pulled toward it
  float pull = 0.0f;         ///< [1/s] how fast (0: no velocity; large: set at once)
};

TP_HD TP_INLINE float gas_source_weight(const GasSource& s, Vec3 x) {
  if (!(s.radius > 0.0f)) return 0.0f;
  const Vec3 d = x - s.center;
  const float q2 = dot(d, d) / (s.radius * s.radius);
  if (q2 >= 1.0f) return 0.0f;
  const float t = 1.0f - q2;
  return t * t;
}

// The `count` sources' smoke, heat and dye added to fluid cell c over dt (`n` cells per
// channel). In the plane a source is its section through the plane's centre, as an
// obstacle is.
TP_HD TP_INLINE void gas_add_sources_cell(const GasGrid& g, const unsigned char* solid, const GasSource* src,
                                          int count, float dt, uint c, float* s) {
  if (solid[c]) return;
  const uint n = g.cells();
  const bool plane = g.n.z == 1;
  Vec3 x = gas_node_position(g, kGasCells, g.cell_of(c));
  for (int k = 0; k < count; ++k) {
    if (plane) x.z = src[k].center.z;
    const float w = gas_source_weight(src[k], x);
    if (w <= 0.0f) continue;
    const float added = dt * src[k].density * w;
    s[size_t(kGasDensity) * n + c] += added;
    s[size_t(kGasTemperature) * n + c] += dt * src[k].temperature * w;
    s[size_t(kGasRed) * n + c] += added * src[k].color.x;
    s[size_t(kGasGreen) * n + c] += added * src[k].color.y;
    s[size_t(kGasBlue) * n + c] += added * src[k].color.z;
  }
}

// Free face f of `axis` pulled toward each source's velocity over dt: by the share
// (1 - exp(-pull dt)) w of the difference, w the source's weight at the face.
TP_HD TP_INLINE void gas_source_pull_face(const GasGrid& g, const unsigned char* fixed, const GasSource* src,
                                          int count, int axis, float dt, uint f, float* ua) {
  if (fixed[f]) return;
  const bool plane = g.n.z == 1;
  Vec3 x = gas_node_position(g, axis, g.face_of(axis, f));
  for (int k = 0; k < count; ++k) {
    if (!(src[k].pull > 0.0f)) continue;
    if (plane) x.z = src[k].center.z;
    const float w = gas_source_weight(src[k], x);
    if (w <= 0.0f) continue;
    const float blend = (1.0f - expf(-src[k].pull * dt)) * w;
    ua[f] += blend * (gas_get(src[k].velocity, axis) - ua[f]);
  }
}

// ---------------------------------------------------------------------------------------
// Obstacles

// Whether cell c is solid: its centre inside one of the `count` obstacles (in the plane,
// inside their sections through the plane's centre). A solid cell takes the velocity of the
// last obstacle holding it and loses its smoke, heat and dye (`n` cells per channel).
TP_HD TP_INLINE void gas_solid_cell(const GasGrid& g, const ObstacleShape* obstacles, int count, uint c,
                                    unsigned char* solid, Vec4* solid_velocity, float* scalars) {
  const uint n = g.cells();
  const bool plane = g.n.z == 1;
  Vec3 x = gas_node_position(g, kGasCells, g.cell_of(c));
  unsigned char inside = 0;
  Vec3 v{0, 0, 0};
  for (int k = 0; k < count; ++k) {
    if (plane) x.z = obstacles[k].center.z;
    if (obstacle_distance(obstacles[k], x) < 0.0f) inside = 1, v = obstacles[k].velocity;
  }
  solid[c] = inside;
  solid_velocity[c] = make_vec4(v, 0.0f);
  if (inside)
    for (int ch = 0; ch < kGasChannels; ++ch) scalars[size_t(ch) * n + c] = 0.0f;
}

}  // namespace tp
