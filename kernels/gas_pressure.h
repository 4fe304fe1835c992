// The gas's pressure: the Poisson equation of the projection, its operator and smoother on
// any level of the multigrid, and the multigrid's transfers between levels, per cell (the
// grid and its layout: gas.h). src/sim/gas/poisson_solver.h drives them.
//
// Projection. With b_c = -(sum of the outflow through cell c's faces) [m/s] and
// (A q)_c = sum over c's free faces of (q_c - q_neighbour) (q = 0 beyond an open side),
// solving A q = b and taking q's difference from every free face makes each fluid cell's
// outflow 0 (q = p dt / (rho dx)). A is the graph Laplacian of the fluid cells: symmetric,
// positive definite with an open side, semi-definite (constants) in a closed box.
#pragma once

#include "gas.h"

namespace tp {

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

// The q of cell c that zeroes its residual, its neighbours' held: (b_c + their sum) over
// the diagonal; 0 for a solid cell. A Jacobi sweep writes it to another array, Gauss-Seidel
// in place.
TP_HD TP_INLINE float gas_relaxed(const unsigned short* links, const float* b, const float* q, uint c, uint sy,
                                  uint sz) {
  const unsigned l = links[c];
  const unsigned diagonal = l >> 8;
  return diagonal ? (b[c] + gas_linked_sum(l, q, c, sy, sz)) / float(diagonal) : 0.0f;
}

// Gauss-Seidel over the cells of one colour ((i + j + k) & 1 == colour) in row r (j, k):
// their neighbours are of the other colour, so the rows and the cells in them may go in
// any order.
TP_HD TP_INLINE void gas_relax_row(const GasGrid& g, const unsigned short* links, const float* b, float* q, uint r,
                                   int color) {
  const int j = int(r % uint(g.n.y)), k = int(r / uint(g.n.y));
  const uint sy = uint(g.n.x), sz = uint(g.n.x) * uint(g.n.y);
  const uint row = r * sy;
  for (int i = (color ^ j ^ k) & 1; i < g.n.x; i += 2) {
    const uint c = row + uint(i);
    q[c] = gas_relaxed(links, b, q, c, sy, sz);
  }
}

// The outflow of cell c [m/s]: the velocities through its faces, summed outward (its
// divergence times dx).
TP_HD TP_INLINE float gas_outflow(const GasGrid& g, const GasVelocity& u, Int3 c) {
  const float du = u.c[0][g.face(0, c.x + 1, c.y, c.z)] - u.c[0][g.face(0, c.x, c.y, c.z)];
  const float dv = u.c[1][g.face(1, c.x, c.y + 1, c.z)] - u.c[1][g.face(1, c.x, c.y, c.z)];
  const float dw = u.c[2][g.face(2, c.x, c.y, c.z + 1)] - u.c[2][g.face(2, c.x, c.y, c.z)];
  return du + dv + dw;
}

// The projection's right-hand side b_c = -(outflow of cell c); 0 for a solid cell.
TP_HD TP_INLINE float gas_pressure_rhs(const GasGrid& g, const unsigned char* solid, const GasVelocity& u, uint c) {
  return solid[c] ? 0.0f : -gas_outflow(g, u, g.cell_of(c));
}

// The projection at free face f of `axis`: it loses q's difference across it (q = 0 beyond
// an open side; a wall's face is fixed), which leaves each fluid cell no outflow.
TP_HD TP_INLINE void gas_subtract_pressure_face(const GasGrid& g, const unsigned char* fixed, const float* q,
                                                int axis, uint f, float* ua) {
  if (fixed[f]) return;
  const Int3 f3 = g.face_of(axis, f);
  const Int3 below = gas_step(f3, axis, -1);
  const float qa = gas_inside(g, below) ? q[g.cell(below.x, below.y, below.z)] : 0.0f;
  const float qb = gas_inside(g, f3) ? q[g.cell(f3.x, f3.y, f3.z)] : 0.0f;
  ua[f] -= qb - qa;
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

}  // namespace tp
