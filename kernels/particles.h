// Views of the particle arrays as kernels see them: raw pointers into the backend's
// buffers (host memory on the CPU backend, device memory on CUDA), captured by value.
#pragma once

#include "common.h"
#include "grid.h"

namespace tp {

// Fluid particles, sorted into cell order by the grid build at the start of every step.
struct FluidView {
  Vec4* position;      ///< [m] xyz position; w unused
  Vec4* velocity;      ///< [m/s] xyz velocity; w unused
  Vec4* acceleration;  ///< [m/s^2] xyz acceleration of this step; w unused
  float* density;      ///< [kg/m^3]
  float* pressure;     ///< [Pa]
  float* pressure_term;  ///< p / rho^2, computed once per step for the neighbour loops
  float* inv_density;    ///< 1 / rho
  float* scratch;      ///< one float per particle for per-step reductions (statistics)
  uint n;
};

// Boundary samples (Akinci et al. 2012): solid points outside the tank's inner faces and
// inside obstacles. xyz is the position, w the sample's volume V_b [m^3]; its mass seen by
// the fluid is psi_b = rho0 V_b. The tank's samples, [0, wall_n), never move and are sorted
// by `grid` once, at reset; the obstacles' samples, [wall_n, n), follow their obstacles and
// are sorted by `obstacle_grid` (whose index ranges count from wall_n) whenever one moves.
// Each step the samples next to fluid get a pressure extrapolated from it, so that the
// walls push back like the fluid they replace (see kernels/wcsph.h).
struct BoundaryView {
  const Vec4* sample;
  const Vec4* velocity;  ///< [m/s] xyz: the obstacle's velocity; 0 for the tank
  float* pressure;       ///< [Pa] this step
  GridView grid;
  GridView obstacle_grid;
  uint wall_n;
  uint n;
};

// Calls f(k, x_ik, r) for every boundary sample k (an index into sample, velocity and
// pressure) with r = |x_i - x_k| < h: the tank's, then the obstacles'.
template <class F>
TP_HD TP_INLINE void for_each_boundary_neighbor(const BoundaryView& b, Vec3 xi, float h, F&& f) {
  for_each_neighbor(b.grid, b.sample, xi, h, f);
  if (b.n == b.wall_n) return;
  const uint base = b.wall_n;
  for_each_neighbor(b.obstacle_grid, b.sample + base, xi, h,
                    [&](uint k, Vec3 xik, float r) { f(base + k, xik, r); });
}

}  // namespace tp
