// The counting-sort neighbour grid of Hoetzlein 2014 on a dense box, written once for
// every backend:
//   count    cell of each particle; atomic count per cell, keeping the in-cell rank
//   scan     exclusive prefix sum of the counts -> cell_start
//   scatter  order[cell_start[cell] + rank] = particle
//   settle   sort each cell's slice by old index, so the result is independent of the
//            atomics' interleaving: a stable counting sort, bitwise deterministic
//   reorder  gather every particle array by `order` (reorder()), after which cell c's
//            particles are [cell_start[c], cell_start[c+1]) in memory
#pragma once

#include <stdexcept>

#include "kernels/grid.h"

namespace tp {

template <class Backend>
class NeighborGrid {
 public:
  template <class T>
  using Buffer = typename Backend::template Buffer<T>;

  // A dense grid covering [lo, hi] with cubic cells of the given size.
  void configure(Vec3 lo, Vec3 hi, float cell_size) {
    if (!(cell_size > 0.0f)) throw std::invalid_argument("grid cell size must be positive");
    view_.origin = lo;
    view_.inv_cell = 1.0f / cell_size;
    const Vec3 extent = hi - lo;
    view_.dims = Int3{int(ceilf(extent.x / cell_size)) + 1, int(ceilf(extent.y / cell_size)) + 1,
                      int(ceilf(extent.z / cell_size)) + 1};
    const double cells = double(view_.dims.x) * view_.dims.y * view_.dims.z;
    if (cells > 2.0e9) throw std::invalid_argument("grid too large: reduce the tank or spacing");
    cell_start_.resize(size_t(cells) + 1);
    view_.cell_start = cell_start_.data();
  }

  // Computes the cell order of `positions` (count n); afterwards order()[k] is the old
  // index of the particle that belongs in slot k. Call reorder() on every array.
  void build(const Vec4* positions, uint n) {
    cell_of_.grow(n);
    rank_.grow(n);
    order_.grow(n);
    const uint cells = view_.cell_count();
    uint* start = cell_start_.data();
    uint* cell_of = cell_of_.data();
    uint* rank = rank_.data();
    uint* order = order_.data();
    const GridView g = view_;
    Backend::for_each(cells + 1, [=] TP_HD(uint c) { start[c] = 0; });
    Backend::for_each(n, [=] TP_HD(uint i) {
      const uint c = g.linear(g.cell_of(xyz(positions[i])));
      cell_of[i] = c;
      rank[i] = atomic_add(&start[c], 1u);
    });
    Backend::exclusive_scan(start, cells);
    Backend::for_each(n, [=] TP_HD(uint i) { order[start[cell_of[i]] + rank[i]] = i; });
    Backend::for_each(cells, [=] TP_HD(uint c) {
      const uint begin = start[c], end = start[c + 1];
      for (uint k = begin + 1; k < end; ++k) {  // insertion sort: cells hold a few particles
        const uint v = order[k];
        uint m = k;
        while (m > begin && order[m - 1] > v) {
          order[m] = order[m - 1];
          --m;
        }
        order[m] = v;
      }
    });
    count_ = n;
  }

  // Gathers `data` into cell order, using `scratch` (resized as needed), and swaps them.
  template <class T>
  void reorder(Buffer<T>& data, Buffer<T>& scratch) const {
    scratch.resize(data.size());
    const T* src = data.data();
    T* dst = scratch.data();
    const uint* order = order_.data();
    Backend::for_each(count_, [=] TP_HD(uint k) { dst[k] = src[order[k]]; });
    data.swap(scratch);
  }

  const GridView& view() const { return view_; }
  const uint* order() const { return order_.data(); }

 private:
  GridView view_{};
  Buffer<uint> cell_start_, cell_of_, rank_, order_;
  uint count_ = 0;
};

}  // namespace tp
