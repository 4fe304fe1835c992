// Surface tension and adhesion [Akinci, Akinci & Teschner 2013, "Versatile surface tension
// and adhesion for SPH fluids", ACM TOG 32(6)], per particle, shared by the three solvers:
//   cohesion   a_i += -gamma sum_j K_ij m_j C(|x_ij|) x_ij / |x_ij|            [Eq. 2]
//   curvature  a_i += -gamma sum_j K_ij (n_i - n_j)                            [Eq. 5]
//   with n_i = h sum_j m_j / rho_j grad W(x_ij) (h: the support) [Eq. 4] and the
//   symmetrising K_ij = 2 rho0 / (rho_i + rho_j) [Eq. 6];
//   adhesion   a_i += -beta sum_k psi_k A(|x_ik|) x_ik / |x_ik|, psi_k = rho0 V_k, over the
//   boundary samples (walls and obstacles) [Eq. 7].
// gamma (surface_tension) and beta (adhesion) are the paper's model coefficients, not a
// surface tension in N/m: C and A carry the normalisations below, so the same gamma gives
// the same accelerations at any particle spacing (m C(r) ~ rho0 times a number).
#pragma once

#include "particles.h"
#include "sim_params.h"

namespace tp {

// The cohesion spline C(r) [Eq. 3], times `norm` (Dimension<D>::cohesion_norm(h): 32 /
// (pi h^9) in 3D): attraction between h/2 and h, (h - r)^3 r^3; repulsion below h/2,
// 2 (h - r)^3 r^3 - h^6 / 64; 0 beyond h. R: float or a block of lanes (kernels/lanes.h).
template <class R>
TP_HD TP_INLINE R cohesion_spline(R r, float h, float norm) {
  const R a = maxf(h - r, R(0.0f));
  const R t = a * a * a * r * r * r;
  const float h6 = h * h * h * h * h * h;
  return select(r < h, select(r + r > h, t, 2.0f * t - h6 / 64.0f) * norm, R(0.0f));
}

// The adhesion spline A(r) [Eq. 8], times `norm` (Dimension<D>::adhesion_norm(h): 0.007 /
// h^3.25 in 3D): between h/2 and h, (-4 r^2 / h + 6 r - 2 h)^(1/4), 0 elsewhere.
template <class R>
TP_HD TP_INLINE R adhesion_spline(R r, float h, float norm) {
  const R u = maxf(-4.0f * r * r * (1.0f / h) + 6.0f * r - 2.0f * h, R(0.0f));
  return select(r + r > h, select(r < h, sqrt_lanes(sqrt_lanes(u)) * norm, R(0.0f)), R(0.0f));
}

// Whether either force is on: both 0 leaves every solver's step as it was without them.
TP_HD TP_INLINE bool surface_forces_on(const StepConstants& c) {
  return c.p.surface_tension > 0.0f || c.p.adhesion > 0.0f;
}

// The surface normal of particle i [Eq. 4]: n_i = h sum_j m / rho_j grad W_ij, large (about
// 1) at the surface and near 0 inside. in: positions and densities at the neighbour lists'
// positions.
template <class I>
TP_HD TP_INLINE Vec3Of<I> surface_normal(I i, const Vec4* position, const float* density,
                                         const NeighborList& nl, const StepConstants& c) {
  using R = RealOf<I>;
  using V = Vec3Of<I>;
  const CubicKernel& W = c.kernel;
  const V xi = load_xyz(position, i);
  V n{R(0.0f), R(0.0f), R(0.0f)};
  for_each_listed(nl, i, position, xi, W.h, [&](IndexOf<I> j, const V& xij, R r) {
    n += W.grad(xij, r) * (c.mass / load(density, j));  // 0 for j = i
  });
  return n * W.h;
}

// The surface tension and adhesion acceleration of particle i.
// in: `normal_density` (xyz: n_j of surface_normal, w: rho_j), the boundary samples.
template <class I>
TP_HD TP_INLINE Vec3Of<I> surface_acceleration(I i, const Vec4* position, const Vec4* normal_density,
                                               const NeighborList& nl, const BoundaryView& b,
                                               const StepConstants& c) {
  using R = RealOf<I>;
  using V = Vec3Of<I>;
  const float h = c.kernel.h;
  const float gamma = c.p.surface_tension, beta = c.p.adhesion;
  const float two_rho0 = 2.0f * c.p.rest_density;
  const V xi = load_xyz(position, i);
  const auto own = load_xyzw(normal_density, i);
  const R zero(0.0f);
  V a{zero, zero, zero};
  if (gamma > 0.0f)
    for_each_listed(nl, i, position, xi, h, [&](IndexOf<I> j, const V& xij, R r) {
      const auto other = load_xyzw(normal_density, j);
      const R k = two_rho0 / (own.w + other.w);
      const R inv_r = select(r > 1e-9f, 1.0f / r, zero);  // the self pair: no cohesion
      const V cohesion = xij * (c.mass * cohesion_spline(r, h, c.cohesion_norm) * inv_r);
      // (within h only: a block of lanes passes its unused lanes at a distance beyond it)
      const V none{zero, zero, zero};
      const V curvature = select(r < h, select(r > 1e-9f, (own.xyz - other.xyz) * c.curvature_scale, none), none);
      a -= (cohesion + curvature) * (gamma * k);
    });
  if (beta > 0.0f)
    for_each_boundary_neighbor(b, i, xi, h, [&](IndexOf<I>, const V& xik, R r, R volume) {
      const R inv_r = select(r > 1e-9f, 1.0f / r, zero);
      a -= xik * (beta * c.p.rest_density * volume * adhesion_spline(r, h, c.adhesion_norm) * inv_r);
    });
  return a;
}

}  // namespace tp
