// Uniform-grid cell math and the neighbour loop, for the counting-sort grid of
// Hoetzlein 2014, "Fast Fixed-Radius Nearest Neighbors: Interactive Million-Particle
// Fluids" (GTC 2014): particles are sorted by cell, and cell c owns the index range
// [cell_start[c], cell_start[c + 1]). Cell size equals the kernel support h, so the
// neighbours of a particle lie in the 3x3x3 block of cells around its own. Cells along x
// are contiguous in the linear index, so each of the 9 (y, z) rows is one index range.
#pragma once

#include "common.h"

namespace tp {

struct GridView {
  Vec3 origin;             ///< world position of the corner of cell (0, 0, 0) [m]
  float inv_cell;          ///< 1 / cell size [1/m]
  Int3 dims;               ///< cells per axis
  const uint* cell_start;  ///< dims.x*dims.y*dims.z + 1 entries; last = particle count

  TP_HD TP_INLINE Int3 cell_of(Vec3 p) const {
    // Clamped, so that a particle on or beyond the domain's faces lands in an edge cell.
    // The clamp happens in float, before the conversion: converting an out-of-range float
    // to int is undefined, and x86 and CUDA disagree about it.
    return Int3{int(clampf(floorf((p.x - origin.x) * inv_cell), 0.0f, float(dims.x - 1))),
                int(clampf(floorf((p.y - origin.y) * inv_cell), 0.0f, float(dims.y - 1))),
                int(clampf(floorf((p.z - origin.z) * inv_cell), 0.0f, float(dims.z - 1)))};
  }
  TP_HD TP_INLINE uint linear(Int3 c) const {
    return uint(c.x) + uint(dims.x) * (uint(c.y) + uint(dims.y) * uint(c.z));
  }
  TP_HD TP_INLINE uint cell_count() const { return uint(dims.x) * uint(dims.y) * uint(dims.z); }
};

// Calls row(begin, end) for each index range holding the particles of the cells within
// reach of x: the 3x3x3 block around x's cell when h fits in a cell (the simulation's
// grids), clipped to the grid. Cells along x are contiguous in the linear index, so each
// (y, z) row of the block is one range. (Cells of h / 2 visit fewer candidates, 125 or,
// cut to the sphere, about 80, instead of 216, but the 25 rows' cell lookups and the
// larger cell table cost more than the candidates saved: measured 30 % slower.)
template <class F>
TP_HD TP_INLINE void for_each_cell_row(const GridView& g, Vec3 x, float h, F&& row) {
  const Int3 c = g.cell_of(x);
  const int reach = h * g.inv_cell <= 1.0f ? 1 : int(ceilf(h * g.inv_cell));
  const int x0 = c.x - reach > 0 ? c.x - reach : 0;
  const int x1 = c.x + reach < g.dims.x - 1 ? c.x + reach : g.dims.x - 1;
  const int y0 = c.y - reach > 0 ? c.y - reach : 0;
  const int y1 = c.y + reach < g.dims.y - 1 ? c.y + reach : g.dims.y - 1;
  const int z0 = c.z - reach > 0 ? c.z - reach : 0;
  const int z1 = c.z + reach < g.dims.z - 1 ? c.z + reach : g.dims.z - 1;
  for (int z = z0; z <= z1; ++z)
    for (int y = y0; y <= y1; ++y)
      row(g.cell_start[g.linear(Int3{x0, y, z})], g.cell_start[g.linear(Int3{x1, y, z}) + 1]);
}

// The rows of the cells within [lo, hi] that hold points within r of x, each cut to the
// cells its part of the sphere reaches: a row whose nearest point is r or more away is
// skipped, and the others span x +- sqrt(r^2 - rho^2) (rho: the row's nearest distance
// across it). For cells of r, about a quarter fewer candidates than the 3x3x3 block.
template <class F>
TP_HD TP_INLINE void for_each_cell_row_in_sphere(const GridView& g, Vec3 x, float r, Int3 lo, Int3 hi, F&& row) {
  const float cell = 1.0f / g.inv_cell;
  const Int3 c0 = g.cell_of(Vec3{x.x - r, x.y - r, x.z - r}), c1 = g.cell_of(Vec3{x.x + r, x.y + r, x.z + r});
  const int y0 = maxi(c0.y, lo.y), y1 = mini(c1.y, hi.y), z0 = maxi(c0.z, lo.z), z1 = mini(c1.z, hi.z);
  for (int z = z0; z <= z1; ++z) {
    const float cz = g.origin.z + float(z) * cell;
    const float dz = maxf(maxf(cz - x.z, x.z - (cz + cell)), 0.0f);
    for (int y = y0; y <= y1; ++y) {
      const float cy = g.origin.y + float(y) * cell;
      const float dy = maxf(maxf(cy - x.y, x.y - (cy + cell)), 0.0f);
      const float rest = r * r - dy * dy - dz * dz;
      if (!(rest > 0.0f)) continue;
      const float half = sqrtf(rest);
      const int x0 = maxi(g.cell_of(Vec3{x.x - half, x.y, x.z}).x, lo.x);
      const int x1 = mini(g.cell_of(Vec3{x.x + half, x.y, x.z}).x, hi.x);
      if (x0 > x1) continue;
      row(g.cell_start[g.linear(Int3{x0, y, z})], g.cell_start[g.linear(Int3{x1, y, z}) + 1]);
    }
  }
}

// Calls f(j, x_ij, r) for every particle j of `positions` (sorted by the grid `g`) with
// r = |x_i - x_j| < h, including i itself when x_i is one of them. Order is fixed by the
// grid (row by row, in cell order), so sums are deterministic.
template <class F>
TP_HD TP_INLINE void for_each_neighbor(const GridView& g, const Vec4* positions, Vec3 xi, float h,
                                       F&& f) {
  const float h2 = h * h;
  for_each_cell_row(g, xi, h, [&](uint begin, uint end) {
    for (uint j = begin; j < end; ++j) {
      const Vec4 pj = positions[j];
      const Vec3 xij = Vec3{xi.x - pj.x, xi.y - pj.y, xi.z - pj.z};
      const float r2 = dot(xij, xij);
      if (r2 < h2) f(j, xij, sqrtf(r2));
    }
  });
}

}  // namespace tp
