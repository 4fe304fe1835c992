// PCISPH (Solenthaler & Pajarola 2009) as a list of phases; the per-particle physics is in
// kernels/pcisph.h and kernels/sph_terms.h.
#pragma once

#include "kernels/forces.h"
#include "kernels/pcisph.h"
#include "sim/water/shared_phases.h"

namespace tp {

// Viscosity, gravity, the mouse, surface tension and adhesion (the non-pressure forces), then the time step, which
// PCISPH needs before its pressure loop (delta depends on it): the flow's CFL step, capped
// by the limit the loop's convergence has taught (see pcisph_pressure_solve).
template <class B>
void pcisph_nonpressure_forces(SimulationImpl<B>& sim) {
  const FluidView f = sim.fluid.view();
  sim.nonpressure_accelerations();
  sim.add_surface_forces(f.position, f.acceleration, 1.0f);
  StepConstants& c = sim.constants();
  // The loop works best near the step at which its pressure holds the water up
  // (pcisph_holding_step, from the water's depth along gravity). Coming from another
  // solver (or a reset) the step starts there; afterwards the loop's convergence moves it
  // (pcisph_pressure_solve), within half and 1.2 times it. Beyond that the loop falls off
  // a cliff: it converges in four iterations and then, 10 % further, not in fifty, and
  // splashes the top of a resting column 20 cm high. Below: from a step too small the loop
  // undoes whatever compression it finds within that short step, a burst of speed
  // (measured: 0.16 -> 0.9 m/s in a resting column, PBF -> PCISPH at 1 ms), and a loop that
  // stalls would otherwise shrink the step to nothing and freeze the water.
  // The depth is the water's extent along gravity, but once PCISPH has run, the upper bound
  // takes the depth its own pressure says (the previous step's highest pressure over
  // rho0 g) when that is less: the extent counts a splash thrown up a wall, or a drop
  // falling into a pool, as water to hold up. (The reference dam break, tolerance 0.1 %,
  // 29,791 particles, 1 s: 1,948 -> 1,762 steps, mean density error 0.022 -> 0.025 %, 3.04
  // iterations either way.) Only the upper bound: a pressure that has not built up yet (a
  // block let go, water in free fall) must not lift the lower one, and the step grows
  // towards the higher cap by 5 % a step at most. Nor does the cap rise more than twofold
  // (a quarter of the extent): water falling with no pressure at all still lands at a step
  // the loop can take.
  const float g_abs = gravity_magnitude(c);
  // The water's extent along gravity and the previous step's highest pressure (in cell
  // order: pcisph_loop's), reduced with the flow's maxima (one wait).
  sim.record_extent(f.pressure);
  const auto most = sim.flow_maxima(false);
  const float extent = sim.extent_seen();
  const float p_max = sim.recorder().seen().extra.c;
  constexpr float kExtentShare = 0.25f;  // the pressure's depth counts as at least this much
  const float holding = pcisph_holding_step(c, extent, g_abs);
  if (sim.previous_solver() != int(SolverKind::Pcisph)) {
    sim.set_solver_dt_limit(holding);
  } else {
    const float pressure_depth = g_abs > 0.0f ? p_max / (c.p.rest_density * g_abs) + c.spacing : extent;
    const float depth = fminf(extent, fmaxf(pressure_depth, kExtentShare * extent));
    const float holding_up = pcisph_holding_step(c, depth, g_abs);
    sim.set_solver_dt_limit(fminf(fmaxf(sim.solver_dt_limit(), 0.5f * holding), 1.2f * holding_up));
  }
  c.dt = fminf(flow_time_step(most.speed, most.acceleration, c), sim.solver_dt_limit());
  c.dt = sim.limit_dt(  // (the NaN guard may halve it)
      bounded_time_step(c.dt, stable_time_step(most.speed, most.acceleration, c), c));
}

// The predict-correct loop [SP09, Alg. 2] at the time step in sim.constants(), from zero
// pressure. Each iteration predicts the positions under the current pressure force and
// measures their density against its target (rho0, or for a particle that starts the
// step jammed a little under its present density: pcisph_target_density); once the excess
// is within bounds (after at least three corrections) the loop ends there, so the force the
// integration uses is the one whose outcome was checked. Otherwise the pressures rise by
// delta times the excess and the force is recomputed. A loop that reaches the cap without
// converging keeps the pressures of its best iteration: the one furthest within, or least
// beyond, both bounds (the mean's and the worst particle's, each as a share of its bound).
// Leaves the pressure acceleration in fluid.aux.
//
// Best by the mean alone kept, where a film of water jammed against a wall or a body could
// not be relieved, the last iteration's: the mean falls a little every iteration while the
// jammed particles' pressures grow by delta times their excess each time, to 0.3 to 1.2 MPa
// after 50. What that threw: the 2D dam break's front at the far corner 33 m/s (with 2D's
// viscosity corrected), a dam break thrown at a hollow mesh box 18.7 m/s, a box of
// 1,200 kg/m^3 landing flat on the floor 20.9 m/s; by both bounds 9.2, 5.4 and 8.2 m/s.
//
// Zero start, as in [SP09]: starting from the previous step's pressures (a warm start)
// saves iterations in deep water but turns the loop into an integrator of the density
// error with no damping: a resting 32-particle column then rang up until its top was
// thrown off (kinetic energy 0.1 J -> 40 J in 0.1 s); half the previous pressure (IISPH's
// choice) still threw 50 J in the first 0.3 s. From zero, pressure is built within the
// step from the predicted compression, so deep water settles with its mean compression
// just under the tolerance.
struct PcisphOutcome {
  int iterations = 0;
  double error = 0.0;  // the mean predicted compression reached
  bool converged = false;
};

template <class B>
PcisphOutcome pcisph_loop(SimulationImpl<B>& sim) {
  const FluidView f = sim.fluid.view();
  const NeighborList nl = sim.fluid_list();
  const BoundaryView b = sim.boundary_view();
  const SampleLists s = sim.sample_lists();
  const StepConstants k = sim.constants();
  // The predicted positions are met by the samples where they will be: a body moving
  // into water is then made room for within the step, not left to compress it by
  // v dt / s (12 % a step for floating_2d's disc landing at 1.5 m/s) before each loop.
  const BoundaryView b_ahead = sim.boundary_view_ahead(k.dt);
  Vec4* a_p = sim.fluid.aux.data();
  Vec4* predicted = sim.fluid.predicted.data();
  float* best = sim.fluid.best_pressure.data();
  float* delta = sim.fluid.spare_f.data();  // delta's neighbour sums (density_and_gradient_sums)
  float* target = sim.fluid.target_density.data();
  const double tolerance = 0.01 * k.p.pcisph_tolerance;
  // The mean may hide a pocket about to burst: no particle may be far beyond the bound.
  const float worst_allowed = float(fmax(5.0 * tolerance, 0.02));
  // After a switch, the mean compression the other solver left: a particle may keep up to
  // that of what it starts with, less and less (pcisph_target_density). (Twice it, as DFSPH
  // allows, let PCISPH's loop stall on a column WCSPH left 2 % compressed and then throw
  // it at 2.7 m/s as the allowance fell.)
  const float allowed =
      switch_allowed_compression(float(sim.solver_time()), sim.compression_at_switch(), sim.extent_seen());
  B::for_each(f.n, [=] TP_HD(uint i) {
    delta[i] = pcisph_delta_from_sum(delta[i], k);
    target[i] = pcisph_target_density(f.density[i], worst_allowed, allowed, float(tolerance), k);  // (the step's start)
    f.pressure[i] = 0.0f;
    f.position_term[i] = make_vec4(xyz(f.position[i]), 0.0f);
  });
  const float inv_rho0 = 1.0f / k.p.rest_density;
  // The pressure force from the pressures (their p/rho0^2 terms already written), and in
  // the same pass the positions it predicts.
  auto pressure_force = [&](bool fluid_pressure) {
    B::for_each(s.n, [=] TP_HD(uint q) {
      if (q < *s.listed) b.pressure[s.sample[q]] = boundary_pressure(q, s, f, b, k);
    });
    B::for_each_lanes(f.n, TP_LANES(i) {
      store_xyz(a_p, i, pressure_acceleration(i, f.position_term, nl, b, k, fluid_pressure));
      store_xyz(predicted, i, pcisph_predict(i, f, a_p, k));
    });
  };
  pressure_force(false);  // every fluid pressure is 0: only the walls' (hydrostatic) push
  // [SP09] always corrects at least three times: stopping as soon as the error is within
  // the bound lets a resting column fall freely until it is compressed by the bound, and
  // the loop must then stop the whole column at once, which throws the top off.
  constexpr int kMinIterations = 3;
  const float* err = f.scratch;
  float* predicted_density = f.density;
  PcisphOutcome out;
  double best_error = 1e30, best_score = 1e30;
  int best_iteration = 0;
  for (out.iterations = 1;; ++out.iterations) {
    B::for_each_lanes(f.n, TP_LANES(i) {
      const auto rho = sph_density(i, predicted, nl, b_ahead, k);
      store(predicted_density, i, rho);
      store(f.scratch, i, excess_over(rho, load(target, i)));
    });
    const auto error = B::reduce_sum_max(f.n, [=] TP_HD(uint i) { return err[i]; });
    out.error = error.sum / f.n;
    const float worst = error.max;
    if (out.iterations >= kMinIterations && out.error <= tolerance && worst <= worst_allowed) {
      out.converged = true;
      return out;
    }
    const double score = fmax(out.error / fmax(tolerance, 1e-6), double(worst) / worst_allowed);
    const bool keep = score < best_score;  // the best pressures so far: kept below
    if (keep) {
      best_score = score;
      best_error = out.error;
      best_iteration = out.iterations;
    }
    if (out.iterations >= k.p.pcisph_max_iterations) {
      if (keep) B::for_each(f.n, [=] TP_HD(uint i) { best[i] = f.pressure[i]; });
      break;
    }
    // The correction, with the copy of the best pressures and the p/rho0^2 terms of the
    // pressure force in the same pass.
    B::for_each_lanes(f.n, TP_LANES(i) {
      const auto p = load(f.pressure, i);
      if (keep) store(best, i, p);
      const auto corrected = pcisph_pressure(p, load(predicted_density, i), load(target, i), load(delta, i));
      store(f.pressure, i, corrected);
      store_xyzw(f.position_term, i, load_xyz(f.position, i), corrected * (inv_rho0 * inv_rho0));
    });
    pressure_force(true);
  }
  if (best_iteration != out.iterations) {
    B::for_each(f.n, [=] TP_HD(uint i) {
      f.pressure[i] = best[i];
      f.position_term[i] = make_vec4(xyz(f.position[i]), best[i] * inv_rho0 * inv_rho0);
    });
    pressure_force(true);
    out.error = best_error;
  }
  return out;
}

// The pressure solve and the adaptive step (after Ihmsen et al. 2010, "Boundary handling
// and adaptive time-stepping for PCISPH"). The loop's delta shrinks as 1/dt^2: at a large
// step it builds pressure too slowly to hold deep water up, and diverges (a resting
// 32-particle column: 5 ms). But a small step is no cure for a compression that is already
// there: the loop undoes it within the step, and the shorter the step the faster the
// particles must move (halving the step on failure turned a 3 % pocket into 50 m/s). So
// the limit on the step follows the loop's work from step to step: up 5 % after a step
// converged in four iterations or fewer, down 20 % after one that needed more than ten
// or did not converge.
template <class B>
void pcisph_pressure_solve(SimulationImpl<B>& sim) {
  const FluidView f = sim.fluid.view();
  const StepConstants& c = sim.constants();
  const PcisphOutcome out = pcisph_loop(sim);
  sim.gather_body_forces();  // the bodies' reaction to the final pressures, for their next move
  if (!out.converged || out.iterations > 10) sim.set_solver_dt_limit(0.8f * c.dt);
  else if (out.iterations <= 4) sim.set_solver_dt_limit(1.05f * c.dt);
  else sim.set_solver_dt_limit(c.dt);
  const Vec4* a_p = sim.fluid.aux.data();
  B::for_each(f.n, [=] TP_HD(uint i) {
    f.acceleration[i] = make_vec4(xyz(f.acceleration[i]) + xyz(a_p[i]), 0.0f);
  });
  sim.record_iterations(out.iterations, out.error);
}

template <class B>
double Pcisph<B>::step(SimulationImpl<B>& sim) {
  sim.phase("grid", [&] { sim.sort_particles(); });
  sim.phase("density", [&] { sim.density_and_gradient_sums(); });
  sim.phase("forces", [&] { pcisph_nonpressure_forces(sim); });
  sim.phase("pressure", [&] { pcisph_pressure_solve(sim); });
  sim.phase("integrate", [&] { sim.integrate(); });
  return sim.constants().dt;
}

}  // namespace tp
