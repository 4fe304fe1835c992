// The pairwise SPH terms the solvers share: the symmetric pressure force, the Laplacian
// viscosity, and loops that sum them over a particle's fluid and boundary neighbours.
// WCSPH fuses both into one loop (wcsph.h); PCISPH and PBF call them separately.
#pragma once

#include "particles.h"
#include "sim_params.h"

namespace tp {

// Symmetric pressure force per unit grad W between fluid particles i and j
// [Becker & Teschner 2007, Sec. 3]: -m (p_i/rho_i^2 + p_j/rho_j^2), from p/rho^2 terms.
// (R: float or 16 lanes, kernels/lanes.h; so for every term below.)
template <class R>
TP_HD TP_INLINE R pressure_pair(float mass, R pi_term, R pj_term) {
  return -mass * (pi_term + pj_term);
}

// The same against a boundary sample of mass psi_b = rho0 V_b carrying the pressure p_b
// extrapolated from the fluid [Akinci et al. 2012, Eq. 10; Adami et al. 2012, Eq. 27].
template <class R>
TP_HD TP_INLINE R boundary_pressure_pair(R psi, R pi_term, R pb, float inv_rho0_2) {
  return -psi * (pi_term + pb * inv_rho0_2);
}

// Laplacian viscosity per unit grad W [Monaghan 2005; Koschier et al. 2019, Eq. 23]:
//   2 (d + 2) nu V_j (v_ij . x_ij) / (|x_ij|^2 + 0.01 h^2), V_j = m_j / rho_j,
// with nu_lap = 2 (d + 2) nu (laplacian_viscosity: 10 nu in 3D, 8 nu in 2D).
template <class R>
TP_HD TP_INLINE R viscosity_pair(float nu_lap, R volume_j, R vx, R inv_r2) {
  return nu_lap * volume_j * vx * inv_r2;
}

// The viscosity times the Laplacian's factor for the dimension, 2 (d + 2). (Until
// 2026-11-30 the factor was 10 in 2D as well, and 2D water was 25 % more viscous than set:
// Viscosity/ShearWave measures it.)
TP_HD TP_INLINE float laplacian_viscosity(float nu, int dimensions) {
  return float(2 * (dimensions + 2)) * nu;
}

// Pressure acceleration of particle i at its current position, from per-particle p/rho^2
// terms and the boundary samples' pressures. Without `fluid`, the fluid's terms are known
// to be 0 (PCISPH's first prediction): the fluid pairs, which would add 0, are skipped.
// in: positions with the p/rho^2 terms in w (FluidView::position_term), boundary
// pressures; returns a_p.
template <class I>
TP_HD TP_INLINE Vec3Of<I> pressure_acceleration(I i, const Vec4* position_term,
                                                const NeighborList& nl, const BoundaryView& b,
                                                const StepConstants& c, bool fluid = true) {
  using R = RealOf<I>;
  using V = Vec3Of<I>;
  const CubicKernel& W = c.kernel;
  const auto own = load_xyzw(position_term, i);
  const V xi = own.xyz;
  const R pi_term = own.w;
  V a{R(0.0f), R(0.0f), R(0.0f)};
  if (fluid)
    for_each_listed_w(nl, i, position_term, xi, W.h, [&](IndexOf<I>, const V& xij, R r, R pj_term) {
      a += W.grad(xij, r) * pressure_pair(c.mass, pi_term, pj_term);  // 0 for j = i
    });
  const float inv_rho0_2 = 1.0f / (c.p.rest_density * c.p.rest_density);
  for_each_boundary_neighbor(b, i, xi, W.h, [&](IndexOf<I> k, const V& xik, R r, R volume) {
    const R psi = c.p.rest_density * volume;
    a += W.grad(xik, r) * boundary_pressure_pair(psi, pi_term, load(b.pressure, k), inv_rho0_2);
  });
  return a;
}

// Pressure of boundary sample s.sample[k], extrapolated from the fluid around it: Adami et
// al. 2012, "A generalized wall boundary condition for smoothed particle hydrodynamics",
// Eq. 27 for a wall at rest,
//   p_b = (sum_f p_f W_bf + g . sum_f rho_f (x_b - x_f) W_bf) / sum_f W_bf.
// Walls thereby carry the fluid's own pressure, including its hydrostatic gradient, so
// that fluid rests against them at rest density and the pressure is rho g depth. Only the
// samples some fluid particle lists need one (SampleLists); the fluid around each is its
// list, found once per grid build. `pressure`: the fluid's pressures (f.pressure, or
// DFSPH's divergence solve's, which is no pressure against gravity: `hydrostatic` false
// leaves the g term out).
// in: fluid positions, densities, pressures; returns p_b [Pa].
TP_HD TP_INLINE float boundary_pressure(uint k, const SampleLists& s, const FluidView& f,
                                        const BoundaryView& bv, const StepConstants& c,
                                        const float* pressure, bool hydrostatic = true) {
  const Vec3 xb = xyz(bv.sample[s.sample[k]]);
  const Vec3 gravity = hydrostatic ? Vec3{c.p.gravity_x, c.p.gravity_y, c.p.gravity_z} : Vec3{0.0f, 0.0f, 0.0f};
  float sum_w = 0.0f, sum_p = 0.0f;
  Vec3 sum_rho_x{0.0f, 0.0f, 0.0f};
  for_each_listed(s.fluid, k, f.position, xb, c.kernel.h, [&](uint j, Vec3 xbj, float r) {
    const float w = c.kernel.w(r);
    sum_w += w;
    sum_p += pressure[j] * w;
    sum_rho_x += xbj * (f.density[j] * w);
  });
  if (sum_w <= 0.0f) return 0.0f;
  return maxf((sum_p + dot(gravity, sum_rho_x)) / sum_w, 0.0f);
}
TP_HD TP_INLINE float boundary_pressure(uint k, const SampleLists& s, const FluidView& f,
                                        const BoundaryView& bv, const StepConstants& c) {
  return boundary_pressure(k, s, f, bv, c, f.pressure);
}

// One pair's viscous acceleration, neighbour (particle or wall sample) of volume V_j
// moving at v_j: grad W_ij times viscosity_pair (nu_lap: fluid_viscosity or
// wall_viscosity). eps = 0.01 h^2.
template <class V, class R>
TP_HD TP_INLINE V viscous_pair_acceleration(const CubicKernel& W, float nu_lap, R volume_j, const V& vi,
                                            const V& vj, const V& xij, R r, float eps) {
  return W.grad(xij, r) * viscosity_pair(nu_lap, volume_j, dot(vi - vj, xij), 1.0f / (r * r + eps));
}

// The fluid's viscosity as viscosity_pair takes it.
TP_HD TP_INLINE float fluid_viscosity(const StepConstants& c) {
  return laplacian_viscosity(c.p.viscosity, c.dimensions);
}

// The viscosity the walls and obstacles take part with, as viscosity_pair takes it:
// nu (1 - wall_slip), so 0 at free slip (no shear from them) and nu at no slip (the water
// next to them held at their speed).
TP_HD TP_INLINE float wall_viscosity(const StepConstants& c) {
  return laplacian_viscosity(c.p.viscosity * (1.0f - c.p.wall_slip), c.dimensions);
}

// Viscous acceleration of particle i (walls and obstacles take part with their velocity,
// as wall_slip says).
// in: positions, velocity_inv_density (velocities, 1/rho); returns a_visc.
template <class I>
TP_HD TP_INLINE Vec3Of<I> viscous_acceleration(I i, const FluidView& f, const NeighborList& nl,
                                               const BoundaryView& b, const StepConstants& c) {
  using R = RealOf<I>;
  using V = Vec3Of<I>;
  const float nu = fluid_viscosity(c);
  V a{R(0.0f), R(0.0f), R(0.0f)};
  if (nu <= 0.0f) return a;
  const CubicKernel& W = c.kernel;
  const V xi = load_xyz(f.position, i);
  const V vi = load_xyz(f.velocity, i);
  const float eps = 0.01f * W.h * W.h;
  for_each_listed(nl, i, f.position, xi, W.h, [&](IndexOf<I> j, const V& xij, R r) {
    const auto vj = load_xyzw(f.velocity_inv_density, j);  // and 1 / rho_j
    a += viscous_pair_acceleration(W, nu, c.mass * vj.w, vi, vj.xyz, xij, r, eps);  // 0 for j = i
  });
  const float nu_wall = wall_viscosity(c);
  if (nu_wall > 0.0f)
    for_each_boundary_neighbor(b, i, xi, W.h, [&](IndexOf<I> k, const V& xik, R r, R volume) {
      a += viscous_pair_acceleration(W, nu_wall, volume, vi, load_xyz(b.velocity, k), xik, r, eps);
    });
  return a;
}

// The largest time step that stays stable, whatever dt_min asks for: the Courant condition
// at CFL 1, dt <= s / v (v: the speed of sound for WCSPH, the fastest particle for the
// others; none when nothing moves), the force condition dt <= 0.25 sqrt(s / |a|max) and the
// viscous limit dt <= 0.125 s^2 / nu [Monaghan 1992].
TP_HD TP_INLINE float stable_time_step(float speed, float max_accel, const StepConstants& c) {
  const float s = c.spacing;
  float dt = speed > 0.0f ? s / speed : 1e30f;
  if (max_accel > 0.0f) dt = minf(dt, 0.25f * sqrtf(s / max_accel));
  if (c.p.viscosity > 0.0f) dt = minf(dt, 0.125f * s * s / c.p.viscosity);
  return dt;
}

// A solver's time step within [dt_min, dt_max], but never beyond `stable`: dt_min keeps a
// step from crawling, it is no licence to explode. (It was: at dt_min = 1e-3 s, WCSPH at
// stiffness 1e7 and any solver at viscosity 0.1 reached the speed limit within 0.3 s.)
// Never below the smallest dt_min there is, 1e-7 s.
TP_HD TP_INLINE float bounded_time_step(float dt, float stable, const StepConstants& c) {
  return maxf(minf(clampf(dt, c.p.dt_min, c.p.dt_max), stable), 1e-7f);
}

// The time step of the incompressible solvers (PCISPH, PBF), which have no speed of sound
// to respect: CFL on the flow, dt <= cfl s / |v|max; the force and viscous limits of
// stable_time_step; within [dt_min, dt_max] as bounded_time_step allows.
TP_HD TP_INLINE float flow_time_step(float max_speed, float max_accel, const StepConstants& c) {
  const float stable = stable_time_step(max_speed, max_accel, c);
  float dt = stable;
  if (max_speed > 0.0f) dt = minf(dt, c.p.cfl * c.spacing / max_speed);
  return bounded_time_step(dt, stable, c);
}

// The longest step at which an iterative solve of `iterations` Jacobi passes holds a column
// of water `depth` deep up under gravity g: s sqrt(hold k / (g depth)). A correction crosses
// about a particle a pass, and every step gravity presses the column by g dt^2 a layer, so
// the step a deeper column can take shrinks as 1 / sqrt(depth) and grows with the count;
// `hold` is the solver's measured constant (pbf_holding_step, dfsph_holding_step).
TP_HD TP_INLINE float iterations_holding_step(const StepConstants& c, float hold, int iterations, float depth,
                                              float g) {
  return c.spacing * sqrtf(hold * float(iterations) / maxf(g * depth, 1e-9f));
}

// |gravity| [m/s^2].
TP_HD TP_INLINE float gravity_magnitude(const StepConstants& c) {
  return length(Vec3{c.p.gravity_x, c.p.gravity_y, c.p.gravity_z});
}

}  // namespace tp
