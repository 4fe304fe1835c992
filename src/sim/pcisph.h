// PCISPH (Solenthaler & Pajarola 2009) as a list of phases; the per-particle physics is in
// kernels/pcisph.h and kernels/sph_terms.h.
#pragma once

#include "kernels/forces.h"
#include "kernels/pcisph.h"
#include "sim/simulation_impl.h"

namespace tp {

// Viscosity, gravity and the mouse (the non-pressure forces), then the time step, which
// PCISPH needs before its pressure loop (delta depends on it): the flow's CFL step, capped
// by the limit the loop's convergence has taught (see pcisph_pressure_solve).
template <class B>
void pcisph_nonpressure_forces(SimulationImpl<B>& sim) {
  const FluidView f = sim.fluid.view();
  const GridView g = sim.grid_view();
  const BoundaryView b = sim.boundary_view();
  const StepConstants k = sim.constants();
  B::for_each(f.n, [=] TP_HD(uint i) { f.inv_density[i] = 1.0f / f.density[i]; });
  B::for_each(f.n, [=] TP_HD(uint i) {
    const Vec3 a = viscous_acceleration(i, f, g, b, k) +
                   body_acceleration(xyz(f.position[i]), xyz(f.velocity[i]), k);
    f.acceleration[i] = make_vec4(a, 0.0f);
  });
  StepConstants& c = sim.constants();
  c.dt = fminf(flow_time_step(sim.max_speed(), sim.max_acceleration(), c), sim.solver_dt_limit());
  c.dt = fmaxf(c.dt, c.p.dt_min);
}

// One run of the predict-correct loop [SP09, Alg. 2] at the time step in sim.constants(),
// starting from the pressures in the fluid (the previous step's, or zero). Each iteration
// predicts the positions under the current pressure force and measures their density;
// if the compression is within bounds the loop ends there, so the force the integration
// uses is the one whose outcome was checked. Otherwise the pressures rise by delta times
// the density error and the force is recomputed. Leaves the pressure acceleration in
// fluid.aux. Returns true when the bounds were met; *iterations counts the predictions.
template <class B>
bool pcisph_iterate(SimulationImpl<B>& sim, int* iterations, double* error, float* worst) {
  const FluidView f = sim.fluid.view();
  const GridView g = sim.grid_view();
  const BoundaryView b = sim.boundary_view();
  const StepConstants k = sim.constants();
  Vec4* a_p = sim.fluid.aux.data();
  Vec4* predicted = sim.fluid.predicted.data();
  const float delta = pcisph_delta(k);
  const float inv_rho0 = 1.0f / k.p.rest_density;
  auto pressure_force = [&] {
    B::for_each(f.n, [=] TP_HD(uint i) { f.pressure_term[i] = f.pressure[i] * inv_rho0 * inv_rho0; });
    B::for_each(b.n, [=] TP_HD(uint s) { b.pressure[s] = boundary_pressure(s, f, g, b, k); });
    B::for_each(f.n, [=] TP_HD(uint i) {
      a_p[i] = make_vec4(pressure_acceleration(i, f.position, f.pressure_term, g, b, k), 0.0f);
    });
  };
  pressure_force();
  const double tolerance = 0.01 * k.p.pcisph_tolerance;
  // The mean may hide a pocket about to burst: no particle may be far beyond the bound.
  const float worst_allowed = float(fmax(5.0 * tolerance, 0.02));
  constexpr int kMinIterations = 3;
  const float* err = f.scratch;
  float* predicted_density = f.density;
  for (*iterations = 1;; ++*iterations) {
    B::for_each(f.n, [=] TP_HD(uint i) {
      predicted[i] = make_vec4(pcisph_predict(i, f, a_p, k), 0.0f);
    });
    B::for_each(f.n, [=] TP_HD(uint i) {
      const float rho = sph_density(xyz(predicted[i]), predicted, g, b, k);
      predicted_density[i] = rho;
      f.scratch[i] = compression(rho, k);
    });
    *error = B::reduce_sum(f.n, [=] TP_HD(uint i) { return err[i]; }) / f.n;
    *worst = B::reduce_max(f.n, 0.0f, [=] TP_HD(uint i) { return err[i]; });
    // [SP09] always corrects at least three times: stopping as soon as the error is within
    // the bound lets a resting column fall freely until it is compressed by the bound, and
    // the loop must then stop the whole column at once, which throws the top off.
    if (*iterations >= kMinIterations && *error <= tolerance && *worst <= worst_allowed)
      return true;
    if (*iterations >= k.p.pcisph_max_iterations) return false;
    B::for_each(f.n, [=] TP_HD(uint i) {
      f.pressure[i] = pcisph_pressure(f.pressure[i], predicted_density[i], delta, k);
    });
    pressure_force();
  }
}

// The pressure solve with an adaptive step (after Ihmsen et al. 2010, "Boundary handling
// and adaptive time-stepping for PCISPH"): PCISPH's delta shrinks as 1/dt^2, so at a
// large step the loop builds pressure too slowly to hold a deep fluid up, and can diverge.
// A step whose loop does not reach the tolerance is redone at half the time step (the
// particles have not moved yet); a limit on the step follows how hard the loop had to
// work, growing by 5 % when it converged in four iterations or fewer and shrinking by 20 %
// when it needed more than ten.
//
// Each step's pressures start from zero, as in [SP09]. Starting from the previous step's
// pressures (a warm start) saves iterations in deep water but turns the loop into an
// integrator of the density error with no damping: a resting 32-particle column then
// rings up until its top is thrown off (measured: kinetic energy 0.1 J -> 40 J in 0.1 s).
template <class B>
void pcisph_pressure_solve(SimulationImpl<B>& sim) {
  const FluidView f = sim.fluid.view();
  B::for_each(f.n, [=] TP_HD(uint i) { f.pressure[i] = 0.0f; });
  StepConstants& c = sim.constants();
  int iterations = 0, total = 0;
  double error = 0.0;
  float worst = 0.0f;
  bool converged = pcisph_iterate(sim, &iterations, &error, &worst);
  total += iterations;
  for (int retry = 0; !converged && retry < 6 && c.dt > 2.0f * c.p.dt_min; ++retry) {
    c.dt = fmaxf(0.5f * c.dt, c.p.dt_min);
    B::for_each(f.n, [=] TP_HD(uint i) { f.pressure[i] = 0.0f; });
    converged = pcisph_iterate(sim, &iterations, &error, &worst);
    total += iterations;
  }
  if (!converged || iterations > 10) sim.set_solver_dt_limit(0.8f * c.dt);
  else if (iterations <= 4) sim.set_solver_dt_limit(1.05f * c.dt);
  else sim.set_solver_dt_limit(c.dt);
  const Vec4* a_p = sim.fluid.aux.data();
  B::for_each(f.n, [=] TP_HD(uint i) {
    f.acceleration[i] = make_vec4(xyz(f.acceleration[i]) + xyz(a_p[i]), 0.0f);
  });
  sim.record_iterations(total, error);
}

template <class B>
double Pcisph<B>::step(SimulationImpl<B>& sim) {
  sim.phase("grid", [&] { sim.sort_particles(); });
  sim.phase("density", [&] { sim.compute_density(); });
  sim.phase("forces", [&] { pcisph_nonpressure_forces(sim); });
  sim.phase("pressure", [&] { pcisph_pressure_solve(sim); });
  sim.phase("integrate", [&] { sim.integrate(); });
  return sim.constants().dt;
}

}  // namespace tp
