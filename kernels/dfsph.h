// Divergence-free SPH: Bender & Koschier 2015, "Divergence-free smoothed particle
// hydrodynamics" (SCA 2015), and 2017, "Divergence-free SPH for incompressible and viscous
// fluids" (IEEE TVCG 23(3)) [BK17]. Each step makes the velocity field divergence-free
// (the density stops changing) and then, after the non-pressure forces, solves for the
// pressure that brings the density the step will end with back to rho0. Both are the
// same Jacobi iteration on a pressure, each warm-started from its own of the last step;
// they differ in what they ask of the density's rate of change (dfsph_density_residual,
// dfsph_divergence_residual).
//
// [BK17] writes the solve with a stiffness kappa_i and alpha_i per particle; here it is
// written with the pressure p_i = rho0^2 kappa_i / rho_i, so that the force is the
// symmetric pressure force every solver shares (sph_terms.h: pressure_acceleration, the
// walls' pressure extrapolated as the other solvers' are, the bodies' reaction the same).
#pragma once

#include "density.h"
#include "particles.h"
#include "sph_terms.h"

namespace tp {

// How much pressure removes a density excess of 1 kg/m^3 within a step dt, were particle
// i's neighbours' pressures zero [BK17, Eqs. 9-11: kappa_i = (rho*_i - rho0) alpha_i /
// dt^2, alpha_i = rho_i / (|sum_j m grad W_ij|^2 + sum_j |m grad W_ij|^2)]:
//   p_i = rho0^2 / (dt^2 m^2 (|sum grad W|^2 + sum |grad W|^2)) per kg/m^3,
// from the neighbour sum PCISPH's delta also uses (density_and_gradient_sum, density.h),
// gathered with the density once per grid build.
template <class R>
TP_HD TP_INLINE R dfsph_stiffness(R grad_sum, float dt, const StepConstants& c) {
  const float m = c.mass, rho0 = c.p.rest_density;
  return (rho0 * rho0 / (dt * dt * m * m)) / grad_sum;
}

// The rate at which particle i's density changes while the particles move at `velocity`
// and the boundary samples at theirs [BK17, Eq. 5; the boundary: Akinci et al. 2012]:
//   D rho_i / Dt = sum_j m (v_i - v_j) . grad W_ij + sum_b psi_b (v_i - v_b) . grad W_ib.
// in: positions (where the lists were built), velocities (xyz); returns [kg/m^3/s].
template <class I>
TP_HD TP_INLINE RealOf<I> density_rate(I i, const Vec4* position, const Vec4* velocity,
                                       const NeighborList& nl, const BoundaryView& b,
                                       const StepConstants& c) {
  using R = RealOf<I>;
  using V = Vec3Of<I>;
  const CubicKernel& W = c.kernel;
  const V xi = load_xyz(position, i);
  const V vi = load_xyz(velocity, i);
  R fluid = 0.0f, boundary = 0.0f;
  for_each_listed(nl, i, position, xi, W.h, [&](IndexOf<I> j, const V& xij, R r) {
    fluid += dot(vi - load_xyz(velocity, j), W.grad(xij, r));  // 0 for j = i
  });
  for_each_boundary_neighbor(b, i, xi, W.h, [&](IndexOf<I> k, const V& xik, R r, R volume) {
    boundary += volume * dot(vi - load_xyz(b.velocity, k), W.grad(xik, r));
  });
  return c.mass * fluid + c.p.rest_density * boundary;
}

// The constant-density solve's residual [BK17, Eq. 7]: how far above its target the
// density would end the step, rho_i + dt D rho_i / Dt - target [kg/m^3] (negative where
// the particle would end below it: the free surface, water drawing apart). The target is
// rho0, but water that starts the step compressed may keep up to `allowed` (a share of
// rho0) of it: after a switch from a solver that leaves water compressed (WCSPH 1 to 2 %,
// PBF at few iterations), what is there is let out gradually (switch_allowed_compression,
// density.h).
// Asked for rho0 at once, a column 32 particles deep switched from PBF threw its top at
// 1.2 m/s, from WCSPH at 5.5: every layer expanding by its compression within one step.
template <class R>
TP_HD TP_INLINE R dfsph_density_residual(R density, R rate, float dt, float rest_density, float allowed) {
  return density + rate * dt - maxf(minf(density, rest_density * (1.0f + allowed)), rest_density);
}

// The divergence solve's residual [BK17, Sec. 4.1]: the density's change within the step,
// dt D rho_i / Dt, less what the particle lacks of rho0. Water at rest density keeps it;
// a particle short of neighbours (the free surface, a splash) may gain density until it
// reaches rho0, as it lands: [BK17]'s own guard, leaving out particles with fewer than 20
// neighbours, is the same in spirit but needs a count per dimension and spacing.
template <class R>
TP_HD TP_INLINE R dfsph_divergence_residual(R density, R rate, float dt, float rest_density) {
  return rate * dt - maxf(rest_density - density, 0.0f);
}

// The share of the Jacobi step taken and of the last step's pressure each solve starts
// from. [BK17] takes the whole step and starts from the whole pressure; here the whole
// step diverged (1.24 times a step in a resting column; 0.7 and 0.8 diverged too, and so
// did the whole step with the walls' extrapolated pressure in the diagonal or with the
// reference library's walls: Jacobi on this system is not diagonally dominant where a
// particle has 30 neighbours), and the whole pressure made the solve an undamped integrator (the column
// rang up, 0.6 -> 0.9 J in 1.5 s; with three quarters a 2D shear wave decayed at 0.70 of
// its viscosity's rate). SPlisHSPlasH also starts from half. docs/solvers.md has the rest.
constexpr float kDfsphRelaxation = 0.5f;
constexpr float kDfsphWarmStart = 0.5f;
constexpr float kDfsphDivergenceWarmStart = 0.5f;

// Chebyshev semi-iteration on the Jacobi solve (Golub & Varga 1961; for position-based
// solvers Wang 2015, "A Chebyshev semi-iterative approach for accelerating projective and
// position-based dynamics"): from the kDfsphChebyshevStart-th update on, each pressure moves
// past its Jacobi update, p = omega (p_jacobi - p_before) + p_before, p_before the pressure
// an update earlier, with omega_1 = 2 / (2 - r^2), omega_k = 4 / (4 - r^2 omega_(k-1)) for
// an estimate r of the Jacobi iteration's spectral radius. Jacobi takes out about 1 % of a
// deep column's smoothest error an update (r about 0.99: the resting column 32 particles
// deep ran to its cap, 100 iterations, every step at 0.08 % mean compression); with the
// semi-iteration the same column stops at the tolerance, 0.05 %, after 24. r = 0.995 and
// 0.999 shook the column (the semi-iteration is linear theory, the solve is projected and
// stops at a tolerance), as 0.97 did in an earlier try; 0.9 and 0.95 converged slower.
// The driver (dfsph_loop) uses it only where it held in every test:
// - for tolerances of at most kDfsphChebyshevTolerance: at the realtime quality's 0.5 % the
//   solve stops after the few first extrapolated updates, and the deep 2D dam break's first
//   steps from the lattice then left a floor particle 34 % compressed (18 % without); at
//   0.2 % and 0.1 % the same run's worst particle was 6 % and 11 % (13.5 and 13.7 % without)
//   in a third of the iterations;
// - on a solve that starts from DFSPH's own last pressure, with no compression allowed
//   after a switch: the settling column switched through the four solvers went to the
//   speed limit (50 m/s) from PBF's nothing, and to 20.8 m/s under the falling allowance
//   after WCSPH;
// - until the worst residual grows by more than kDfsphChebyshevGuard in an update.
constexpr float kDfsphChebyshevRadius = 0.99f;
constexpr int kDfsphChebyshevStart = 5;
constexpr float kDfsphChebyshevTolerance = 0.002f;  // (a share of rho0: 0.2 %)
// A solve whose worst residual grows by more than this in an extrapolated update goes on
// with plain Jacobi (the 2D floating scene flung water at 22 m/s without it:
// docs/solvers.md#dfsph).
constexpr float kDfsphChebyshevGuard = 1.2f;

// Whether a solve to `tolerance` (a share of rho0) may take the semi-iteration: at most
// kDfsphChebyshevTolerance. (1.0001: the tolerance arrives as 0.01 times a float
// percentage, and 0.2 % is in.)
TP_HD TP_INLINE bool dfsph_chebyshev_tolerance(double tolerance) {
  return tolerance <= 1.0001 * kDfsphChebyshevTolerance;
}

// The semi-iteration's omega for the solve's `update`-th pressure update (1, 2, ...), the
// last update's being `last`; 1 (the plain Jacobi update) before kDfsphChebyshevStart and
// for a solve whose tolerance (a share of rho0) is looser than kDfsphChebyshevTolerance.
TP_HD TP_INLINE float dfsph_chebyshev_weight(int update, float last, double tolerance) {
  if (!dfsph_chebyshev_tolerance(tolerance) || update < kDfsphChebyshevStart) return 1.0f;
  const float r2 = kDfsphChebyshevRadius * kDfsphChebyshevRadius;
  return update == kDfsphChebyshevStart ? 2.0f / (2.0f - r2) : 4.0f / (4.0f - r2 * last);
}

// The pressure an update of weight omega gives from its Jacobi update and the pressure an
// update earlier, kept >= 0 as dfsph_pressure's.
template <class R>
TP_HD TP_INLINE R dfsph_accelerated(R jacobi, R before, float omega) {
  return maxf(omega * (jacobi - before) + before, 0.0f);
}

// A solve's start: `share` of the last step's value, or 0 where that is not a pressure
// (negative, NaN or beyond any water's: what a slot that no step wrote may hold).
TP_HD TP_INLINE float dfsph_warm_start(float last, float share) {
  const float p = last * share;
  return p >= 0.0f && p < 1e12f ? p : 0.0f;
}

// One Jacobi update of a pressure, kept >= 0 (water does not pull: a projected Jacobi
// step of the complementarity problem p >= 0, residual <= 0, p residual = 0). [BK17]
// updates with the full stiffness and only ever raises kappa (it clamps the residual at
// 0); letting p fall where the water draws apart is what lets the warm start's pressure
// leave where it is no longer needed.
template <class R>
TP_HD TP_INLINE R dfsph_pressure(R pressure, R residual, R stiffness) {
  return maxf(pressure + stiffness * residual, 0.0f);
}

// The residual as the loops measure it, as a share of rho0, >= 0: the density error
// PCISPH's loop also reports (compression), here predicted by the rate.
template <class R>
TP_HD TP_INLINE R dfsph_error(R residual, float rest_density) {
  return maxf(residual, 0.0f) * (1.0f / rest_density);
}

// The longest step at which DFSPH's density solve holds a column of water `depth` deep up
// (iterations_holding_step, sph_terms.h, with k the iteration cap). In deep water the
// Jacobi solve cannot build the hydrostatic pressure within its cap at a frame's step
// (dam_break_2d, 80 particles deep, accurate: 100 iterations and a floor pressure of
// 5.6-8.4 kPa against rho g H 9.8), the column compresses, and a layered velocity mode with
// no divergence (alternate rows +-0.1 m/s along gravity near the floor) grows unseen by the
// solve's linear prediction: measured less predicted density 0.8, 17, 78, 134, 203 kg/m^3 at
// a floor particle over 5 ms steps, then the floor bursts. A bound on the worst particle in
// the solve did not stop it. The solve that stops at a looser tolerance holds less:
// kHold = 0.004 at the realtime quality's 0.5 % (0.006 let a particle reach 38-41 %, 0.008
// burst), 0.008 at the accurate 0.05 % (whose 5 ms steps then go unheld in the 2D draft
// tests' pool, 31 deep, as before: at 3.7 ms their boxes floated 1.5 % of their height
// higher), (0.5 % / tolerance)^0.3 between. Measured (docs/solvers.md, 1.5 s, without -> with):
//   dam_break_2d realtime 50 m/s, worst particle 78 % -> 10.6 m/s, 17 %; accurate 46 % -> 22 %;
//   floating_2d realtime 49.5 m/s, 68 % -> 3.7 m/s, 22 %;
//   dam_break at 125,000 particles (3D, 50 deep) realtime: 28.7 m/s, 89 %, 83 s of wall time
//   -> 13.9 m/s, 25 %, 54 s; at 8,000 (20 deep) it holds the first steps only, at no cost.
TP_HD TP_INLINE float dfsph_holding_step(const StepConstants& c, float depth, float g) {
  const float tolerance = minf(maxf(c.p.dfsph_tolerance, 0.05f), 10.0f);
  const float hold = 0.004f * powf(0.5f / tolerance, 0.3f);
  return iterations_holding_step(c, hold, c.p.dfsph_max_iterations, depth, g);
}

}  // namespace tp
