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

// Boundary samples (Akinci et al. 2012): static solid lattice points outside the tank's
// inner faces (and inside obstacles), sorted by their own grid at reset. xyz is the
// position, w the sample's volume V_b [m^3]; its mass seen by the fluid is psi_b = rho0 V_b.
// Each step the samples next to fluid get a pressure extrapolated from it, so that the
// walls push back like the fluid they replace (see kernels/wcsph.h).
struct BoundaryView {
  const Vec4* sample;
  float* pressure;  ///< [Pa] this step
  GridView grid;
  uint n;
};

}  // namespace tp
