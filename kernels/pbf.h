// Position based fluids: Macklin & Mueller 2013, "Position based fluids" (SIGGRAPH 2013)
// [MM13]. Each step: predict positions from the external forces, then a few Jacobi
// iterations that move particles to satisfy the density constraint C_i = rho_i/rho0 - 1 = 0,
// then velocities from the displacement, vorticity confinement and XSPH viscosity.
// Masses are written out (all equal here), as in the mass-weighted form of Koschier et al.
// 2019, Sec. 5.3; boundary samples enter the density and the constraint gradient with
// their mass psi_b = rho0 V_b (Akinci et al. 2012).
#pragma once

#include "density.h"
#include "particles.h"
#include "sph_terms.h"

namespace tp {

// The longest step at which PBF's Jacobi iterations hold a 2D column of water `depth` deep
// up (iterations_holding_step, sph_terms.h, with k the iteration cap). Measured on floating_2d (0.4 m deep) at the realtime quality (5 iterations): 4,500
// particles held at 5 ms and burst at 6 ms; 8,000 held at 4 ms and burst at 5 ms (50 m/s
// within 0.3 s); 16,000 held at 2.5 ms and burst at 4 ms. kHold = 0.1 gives 4.7, 3.6 and
// 2.5 ms. (3D water, with twice the neighbours, holds at the realtime quality's frame
// steps: pbf_predict caps 2D only.)
TP_HD TP_INLINE float pbf_holding_step(const StepConstants& c, float depth, float g) {
  constexpr float kHold = 0.1f;
  return iterations_holding_step(c, kHold, c.p.pbf_iterations, depth, g);
}

// PBF's collision projection [MM13, Sec. 4]: x may come no closer to a wall than half a
// spacing (the particle's radius: where the lattice puts it and where the other solvers'
// wall pressure holds it), or than `start` already was, whichever is closer. Projected
// onto the wall itself, particles crowd against it (in a resting column, 728 of 2048 sat
// closer than 0.4 spacings, one at 0.03), which PBF's density constraint tolerates but
// which PCISPH, switched to, finds compressed and blows apart. Pushing a particle that
// another solver left closer out to half a spacing at once would fling it (1.3 m/s after
// a switch from PCISPH): it leaves at the pace the density constraint sets.
// (V: Vec3, or 16 lanes: kernels/lanes.h; so for pbf_limit_correction.)
template <class V>
TP_HD TP_INLINE V pbf_project_to_walls(V x, const V& start, const StepConstants& c) {
  using R = decltype(x.x);
  const float lo_limit = 0.01f * c.spacing, hi_limit = 0.5f * c.spacing;
  auto axis = [&](R& xa, R sa, float lo, float hi) {
    const R d_lo = minf(maxf(sa - lo, lo_limit), hi_limit);
    const R d_hi = minf(maxf(hi - sa, lo_limit), hi_limit);
    xa = minf(maxf(xa, lo + d_lo), hi - d_hi);
  };
  axis(x.x, start.x, c.tank_lo.x, c.tank_hi.x);
  axis(x.y, start.y, c.tank_lo.y, c.tank_hi.y);
  // (In 2D the tank's faces in z coincide: the water stays on their plane.)
  if (c.dimensions == 3) axis(x.z, start.z, c.tank_lo.z, c.tank_hi.z);
  return x;
}

// x* = x + dt (v + dt a) [MM13, Alg. 1, lines 1-3], before the projection into the tank:
// pbf_predict's prediction, and what pbf_measure_prediction measures the projection from.
TP_HD TP_INLINE Vec3 pbf_unprojected(Vec3 x, Vec3 v, Vec3 a, float dt) {
  const Vec3 moved = v + a * dt;
  return x + moved * dt;
}

// lambda_i = -C_i / (sum_k |grad_k C_i|^2 + eps) [MM13, Eq. 11], with the constraint
// one-sided (C_i = max(rho_i/rho0 - 1, 0)) so that the free surface does not clump; the
// s_corr term handles the rest of the tensile instability. eps (constraint force mixing)
// is `pbf_relaxation` times the sum for a particle inside the initial lattice, so that it
// means the same at every spacing.
// in: predicted positions; out: *density (rho_i at x*); returns lambda_i.
template <class I>
TP_HD TP_INLINE RealOf<I> pbf_lambda(I i, const Vec4* predicted, const NeighborList& nl,
                                     const BoundaryView& b, const StepConstants& c,
                                     RealOf<I>* density) {
  using R = RealOf<I>;
  using V = Vec3Of<I>;
  const CubicKernel& W = c.kernel;
  const V xi = load_xyz(predicted, i);
  const float inv_rho0 = 1.0f / c.p.rest_density;
  R rho = 0.0f, sum_grad2 = 0.0f;
  V grad_i{R(0.0f), R(0.0f), R(0.0f)};
  for_each_listed(nl, i, predicted, xi, W.h, [&](IndexOf<I>, const V& xij, R r) {
    rho += c.mass * W.w(r);
    const V grad_j = W.grad(xij, r) * (c.mass * inv_rho0);  // -grad_{x_j} C_i (0 for j = i)
    sum_grad2 += dot(grad_j, grad_j);
    grad_i += grad_j;
  });
  for_each_boundary_neighbor(b, i, xi, W.h, [&](IndexOf<I>, const V& xik, R r, R volume) {
    const R psi = c.p.rest_density * volume;
    rho += psi * W.w(r);
    grad_i += W.grad(xik, r) * (psi * inv_rho0);  // samples do not move: only grad_i
  });
  *density = rho;
  const R C = maxf(rho * inv_rho0 - 1.0f, 0.0f);
  const float eps = c.p.pbf_relaxation * (c.mass * inv_rho0) * (c.mass * inv_rho0) * c.lattice_grad2;
  return -C / (sum_grad2 + dot(grad_i, grad_i) + eps);
}

// The share of s_corr a step takes `since` seconds after PBF took over from another
// solver (-1: PBF since the reset): none at first, all of it after kPbfScorrRamp. The
// other solvers have no s_corr and leave pairs of surface particles closer than PBF's
// would stand, and s_corr, taken whole in each of the first step's iterations, shot them
// apart: a settling column switched from DFSPH threw a surface particle sideways at
// 0.96 m/s in PBF's first step (with the ease-in 0.69; at four starting times where the
// column was calm before the switch, 0.44 to 0.69 against 0.68 to 0.96).
constexpr float kPbfScorrRamp = 0.05f;  // [s]
TP_HD TP_INLINE float pbf_scorr_share(double since) {
  return since < 0.0 ? 1.0f : float(fmin(since / kPbfScorrRamp, 1.0));
}

// How hard the tank's side walls push: a particle beside a wall is pushed by the wall's
// samples with kPbfSideWallPush lambda_i along the wall's normal, where water across the
// wall would push with its own lambda as well. With lambda_i alone (the samples counted
// as water that never pushes back) the layer beside a wall was held half as hard as by
// water, pressed onto the projection in one straight column and stood there while the
// water beside it fell: on the default dam break PBF's height at the left wall was 16.7 %
// (RMS over 1.6 s) above WCSPH's and PCISPH's (2.5 % apart); at 1.4 it is 6.8 %. More
// overshoots in the Jacobi iterations (2, a mirror: a resting column restless); the faces
// that carry the weight (those within 60 degrees of gravity: the floor) keep lambda_i, as
// pushed harder they kept a resting column bouncing. docs/solvers.md has the figures.
constexpr float kPbfSideWallPush = 1.4f;

// The gradient a tank sample at x_s (the particle at x_s + x_is) pushes with in
// pbf_correction: grad W itself for the floor and the ceiling, and kPbfSideWallPush times
// its part along a side wall's normal (none along the wall: the lattice's bumps, not a
// flat wall's; a wall's friction is wall_friction's). A tank sample is one outside the tank's
// faces by more than a quarter spacing (the objects' samples are inside).
template <class V>
TP_HD TP_INLINE V pbf_sample_push(const V& grad, const V& xs, const StepConstants& c) {
  // 3D only: in 2D the push doubled the bobbing of the 300 kg/m^3 draft box (0.056 to 0.104 m/s).
  if (c.dimensions != 3) return grad;
  using R = decltype(grad.x);
  const float margin = 0.25f * c.spacing;
  const float gx = c.p.gravity_x, gy = c.p.gravity_y, gz = c.p.gravity_z;
  const float quarter_g2 = 0.25f * (gx * gx + gy * gy + gz * gz);  // cos 60 degrees, squared
  auto outside = [&](R xa, float lo, float hi) {
    const R d = maxf(R(lo - margin) - xa, R(0.0f)) + maxf(xa - R(hi + margin), R(0.0f));
    return select(d > 0.0f, R(1.0f), R(0.0f));
  };
  const R ox = outside(xs.x, c.tank_lo.x, c.tank_hi.x);
  const R oy = outside(xs.y, c.tank_lo.y, c.tank_hi.y);
  const R oz = outside(xs.z, c.tank_lo.z, c.tank_hi.z);
  const R sx = gx * gx <= quarter_g2 ? ox : R(0.0f);
  const R sy = gy * gy <= quarter_g2 ? oy : R(0.0f);
  const R sz = gz * gz <= quarter_g2 ? oz : R(0.0f);
  const R side = sx + sy + sz, floor = ox + oy + oz - side;
  const V pushed = V{grad.x * sx, grad.y * sy, grad.z * sz} * kPbfSideWallPush;
  return select(side - R(8.0f) * floor > 0.5f, pushed, grad);  // a side wall's, not the floor's edge
}

// Position correction [MM13, Eq. 12, 14]:
//   dx_i = 1/rho0 sum_j m_j (lambda_i + lambda_j + s_corr) grad W_ij + 1/rho0 sum_b psi_b lambda_i grad W_ib,
//   (the tank's side walls' grad W_ib: pbf_sample_push)
//   s_corr = -k (W(r) / W(dq h))^n * lambda_1.
// [MM13] adds s_corr to the lambdas in the paper's own kernel units; in SI units lambda is
// of order 1e-6 m^2, and k = 0.1 unscaled would be 1e5 times too strong. s_corr is
// therefore measured in lambda_1 = 1 / ((m/rho0)^2 sum |grad W|^2), the lambda of a
// particle with a full neighbourhood compressed by 100 %. k is the strength at a 5 ms step
// (PBF's usual step here) and scales with (dt / 5 ms)^2, so that s_corr acts as the
// artificial pressure it stands for, a force: as a fixed displacement per step it turns
// into speed as 1/dt, and a resting pool at a fixed 0.5 ms step reached 8 m/s.
// in: predicted positions with each particle's lambda in w (one load gives a neighbour's
// position and lambda); returns dx_i.
template <class I>
TP_HD TP_INLINE Vec3Of<I> pbf_correction(I i, const Vec4* predicted_lambda,
                                         const NeighborList& nl, const BoundaryView& b,
                                         const StepConstants& c) {
  using R = RealOf<I>;
  using V = Vec3Of<I>;
  const CubicKernel& W = c.kernel;
  const auto own = load_xyzw(predicted_lambda, i);
  const V xi = own.xyz;
  const float inv_rho0 = 1.0f / c.p.rest_density;
  const R li = own.w;
  const float inv_w_dq = 1.0f / W.w(c.p.pbf_scorr_dq * W.h);
  const float volume = c.mass * inv_rho0;
  constexpr float kReferenceStep = 0.005f;  // [s]
  const float step_scale = (c.dt * c.dt) / (kReferenceStep * kReferenceStep);
  const float k = c.p.pbf_scorr_k * step_scale / (volume * volume * c.lattice_grad2);
  const float n = c.p.pbf_scorr_n;
  V dx{R(0.0f), R(0.0f), R(0.0f)};
  for_each_listed_w(nl, i, predicted_lambda, xi, W.h, [&](IndexOf<I>, const V& xij, R r, R lj) {
    R s_corr = 0.0f;
    if (k > 0.0f) {
      const R t = W.w(r) * inv_w_dq;
      s_corr = -k * (n == 4.0f ? (t * t) * (t * t) : pow_lanes(t, n));  // n = 4 is the default
    }
    dx += W.grad(xij, r) * (c.mass * (li + lj + s_corr));  // 0 for j = i
  });
  for_each_boundary_neighbor(b, i, xi, W.h, [&](IndexOf<I>, const V& xis, R r, R sample_volume) {
    dx += pbf_sample_push(W.grad(xis, r), xi - xis, c) * (c.p.rest_density * sample_volume * li);
  });
  return dx * inv_rho0;
}

// One Jacobi iteration moves a particle by at most a quarter of a spacing. Jacobi PBF
// overshoots where many neighbours push the same way: where a falling column meets the
// floor at a large step with few iterations, corrections grew from 0.6 to 2.8 spacings in
// two iterations, and since the velocity is the displacement over dt they flung particles
// at any speed (the CFL step then shrank, making the next ones faster). A quarter spacing
// lets three iterations undo a 75 % overlap in one step; at the usual steps no correction
// comes near it (the default dam break's figures are unchanged to 0.5 %).
template <class V>
TP_HD TP_INLINE V pbf_limit_correction(const V& dx, const StepConstants& c) {
  const float limit = 0.25f * c.spacing;
  const auto len2 = dot(dx, dx);
  return select(len2 > limit * limit, dx * (limit / sqrt_lanes(len2)), dx);
}

// The tank's share of particle i's move in a correction pass (pbf_correct): the part of
// pbf_correction's sum the walls' samples (index below wall_n) gave, limited with the rest
// (pbf_limit_correction scales the whole), plus what pbf_project_to_walls then moved it.
// A displacement dx in a step is a velocity dx / dt, so m dx / dt is the walls' impulse
// on the water: PBF's walls push through these, not through a pressure. A measurement
// (Simulation::wall_fluid_force), run only when asked; scalar.
// in: positions with lambdas as pbf_correct read them, the pass's weight, where the step
// began (the projection's `start`).
TP_HD TP_INLINE Vec3 pbf_wall_share(uint i, const Vec4* predicted_lambda, const NeighborList& nl,
                                    const BoundaryView& b, const StepConstants& c, float weight,
                                    const Vec3& start) {
  const CubicKernel& W = c.kernel;
  const Vec4 own = predicted_lambda[i];
  const Vec3 xi = xyz(own);
  const Vec3 full = pbf_correction(i, predicted_lambda, nl, b, c) * weight;
  const Vec3 limited = pbf_limit_correction(full, c);
  const float full_length = length(full);
  const float share = full_length > 0.0f ? length(limited) / full_length : 1.0f;
  Vec3 walls{0.0f, 0.0f, 0.0f};
  for_each_boundary_neighbor(b, i, xi, W.h, [&](uint k, const Vec3& xik, float r, float volume) {
    if (k < b.wall_n) walls += pbf_sample_push(W.grad(xik, r), xi - xik, c) * (c.p.rest_density * volume * own.w);
  });
  const Vec3 moved = xi + limited;
  return walls * (weight * share / c.p.rest_density) + (pbf_project_to_walls(moved, start, c) - moved);
}

// Vorticity, the SPH curl omega_i = sum_j V_j grad_i W_ij x (v_j - v_i), V_j = m / rho_j
// ([MM13, Eq. 15] writes the same with the gradient taken with respect to x_j).
// in: predicted positions, velocities with 1/rho in w; returns omega_i.
template <class I>
TP_HD TP_INLINE Vec3Of<I> pbf_vorticity(I i, const Vec4* predicted, const Vec4* velocity_inv_density,
                                        const NeighborList& nl, const StepConstants& c) {
  using R = RealOf<I>;
  using V = Vec3Of<I>;
  const CubicKernel& W = c.kernel;
  const V xi = load_xyz(predicted, i);
  const V vi = load_xyz(velocity_inv_density, i);
  V omega{R(0.0f), R(0.0f), R(0.0f)};
  for_each_listed(nl, i, predicted, xi, W.h, [&](IndexOf<I> j, const V& xij, R r) {
    const auto vj = load_xyzw(velocity_inv_density, j);
    omega += cross(W.grad(xij, r), vj.xyz - vi) * (c.mass * vj.w);
  });
  return omega;
}

// The end of a step at x*, in one pass over particle i's neighbours [MM13, Alg. 1,
// lines 21-24], so that PBF reads its lists once more after the constraints, not three
// times:
//   - the density at x* (the step's end state, for the statistics), sph_density's sums;
//   - vorticity confinement [MM13, Eq. 16], when `vorticity` (omega from pbf_vorticity):
//     f_vort = eps_v (N x omega_i), N = eta / |eta|, eta = grad |omega| = sum_j V_j (|omega_j| - |omega_i|) grad W_ij;
//   - XSPH [MM13, Eq. 17]: c_xsph sum_j V_j (v_j - v_i) W_ij;
//   - the viscosity of sph_terms.h, explicit on the new velocities (walls as wall_slip says).
//   - with `multipliers` (the step's summed lambdas, for the next step's warm start): their
//     average over the neighbours, sum_j W_ij lambda_j / sum_j W_ij, into *smoothed. The
//     warm start then carries the column's pressure, not the particle-scale pattern that
//     three Jacobi iterations leave and that, warm-started again each step, kept a resting
//     pool trembling (docs/realtime.md, "The pool's 0.05 m/s").
// The neighbours' volumes V_j = m / rho_j are those of the last constraint pass: their
// densities at x* are being computed in the same pass.
// in: predicted positions, velocities from the displacement with 1/rho in w, vorticities
// (`omega`: xyz the vorticity, w its length; read only when `vorticity`); out: *density;
// returns v_i.
template <class I>
TP_HD TP_INLINE Vec3Of<I> pbf_end_of_step(I i, const Vec4* predicted, const Vec4* velocity_inv_density,
                                          const Vec4* omega, const NeighborList& nl,
                                          const BoundaryView& b, bool vorticity,
                                          const StepConstants& c, RealOf<I>* density,
                                          const float* multipliers = nullptr,
                                          RealOf<I>* smoothed = nullptr) {
  using R = RealOf<I>;
  using V = Vec3Of<I>;
  const CubicKernel& W = c.kernel;
  const V xi = load_xyz(predicted, i);
  const V vi = load_xyz(velocity_inv_density, i);
  const R zero(0.0f);
  const V omega_i = vorticity ? load_xyz(omega, i) : V{zero, zero, zero};
  const R omega_len = vorticity ? load_w(omega, i) : zero;
  const float nu = fluid_viscosity(c), nu_wall = wall_viscosity(c), eps = 0.01f * W.h * W.h;
  R w_sum = 0.0f, boundary_volume = 0.0f, lambda_sum = 0.0f;
  V eta{zero, zero, zero}, smooth{zero, zero, zero}, a_visc{zero, zero, zero};
  for_each_listed(nl, i, predicted, xi, W.h, [&](IndexOf<I> j, const V& xij, R r) {
    const R w = W.w(r);
    w_sum += w;
    if (multipliers) lambda_sum += w * load(multipliers, j);
    const auto vj_inv_rho = load_xyzw(velocity_inv_density, j);
    const R volume = c.mass * vj_inv_rho.w;
    const V vj = vj_inv_rho.xyz;
    // (each term is 0 for j = i)
    if (vorticity) eta += W.grad(xij, r) * (volume * (load_w(omega, j) - omega_len));
    smooth += (vj - vi) * (volume * w);
    a_visc += viscous_pair_acceleration(W, nu, volume, vi, vj, xij, r, eps);
  });
  for_each_boundary_neighbor(b, i, xi, W.h, [&](IndexOf<I> k, const V& xik, R r, R volume) {
    boundary_volume += volume * W.w(r);
    a_visc += viscous_pair_acceleration(W, nu_wall, volume, vi, load_xyz(b.velocity, k), xik, r, eps);
  });
  *density = density_from_sums(w_sum, boundary_volume, c);
  if (multipliers) *smoothed = lambda_sum / w_sum;  // (w_sum > 0: i lists itself)
  V v = vi + smooth * c.p.pbf_xsph + a_visc * c.dt;
  if (vorticity) {
    const R eta_len = length(eta);
    const V n = eta * select(eta_len > 1e-12f, 1.0f / eta_len, zero);
    v += cross(n, omega_i) * (c.p.pbf_vorticity * c.dt);
  }
  return v;
}

}  // namespace tp
