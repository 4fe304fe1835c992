// A gas (smoke, ink) on a staggered (MAC) grid: the per-cell and per-face physics of
// src/sim/gas.h, written once for the CPU and CUDA backends.
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
//
// Projection. With b_c = -(sum of the outflow through cell c's faces) [m/s] and
// (A q)_c = sum over c's free faces of (q_c - q_neighbour) (q = 0 beyond an open side),
// solving A q = b and taking q's difference from every free face makes each fluid cell's
// outflow 0 (q = p dt / (rho dx)). A is the graph Laplacian of the fluid cells: symmetric,
// positive definite with an open side, semi-definite (constants) in a closed box.
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
// The pressure operator and its smoother (any level of the multigrid: a level is a GasGrid
// and its own solid mask and links)

// Cell c's links, computed once per change of the solids: bit s (0 -x, 1 +x, 2 -y, 3 +y,
// 4 -z, 5 +z) set when the neighbour that way is a fluid cell, and in bits 8-11 the
// diagonal (free faces: those links and the open sides); 0 for a solid cell. The
// operator and the smoother then need no bounds or solid tests.
TP_HD TP_INLINE unsigned short gas_links(const GasGrid& g, const unsigned char* solid, uint c) {
  if (solid[c]) return 0;
  const Int3 c3 = g.cell_of(c);
  unsigned bits = 0, diagonal = 0;
  for (int axis = 0; axis < 3; ++axis) {
    for (int s = 0; s < 2; ++s) {
      const Int3 nb = gas_step(c3, axis, s ? 1 : -1);
      if (!gas_inside(g, nb)) {
        diagonal += g.side_open(2 * axis + s) ? 1u : 0u;
        continue;
      }
      if (solid[g.cell(nb.x, nb.y, nb.z)]) continue;
      bits |= 1u << (2 * axis + s);
      ++diagonal;
    }
  }
  return (unsigned short)(bits | (diagonal << 8));
}

// Sum of the linked neighbours' q of cell c (strides 1, sy, sz).
TP_HD TP_INLINE float gas_linked_sum(unsigned links, const float* q, uint c, uint sy, uint sz) {
  float sum = 0.0f;
  if (links & 1u) sum += q[c - 1];
  if (links & 2u) sum += q[c + 1];
  if (links & 4u) sum += q[c - sy];
  if (links & 8u) sum += q[c + sy];
  if (links & 16u) sum += q[c - sz];
  if (links & 32u) sum += q[c + sz];
  return sum;
}

// (A q)_c from the links; 0 for a solid cell.
TP_HD TP_INLINE float gas_apply_linked(const unsigned short* links, const float* q, uint c, uint sy, uint sz) {
  const unsigned l = links[c];
  return float(l >> 8) * q[c] - gas_linked_sum(l, q, c, sy, sz);
}

// Gauss-Seidel over the cells of one colour ((i + j + k) & 1 == colour) in row r (j, k):
// their neighbours are of the other colour, so the rows and the cells in them may go in
// any order.
TP_HD TP_INLINE void gas_relax_row(const GasGrid& g, const unsigned short* links, const float* b, float* q, uint r,
                                   int colour) {
  const int j = int(r % uint(g.n.y)), k = int(r / uint(g.n.y));
  const uint sy = uint(g.n.x), sz = uint(g.n.x) * uint(g.n.y);
  const uint row = r * sy;
  for (int i = (colour ^ j ^ k) & 1; i < g.n.x; i += 2) {
    const uint c = row + uint(i);
    const unsigned l = links[c];
    const unsigned diagonal = l >> 8;
    q[c] = diagonal ? (b[c] + gas_linked_sum(l, q, c, sy, sz)) / float(diagonal) : 0.0f;
  }
}

// The divergence's right-hand side b_c = -(outflow of cell c) [m/s]; 0 for a solid cell.
TP_HD TP_INLINE float gas_outflow(const GasGrid& g, const GasVelocity& u, Int3 c) {
  const float du = u.c[0][g.face(0, c.x + 1, c.y, c.z)] - u.c[0][g.face(0, c.x, c.y, c.z)];
  const float dv = u.c[1][g.face(1, c.x, c.y + 1, c.z)] - u.c[1][g.face(1, c.x, c.y, c.z)];
  const float dw = u.c[2][g.face(2, c.x, c.y, c.z + 1)] - u.c[2][g.face(2, c.x, c.y, c.z)];
  return du + dv + dw;
}

// ---------------------------------------------------------------------------------------
// Multigrid transfers (cell-centred; McAdams, Sifakis & Teran 2010 use the same pair):
// prolongation P gives a fine cell 3/4 of its own coarse cell and 1/4 of the next one
// along each axis (trilinear; an index past the edge is clamped), restriction is P's
// transpose over 2 per coarsened axis, so that the V-cycle is symmetric (a CG
// preconditioner). A coarse cell is solid only when all its fine cells are.

// Along one axis: fine index f's two coarse cells and weights (nc coarse cells).
TP_HD TP_INLINE void gas_prolong_1d(int f, int nf, int nc, int* c0, int* c1, float* w0, float* w1) {
  if (nf == nc) {  // not coarsened (the plane's single layer)
    *c0 = *c1 = f, *w0 = 1.0f, *w1 = 0.0f;
    return;
  }
  *c0 = f / 2;
  const int other = (f & 1) ? *c0 + 1 : *c0 - 1;
  *c1 = other < 0 ? 0 : other >= nc ? nc - 1 : other;
  *w0 = 0.75f;
  *w1 = 0.25f;
}

// x_fine[c] += (P x_coarse)[c] for fluid fine cells.
TP_HD TP_INLINE void gas_prolong(const GasGrid& fine, const unsigned char* fine_solid, const GasGrid& coarse,
                                 const unsigned char* coarse_solid, const float* xc, float* xf, uint c) {
  if (fine_solid[c]) return;
  const Int3 f = fine.cell_of(c);
  int cx[2], cy[2], cz[2];
  float wx[2], wy[2], wz[2];
  gas_prolong_1d(f.x, fine.n.x, coarse.n.x, &cx[0], &cx[1], &wx[0], &wx[1]);
  gas_prolong_1d(f.y, fine.n.y, coarse.n.y, &cy[0], &cy[1], &wy[0], &wy[1]);
  gas_prolong_1d(f.z, fine.n.z, coarse.n.z, &cz[0], &cz[1], &wz[0], &wz[1]);
  float sum = 0.0f;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      for (int d = 0; d < 2; ++d) {
        const float w = wx[a] * wy[b] * wz[d];
        if (w == 0.0f) continue;
        const uint k = coarse.cell(cx[a], cy[b], cz[d]);
        if (!coarse_solid[k]) sum += w * xc[k];
      }
  xf[c] += sum;
}

// Along one axis: the weight with which fine index f feeds coarse index C (P's transpose).
TP_HD TP_INLINE float gas_restrict_weight_1d(int f, int C, int nf, int nc) {
  int c0, c1;
  float w0, w1;
  gas_prolong_1d(f, nf, nc, &c0, &c1, &w0, &w1);
  return (c0 == C ? w0 : 0.0f) + (c1 == C ? w1 : 0.0f);
}

// b_coarse[C] = scale * (P^T r_fine)[C] / 2^(coarsened axes); 0 for a solid coarse cell.
TP_HD TP_INLINE float gas_restrict(const GasGrid& fine, const unsigned char* fine_solid, const GasGrid& coarse,
                                   const unsigned char* coarse_solid, const float* rf, uint C, float scale) {
  if (coarse_solid[C]) return 0.0f;
  const Int3 c = coarse.cell_of(C);
  // Along each axis the (at most 4) fine indices feeding C and their weights.
  int first[3], count[3];
  float w[3][4];
  float norm = 1.0f;
  for (int axis = 0; axis < 3; ++axis) {
    const int nf = gas_get(fine.n, axis), nc = gas_get(coarse.n, axis), ci = gas_get(c, axis);
    if (nf == nc) {
      first[axis] = ci, count[axis] = 1, w[axis][0] = 1.0f;
      continue;
    }
    norm *= 0.5f;
    const int lo = 2 * ci - 1 < 0 ? 0 : 2 * ci - 1;
    const int hi = 2 * ci + 2 > nf - 1 ? nf - 1 : 2 * ci + 2;
    first[axis] = lo, count[axis] = hi - lo + 1;
    for (int f = lo; f <= hi; ++f) w[axis][f - lo] = gas_restrict_weight_1d(f, ci, nf, nc);
  }
  float sum = 0.0f;
  for (int z = 0; z < count[2]; ++z)
    for (int y = 0; y < count[1]; ++y) {
      const float wyz = w[1][y] * w[2][z];
      if (wyz == 0.0f) continue;
      const uint row = fine.cell(first[0], first[1] + y, first[2] + z);
      for (int x = 0; x < count[0]; ++x) {
        const uint k = row + uint(x);
        if (!fine_solid[k]) sum += w[0][x] * wyz * rf[k];
      }
    }
  return scale * norm * sum;
}

// Coarse cell C is solid when every fine cell under it is.
TP_HD TP_INLINE unsigned char gas_coarse_solid(const GasGrid& fine, const unsigned char* fine_solid,
                                               const GasGrid& coarse, uint C) {
  const Int3 c = coarse.cell_of(C);
  for (int z = 0; z < (fine.n.z == coarse.n.z ? 1 : 2); ++z)
    for (int y = 0; y < (fine.n.y == coarse.n.y ? 1 : 2); ++y)
      for (int x = 0; x < (fine.n.x == coarse.n.x ? 1 : 2); ++x) {
        const Int3 f{fine.n.x == coarse.n.x ? c.x : 2 * c.x + x, fine.n.y == coarse.n.y ? c.y : 2 * c.y + y,
                     fine.n.z == coarse.n.z ? c.z : 2 * c.z + z};
        if (gas_inside(fine, f) && !fine_solid[fine.cell(f.x, f.y, f.z)]) return 0;
      }
  return 1;
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

// A source: smoke, heat and dye added inside a sphere, and the gas there pulled toward a
// velocity (the plume's nozzle, the mouse). Smoothly weighted: 1 at the centre, 0 at r.
struct GasSource {
  Vec3 centre{0, 0, 0};  ///< [m]
  float radius = 0.0f;   ///< [m]
  float density = 0.0f;      ///< [1/s] smoke added per second at the centre
  float temperature = 0.0f;  ///< [K/s]
  Vec3 colour{1, 1, 1};      ///< the dye the added smoke carries
  Vec3 velocity{0, 0, 0};    ///< [m/s] the gas in the sphere is pulled toward it
  float pull = 0.0f;         ///< [1/s] how fast (0: no velocity; large: set at once)
};

TP_HD TP_INLINE float gas_source_weight(const GasSource& s, Vec3 x) {
  if (!(s.radius > 0.0f)) return 0.0f;
  const Vec3 d = x - s.centre;
  const float q2 = dot(d, d) / (s.radius * s.radius);
  if (q2 >= 1.0f) return 0.0f;
  const float t = 1.0f - q2;
  return t * t;
}

// ---------------------------------------------------------------------------------------
// Drawing: what the renderer's texture holds per cell (one Vec4), written on the backend

enum GasView : int {
  kGasViewSmoke = 0,      ///< the smoke or dye, lit by the sun and the sky
  kGasViewSpeed = 1,      ///< |u| on a sequential colour map
  kGasViewVorticity = 2,  ///< 3D: |omega|, sequential; 2D: omega_z, diverging (red +, blue -)
  kGasViews = 3,
};

// How the cells are lit and coloured for drawing. The sun's shadow: the optical depth from
// each cell toward the sun, layer by layer from the top (gas_sun_layer), with the same
// extinction as the renderer's ray-march so that what looks thick also casts a dark shadow.
struct GasShade {
  int view = kGasViewSmoke;  ///< GasView
  Vec3 sun{0.45f, 0.85f, 0.3f};  ///< toward the sun (need not be unit length; y > 0)
  float sun_light = 1.0f;   ///< the sun's strength on lit smoke
  float ambient = 0.35f;    ///< the sky's, unshadowed
  float extinction = 40.0f;  ///< [1/m per unit density] the renderer's (GasLook)
  float view_range = 1.0f;   ///< [m/s] or [1/s]: the top of the speed and vorticity maps
  // (the app's "auto": the largest speed, or that speed over four cells for vorticity)
};

// A perceptual sequential map (dark blue, teal, green, yellow) at t in [0, 1].
TP_HD TP_INLINE Vec3 gas_sequential(float t) {
  t = minf(maxf(t, 0.0f), 1.0f) * 4.0f;
  const Vec3 stops[5] = {{0.27f, 0.00f, 0.33f}, {0.23f, 0.32f, 0.55f}, {0.13f, 0.57f, 0.55f},
                         {0.37f, 0.79f, 0.38f}, {0.99f, 0.91f, 0.14f}};
  const int k = t >= 4.0f ? 3 : int(t);
  const float f = t - float(k);
  return stops[k] + (stops[k + 1] - stops[k]) * f;
}
// A diverging map: blue at -1, near-white at 0, red at +1.
TP_HD TP_INLINE Vec3 gas_diverging(float t) {
  t = minf(maxf(t, -1.0f), 1.0f);
  const Vec3 mid{0.93f, 0.93f, 0.93f};
  return t < 0.0f ? mid + (Vec3{0.23f, 0.30f, 0.75f} - mid) * (-t) : mid + (Vec3{0.71f, 0.02f, 0.15f} - mid) * t;
}

// The opacity a solid cell stands for in the sun's shadow (per unit of extinction): an
// obstacle shades the smoke below it as very dense smoke would.
constexpr float kGasSolidShadowDensity = 1000.0f;

// The sun's optical depth at the cells of layer j (the k-th column (i, k) of it): the
// optical depth one cell toward the sun (interpolated in layer j + 1, which the previous
// call filled) plus the path through the two half cells between. The top layer sees the
// sky. `tau` holds one float per cell.
TP_HD TP_INLINE void gas_sun_layer(const GasGrid& g, const unsigned char* solid, const float* rho,
                                   const GasShade& shade, int j, uint column, float* tau) {
  const int i = int(column % uint(g.n.x)), k = int(column / uint(g.n.x));
  const uint c = g.cell(i, j, k);
  const float sy = maxf(shade.sun.y, 1e-3f);
  const float path = g.dx * sqrtf(dot(shade.sun, shade.sun)) / sy;  // [m] per layer
  const float here = solid[c] ? kGasSolidShadowDensity : maxf(rho[c], 0.0f);
  if (j == g.n.y - 1) {
    tau[c] = 0.5f * path * shade.extinction * here;
    return;
  }
  // One layer up, the sun's ray is shade.sun.x / sy cells along x (and z in 3D).
  const Vec3 p{float(i) + shade.sun.x / sy, float(j + 1), g.n.z > 1 ? float(k) + shade.sun.z / sy : 0.0f};
  const bool inside = p.x >= -0.5f && p.x <= float(g.n.x) - 0.5f && p.z >= -0.5f && p.z <= float(g.n.z) - 0.5f;
  if (!inside) {  // the ray leaves through a side: lit from there
    tau[c] = 0.5f * path * shade.extinction * here;
    return;
  }
  // Layer j + 1's optical depth and density at p (bilinear in x, z).
  const float* up_tau = tau + size_t(g.n.x) * size_t(j + 1);
  const Int3 d{g.n.x, 1, g.n.z};
  const int row = g.n.x * g.n.y;  // one z-step in the cell layout
  // gas_sample over a (n.x, 1, n.z) field whose z stride is row: sample x, z by hand.
  const float px = minf(maxf(p.x, 0.0f), float(d.x - 1)), pz = minf(maxf(p.z, 0.0f), float(d.z - 1));
  const int i0 = mini(int(px), maxi(d.x - 2, 0)), k0 = mini(int(pz), maxi(d.z - 2, 0));
  const int i1 = d.x > 1 ? i0 + 1 : i0, k1 = d.z > 1 ? k0 + 1 : k0;
  const float tx = px - float(i0), tz = pz - float(k0);
  auto lerp2 = [&](const float* f, float solid_value) {
    const uint a = uint(i0 + row * k0), b = uint(i1 + row * k0), e = uint(i0 + row * k1), h = uint(i1 + row * k1);
    float va = f[a], vb = f[b], ve = f[e], vh = f[h];
    if (solid_value >= 0.0f) {
      const unsigned char* s = solid + size_t(g.n.x) * size_t(j + 1);
      va = s[a] ? solid_value : maxf(va, 0.0f), vb = s[b] ? solid_value : maxf(vb, 0.0f);
      ve = s[e] ? solid_value : maxf(ve, 0.0f), vh = s[h] ? solid_value : maxf(vh, 0.0f);
    }
    const float x0 = va + (vb - va) * tx, x1 = ve + (vh - ve) * tx;
    return x0 + (x1 - x0) * tz;
  };
  const float above = lerp2(up_tau, -1.0f);
  const float dense = lerp2(rho + size_t(g.n.x) * size_t(j + 1), kGasSolidShadowDensity);
  tau[c] = above + 0.5f * path * shade.extinction * (here + dense);
}

constexpr float kGasDyeFloor = 0.02f;  ///< density below which the dye fades to white

// The texel of cell c: rgb the light it sends toward the eye per unit of opacity, a the
// density (-1 in a solid cell: the renderer's rays stop there). `cv` holds the cells'
// velocities (w unused) and `om` their vorticity (xyz; the views need them), `tau` the
// sun's optical depth (gas_sun_layer; in 2D unused: the plane is lit evenly).
TP_HD TP_INLINE Vec4 gas_shade_cell(const GasGrid& g, const unsigned char* solid, const float* scalars,
                                    const Vec4* cv, const Vec4* om, const float* tau, const GasShade& shade, uint c) {
  if (solid[c]) return Vec4{0, 0, 0, -1.0f};
  const uint n = g.cells();
  const float rho = maxf(scalars[size_t(kGasDensity) * n + c], 0.0f);
  const float range = shade.view_range > 1e-6f ? shade.view_range : 1e-6f;
  // The views: opaque in the plane; in a volume as dense as the value is high (2 t^2 for t
  // its share of the range), so that the fast or spinning core shows through the still gas.
  const auto view_density = [&](float t) {
    t = minf(maxf(t, 0.0f), 1.0f);
    return g.n.z == 1 ? 1000.0f : 2.0f * t * t;
  };
  if (shade.view == kGasViewSpeed) {
    const float t = length(xyz(cv[c])) / range;
    return make_vec4(gas_sequential(t), view_density(t));
  }
  if (shade.view == kGasViewVorticity) {
    const Vec3 w = xyz(om[c]);
    const float t = (g.n.z == 1 ? fabsf(w.z) : length(w)) / range;
    return make_vec4(g.n.z == 1 ? gas_diverging(w.z / range) : gas_sequential(t), view_density(t));
  }
  // The dye's colour: the carried dye over the density, toward white where there is little
  // of either (kGasDyeFloor): in the thin fringes the two fields' interpolation errors would
  // otherwise divide into saturated specks.
  const Vec3 dye{scalars[size_t(kGasRed) * n + c], scalars[size_t(kGasGreen) * n + c],
                 scalars[size_t(kGasBlue) * n + c]};
  Vec3 colour = (dye + Vec3{kGasDyeFloor, kGasDyeFloor, kGasDyeFloor}) * (1.0f / (rho + kGasDyeFloor));
  colour = Vec3{minf(maxf(colour.x, 0.0f), 1.0f), minf(maxf(colour.y, 0.0f), 1.0f), minf(maxf(colour.z, 0.0f), 1.0f)};
  const float light = g.n.z == 1 ? 1.0f : shade.ambient + shade.sun_light * expf(-tau[c]);
  return make_vec4(colour * light, rho);
}

}  // namespace tp
