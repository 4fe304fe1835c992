// Predictive-corrective incompressible SPH: Solenthaler & Pajarola 2009, "Predictive-
// corrective incompressible SPH" (SIGGRAPH 2009) [SP09]. Each step: non-pressure forces,
// then a loop that predicts positions from the current pressure force, measures the
// predicted density, raises the pressure by delta times the density error, and recomputes
// the pressure force, until the error is below a bound.
#pragma once

#include "density.h"
#include "particles.h"
#include "sph_terms.h"

namespace tp {

// delta of [SP09, Eq. 8] for particle i's actual neighbourhood (fluid and boundary samples,
// the boundary standing in for fluid as its pressure mirrors the fluid's), never above the
// full lattice's: in a neighbourhood denser than the lattice (a compressed pocket, the
// packing PBF's s_corr leaves) the lattice's delta over-corrects, and the loop diverges.
// [SP09, Eq. 8]: delta = -1 / (beta (-sum grad W . sum grad W - sum grad W . grad W)),
// beta = 2 (dt m / rho0)^2, i.e. rho0^2 / (2 dt^2 m^2 (|sum grad W|^2 + sum |grad W|^2)).
// Its neighbour sum, |sum grad W|^2 + sum |grad W|^2, does not depend on the step, so it
// is gathered in the step's density pass (density_and_gradient_sum, density.h; DFSPH's
// stiffness is made of it too) and turned into delta once the step is known: one pass
// over the lists instead of two.
TP_HD TP_INLINE float pcisph_delta_from_sum(float delta_sum, const StepConstants& c) {
  const float m = c.mass, rho0 = c.p.rest_density;
  return rho0 * rho0 / (2.0f * c.dt * c.dt * m * m * delta_sum);
}

// The time step at which the loop holds up water `depth` deep under gravity g: after N
// corrections at a compression e, the pressure is about N delta rho0 e, and it must reach
// rho0 g depth, so dt^2 = N rho0^2 e / (2 m^2 sum|grad W|^2 g depth). Pressure starts from
// zero every step, so the water rests with that compression: e is half the tolerance, so
// that a settling or sloshing transient fits under the tolerance. (With e at the
// tolerance, water left evenly compressed by PBF sagged past it after a switch, the loop
// stalled at its iteration cap for dozens of steps, and the next solver pushed the
// compression out at 1.2 m/s.) A larger step lets the water sag until it holds; a smaller
// one makes the loop undo any compression it finds within that short step.
TP_HD TP_INLINE float pcisph_holding_step(const StepConstants& c, float depth, float g) {
  constexpr float kCorrections = 5.0f;
  const float m = c.mass, rho0 = c.p.rest_density, e = 0.5f * 0.01f * c.p.pcisph_tolerance;
  return sqrtf(kCorrections * rho0 * rho0 * e /
               (2.0f * m * m * c.lattice_grad2 * maxf(g * depth, 1e-6f)));
}

// Predicted position [SP09, Alg. 2]: v* = v + dt (a_nonpressure + a_pressure), x* = x + dt v*.
// in: position, velocity, a_nonpressure (acceleration), a_pressure; out: returned x*.
// (I: a particle index or 16 lanes, kernels/lanes.h; R below: float or 16 lanes.)
template <class I>
TP_HD TP_INLINE Vec3Of<I> pcisph_predict(I i, const FluidView& f, const Vec4* a_pressure,
                                         const StepConstants& c) {
  const Vec3Of<I> v = load_xyz(f.velocity, i) + (load_xyz(f.acceleration, i) + load_xyz(a_pressure, i)) * c.dt;
  return load_xyz(f.position, i) + v * c.dt;
}

// The density particle i's loop aims at this step, from its density at the step's start.
// Water with room to move aims at rho0. A particle that starts the step compressed beyond
// `jammed` (the loop's bound on any one particle) is let down gradually: as if its
// neighbours drew apart at kReliefSpeed, i.e. by rho0 d v dt / s a step in d dimensions,
// and not below rho0. Such a particle is wedged between surfaces (a body settling on the
// floor, water squeezed into a corner), where asking for rho0 within one step cannot be
// met: the loop's pressure there then grows with every iteration, to megapascals, and
// what it finally does move is thrown at tens of metres a second (floating_2d, whose disc
// settles on the floor: 50 m/s within 1.5 s; 3.5 m/s with this relief).
// The loop accepts a particle up to `jammed` above its target, so a jammed particle may end
// its step a little denser than it began. That is what lets the resting jam be: asked not to
// grow at all (target (rho_start - relief) / (1 + jammed), or the least of that and
// rho_start / (1 + jammed)), floating_2d's disc was thrown half a metre up again. It
// ratchets only where something keeps pushing water in that the loop does not see: bodies
// moving one step ahead of it did (2.7 rho0 beside the 3D floating scene's box, 8.8 rho0
// under floating_2d's disc), until the loop met the samples where they will be
// (SimulationImpl::boundary_view_ahead); the worst is 7 to 10 % since.
// After a switch from another solver, a particle may also keep up to `allowed` of the
// compression it starts with (switch_allowed_compression, density.h): its target is then
// its start over (1 + tolerance), since the loop accepts a mean `tolerance` above the
// targets and a target at the start itself let the compression ratchet up step by step.
constexpr float kReliefSpeed = 0.1f;  // [m/s]
TP_HD TP_INLINE float pcisph_target_density(float start_density, float jammed, float allowed, float tolerance,
                                            const StepConstants& c) {
  const float rho0 = c.p.rest_density;
  const float kept = maxf(rho0, minf(start_density, rho0 * (1.0f + allowed)) / (1.0f + tolerance));
  if (!(start_density > rho0 * (1.0f + jammed))) return kept;
  const float relief = rho0 * float(c.dimensions) * kReliefSpeed * c.dt / c.spacing;
  return maxf(kept, start_density - relief);
}

// How far a predicted density lies above the particle's target (>= 0): the loop's error.
template <class R>
TP_HD TP_INLINE R excess_over(R density, R target) {
  return maxf(density / target - 1.0f, 0.0f);
}

// Pressure correction [SP09, Alg. 2]: p += delta (rho* - target), with target rho0 but
// where a particle is jammed (pcisph_target_density); kept >= 0 so that the free surface
// does not pull. Returns the new pressure.
template <class R>
TP_HD TP_INLINE R pcisph_pressure(R pressure, R predicted_density, R target, R delta) {
  return maxf(pressure + delta * (predicted_density - target), 0.0f);
}

}  // namespace tp
