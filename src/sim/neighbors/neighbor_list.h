// The neighbour lists of every fluid particle (kernels/neighbor_list.h), built from the
// fluid grid and the boundary's grids right after a grid build. Each list has a fixed
// number of slots per particle, learnt from the fluid: when a search finds a particle
// with more neighbours than its slots, the slots grow and the search runs again (a
// compressed start, an emitter's burst), so no neighbour is ever dropped.
#pragma once

#include <algorithm>
#include <type_traits>

#include "kernels/lanes.h"
#include "kernels/neighbor_list.h"
#include "kernels/particles.h"
#include "sim/backend/memory.h"

// The vector searches below use the intrinsics kernels/lanes.h includes, under its
// TP_LANE_WIDTH.

namespace tp {

#if TP_LANE_WIDTH == 16
// The fluid half of list_neighbors (kernels/neighbor_list.h) for the CPU backend built
// with AVX-512 (-march=native on a machine that has it), for m <= 16 particles x[0, m)
// of one grid cell at once: 16 candidates at a time from coordinate arrays, the ones
// within h compressed into each particle's list in the same order as the scalar loop
// writes them; nothing is stored once a list is full, and its count goes on. The
// particles share the cell's 27 neighbouring cells, so each block of 16 candidates is
// loaded once for all of them, the rows are looked up once, and their m searches,
// independent of each other, overlap in the pipeline (one particle's compare, compress and
// count wait on its loads and arithmetic: a chain of about 25 cycles a block). Particle
// k's list goes into rows[k * row_stride], which has capacity + 16 slots, its count into
// count[k]: the same lists in the same order as each particle searched alone.
inline void list_neighbors_simd_cell(const GridView& g, const float* px, const float* py,
                                     const float* pz, const Vec3* x, uint m, float h,
                                     uint* rows, uint row_stride, uint capacity, uint* count) {
  const __m512 vh2 = _mm512_set1_ps(h * h);
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (uint k = 0; k < m; ++k) count[k] = 0;
  for_each_cell_row(g, x[0], h, [&](uint begin, uint end) {
    for (uint j = begin; j < end; j += 16) {
      const uint left = end - j;
      const __mmask16 live = _cvtu32_mask16(left >= 16 ? 0xFFFFu : (1u << left) - 1u);
      const __m512 cx = _mm512_maskz_loadu_ps(live, px + j);
      const __m512 cy = _mm512_maskz_loadu_ps(live, py + j);
      const __m512 cz = _mm512_maskz_loadu_ps(live, pz + j);
      const __m512i index = _mm512_add_epi32(iota, _mm512_set1_epi32(int(j)));
      for (uint k = 0; k < m; ++k) {
        const __m512 dx = _mm512_sub_ps(_mm512_set1_ps(x[k].x), cx);
        const __m512 dy = _mm512_sub_ps(_mm512_set1_ps(x[k].y), cy);
        const __m512 dz = _mm512_sub_ps(_mm512_set1_ps(x[k].z), cz);
        const __m512 d2 = _mm512_fmadd_ps(dz, dz, _mm512_fmadd_ps(dy, dy, _mm512_mul_ps(dx, dx)));
        const __mmask16 in = _mm512_mask_cmp_ps_mask(live, d2, vh2, _CMP_LT_OQ);
        // Compressed in a register, then one full store (the slots past the count are
        // spare): the compressing store to memory is microcoded on AMD Zen 4, 10x slower.
        const uint c = count[k];
        if (c <= capacity)
          _mm512_storeu_si512(rows + size_t(k) * row_stride + c, _mm512_maskz_compress_epi32(in, index));
        count[k] = c + uint(_mm_popcnt_u32(_cvtmask16_u32(in)));
      }
    }
  });
}
// The same for one particle: `out` is contiguous, with capacity + 16 slots. About 4x
// faster than the scalar loop, which spends 4 to 5 cycles on each of the ~216 candidates
// of a particle.
inline uint list_neighbors_simd(const GridView& g, const float* px, const float* py,
                                const float* pz, Vec3 x, float h, uint* out, uint capacity) {
  uint c;
  list_neighbors_simd_cell(g, px, py, pz, &x, 1, h, out, 0, capacity, &c);
  return c;
}
#elif TP_LANE_WIDTH == 8
// The same for AVX2, 8 candidates at a time. AVX2 cannot compress a register: the ones
// within h are moved to its front by a permutation from a table of the 256 masks. pz
// must have 8 readable floats past the last particle.
struct LeftPackTable {
  uint64_t lanes[256];  // byte k of entry m: the lane of the k-th set bit of m
  constexpr LeftPackTable() : lanes() {
    for (uint m = 0; m < 256; ++m) {
      uint k = 0;
      for (uint lane = 0; lane < 8; ++lane)
        if (m & (1u << lane)) lanes[m] |= uint64_t(lane) << (8 * k++);
    }
  }
};
inline constexpr LeftPackTable kLeftPack{};

inline uint list_neighbors_simd(const GridView& g, const float* px, const float* py,
                                const float* pz, Vec3 x, float h, uint* out, uint capacity) {
  const __m256 vx = _mm256_set1_ps(x.x), vy = _mm256_set1_ps(x.y), vz = _mm256_set1_ps(x.z);
  const __m256 vh2 = _mm256_set1_ps(h * h);
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  uint c = 0;
  for_each_cell_row(g, x, h, [&](uint begin, uint end) {
    for (uint j = begin; j < end; j += 8) {
      // Plain loads (a masked one costs several on AMD Zen 3): past the row's end they
      // read the next rows, the next coordinate or the array's padding, and the lanes
      // there are dropped below.
      const __m256i live = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(end - j)), iota);
      const __m256 dx = _mm256_sub_ps(vx, _mm256_loadu_ps(px + j));
      const __m256 dy = _mm256_sub_ps(vy, _mm256_loadu_ps(py + j));
      const __m256 dz = _mm256_sub_ps(vz, _mm256_loadu_ps(pz + j));
      const __m256 d2 = _mm256_fmadd_ps(dz, dz, _mm256_fmadd_ps(dy, dy, _mm256_mul_ps(dx, dx)));
      const uint in = uint(_mm256_movemask_ps(_mm256_and_ps(_mm256_castsi256_ps(live), _mm256_cmp_ps(d2, vh2, _CMP_LT_OQ))));
      if (c <= capacity) {
        const __m256i order = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)kLeftPack.lanes[in]));
        const __m256i hits = _mm256_permutevar8x32_epi32(_mm256_add_epi32(iota, _mm256_set1_epi32(int(j))), order);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c), hits);
      }
      c += uint(__builtin_popcount(in));  // (AVX2 does not imply the popcnt instruction)
    }
  });
  return c;
}
#endif

template <class Backend>
class NeighborLists {
 public:
  template <class T>
  using Buffer = typename Backend::template Buffer<T>;

  // Lists, for each of the n particles at `positions` (sorted by `fluid_grid`), the fluid
  // particles and the boundary samples (b's grids) within h. With `mark`, it also marks
  // the listed samples (boundary_active()) in the same pass; without (PBF, which never
  // asks for samples()), samples() marks them when it is asked.
  //
  // A list that runs out of slots keeps the neighbours that fit (its count is cut to the
  // capacity). With `over`, the lists' shortfall (fluid, boundary, 0) goes there without
  // a wait, as its max with what it held when `accumulate` (the simulation's record, read
  // at the step's one wait: grow() then makes room and the step is redone,
  // src/sim/water/step_guard.h). Without, the build waits for it and searches again with room
  // until every list is complete.
  void build(const Vec4* positions, uint n, const GridView& fluid_grid, const BoundaryView& b,
             float h, bool mark = true, Max3* over = nullptr, bool accumulate = false);

  // Room for what the last builds found: `over` is how many neighbours the fullest list
  // (fluid, boundary, samples) lacked. The next build() and samples() use it.
  void grow(const Max3& over);

  // max over i < n of f(i) into *slot, with what it held when `accumulate` (one more
  // element, read where the slot is).
  template <class F>
  static void record_max3(uint n, F f, Max3* slot, bool accumulate) {
    if (accumulate)
      Backend::reduce_max3_to(n + 1, [=] TP_HD(uint i) { return i < n ? f(i) : *slot; }, slot);
    else
      Backend::reduce_max3_to(n, f, slot);
  }

  // The tank's samples, samples[0, wall_n) sorted by the boundary's grid: they stay where
  // they are until the next call, so their coordinates for the vector search are taken
  // once, here, rather than at every build().
  void set_walls(const Vec4* samples, uint wall_n) {
    const Coordinates c = coordinates(wall_coordinates_, samples, wall_n);
    walls_ = c.px ? samples : nullptr;
    wall_n_ = wall_n;
  }

  // The boundary samples that some fluid particle listed at the last build() (the ones
  // that need a pressure: kernels/wcsph.h, boundary_pressure), each with the fluid
  // particles within h of it. Found on the first call after each build(), from the same
  // positions and grid, so that a solver that needs the walls' pressure several times a
  // step (PCISPH, once per iteration) searches the grid for them once; PBF, which does not,
  // never searches. Zeroes every sample's pressure, so that none is left from an earlier
  // step (only the listed ones are read).
  // (Before any build(), or with a boundary other than build()'s, which the simulation
  // never asks for, there are none to give.)
  //
  // How many there are stays where the lists are (SampleLists::listed): n is only a bound,
  // so that the host need not wait for the count. With `over`, a list that ran out of
  // slots is reported there as build()'s are (in c; *wrote says whether it was written);
  // without, samples() waits, gives the exact count in n, and searches again with room.
  // With `first`, only the samples from that index on are listed (PBF: the obstacles' and
  // bodies' after the tank's, whose forces it sums; its walls need no pressure).
  SampleLists samples(const BoundaryView& b, Max3* over = nullptr, bool accumulate = false,
                      bool* wrote = nullptr, uint first = 0);

  // The listed samples need a pressure this step: marks the first `listed` of a list.
  // Threads may mark the same sample: they all store 1.
  static TP_HD void mark_listed(uint* active, const uint* list, uint stride, uint listed) {
    for (uint k = 0; k < listed; ++k) atomic_store(&active[list[size_t(k) * stride]], 1u);
  }

  NeighborList fluid() const { return fluid_.view(); }
  NeighborList boundary() const { return boundary_.view(); }
  // Per boundary sample, 1 when a list holds it (after a build() with `mark`, or samples()).
  const uint* boundary_active() const { return active_.data(); }
  // Mean list lengths over the particles of the last build (a reduction; for statistics).
  double mean_fluid() const { return fluid_.mean(n_); }
  double mean_boundary() const { return boundary_.mean(n_); }
  uint fluid_capacity() const { return fluid_.capacity; }
  uint boundary_capacity() const { return boundary_.capacity; }
  uint sample_capacity() const { return samples_.capacity; }

 // (Public: nvcc wants the functions that enclose device lambdas accessible.)
  // The search for the points (fluid particles, or the tank's samples) within h of a
  // point, on this backend: the vector search where the CPU build has one, from coordinate
  // arrays (list_neighbors_simd), list_neighbors otherwise.
  struct PointSearch {
    GridView grid;
    const Vec4* positions;
    const float *px, *py, *pz;  // null: no vector search
    float h;
    // Writes them into out[k * stride] (at most `capacity`) and returns how many there are.
    TP_HD uint list(Vec3 x, uint* out, uint stride, uint capacity) const {
      return append(x, 0u, out, stride, capacity, 0u);
    }
    // The same after the c neighbours a list already holds, each index plus `base`;
    // returns the count with them.
    TP_HD uint append(Vec3 x, uint base, uint* out, uint stride, uint capacity, uint c) const {
#if TP_LANE_WIDTH
      // Compressed into a contiguous row on the stack, then spread into the block's
      // interleaved slots. (A list longer than the row takes the scalar loop.)
      constexpr uint kRow = 512;
      if (px && capacity + 16 <= kRow) {
        uint row[kRow];
        const uint room = c < capacity ? capacity - c : 0u;
        const uint found = list_neighbors_simd(grid, px, py, pz, x, h, row, room);
        const uint stored = found < room ? found : room;
        for (uint k = 0; k < stored; ++k) out[size_t(c + k) * stride] = base + row[k];
        return c + found;
      }
#endif
      list_neighbors<Backend::kIsDevice>(grid, positions, x, h, base, out, stride, capacity, &c);
      return c;
    }
  };
  // A list found into a contiguous row, `stored` of it, into its interleaved slots.
  static void spread_row(const uint* row, uint stored, uint* out, uint stride) {
    for (uint k = 0; k < stored; ++k) out[size_t(k) * stride] = row[k];
  }
  // The fluid's search: fills the coordinate arrays of the vector search (when this build
  // has one) from `positions`.
  PointSearch fluid_search(const Vec4* positions, uint n, const GridView& grid, float h) {
    const Coordinates c = coordinates(fluid_coordinates_, positions, n);
    return PointSearch{grid, positions, c.px, c.py, c.pz, h};
  }
  // The tank's: its samples do not move, so their coordinate arrays are filled once, by
  // set_walls, which must be called again whenever samples[0, wall_n) change (only
  // address and count are checked here); for other samples than set_walls was given, the
  // scalar search.
  PointSearch wall_search(const BoundaryView& b, float h) const {
    PointSearch search{b.grid, b.sample, nullptr, nullptr, nullptr, h};
    if (b.sample == walls_ && b.wall_n == wall_n_ && wall_n_ > 0) {
      search.px = wall_coordinates_.data();
      search.py = search.px + wall_n_;
      search.pz = search.py + wall_n_;
    }
    return search;
  }
  // The obstacles' and bodies' samples, [wall_n, n): they move, so their coordinate arrays
  // are filled at every build (hundreds of samples against the fluid's thousands).
  PointSearch object_search(const BoundaryView& b, float h) {
    const uint m = b.n > b.wall_n ? b.n - b.wall_n : 0u;
    const Coordinates c = m > 0 ? coordinates(object_coordinates_, b.sample + b.wall_n, m) : Coordinates{};
    return PointSearch{b.obstacle_grid, b.sample + b.wall_n, c.px, c.py, c.pz, h};
  }
  // x, y and z of points[0, n), in turn, into `buffer` (and padding read, and dropped, by
  // the search); their starts, or nulls when this build has no vector search.
  struct Coordinates {
    const float *px, *py, *pz;
  };
  Coordinates coordinates(Buffer<float>& buffer, const Vec4* points, uint n);

  struct Slots {
    uint* index;
    uint* count;
    uint slots, shift;
    uint capacity;
  };

  struct List {
    Buffer<uint> index, count;
    uint capacity;  // neighbours a particle can hold, plus kSpare slots (list_neighbors)
    static constexpr uint kSpare = 1;
    // Blocks of 32 particles on CUDA (a warp), 16 on the CPU (an AVX-512 register, two
    // AVX2 ones); see
    // list_slot. The count array is padded to whole blocks with zeros, so that a block's
    // counts are one load.
    static constexpr uint kShift = Backend::kIsDevice ? 5 : 4;
    explicit List(uint initial) : capacity(initial) {}

    uint slots_per_particle() const { return capacity + kSpare; }
    void layout(uint n) {
      const uint block = 1u << kShift;
      const size_t padded = (size_t(n) + block - 1) / block * block;
      index.grow(padded * slots_per_particle());
      count.grow(padded);
      uint* c = count.data();
      Backend::for_each(uint(padded - n), [=] TP_HD(uint k) { c[n + k] = 0u; });
    }
    Slots slots() { return Slots{index.data(), count.data(), slots_per_particle(), kShift, capacity}; }
    NeighborList view() const {
      return NeighborList{index.data(), count.data(), slots_per_particle(), kShift};
    }
    // Room for the longest list found (`over` more than the capacity), and a quarter
    // more; whether it grew.
    bool grow_by(float over) {
      if (!(over > 0.0f)) return false;
      const uint most = capacity + uint(over);
      capacity = most + most / 4 + 4;
      return true;
    }
    double mean(uint n) const {
      if (n == 0) return 0.0;
      const uint* c = count.data();
      return Backend::reduce_sum(n, [=] TP_HD(uint i) { return float(c[i]); }) / double(n);
    }
  };

 private:
  // 33 neighbours at rest (h = 2 spacings, the particle itself included), 40 or so where
  // PBF's prediction squeezes; a particle against a wall or in a corner sees up to about
  // 30 samples of the two-layer boundary.
  List fluid_{48}, boundary_{40};
  Buffer<uint> active_;  ///< per boundary sample, see BoundaryView::active
  Buffer<float> fluid_coordinates_;  ///< x, y, z of the fluid particles, in turn (vector search)
  Buffer<float> wall_coordinates_;   ///< the same of the tank's samples (set_walls)
  Buffer<float> object_coordinates_;  ///< the same of the obstacles' and bodies' (every build)
  const Vec4* walls_ = nullptr;      ///< the samples set_walls was given, and their number
  uint wall_n_ = 0;
  // samples(): per boundary sample, its place among the listed ones (a scan of active_);
  // the listed samples in order; their lists of fluid particles.
  Buffer<uint> place_, order_;
  List samples_{24};
  Buffer<Max3> own_over_;  ///< the shortfall of a build() or samples() that waits for it
  uint samples_n_ = 0;
  bool samples_valid_ = false;
  uint samples_first_ = 0;  ///< the first sample the valid lists may hold (samples())
  bool marked_ = false;  ///< whether active_ holds the last build()'s marks
  // The last build()'s search: its positions are the ones build() listed, which must not
  // have moved when samples() uses them. (PBF builds on its predicted positions and then
  // moves and swaps them, but never asks for samples(); every step builds anew.)
  PointSearch search_{};
  uint built_boundary_n_ = ~0u;
  // The AVX2 search reads whole registers past a row's end (list_neighbors_simd).
  static constexpr size_t kCoordinatePad = 8;
  // Slots of a particle's row in the cell search (16 KB of stack for a block): once the
  // fluid lists' capacity exceeds this less 16 (a list of more than about 190 neighbours
  // has been seen: a compressed start), every particle takes the one-at-a-time search.
  static constexpr uint kCellRow = 256;
  uint n_ = 0;
};

template <class Backend>
void NeighborLists<Backend>::build(const Vec4* positions, uint n, const GridView& fluid_grid, const BoundaryView& b,
                                   float h, bool mark, Max3* over, bool accumulate) {
  n_ = n;
  samples_valid_ = false;
  marked_ = mark;
  built_boundary_n_ = b.n;
  active_.grow(b.n);
  uint* active = active_.data();
  const bool wait = over == nullptr;
  if (wait) {
    own_over_.grow(1);
    over = own_over_.data();
    accumulate = false;
  }
  for (;;) {
    fluid_.layout(n);
    boundary_.layout(n);
    const Slots fs = fluid_.slots(), bs = boundary_.slots();
    const BoundaryView bv = b;
    if (mark) Backend::for_each(bv.n, [=] TP_HD(uint k) { active[k] = 0u; });
    const PointSearch search = search_ = fluid_search(positions, n, fluid_grid, h);
    const PointSearch walls = wall_search(bv, h);
    const PointSearch objects = object_search(bv, h);
    // The boundary samples within h of particle i: the tank's (none within h inside the
    // clear box), then the obstacles'; the count; and their marks.
    const auto near_walls = [=] TP_HD(Vec3 xi) { return !inside_box(xi, bv.wall_clear_lo, bv.wall_clear_hi); };
    const auto finish_boundary = [=] TP_HD(uint i, Vec3 xi, uint* out, uint c) {
      const uint stride = 1u << bs.shift;
      if (near_objects(bv, xi)) c = objects.append(xi, bv.wall_n, out, stride, bs.capacity, c);
      bs.count[i] = c;
      if (mark) mark_listed(active, out, stride, c < bs.capacity ? c : bs.capacity);
    };
    const auto list_one = [=] TP_HD(uint i) {
      const Vec3 xi = xyz(positions[i]);
      const uint stride = 1u << fs.shift;
      fs.count[i] = search.list(xi, fs.index + list_slot(i, 0, fs.slots, fs.shift), stride, fs.capacity);
      uint* out = bs.index + list_slot(i, 0, bs.slots, bs.shift);
      finish_boundary(i, xi, out, near_walls(xi) ? walls.list(xi, out, stride, bs.capacity) : 0u);
    };
#if TP_LANE_WIDTH == 16
    static_assert(Backend::kIsDevice || List::kShift == 4, "the CPU's lists come in blocks of 16");
    if (search.px && fs.capacity + 16 <= kCellRow) {
      // A block of 16 particles (one block of the interleaved lists) at a time, the
      // particles of each cell in it searched together (list_neighbors_simd_cell). (The
      // same for the walls, whose grid has the fluid's cells, gained nothing measurable;
      // nor did an 8-wide version on AVX2, whose left-packing costs more per block.)
      Backend::for_each_lanes(n, [=](auto lanes) {
        if constexpr (std::is_same_v<decltype(lanes), uint>) {
          list_one(lanes);  // TIDEPOOL_SCALAR: one particle a call
        } else {
          const uint base = lanes.base, m = n - base < 16u ? n - base : 16u;
          Vec3 x[16];
          uint cell[16], count[16];
          uint rows[16 * kCellRow];
          const uint stride = fs.capacity + 16;
          for (uint k = 0; k < m; ++k) {
            x[k] = xyz(positions[base + k]);
            cell[k] = search.grid.linear(search.grid.cell_of(x[k]));
          }
          for (uint first = 0, last; first < m; first = last) {
            for (last = first + 1; last < m && cell[last] == cell[first];) ++last;
            list_neighbors_simd_cell(search.grid, search.px, search.py, search.pz, x + first,
                                     last - first, h, rows + size_t(first) * stride, stride,
                                     fs.capacity, count + first);
          }
          for (uint k = 0; k < m; ++k) {
            const uint i = base + k;
            uint* out = fs.index + list_slot(i, 0, fs.slots, fs.shift);
            spread_row(rows + size_t(k) * stride, count[k] < fs.capacity ? count[k] : fs.capacity, out, 1u << fs.shift);
            fs.count[i] = count[k];
          }
          // The boundary: the tank's samples one particle at a time, then the objects'
          // for the particles near them, those of one cell of the objects' grid searched
          // together as the fluid's are (each particle alone searched the 27 cells around
          // it, most of them empty: 5 % of a PBF step with eight bodies).
          const uint bstride = 1u << bs.shift;
          const bool grouped = objects.px && bs.capacity + 16 <= kCellRow;
          uint near = 0;  // particles near the objects, in order: k of each into cell[]
          uint ocell[16];  // and their cells of the objects' grid
          for (uint k = 0; k < m; ++k) {
            const uint i = base + k;
            uint* out = bs.index + list_slot(i, 0, bs.slots, bs.shift);
            const uint c = near_walls(x[k]) ? walls.list(x[k], out, bstride, bs.capacity) : 0u;
            if (grouped && near_objects(bv, x[k])) {
              count[k] = c;  // the tank's part, finished below
              x[near] = x[k];
              ocell[near] = objects.grid.linear(objects.grid.cell_of(x[k]));
              cell[near++] = k;
            } else {
              finish_boundary(i, x[k], out, c);
            }
          }
          uint found[16];
          const uint ostride = bs.capacity + 16;
          for (uint first = 0, last; first < near; first = last) {
            for (last = first + 1; last < near && ocell[last] == ocell[first];) ++last;
            list_neighbors_simd_cell(objects.grid, objects.px, objects.py, objects.pz, x + first, last - first, h,
                                     rows + size_t(first) * ostride, ostride, bs.capacity, found + first);
          }
          for (uint q = 0; q < near; ++q) {
            const uint k = cell[q], i = base + k, c = count[k];
            uint* out = bs.index + list_slot(i, 0, bs.slots, bs.shift);
            const uint room = c < bs.capacity ? bs.capacity - c : 0u;
            const uint stored = found[q] < room ? found[q] : room;
            const uint* row = rows + size_t(q) * ostride;
            for (uint e = 0; e < stored; ++e) out[size_t(c + e) * bstride] = bv.wall_n + row[e];
            const uint total = c + found[q];
            bs.count[i] = total;
            if (mark) mark_listed(active, out, bstride, total < bs.capacity ? total : bs.capacity);
          }
        }
      });
    } else {
      Backend::for_each(n, list_one);
    }
#else
    Backend::for_each(n, list_one);
#endif
    // One reduction tells whether any list ran out of slots, and by how much; one pass
    // cuts the counts to what the lists hold.
    const auto shortfall = [=] TP_HD(uint i) {
      return Max3{float(fs.count[i]) - float(fs.capacity), float(bs.count[i]) - float(bs.capacity), 0.0f};
    };
    record_max3(n, shortfall, over, accumulate);
    if (wait) {  // complete lists, or search again with room
      Max3 seen{};
      Backend::copy_to_host(&seen, over, 1);
      if (!(seen.a > 0.0f || seen.b > 0.0f)) return;
      grow(seen);
      continue;
    }
    Backend::for_each(n, [=] TP_HD(uint i) {
      if (fs.count[i] > fs.capacity) fs.count[i] = fs.capacity;
      if (bs.count[i] > bs.capacity) bs.count[i] = bs.capacity;
    });
    return;
  }
}

template <class Backend>
void NeighborLists<Backend>::grow(const Max3& over) {
  const bool fluid = fluid_.grow_by(over.a), boundary = boundary_.grow_by(over.b);
  // Refused with a sentence rather than failing to allocate (src/sim/backend/memory.h).
  if (fluid || boundary)
    require_neighbor_list_memory(n_, fluid_.capacity + boundary_.capacity + 2 * List::kSpare,
                                 Backend::kIsDevice);
  if (samples_.grow_by(over.c))
    require_neighbor_list_memory(built_boundary_n_, samples_.capacity + List::kSpare,
                                 Backend::kIsDevice, "boundary samples");
}

template <class Backend>
SampleLists NeighborLists<Backend>::samples(const BoundaryView& b, Max3* over, bool accumulate,
                                            bool* wrote, uint first) {
  if (samples_valid_ && first != samples_first_) samples_valid_ = false;  // (never within a step)
  if (samples_valid_) return SampleLists{order_.data(), samples_n_, samples_.view(), place_.data() + built_boundary_n_};
  if (b.n != built_boundary_n_ || b.n == 0) return SampleLists{nullptr, 0, NeighborList{}, nullptr};
  const uint nb = b.n;
  if (!marked_) {  // build() left the marks to this call
    uint* marks = active_.data();
    const NeighborList bl = boundary_.view();
    Backend::for_each(nb, [=] TP_HD(uint k) { marks[k] = 0u; });
    const uint capacity = bl.slots - List::kSpare;
    Backend::for_each(n_, [=] TP_HD(uint i) {
      const uint c = bl.count[i] < capacity ? bl.count[i] : capacity;
      mark_listed(marks, bl.index + list_slot(i, 0, bl.slots, bl.shift), 1u << bl.shift, c);
    });
    marked_ = true;
  }
  place_.grow(size_t(nb) + 1);
  uint* place = place_.data();
  const uint* active = active_.data();
  float* pressure = b.pressure;
  Backend::for_each(nb, [=] TP_HD(uint k) {
    place[k] = k >= first ? active[k] : 0u;
    pressure[k] = 0.0f;
  });
  Backend::exclusive_scan(place, nb);
  const uint* listed = place + nb;  // their number, left where the scan put it
  const bool wait = over == nullptr;
  uint m = nb;  // the launches' size: every sample, or (waiting) the listed ones
  if (wait) {
    Backend::copy_to_host(&m, listed, 1);
    own_over_.grow(1);
    over = own_over_.data();
    accumulate = false;
  }
  order_.grow(m);
  uint* order = order_.data();
  Backend::for_each(nb, [=] TP_HD(uint k) {
    if (place[k + 1] != place[k]) order[place[k]] = k;
  });
  const PointSearch search = search_;  // build()'s positions and grid
  const Vec4* sample = b.sample;
  for (;;) {
    samples_.layout(m);
    const Slots ss = samples_.slots();
    Backend::for_each(m, [=] TP_HD(uint k) {
      if (k >= *listed) return;
      uint* out = ss.index + list_slot(k, 0, ss.slots, ss.shift);
      ss.count[k] = search.list(xyz(sample[order[k]]), out, 1u << ss.shift, ss.capacity);
    });
    record_max3(
        m, [=] TP_HD(uint k) { return Max3{0.0f, 0.0f, k < *listed ? float(ss.count[k]) - float(ss.capacity) : 0.0f}; },
        over, accumulate);
    if (wait) {
      Max3 seen{};
      Backend::copy_to_host(&seen, over, 1);
      if (!(seen.c > 0.0f)) break;
      grow(seen);
      continue;
    }
    Backend::for_each(m, [=] TP_HD(uint k) {
      if (k < *listed && ss.count[k] > ss.capacity) ss.count[k] = ss.capacity;
    });
    if (wrote) *wrote = true;
    break;
  }
  samples_valid_ = true;
  samples_first_ = first;
  samples_n_ = m;
  return SampleLists{order_.data(), m, samples_.view(), listed};
}

template <class Backend>
typename NeighborLists<Backend>::Coordinates NeighborLists<Backend>::coordinates(Buffer<float>& buffer,
                                                                             const Vec4* points, uint n) {
#if TP_LANE_WIDTH
  if (!Backend::kIsDevice) {
    buffer.grow(3 * size_t(n) + kCoordinatePad);
    float* px = buffer.data();
    float* py = px + n;
    float* pz = py + n;
    std::fill(pz + n, pz + n + kCoordinatePad, 0.0f);
    Backend::for_each(n, [=] TP_HD(uint i) {
      px[i] = points[i].x;
      py[i] = points[i].y;
      pz[i] = points[i].z;
    });
    return Coordinates{px, py, pz};
  }
#endif
  return Coordinates{nullptr, nullptr, nullptr};
}

}  // namespace tp
