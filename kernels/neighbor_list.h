// Neighbour lists: each fluid particle's neighbours within the kernel support h, found once
// per grid build (kernels/grid.h) and then read by every loop of the step. A search visits
// about 80 candidates per particle to find about 33 neighbours, and a step runs 3 (WCSPH)
// to 10 or more (PBF, PCISPH) loops over them; with the lists, the search runs once.
// The lists hold indices into the arrays the grid sorted (fluid) or into the boundary
// samples (tank, then obstacles). Written once for both backends: the layout differs only
// in the block size (list_slot).
#pragma once

#include "common.h"
#include "grid.h"

namespace tp {

// Particle i's neighbour k lives at index[list_slot(i, k, slots, shift)]: particles are
// taken in blocks of 2^shift, and a block's lists are interleaved, neighbour k of its
// particles side by side. CUDA uses blocks of 32, a warp: a warp's loads of neighbour k are
// one coalesced transaction. The CPU uses blocks of 16, the lanes of an AVX-512 register
// (kernels/lanes.h; two AVX2 ones): 16 particles' neighbour k are one vector load. A scalar loop reads its
// particle's list with a stride of 2^shift words; the block's other particles, next in
// line, read the same cache lines.
TP_HD TP_INLINE size_t list_slot(uint i, uint k, uint slots, uint shift) {
  return ((size_t(i >> shift) * slots + k) << shift) | (i & ((1u << shift) - 1u));
}

struct NeighborList {
  const uint* index;  ///< neighbour k of particle i: index[list_slot(i, k, slots, shift)]
  const uint* count;  ///< neighbours of particle i (never more than the capacity)
  uint slots;         ///< slots per particle
  uint shift;         ///< log2 of the block size
};

// Calls f(j, x_ij, r, w_j) for every listed neighbour j of particle i that is still within
// h of x_i (positions may have moved since the search: PBF's iterations, PCISPH's
// predictions; the kernel is zero beyond h), w_j being the w of positions[j]: a loop that
// needs one number of each neighbour besides its position reads both at once when the
// number rides in w (FluidView::position_term; PBF's lambdas). for_each_listed calls
// f(j, x_ij, r). The list is in grid order, so sums are deterministic.
// kernels/lanes_simd.h has the same loops for a block of lanes (16 or 8 particles).
template <class F>
TP_HD TP_INLINE void for_each_listed_w(const NeighborList& l, uint i, const Vec4* positions,
                                       Vec3 xi, float h, F&& f) {
  const float h2 = h * h;
  const uint* p = l.index + list_slot(i, 0, l.slots, l.shift);
  const uint stride = 1u << l.shift;
  const uint n = l.count[i];
  for (uint k = 0; k < n; ++k) {
    const uint j = p[size_t(k) * stride];
    const Vec4 pj = positions[j];
    const Vec3 xij = Vec3{xi.x - pj.x, xi.y - pj.y, xi.z - pj.z};
    const float r2 = dot(xij, xij);
    if (r2 < h2) f(j, xij, sqrtf(r2), pj.w);
  }
}
template <class F>
TP_HD TP_INLINE void for_each_listed(const NeighborList& l, uint i, const Vec4* positions, Vec3 xi,
                                     float h, F&& f) {
  for_each_listed_w(l, i, positions, xi, h, [&](uint j, const Vec3& xij, float r, float) { f(j, xij, r); });
}

// The largest of value[j] over particle i's listed neighbours j (0 with none), wherever
// they have moved since the search: for a flag per particle, whether a neighbour has it.
TP_HD TP_INLINE float listed_max(const NeighborList& l, uint i, const float* value) {
  const uint* p = l.index + list_slot(i, 0, l.slots, l.shift);
  const uint stride = 1u << l.shift;
  const uint n = l.count[i];
  float most = 0.0f;
  for (uint k = 0; k < n; ++k) most = maxf(most, value[p[size_t(k) * stride]]);
  return most;
}

// Writes the indices (plus `base`) of the particles of `positions` (sorted by `g`) within h
// of x into out[c * stride], from c = *count on, and advances *count by their number. `out`
// has capacity + 1 slots: at most `capacity` neighbours are stored, the last slot takes
// the writes beyond, and the count goes on, so that the caller sees how much room the list
// needed (a list is complete when its count is at most the capacity).
// kInsideOnly false (the CPU): branch-free, every candidate is written and the count
// advances only for those inside, which costs less than a mispredicted branch per
// candidate, the stores landing in cache. true (a GPU): only the neighbours are stored,
// about a sixth of the ~200 candidates: each store is a global memory transaction there,
// and a warp's threads that skip one lose nothing. The lists are the same either way.
template <bool kInsideOnly = false>
TP_HD TP_INLINE void list_neighbors(const GridView& g, const Vec4* positions, Vec3 x, float h,
                                    uint base, uint* out, size_t stride, uint capacity,
                                    uint* count) {
  const float h2 = h * h;
  uint c = *count;
  for_each_cell_row(g, x, h, [&](uint begin, uint end) {
    for (uint j = begin; j < end; ++j) {
      const Vec4 pj = positions[j];
      const float dx = x.x - pj.x, dy = x.y - pj.y, dz = x.z - pj.z;
      const bool inside = dx * dx + dy * dy + dz * dz < h2;
      if (!kInsideOnly || inside) out[size_t(c < capacity ? c : capacity) * stride] = base + j;
      c += inside ? 1u : 0u;
    }
  });
  *count = c;
}

}  // namespace tp
