// DFSPH (Bender & Koschier 2015, 2017) as a list of phases; the per-particle physics is in
// kernels/dfsph.h and kernels/sph_terms.h. A step: the grid and the densities with each
// particle's stiffness sum; the divergence-free solve on the velocities the last step left
// (they stop compressing the water); the non-pressure forces and the time step; the
// constant-density solve (the density the step ends with is rho0); the move.
#pragma once

#include "kernels/dfsph.h"
#include "kernels/forces.h"
#include "sim/water/shared_phases.h"

namespace tp {

struct DfsphOutcome {
  int iterations = 0;
  double error = 0.0;  // the mean predicted compression (or growth, for the divergence) reached
};

// The bodies inside both solves (two-way coupling that is not a step late; in the spirit of
// Gissler et al. 2019, "Interlinked SPH pressure solvers for strong fluid-rigid coupling").
// The pressure solvers' bodies take the fluid's force of step n in step n + 1's move
// (rigid_bodies.h). DFSPH's divergence solve gives the water under a body moving into it
// the body's velocity at once, as if the body were infinitely heavy; a body lighter than
// the water it moves then took back more momentum than it had, two steps late, and
// bounced (a 2D box of 300 kg/m^3 at 0.27 m/s rms where it should rest: docs/bodies.md).
// So in DFSPH the water sees each body move as it will: its samples carry the body's
// velocity plus the change its next move will make from the fluid's latest sums (at the
// step's start), plus, each iteration, the change the solve's current pressure gives it
// within the step, taken by the body's share m / (m + 2 rho0 V) per iteration
// (RigidBodies::in_solve_share: a light body given all of it would swing by its added mass
// over its own), plus gravity's in the density solve. All on the backend, with no wait of
// its own. The bodies' moves are unchanged: they still take the final pressures' force in
// the next step, the action equal to the reaction.
template <class B>
class DfsphBodies {
 public:
  // At the step's start (after the grid), dt the last step's.
  void start(SimulationImpl<B>& sim, float dt) {
    on_ = sim.has_bodies();
    if (!on_) return;
    const SimParams& p = sim.constants().p;
    sim.rigid_bodies().solve_start(dt, Vec3{p.gravity_x, p.gravity_y, p.gravity_z}, p.rest_density);
    sim.offset_body_sample_velocities();
  }
  // In an iteration, after its pressure forces: the fluid's force on each body at this
  // pressure (a gather of its own: the sums the next move takes stay as they are, for a
  // retaken step's start), each body's change moved by its share towards what that force
  // gives within dt, and the samples with it.
  void iterate(SimulationImpl<B>& sim, float dt) {
    if (!on_) return;
    sim.gather_body_forces(true);
    sim.rigid_bodies().solve_iterate(dt);
    sim.offset_body_sample_velocities();
  }
  // Between the solves (dt this step's).
  void next_solve(SimulationImpl<B>& sim, float dt) {
    if (!on_) return;
    sim.rigid_bodies().solve_next(dt);
    sim.offset_body_sample_velocities();
  }

 private:
  bool on_ = false;
};

// Both solves' loop: Jacobi iterations on `pressure` (one per particle, its warm start on
// entry, the solved pressure on return) until the mean residual, as a share of rho0, is
// within `tolerance` after at least `min_iterations`, or the cap. Each iteration: the
// walls' pressure from the fluid's (with the hydrostatic term for the density solve), the
// pressure acceleration and the velocity it gives within dt (from fluid.velocity plus, for
// the density solve, dt times fluid.acceleration, the non-pressure forces), the density's
// rate of change at those velocities and its residual; then, unless done, each pressure
// moves by its stiffness times its residual (and, at tight tolerances, past that by the
// Chebyshev semi-iteration: dfsph_chebyshev_weight). Leaves the final pressure acceleration in
// fluid.aux and the velocity it gives in fluid.predicted: the loop ends on the pressures
// whose outcome it checked.
template <class B>
DfsphOutcome dfsph_loop(SimulationImpl<B>& sim, float* pressure, float dt, bool density_solve,
                        double tolerance, int min_iterations, DfsphBodies<B>& bodies, bool own_start,
                        float allowed = 0.0f) {
  const FluidView f = sim.fluid.view();
  const NeighborList nl = sim.fluid_list();
  const BoundaryView b = sim.boundary_view();
  const SampleLists s = sim.sample_lists();
  const StepConstants k = sim.constants();
  Vec4* a_p = sim.fluid.aux.data();
  Vec4* v_pred = sim.fluid.predicted.data();
  const float* grad_sum = sim.fluid.spare_f.data();  // (density_and_gradient_sums)
  float* residual = f.scratch;  // (its density error is measured: free)
  const float rho0 = k.p.rest_density, inv_rho0_2 = 1.0f / (rho0 * rho0);
  B::for_each(f.n, [=] TP_HD(uint i) {
    f.position_term[i] = make_vec4(xyz(f.position[i]), pressure[i] * inv_rho0_2);
  });
  float* before = sim.fluid.best_pressure.data();  // (PCISPH's: free here) the pressures an update earlier
  float last_omega = 1.0f, last_max = 0.0f;
  // (Where it cannot apply, the realtime quality's solves and a switch's, the loop keeps no
  // pressures of the update before.)
  bool chebyshev = own_start && allowed <= 0.0f && dfsph_chebyshev_tolerance(tolerance);
  DfsphOutcome out;
  for (out.iterations = 1;; ++out.iterations) {
    B::for_each(s.n, [=] TP_HD(uint q) {
      if (q < *s.listed) b.pressure[s.sample[q]] = boundary_pressure(q, s, f, b, k, pressure, density_solve);
    });
    B::for_each_lanes(f.n, TP_LANES(i) {
      const auto ap = pressure_acceleration(i, f.position_term, nl, b, k);
      store_xyz(a_p, i, ap);
      // (The divergence solve's accelerations are not this step's yet: on a device after a
      // reset, any memory, and 0 times a NaN is a NaN. They are not read.)
      auto v = load_xyz(f.velocity, i) + ap * dt;
      if (density_solve) v = v + load_xyz(f.acceleration, i) * dt;
      store_xyz(v_pred, i, v);
    });
    bodies.iterate(sim, dt);  // (the bodies' change at this pressure)
    B::for_each_lanes(f.n, TP_LANES(i) {
      const auto rate = density_rate(i, f.position, v_pred, nl, b, k);
      const auto rho = load(f.density, i);
      store(residual, i, density_solve ? dfsph_density_residual(rho, rate, dt, rho0, allowed)
                                       : dfsph_divergence_residual(rho, rate, dt, rho0));
    });
    const float* res = residual;
    const auto error = B::reduce_sum_max(f.n, [=] TP_HD(uint i) { return dfsph_error(res[i], rho0); });
    out.error = error.sum / f.n;
    if ((out.iterations >= min_iterations && out.error <= tolerance) || out.iterations >= k.p.dfsph_max_iterations)
      return out;
    // (A worst residual grown by a fifth in an extrapolated update: the projected solve has
    // left the semi-iteration's linear theory; plain Jacobi for the rest of the solve.)
    if (last_omega != 1.0f && error.max > kDfsphChebyshevGuard * last_max) chebyshev = false;
    last_max = error.max;
    const float omega = chebyshev ? dfsph_chebyshev_weight(out.iterations, last_omega, tolerance) : 1.0f;
    last_omega = omega;
    const bool keep = chebyshev;
    B::for_each_lanes(f.n, TP_LANES(i) {
      // The Jacobi step on the diagonal of the pressure's system (the stiffness), halved,
      // and past it by the semi-iteration's omega.
      const auto stiffness = kDfsphRelaxation * dfsph_stiffness(load(grad_sum, i), dt, k);
      const auto now = load(pressure, i);
      auto p = dfsph_pressure(now, load(residual, i), stiffness);
      if (omega != 1.0f) p = dfsph_accelerated(p, load(before, i), omega);
      if (keep) store(before, i, now);
      store(pressure, i, p);
      store_xyzw(f.position_term, i, load_xyz(f.position, i), p * inv_rho0_2);
    });
  }
}

// The divergence-free solve [BK17, Alg. 2] on the velocities the last step left, at the
// last step's time step (the velocities it gives do not depend on it: the pressure scales
// as 1 / dt), warm-started from the last step's (kept as pressure times step, so that a
// change of step keeps the impulse). Writes the velocities, and the impulse for the next
// step and for the bodies (dfsph_pressure_solve).
template <class B>
int dfsph_divergence_solve(SimulationImpl<B>& sim, DfsphBodies<B>& bodies) {
  const FluidView f = sim.fluid.view();
  const StepConstants& c = sim.constants();
  const float dt = c.dt > 0.0f ? c.dt : c.p.dt_max;
  float* impulse = sim.fluid.divergence_impulse.data();
  float* pressure = sim.fluid.target_density.data();  // (PCISPH's: free here)
  // Only from its own last step: otherwise the impulses are stale, or on a device, after a
  // reset, whatever memory the buffer was given (a NaN there stopped the emulated device's
  // dam break at its first step).
  const bool own = sim.previous_solver() == int(SolverKind::Dfsph) && sim.pressures_kept();
  const float warm = own ? kDfsphDivergenceWarmStart / dt : 0.0f;
  // Between steps fluid.pressure holds both solves' pressure (dfsph_pressure_solve): the
  // density solve's own, its next start, is that less the impulse's share (at the last
  // step's dt, which c.dt still is), taken out before the impulse is overwritten.
  if (own) {
    float* p = f.pressure;
    const float inv_dt = 1.0f / dt;
    B::for_each(f.n, [=] TP_HD(uint i) { p[i] = maxf(p[i] - impulse[i] * inv_dt, 0.0f); });
  }
  B::for_each(f.n, [=] TP_HD(uint i) { pressure[i] = warm > 0.0f ? dfsph_warm_start(impulse[i], warm) : 0.0f; });
  bodies.start(sim, dt);
  const DfsphOutcome out =
      dfsph_loop(sim, pressure, dt, false, 0.01 * c.p.dfsph_divergence_tolerance, 1, bodies, own);
  const Vec4* v = sim.fluid.predicted.data();
  const StepConstants k = c;
  B::for_each(f.n, [=] TP_HD(uint i) {
    // (within the speed limit, as every velocity a step leaves: speed_limit 1 m/s saw 1.2)
    f.velocity[i] = make_vec4(limit_speed(xyz(v[i]), k), f.velocity[i].w);
    impulse[i] = pressure[i] * dt;
  });
  return out.iterations;
}

// Viscosity, gravity, the mouse, surface tension and adhesion at the divergence-free
// velocities, then the time step: the flow's CFL step (DFSPH has no speed of sound), held
// to what the density solve's iterations can hold up in water as deep as this
// (dfsph_holding_step).
template <class B>
void dfsph_nonpressure_forces(SimulationImpl<B>& sim) {
  const FluidView f = sim.fluid.view();
  sim.nonpressure_accelerations();
  sim.add_surface_forces(f.position, f.acceleration, 1.0f);
  StepConstants& c = sim.constants();
  sim.record_extent(nullptr);  // the water's depth: for the holding step, and the compression allowed after a switch
  const auto most = sim.flow_maxima(false);
  float dt = flow_time_step(most.speed, most.acceleration, c);
  dt = fminf(dt, fmaxf(dfsph_holding_step(c, sim.extent_seen(), gravity_magnitude(c)), c.p.dt_min));
  c.dt = sim.limit_dt(dt);
}

// The constant-density solve [BK17, Alg. 3], warm-started from the last step's pressure
// (WCSPH's and PCISPH's are pressures too: a switch from them starts there; PBF keeps
// none). Adds the pressure acceleration to fluid.acceleration. The bodies take the
// reaction to both solves' pressures. The step's iterations recorded are both
// solves' (`divergence_iterations` the first's): the work, as PCISPH's loop counts its.
template <class B>
void dfsph_pressure_solve(SimulationImpl<B>& sim, int divergence_iterations, DfsphBodies<B>& coupled) {
  const FluidView f = sim.fluid.view();
  const StepConstants& c = sim.constants();
  const int previous = sim.pressures_kept() ? sim.previous_solver() : -1;
  const float warm = previous == int(SolverKind::Dfsph) ? kDfsphWarmStart
                     : previous == int(SolverKind::Wcsph) || previous == int(SolverKind::Pcisph) ? 1.0f
                                                                                                   : 0.0f;
  float* pressure = f.pressure;
  B::for_each(f.n, [=] TP_HD(uint i) { pressure[i] = warm > 0.0f ? dfsph_warm_start(pressure[i], warm) : 0.0f; });
  const double since = sim.solver_time();
  // After a switch, twice the mean compression the other solver left (its deepest layers'):
  // what is there is let out gradually.
  const float allowed =
      switch_allowed_compression(float(since), 2.0f * sim.compression_at_switch(), sim.extent_seen());
  coupled.next_solve(sim, c.dt);
  const DfsphOutcome out = dfsph_loop(sim, pressure, c.dt, true, 0.01 * c.p.dfsph_tolerance, 2, coupled,
                                      previous == int(SolverKind::Dfsph), allowed);
  const Vec4* a_p = sim.fluid.aux.data();
  B::for_each(f.n, [=] TP_HD(uint i) {
    f.acceleration[i] = make_vec4(xyz(f.acceleration[i]) + xyz(a_p[i]), 0.0f);
  });
  // What the step's water felt is both solves' pressure: the divergence solve's impulse
  // over this step is a pressure of impulse / dt on top of this one's. fluid.pressure holds
  // the sum until the next step (what a snapshot, the pressure colours and the bodies
  // read: the density solve's alone read 0.72 of rho g H on the floor of a 2D pool).
  // (The p/rho0^2 terms only for the bodies' reaction, which reads them.)
  const float* impulse = sim.fluid.divergence_impulse.data();
  const float inv_dt = 1.0f / c.dt, inv_rho0_2 = 1.0f / (c.p.rest_density * c.p.rest_density);
  const bool bodies = sim.has_bodies();
  B::for_each(f.n, [=] TP_HD(uint i) {
    pressure[i] += impulse[i] * inv_dt;
    if (bodies) f.position_term[i] = make_vec4(xyz(f.position[i]), pressure[i] * inv_rho0_2);
  });
  if (bodies) {
    const BoundaryView b = sim.boundary_view();
    const SampleLists s = sim.sample_lists();
    const StepConstants k = c;
    B::for_each(s.n, [=] TP_HD(uint q) {
      if (q < *s.listed) b.pressure[s.sample[q]] = boundary_pressure(q, s, f, b, k, pressure);
    });
    sim.gather_body_forces();  // the bodies' reaction, for their next move
  }
  sim.record_iterations(divergence_iterations + out.iterations, out.error);
}

template <class B>
double Dfsph<B>::step(SimulationImpl<B>& sim) {
  sim.phase("grid", [&] { sim.sort_particles(); });
  sim.phase("density", [&] { sim.density_and_gradient_sums(); });
  int divergence_iterations = 0;
  DfsphBodies<B> bodies;
  sim.phase("divergence", [&] { divergence_iterations = dfsph_divergence_solve(sim, bodies); });
  sim.phase("forces", [&] { dfsph_nonpressure_forces(sim); });
  sim.phase("pressure", [&] { dfsph_pressure_solve(sim, divergence_iterations, bodies); });
  sim.phase("integrate", [&] { sim.integrate(); });
  return sim.constants().dt;
}

}  // namespace tp
