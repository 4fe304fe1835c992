// SPH density, shared by every solver so that a fluid at rest under one method is at rest
// under the others.
#pragma once

#include "particles.h"
#include "sim_params.h"

namespace tp {

// rho from the two sums below: sum_j W_ij over the fluid neighbours (i itself included)
// and sum_b V_b W_ib over the boundary samples. For loops that gather the sums with other
// terms (pbf_end_of_step).
template <class R>
TP_HD TP_INLINE R density_from_sums(R fluid_w_sum, R boundary_volume, const StepConstants& c) {
  return c.mass * fluid_w_sum + c.p.rest_density * boundary_volume;
}

// rho_i = sum_j m_j W_ij + sum_b psi_b W_ib, with psi_b = rho0 V_b.
// Fluid part: the SPH density estimate, e.g. [Koschier et al. 2019, Eq. 11];
// boundary part: Akinci et al. 2012, "Versatile rigid-fluid coupling for incompressible
// SPH", Eq. 6 (boundary samples contribute their volume times the rest density).
// in: positions (fluid, boundary) and particle i's neighbour lists; returns the density at
// x_i = fluid_pos[i] [kg/m^3].
template <class I>
TP_HD TP_INLINE RealOf<I> sph_density(I i, const Vec4* fluid_pos, const NeighborList& nl,
                                      const BoundaryView& boundary, const StepConstants& c) {
  using R = RealOf<I>;
  using V = Vec3Of<I>;
  const V xi = load_xyz(fluid_pos, i);
  const CubicKernel& W = c.kernel;
  R fluid_sum = 0.0f;
  for_each_listed(nl, i, fluid_pos, xi, W.h, [&](IndexOf<I>, const V&, R r) { fluid_sum += W.w(r); });
  R boundary_volume = 0.0f;
  for_each_boundary_neighbor(boundary, i, xi, W.h, [&](IndexOf<I>, const V&, R r, R volume) {
    boundary_volume += volume * W.w(r);
  });
  return density_from_sums(fluid_sum, boundary_volume, c);
}

// sph_density's density of particle i and, in the same pass, the neighbour sum of its
// pressure's stiffness, *grad_sum = |sum grad W|^2 + sum |grad W|^2 over the fluid and
// boundary neighbours (the boundary samples standing in for fluid, their pressure
// mirroring it), at least the full lattice's: PCISPH's delta (pcisph.h) and DFSPH's
// stiffness (dfsph.h) are made of it. In a neighbourhood denser than the lattice (a
// compressed pocket, the packing PBF's s_corr leaves) the lattice's sum keeps the
// stiffness from over-correcting, which would make the loops diverge.
template <class I>
TP_HD TP_INLINE RealOf<I> density_and_gradient_sum(I i, const Vec4* x, const NeighborList& nl,
                                                   const BoundaryView& b, const StepConstants& c,
                                                   RealOf<I>* grad_sum) {
  using R = RealOf<I>;
  using V = Vec3Of<I>;
  const V xi = load_xyz(x, i);
  const CubicKernel& W = c.kernel;
  R fluid_sum = 0.0f, boundary_volume = 0.0f, sum2 = 0.0f;
  V sum{R(0.0f), R(0.0f), R(0.0f)};
  auto add = [&](const V& d, R r) {
    const V gw = W.grad(d, r);
    sum = sum + gw;
    sum2 += dot(gw, gw);
  };
  for_each_listed(nl, i, x, xi, W.h, [&](IndexOf<I>, const V& d, R r) {
    fluid_sum += W.w(r);
    add(d, r);  // 0 for j = i
  });
  for_each_boundary_neighbor(b, i, xi, W.h, [&](IndexOf<I>, const V& d, R r, R volume) {
    boundary_volume += volume * W.w(r);
    add(d, r);
  });
  *grad_sum = maxf(dot(sum, sum) + sum2, c.lattice_grad2);
  return density_from_sums(fluid_sum, boundary_volume, c);
}

// The density error a step reports for one particle: max(rho / rho0 - 1, 0).
template <class R>
TP_HD TP_INLINE R compression(R density, const StepConstants& c) {
  return maxf(density / c.p.rest_density - 1.0f, 0.0f);
}

// How much compression a solver that asks for rho0 (PCISPH, DFSPH) lets water keep `since`
// seconds after it took over from another solver that left it compressed: `start` at first
// (the caller's share of what was left, at most kSwitchCompression), then less as fast as
// the whole depth `extent` expanding at kSwitchReliefSpeed moves its top, 0 after that.
// Asked for rho0 at once, every layer of a deep column expands by its compression within
// one step: a column 32 particles deep switched to DFSPH threw its top at 1.2 m/s from PBF
// and 5.5 from WCSPH; switched to PCISPH at its short first steps (whose 1 % tolerance
// WCSPH's 1 to 2 % exceeds, and PBF's bottom layers too) the whole column rose at 0.4 to
// 1 m/s. The allowance falls whatever the water does, and starts from what was there, so
// that compression cannot ratchet up under it (a target that followed each particle's
// density let a resting column creep to 8 % where DFSPH's loop did not converge; a fixed
// 5 % at the start let it reach 2.5 %, which PCISPH, switched to next, threw at 4 m/s).
constexpr float kSwitchCompression = 0.05f;
constexpr float kSwitchReliefSpeed = 0.05f;  // [m/s]
TP_HD TP_INLINE float switch_allowed_compression(float since, float start, float extent) {
  if (!(since >= 0.0f)) return 0.0f;  // (-1: the same solver since the reset)
  return maxf(minf(start, kSwitchCompression) - kSwitchReliefSpeed * since / maxf(extent, 1e-6f), 0.0f);
}

}  // namespace tp
