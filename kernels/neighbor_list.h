// Neighbour lists: each fluid particle's neighbours within the kernel support h, found once
// per grid build (kernels/grid.h) and then read by every loop of the step. A search visits
// about 80 candidates per particle to find about 33 neighbours, and a step runs 3 (WCSPH)
// to 10 or more (PBF, PCISPH) loops over them; with the lists, the search runs once.
// The lists hold indices into the arrays the grid sorted (fluid) or into the boundary
// samples (tank, then obstacles). Written once for both backends: the layout differs only
// in its strides (consecutive per particle on the CPU; interleaved across particles on
// CUDA, so that a warp's loads of the k-th neighbour are coalesced).
#pragma once

#include "common.h"
#include "grid.h"

namespace tp {

struct NeighborList {
  const uint* index;  ///< neighbour k of particle i: index[i * stride_i + k * stride_k]
  const uint* count;  ///< neighbours of particle i (never more than the capacity)
  uint stride_i;
  uint stride_k;
};

// Calls f(j, x_ij, r) for every listed neighbour j of particle i that is still within h of
// x_i (positions may have moved since the search: PBF's iterations, PCISPH's predictions;
// the kernel is zero beyond h). The list is in grid order, so sums are deterministic.
template <class F>
TP_HD TP_INLINE void for_each_listed(const NeighborList& l, uint i, const Vec4* positions, Vec3 xi,
                                     float h, F&& f) {
  const float h2 = h * h;
  const uint* p = l.index + size_t(i) * l.stride_i;
  const uint n = l.count[i];
  for (uint k = 0; k < n; ++k) {
    const uint j = p[size_t(k) * l.stride_k];
    const Vec4 pj = positions[j];
    const Vec3 xij = Vec3{xi.x - pj.x, xi.y - pj.y, xi.z - pj.z};
    const float r2 = dot(xij, xij);
    if (r2 < h2) f(j, xij, sqrtf(r2));
  }
}

// Writes the indices (plus `base`) of the particles of `positions` (sorted by `g`) within h
// of x into out[c * stride], from c = *count on, and advances *count by their number. `out`
// has capacity + 1 slots: at most `capacity` neighbours are stored, the last slot takes
// the writes beyond, and the count goes on, so that the caller sees how much room the list
// needed (a list is complete when its count is at most the capacity). Branch-free: every
// candidate is written and the count advances only for those inside, which costs less
// than a mispredicted branch per candidate.
TP_HD TP_INLINE void list_neighbors(const GridView& g, const Vec4* positions, Vec3 x, float h,
                                    uint base, uint* out, size_t stride, uint capacity,
                                    uint* count) {
  const float h2 = h * h;
  uint c = *count;
  for_each_cell_row(g, x, h, [&](uint begin, uint end) {
    for (uint j = begin; j < end; ++j) {
      const Vec4 pj = positions[j];
      const float dx = x.x - pj.x, dy = x.y - pj.y, dz = x.z - pj.z;
      out[size_t(c < capacity ? c : capacity) * stride] = base + j;
      c += (dx * dx + dy * dy + dz * dz < h2) ? 1u : 0u;
    }
  });
  *count = c;
}

}  // namespace tp
