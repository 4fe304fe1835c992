// The fluid sampled at every diffuse particle (sample_fluid of kernels/diffuse.h: the
// fluid neighbours within h and their W-weighted mean velocity), which classifies and
// carries each diffuse particle, for the CPU built with vector instructions. A diffuse
// particle has no neighbour list, so each update searches the grid for it: one candidate
// at a time (CUDA's threads, the scalar build) that search was two thirds of the diffuse
// phase. Here the diffuse particles are taken cell by cell (a counting sort of their
// cells), up to 16 of a cell together, and the cell's rows of candidates are read
// TP_LANE_WIDTH at a time from coordinate and velocity columns, as the fluid's neighbour
// search reads them (src/sim/neighbors/neighbor_list.h): each block of candidates is
// loaded once for all the particles of the group. Foam gathers on the surface, a hundred
// particles to a cell and more, so most groups are full.
//
// The same neighbours as sample_fluid and the same count; the sums are added in another
// order and the weights' square roots come from a refined reciprocal square root, so the
// velocity differs from the scalar loop's by about 1e-6 of it. The result does not depend
// on the threads or on which particles share a group.
#pragma once

#include <vector>

#include "kernels/diffuse.h"
#include "kernels/lanes.h"

namespace tp {

// The fluid's positions and velocities as arrays of x, y and z, each n long.
struct FluidColumns {
  const float *px, *py, *pz;
  const float *vx, *vy, *vz;
};

#if TP_LANE_WIDTH
// sample_fluid for the m <= kGroup points x[0, m), all in one cell of g, into out[k]
// (xyz: the mean velocity, w: the count).
constexpr uint kSampleGroup = 16;
inline void sample_fluid_group(const Vec3* x, uint m, const FluidColumns& f, const GridView& g,
                               const CubicKernel& W, Vec4* const* out) {
  using R = RealOf<CpuLanes>;
  constexpr uint kWidth = TP_LANE_WIDTH;
  const R h2(W.h * W.h), far(2.0f * W.h), zero(0.0f), one(1.0f);
  R count[kSampleGroup], weight[kSampleGroup], vx[kSampleGroup], vy[kSampleGroup], vz[kSampleGroup];
  for (uint k = 0; k < m; ++k) count[k] = weight[k] = vx[k] = vy[k] = vz[k] = zero;
  for_each_cell_row(g, x[0], W.h, [&](uint begin, uint end) {
    for (uint j = begin; j < end; j += kWidth) {
      const CpuLanes c = make_lanes(j, end - j);
      const R cx = load(f.px, c), cy = load(f.py, c), cz = load(f.pz, c);
      const R cvx = load(f.vx, c), cvy = load(f.vy, c), cvz = load(f.vz, c);
      for (uint k = 0; k < m; ++k) {
        const R dx = R(x[k].x) - cx, dy = R(x[k].y) - cy, dz = R(x[k].z) - cz;
        const R r2 = dx * dx + dy * dy + dz * dz;
        const auto in = lanes_within(c, r2, h2);
        const R w = W.w(select(in, sqrt_approx_lanes(r2), far));  // 0 beyond h
        count[k] = count[k] + select(in, one, zero);
        weight[k] = weight[k] + w;
        vx[k] = vx[k] + w * cvx;
        vy[k] = vy[k] + w * cvy;
        vz[k] = vz[k] + w * cvz;
      }
    }
  });
  for (uint k = 0; k < m; ++k) {
    const float total = sum_lanes(weight[k]);
    const Vec3 v{sum_lanes(vx[k]), sum_lanes(vy[k]), sum_lanes(vz[k])};
    *out[k] = make_vec4(total > 0.0f ? v * (1.0f / total) : v, sum_lanes(count[k]));
  }
}

// The sorting and grouping, and the groups' searches on the backend's threads.
class DiffuseSampler {
 public:
  // out[k] for the m points x[k] (a diffuse particle's position; w unused): xyz the mean
  // velocity, w the count. A point that is not finite gets 0 (diffuse_advance drops it).
  template <class Backend>
  void sample(const Vec4* x, uint m, const FluidColumns& f, const GridView& g, const CubicKernel& W, Vec4* out) {
    const uint cells = g.cell_count();
    key_.resize(m);
    start_.assign(size_t(cells) + 2, 0u);  // the last bucket: points that are not finite
    for (uint k = 0; k < m; ++k) {
      const Vec3 p = xyz(x[k]);
      key_[k] = is_finite(p) ? g.linear(g.cell_of(p)) : cells;
      ++start_[key_[k] + 1];
    }
    for (uint c = 0; c <= cells; ++c) start_[c + 1] += start_[c];
    order_.resize(m);
    for (uint k = 0; k < m; ++k) order_[start_[key_[k]]++] = k;  // start_[c] now: bucket c's end
    groups_.clear();
    for (uint c = 0, begin = 0; c < cells; begin = start_[c++])
      for (uint first = begin; first < start_[c]; first += kSampleGroup)
        groups_.push_back(Group{first, std::min(start_[c] - first, kSampleGroup)});
    for (uint j = cells ? start_[cells - 1] : 0u; j < m; ++j) out[order_[j]] = Vec4{0.0f, 0.0f, 0.0f, 0.0f};
    const uint* order = order_.data();
    const Group* groups = groups_.data();
    Backend::for_each_coarse(uint(groups_.size()), [=](uint q) {
      Vec3 p[kSampleGroup];
      Vec4* targets[kSampleGroup];
      for (uint k = 0; k < groups[q].m; ++k) {
        const uint d = order[groups[q].first + k];
        p[k] = xyz(x[d]);
        targets[k] = out + d;
      }
      sample_fluid_group(p, groups[q].m, f, g, W, targets);
    });
  }

 private:
  struct Group {
    uint first, m;
  };
  std::vector<uint> key_, start_, order_;
  std::vector<Group> groups_;
};
#endif

}  // namespace tp
