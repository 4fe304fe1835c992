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

// delta of [SP09, Eq. 8] for this time step, from a particle with a full neighbourhood on
// the initial lattice: delta = -1 / (beta (-sum grad W . sum grad W - sum grad W . grad W)),
// beta = 2 (dt m / rho0)^2. The first sum vanishes on a full lattice, so
// delta = rho0^2 / (2 dt^2 m^2 sum |grad W|^2), with the sum precomputed at reset.
TP_HD TP_INLINE float pcisph_delta(const StepConstants& c) {
  const float m = c.mass, rho0 = c.p.rest_density;
  return rho0 * rho0 / (2.0f * c.dt * c.dt * m * m * c.lattice_grad2);
}

// Predicted position [SP09, Alg. 2]: v* = v + dt (a_nonpressure + a_pressure), x* = x + dt v*.
// in: position, velocity, a_nonpressure (acceleration), a_pressure; out: returned x*.
TP_HD TP_INLINE Vec3 pcisph_predict(uint i, const FluidView& f, const Vec4* a_pressure,
                                    const StepConstants& c) {
  const Vec3 v = xyz(f.velocity[i]) + (xyz(f.acceleration[i]) + xyz(a_pressure[i])) * c.dt;
  return xyz(f.position[i]) + v * c.dt;
}

// Pressure correction [SP09, Alg. 2]: p += delta (rho* - rho0), kept >= 0 so that the free
// surface does not pull. Returns the new pressure.
TP_HD TP_INLINE float pcisph_pressure(float pressure, float predicted_density, float delta,
                                      const StepConstants& c) {
  return fmaxf(pressure + delta * (predicted_density - c.p.rest_density), 0.0f);
}

}  // namespace tp
