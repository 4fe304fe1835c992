// Weakly compressible SPH: Becker & Teschner 2007, "Weakly compressible SPH for free
// surface flows" (SCA 2007) [BT07].
#pragma once

#include "density.h"
#include "particles.h"
#include "sph_terms.h"
#include "sim_params.h"

namespace tp {

// Tait equation of state [BT07, Sec. 3]: p = B ((rho / rho0)^gamma - 1), clamped at zero
// so that the free surface does not pull particles together (tensile instability).
TP_HD TP_INLINE float tait_pressure(float density, const StepConstants& c) {
  const float ratio = maxf(density / c.p.rest_density, 0.0f);
  return maxf(c.p.stiffness * (powf(ratio, c.p.exponent) - 1.0f), 0.0f);
}

// Speed of sound of the Tait equation: c = sqrt(B gamma / rho0) [BT07, Sec. 3].
TP_HD TP_INLINE float tait_sound_speed(const SimParams& p) {
  return sqrtf(maxf(p.stiffness * p.exponent / p.rest_density, 0.0f));
}

// Pressure and viscous acceleration of particle i in one neighbour loop: the pair terms of
// sph_terms.h (symmetric pressure force, boundary samples with the pressure of
// boundary_pressure(), Laplacian viscosity, the walls in it as wall_slip says) plus WCSPH's artificial
// viscosity.
// in: fluid position_term (positions, p/rho^2), velocity_inv_density (velocities, 1/rho),
// boundary samples and their pressures; out: returned value.
template <class I>
TP_HD TP_INLINE Vec3Of<I> wcsph_acceleration(I i, const FluidView& f, const NeighborList& nl,
                                             const BoundaryView& b, const StepConstants& c) {
  using R = RealOf<I>;
  using V = Vec3Of<I>;
  const CubicKernel& W = c.kernel;
  const auto own = load_xyzw(f.position_term, i);
  const V xi = own.xyz;
  const V vi = load_xyz(f.velocity, i);
  const R pi_term = own.w;
  const float eps = 0.01f * W.h * W.h;
  const float nu = fluid_viscosity(c);
  // Artificial viscosity between approaching particles [BT07, Eq. 11]:
  //   Pi_ij = -nu_a (v_ij . x_ij) / (|x_ij|^2 + eps h^2), nu_a = 2 alpha s c / (rho_i + rho_j),
  // with rho_i + rho_j taken as 2 rho0 (they differ by the compression, ~1 %), which saves
  // a division per neighbour.
  const float art = c.p.alpha * c.spacing * c.sound_speed / c.p.rest_density;
  V a{R(0.0f), R(0.0f), R(0.0f)};
  for_each_listed_w(nl, i, f.position_term, xi, W.h, [&](IndexOf<I> j, const V& xij, R r, R pj_term) {
    const R inv_r = 1.0f / r;  // unused by grad() when r is 0
    const V grad = W.grad(xij, r, inv_r);  // 0 for j = i
    const auto vj = load_xyzw(f.velocity_inv_density, j);  // and 1 / rho_j
    const V vij = vi - vj.xyz;
    const R vx = dot(vij, xij);
    const R inv_r2 = 1.0f / (r * r + eps);
    const R artificial = select(vx < 0.0f, c.mass * art * vx * inv_r2, R(0.0f));
    const R s = pressure_pair(c.mass, pi_term, pj_term) + artificial +
                viscosity_pair(nu, c.mass * vj.w, vx, inv_r2);
    a += grad * s;
  });
  const float inv_rho0_2 = 1.0f / (c.p.rest_density * c.p.rest_density);
  const float nu_wall = wall_viscosity(c);
  for_each_boundary_neighbor(b, i, xi, W.h, [&](IndexOf<I> k, const V& xik, R r, R volume) {
    const R s = boundary_pressure_pair(c.p.rest_density * volume, pi_term, load(b.pressure, k), inv_rho0_2) +
                viscosity_pair(nu_wall, volume, dot(vi - load_xyz(b.velocity, k), xik), 1.0f / (r * r + eps));
    a += W.grad(xik, r) * s;
  });
  return a;
}

// The WCSPH time step [BT07, Sec. 4]: CFL with the faster of the sound and the flow,
// dt <= cfl s / max(c, |v|max) (the reference library's cap cfl 2r / c, plus a flow faster
// than sound, which a mouse or a lowered stiffness can make), and the force condition
// dt <= 0.25 sqrt(s / |a|max); viscous limit dt <= 0.125 s^2 / nu (Monaghan 1992). Within
// [dt_min, dt_max], never beyond the stable step (stable_time_step, sph_terms.h). The speed
// of sound is the Tait equation's at the most compressed particle, c = c0
// (rho/rho0)^((gamma-1)/2), not only at rest: a fluid squeezed hard (strong gravity, a
// lowered rest density) carries faster waves.
TP_HD TP_INLINE float wcsph_time_step(float max_speed, float max_accel, float max_density_ratio,
                                      const StepConstants& c) {
  const float s = c.spacing;
  const float ratio = maxf(max_density_ratio, 1.0f);
  const float sound = c.sound_speed * powf(ratio, 0.5f * (c.p.exponent - 1.0f));
  const float stable = stable_time_step(maxf(sound, max_speed), max_accel, c);
  return bounded_time_step(minf(stable, c.p.cfl * s / maxf(sound, max_speed)), stable, c);
}

}  // namespace tp
