// The gas's pressure solve on a backend B: A q = b over the fluid cells of a grid, A the graph
// Laplacian of kernels/gas_pressure.h (walls and solids Neumann, open sides Dirichlet), by
// MGPCG or by Jacobi sweeps. The gas's projection fills b with the cells' outflow and takes
// q's differences from the faces (GasSolver::project); see docs/gas.md.
//
// MGPCG (McAdams, Sifakis & Teran 2010): conjugate gradients preconditioned by one V-cycle
// over cell-centred levels down to 64 cells or fewer (a coarse cell solid only when all its
// fine cells are), kSmooth red-black Gauss-Seidel sweeps before and kSmooth after in the
// reverse colour order, the restriction the prolongation's transpose (so the preconditioner
// is symmetric), kCoarseSweeps each way on the coarsest level. It stops when the largest
// residual is `tolerance` of the largest |b|, or after `max_iterations`. In a closed box A is
// singular (the constants): b and each preconditioned residual lose their mean there.
#pragma once

#include <utility>
#include <vector>

#include "kernels/gas_pressure.h"
#include "sim/gas/array_ops.h"

namespace tp {

template <class B>
class PoissonSolver {
 public:
  template <class T>
  using Buffer = typename B::template Buffer<T>;

  struct Result {
    int iterations = 0;
    float residual = 0.0f;  ///< max |b - A q| / max |b| (0 when b is 0)
  };

  static constexpr int kSmooth = 2;         ///< red-black sweeps before and after
  static constexpr int kCoarseSweeps = 24;  ///< on the coarsest level, each way

  // The buffers and the multigrid's levels for `grid`; q = 0. Then set_solids.
  void reset(const GasGrid& grid) {
    grid_ = grid;
    const uint n = grid.cells();
    links_.resize(n);
    q_.resize(n), b_.resize(n), r_.resize(n), z_.resize(n), p_.resize(n), ap_.resize(n), r_scratch_.resize(n);
    fill_array<B>(q_.data(), n, 0.0f);
    build_levels();
  }

  // The grid's solid cells (1: solid), after every change of them: the links of every level
  // and the count of fluid cells. The solves read `solid` (the gas's own mask), which must
  // stay where it is until the next call.
  void set_solids(const unsigned char* solid) {
    solid_ = solid;
    fluid_cells_ = uint(B::reduce_sum(grid_.cells(), [=] TP_HD(uint c) { return solid[c] ? 0.0 : 1.0; }));
    link(grid_, solid, links_.data());
    const GasGrid* fine = &grid_;
    const unsigned char* fs = solid;
    for (Level& level : levels_) {
      const GasGrid f = *fine, c = level.grid;
      unsigned char* cs = level.solid.data();
      B::for_each(c.cells(), [=] TP_HD(uint C) { cs[C] = gas_coarse_solid(f, fs, c, C); });
      link(c, cs, level.links.data());
      fine = &level.grid;
      fs = level.solid.data();
    }
  }

  // b, one value per cell, for the caller to fill before a solve (which may change it: in a
  // closed box it loses its mean); and q, the last solve's answer.
  float* rhs() { return b_.data(); }
  const float* pressure() const { return q_.data(); }

  Result solve_mgpcg(float tolerance, int max_iterations) {
    const uint n = grid_.cells();
    remove_mean(b_);
    const float bnorm = max_abs_array<B>(b_.data(), n);
    float* q = q_.data();
    fill_array<B>(q, n, 0.0f);
    Result result;
    if (!(bnorm > 0.0f)) return result;
    copy_array<B>(r_.data(), b_.data(), n);
    vcycle(0, r_.data(), z_.data());
    remove_mean(z_);
    copy_array<B>(p_.data(), z_.data(), n);
    double rz = dot_arrays<B>(r_.data(), z_.data(), n);
    const unsigned short* links = links_.data();
    const uint sy = uint(grid_.n.x), sz = uint(grid_.n.x) * uint(grid_.n.y);
    float residual = 1.0f;
    int it = 0;
    for (; it < max_iterations; ++it) {
      const float* p = p_.data();
      float* ap = ap_.data();
      B::for_each(n, [=] TP_HD(uint c) { ap[c] = gas_apply_linked(links, p, c, sy, sz); });
      const double pap = dot_arrays<B>(p, ap, n);
      if (!(pap > 0.0)) break;
      const float alpha = float(rz / pap);
      float* r = r_.data();
      B::for_each(n, [=] TP_HD(uint c) {
        q[c] += alpha * p[c];
        r[c] -= alpha * ap[c];
      });
      residual = max_abs_array<B>(r, n) / bnorm;
      if (residual <= tolerance) {
        ++it;
        break;
      }
      vcycle(0, r_.data(), z_.data());
      remove_mean(z_);
      const double rz_next = dot_arrays<B>(r, z_.data(), n);
      const float beta = float(rz_next / rz);
      rz = rz_next;
      const float* z = z_.data();
      float* pw = p_.data();
      B::for_each(n, [=] TP_HD(uint c) { pw[c] = z[c] + beta * pw[c]; });
    }
    result.iterations = it;
    result.residual = residual;
    return result;
  }

  Result solve_jacobi(int sweeps) {
    const uint n = grid_.cells();
    const unsigned short* links = links_.data();
    const uint sy = uint(grid_.n.x), sz = uint(grid_.n.x) * uint(grid_.n.y);
    const float* b = b_.data();
    float* x = q_.data();
    float* y = z_.data();
    fill_array<B>(x, n, 0.0f);
    for (int it = 0; it < sweeps; ++it) {
      B::for_each(n, [=] TP_HD(uint c) { y[c] = gas_relaxed(links, b, x, c, sy, sz); });
      copy_array<B>(x, y, n);
    }
    const float bnorm = max_abs_array<B>(b, n);
    float* r = r_.data();
    B::for_each(n, [=] TP_HD(uint c) { r[c] = b[c] - gas_apply_linked(links, x, c, sy, sz); });
    Result result;
    result.iterations = sweeps;
    result.residual = bnorm > 0.0f ? max_abs_array<B>(r, n) / bnorm : 0.0f;
    return result;
  }

  // (Public for nvcc's device lambdas; not part of the interface.)

  // x = V-cycle(b) on level l (0: the grid itself).
  void vcycle(int l, const float* b, float* x) {
    const GasGrid g = l == 0 ? grid_ : levels_[size_t(l - 1)].grid;
    const unsigned char* solid = l == 0 ? solid_ : levels_[size_t(l - 1)].solid.data();
    const unsigned short* links = l == 0 ? links_.data() : levels_[size_t(l - 1)].links.data();
    const uint n = g.cells(), sy = uint(g.n.x), sz = uint(g.n.x) * uint(g.n.y);
    fill_array<B>(x, n, 0.0f);
    if (l == int(levels_.size())) {
      for (int s = 0; s < kCoarseSweeps; ++s) relax(g, links, b, x, 0), relax(g, links, b, x, 1);
      for (int s = 0; s < kCoarseSweeps; ++s) relax(g, links, b, x, 1), relax(g, links, b, x, 0);
      return;
    }
    for (int s = 0; s < kSmooth; ++s) relax(g, links, b, x, 0), relax(g, links, b, x, 1);
    float* r = l == 0 ? r_scratch_.data() : levels_[size_t(l - 1)].r.data();
    B::for_each(n, [=] TP_HD(uint c) { r[c] = b[c] - gas_apply_linked(links, x, c, sy, sz); });
    Level& next = levels_[size_t(l)];
    const GasGrid cg = next.grid;
    const unsigned char* cs = next.solid.data();
    float* cb = next.b.data();
    // The coarse operator is A's on cells twice the size: its right-hand side 4x.
    B::for_each(cg.cells(), [=] TP_HD(uint C) { cb[C] = gas_restrict(g, solid, cg, cs, r, C, 4.0f); });
    vcycle(l + 1, next.b.data(), next.x.data());
    const float* cx = next.x.data();
    B::for_each(n, [=] TP_HD(uint c) { gas_prolong(g, solid, cg, cs, cx, x, c); });
    for (int s = 0; s < kSmooth; ++s) relax(g, links, b, x, 1), relax(g, links, b, x, 0);
  }

  // One red-black Gauss-Seidel half sweep (the cells of `colour`) on a level.
  void relax(const GasGrid& g, const unsigned short* links, const float* b, float* x, int color) {
    const GasGrid gg = g;
    B::for_each(uint(g.n.y) * uint(g.n.z), [=] TP_HD(uint r) { gas_relax_row(gg, links, b, x, r, color); });
  }

  void link(const GasGrid& grid, const unsigned char* solid, unsigned short* links) {
    const GasGrid g = grid;
    B::for_each(g.cells(), [=] TP_HD(uint c) { links[c] = gas_links(g, solid, c); });
  }

  // In a closed box A's null space is the constants: b and the preconditioned residual
  // keep no constant part (over the fluid cells).
  void remove_mean(Buffer<float>& a) {
    if (grid_.open != 0 || fluid_cells_ == 0) return;
    const uint n = grid_.cells();
    float* p = a.data();
    const unsigned char* solid = solid_;
    const float mean = float(B::reduce_sum(n, [=] TP_HD(uint i) { return solid[i] ? 0.0 : double(p[i]); }) /
                             double(fluid_cells_));
    B::for_each(n, [=] TP_HD(uint i) { p[i] = solid[i] ? 0.0f : p[i] - mean; });
  }

 private:
  // A coarser copy of the grid: its solids and links, and the V-cycle's vectors there.
  struct Level {
    GasGrid grid;
    Buffer<unsigned char> solid;
    Buffer<unsigned short> links;
    Buffer<float> x, b, r;
  };

  void build_levels() {
    levels_.clear();
    GasGrid g = grid_;
    while (g.cells() > 64 && levels_.size() < 12) {
      GasGrid c = g;
      c.n = Int3{g.n.x > 1 ? (g.n.x + 1) / 2 : 1, g.n.y > 1 ? (g.n.y + 1) / 2 : 1, g.n.z > 1 ? (g.n.z + 1) / 2 : 1};
      c.dx = 2.0f * g.dx;
      Level level;
      level.grid = c;
      level.solid.resize(c.cells());
      level.links.resize(c.cells());
      level.x.resize(c.cells());
      level.b.resize(c.cells());
      level.r.resize(c.cells());
      levels_.push_back(std::move(level));
      g = c;
    }
  }

  GasGrid grid_;
  const unsigned char* solid_ = nullptr;  ///< the grid's, the caller's (set_solids)
  Buffer<unsigned short> links_;          ///< gas_links of each cell
  Buffer<float> q_, b_, r_, z_, p_, ap_, r_scratch_;
  std::vector<Level> levels_;
  uint fluid_cells_ = 0;
};

}  // namespace tp
