// PBF (Macklin & Mueller 2013) as a list of phases; the per-particle physics is in
// kernels/pbf.h and kernels/sph_terms.h.
#pragma once

#include "kernels/boundary.h"
#include "kernels/forces.h"
#include "kernels/pbf.h"
#include "sim/water/shared_phases.h"

namespace tp {

// Gravity and the mouse, the time step, and the predicted positions
// x* = x + dt (v + dt a), projected into the tank [MM13, Alg. 1, lines 1-4]. Viscosity,
// which needs neighbours, comes at the end of the step with XSPH (pbf_update_velocity),
// so that a step searches for neighbours once, at x*, as in [MM13, Alg. 1, line 5].
template <class B>
void pbf_predict(SimulationImpl<B>& sim) {
  const FluidView f = sim.fluid.view();
  {
    const StepConstants k = sim.constants();
    B::for_each(f.n, [=] TP_HD(uint i) {
      f.acceleration[i] = make_vec4(body_acceleration(xyz(f.position[i]), xyz(f.velocity[i]), k), 0.0f);
    });
  }
  StepConstants& c = sim.constants();
  // In 2D the step is also held to what the iterations can hold up (pbf_holding_step):
  // the water's extent along gravity comes with the flow's maxima (the same wait).
  const bool hold = c.dimensions == 2;
  if (hold) sim.record_extent(nullptr);
  const auto most = sim.flow_maxima(false);
  float dt = flow_time_step(most.speed, most.acceleration, c);
  if (hold) {
    dt = fminf(dt, fmaxf(pbf_holding_step(c, sim.extent_seen(), gravity_magnitude(c)), c.p.dt_min));
  }
  c.dt = sim.limit_dt(dt);
  // The obstacles and bodies move first, to where the step ends: the predicted positions
  // are the step's end, and the constraints and the projection measure them against the
  // bodies there. (A body's move takes the water's force of the step before, which that
  // step measured against where this move starts: the bodies' force is never a step older
  // than their pose. Moved at the step's end instead, as the other solvers' are, the water
  // met each body a step behind it as well, and the floating scene's boxes bobbed.)
  sim.advance_obstacles();
  const StepConstants k = c;
  Vec4* predicted = sim.fluid.predicted.data();
  B::for_each(f.n, [=] TP_HD(uint i) {
    const Vec3 x = pbf_unprojected(xyz(f.position[i]), xyz(f.velocity[i]), xyz(f.acceleration[i]), k.dt);
    predicted[i] = make_vec4(pbf_project_to_walls(x, xyz(f.position[i]), k), 0.0f);
  });
}

// One Jacobi correction pass: every particle moves by its correction (pbf_correction,
// weighted by `weight`, then limited: pbf_limit_correction) from the positions in
// `carried`, which it reads with the multipliers (as they were before this pass's moves),
// into `predicted`, with the tank projection.
template <class B>
void pbf_correct(SimulationImpl<B>& sim, const Vec4* carried, float weight) {
  const FluidView f = sim.fluid.view();
  const NeighborList nl = sim.fluid_list();
  const BoundaryView b = sim.boundary_view();
  StepConstants k = sim.constants();
  k.p.pbf_scorr_k *= pbf_scorr_share(sim.solver_time());  // eased in after a switch
  Vec4* predicted = sim.fluid.predicted.data();
  B::for_each_lanes(f.n, TP_LANES(i) {
    const auto dx = pbf_limit_correction(pbf_correction(i, carried, nl, b, k) * weight, k);
    store_xyz(predicted, i, pbf_project_to_walls(load_xyz(carried, i) + dx, load_xyz(f.position, i), k));
  });
  // While the walls' force is measured: their share of this pass's moves (pbf_wall_share).
  if (Vec4* walls = sim.wall_moves()) {
    B::for_each(f.n, [=] TP_HD(uint i) {
      walls[i] = make_vec4(xyz(walls[i]) + pbf_wall_share(i, carried, nl, b, k, weight, xyz(f.position[i])), 0.0f);
    });
  }
}

// While the walls' force is measured (Simulation::measure_walls): the prediction's
// projection into the tank, the first of the step's moves by the walls. After the sort,
// from the sorted positions and velocities, as pbf_predict made x* from them (the same
// operations, so a particle the projection left alone has exactly 0).
template <class B>
void pbf_measure_prediction(SimulationImpl<B>& sim) {
  Vec4* walls = sim.wall_moves();
  if (!walls) return;
  const FluidView f = sim.fluid.view();
  const StepConstants k = sim.constants();
  const Vec4* predicted = sim.fluid.predicted.data();
  B::for_each(f.n, [=] TP_HD(uint i) {
    const Vec3 x0 = xyz(f.position[i]), v0 = xyz(f.velocity[i]);
    const Vec3 x = pbf_unprojected(x0, v0, body_acceleration(x0, v0, k), k.dt);
    walls[i] = make_vec4(xyz(predicted[i]) - x, 0.0f);
  });
  sim.walls_measured();
}

// The most of the warm start a step takes while dynamic bodies are in the water. The bodies
// move by the water's force of the step before (rigid_bodies.h: the sums come back at the
// next step's one wait), and the warm start gives the water a step-old pressure as well;
// at the realtime quality's half share the two lags together made the floating scene's
// boxes bob where the accurate quality rests them. With the bodies moved at the end of the
// step (8,100 particles, the 5th and 6th seconds): 0.28, 0.21 and 0.18 m/s rms, up to
// 0.75 m/s, and a quarter share was needed. Moved first (pbf_predict) they rest up to
// 0.45 (0.017 m/s rms at most) and bob again at 0.5 (0.11 m/s rms at 8,100, 0.05 to
// 0.11 from 6,000 to 13,000 particles); 0.4 leaves a margin: 0.009, 0.002 and 0.004 m/s
// rms, the water 1.2 % compressed on average over the first 6 s (1.0 % at 0.5, 1.6 % at
// a quarter). docs/bodies.md has the table.
constexpr float kPbfWarmStartWithBodies = 0.4f;

// The warm start (pbf_warm_start): the step starts with a correction pass from the last
// step's summed multipliers (f.pressure), scaled by the share and by (dt / last dt)^2 (a
// multiplier is a displacement, which a pressure makes in proportion to dt^2), before the
// iterations measure what is left. Only after a step of PBF's own, kept (not after a
// reset, a restored state, a retaken step or another solver, whose pressures are not
// multipliers); else the sums start from zero. Returns whether it moved the water.
template <class B>
bool pbf_warm_start(SimulationImpl<B>& sim, Vec4* carried) {
  const FluidView f = sim.fluid.view();
  const StepConstants k = sim.constants();
  const Vec4* predicted = sim.fluid.predicted.data();
  const bool own = sim.previous_solver() == int(SolverKind::Pbf) && sim.pressures_kept();
  const float last = float(sim.last_dt());
  const float share = sim.rigid_bodies().any_dynamic() ? fminf(k.p.pbf_warm_start, kPbfWarmStartWithBodies)
                                                       : k.p.pbf_warm_start;
  const float scale = own && last > 0.0f && share > 0.0f ? share * (k.dt / last) * (k.dt / last) : 0.0f;
  float* sum = f.pressure;
  B::for_each(f.n, [=] TP_HD(uint i) {
    sum[i] = scale > 0.0f ? sum[i] * scale : 0.0f;
    carried[i] = make_vec4(xyz(predicted[i]), sum[i]);
  });
  if (scale == 0.0f) return false;
  sim.gather_body_forces_pbf(carried, true, 1.0f);  // the bodies' share of this correction too
  pbf_correct(sim, carried, 1.0f);
  return true;
}

// The density constraint, Jacobi iterations [MM13, Alg. 1, lines 7-19]: lambda, then the
// corrections and the move (each correction limited: pbf_limit_correction) with the tank
// projection, the last iteration's weighted by pbf_final_weight. pbf_iterations of them,
// after the warm start (pbf_warm_start); with a pbf_tolerance, the loop stops once the
// mean compression that an iteration's lambda pass measured (before its correction) is
// below it, after at least two iterations, as the reference library's loop does (one
// reduction per iteration: a host wait on CUDA). f.pressure ends with each particle's
// multipliers summed over the step (the warm start's share included), which
// pbf_update_velocity averages over the neighbours when the warm start is on: the next
// step's warm start, and what snapshots and state files show.
template <class B>
void pbf_solve(SimulationImpl<B>& sim) {
  const FluidView f = sim.fluid.view();
  const NeighborList nl = sim.fluid_list();
  const BoundaryView b = sim.boundary_view();
  const StepConstants k = sim.constants();
  Vec4* predicted = sim.fluid.predicted.data();
  double first_error = 0.0;
  const int cap = k.p.pbf_iterations;
  const double tolerance = 0.01 * k.p.pbf_tolerance;
  constexpr int kMinIterations = 2;
  // Each particle's lambda goes with its position into `carried`, which the corrections
  // read (one load of a neighbour gives both).
  Vec4* carried = sim.fluid.aux.data();
  // Per particle, the velocity the bodies' projection gave it and the body (spare4 is free
  // until pbf_update_velocity).
  Vec4* projected = sim.has_bodies() ? sim.fluid.spare4.data() : nullptr;
  pbf_measure_prediction(sim);
  const bool warmed = pbf_warm_start(sim, carried);
  float* sum = f.pressure;
  int it = 0;
  while (it < cap) {
    B::for_each_lanes(f.n, TP_LANES(i) {
      RealOf<decltype(i)> rho;
      const auto l = pbf_lambda(i, predicted, nl, b, k, &rho);
      store_xyzw(carried, i, load_xyz(predicted, i), l);
      store(sum, i, load(sum, i) + l);
      store(f.density, i, rho);
      store(f.scratch, i, compression(rho, k));
    });
    // The bodies' share of this iteration's corrections (their samples' reaction).
    const float weight = it + 1 == cap ? k.p.pbf_final_weight : 1.0f;
    sim.gather_body_forces_pbf(carried, it == 0 && !warmed, weight);
    // The compression the prediction had: read at the next wait, unless the loop waits
    // for its errors anyway.
    double error = 0.0;
    if (tolerance > 0.0) {
      const float* err = f.scratch;
      error = B::reduce_sum(f.n, [=] TP_HD(uint i) { return err[i]; }) / f.n;
      if (it == 0) first_error = error;
    } else if (it == 0) {
      sim.recorder().first_error(f.scratch, f.n);
      first_error = NAN;
    }
    // The corrections and the move in one pass (Jacobi). The last iteration's may be
    // damped (pbf_final_weight; with a tolerance, the cap's).
    pbf_correct(sim, carried, weight);
    // The bodies' projection (pbf_project_from_bodies), in a pass of its own: what it moves
    // a particle, summed over the iterations, is momentum the body gives the water, taken
    // back after the loop as the clamp's pushes are.
    if (projected) {
      const BodyArrayView bodies = k.bodies;
      const float inv_dt = 1.0f / k.dt;
      const bool first = it == 0;
      B::for_each(f.n, [=] TP_HD(uint i) {
        if (first) projected[i] = Vec4{0.0f, 0.0f, 0.0f, -1.0f};
        // Only a particle that listed a body's sample can be within half a spacing of its
        // surface (the samples lie on it, at most a spacing apart, and the list reaches
        // 2 spacings; the iterations' corrections are limited): the rest skip the bodies.
        if (!lists_object_sample(b, i)) return;
        Vec3 x = xyz(predicted[i]), dx;
        const int body = pbf_project_from_bodies(x, xyz(f.position[i]), bodies, k.spacing, k.dt, &dx);
        if (body < 0) return;
        predicted[i] = make_vec4(x, predicted[i].w);
        // (a particle between two bodies is given to the last that moved it)
        projected[i] = make_vec4(xyz(projected[i]) + dx * inv_dt, float(body));
      });
    }
    ++it;
    if (tolerance > 0.0 && it >= kMinIterations && error <= tolerance) break;
  }
  if (sim.has_bodies()) {
    sim.sum_body_forces();
    if (it > 0) sim.take_back_pushes(projected, predicted);  // (projected: there are bodies)
  }
  sim.record_iterations(it, first_error);
}

// Velocities from the displacement; the vorticities, when confinement is on; then one pass
// (pbf_end_of_step) for the density at the corrected positions (the step's end state: its
// compression goes into the statistics), vorticity confinement, XSPH and the viscosity;
// then the move [MM13, Alg. 1, lines 21-24].
template <class B>
void pbf_update_velocity(SimulationImpl<B>& sim) {
  const FluidView f = sim.fluid.view();
  const NeighborList nl = sim.fluid_list();
  const BoundaryView b = sim.boundary_view();
  const StepConstants k = sim.constants();
  const Vec4* predicted = sim.fluid.predicted.data();
  Vec4* omega = sim.fluid.aux.data();
  const float inv_dt = 1.0f / k.dt;
  // The velocities from the displacement, with 1/rho of the last constraint pass (the
  // density it left), which the vorticity and the end-of-step pass read.
  Vec4* v_inv_rho = f.velocity_inv_density;
  B::for_each(f.n, [=] TP_HD(uint i) {
    v_inv_rho[i] = make_vec4((xyz(predicted[i]) - xyz(f.position[i])) * inv_dt, 1.0f / f.density[i]);
  });
  const bool vorticity = k.p.pbf_vorticity > 0.0f;
  if (vorticity)
    B::for_each_lanes(f.n, TP_LANES(i) {
      const auto w = pbf_vorticity(i, predicted, v_inv_rho, nl, k);
      store_xyzw(omega, i, w, length(w));  // |omega| in w, for the end of step's eta
    });
  Vec4* out = sim.fluid.spare4.data();
  // With the warm start on, the summed multipliers averaged over the neighbours in the
  // same pass (pbf_end_of_step), into out's w, then over the sums: what the next step's
  // warm start takes (and what snapshots and state files keep).
  const float* multipliers = k.p.pbf_warm_start > 0.0f ? f.pressure : nullptr;
  B::for_each_lanes(f.n, TP_LANES(i) {
    RealOf<decltype(i)> rho, smoothed(0.0f);
    const auto v = pbf_end_of_step(i, predicted, v_inv_rho, omega, nl, b, vorticity, k, &rho, multipliers, &smoothed);
    store_xyzw(out, i, v, smoothed);
    store(f.density, i, rho);
    store(f.scratch, i, compression(rho, k));
  });
  if (multipliers) {
    float* sum = f.pressure;
    B::for_each(f.n, [=] TP_HD(uint i) { sum[i] = out[i].w; });
  }
  sim.record_state_error();
  // Surface tension and adhesion: the external force of the next step's prediction (so
  // before its constraint projection), taken here where the neighbours at x* are known
  // and their densities just measured, as the viscosity is: the step searches once.
  sim.add_surface_forces(predicted, out, k.dt);
  sim.fluid.velocity.swap(sim.fluid.spare4);
  sim.commit_predicted();
}

template <class B>
double Pbf<B>::step(SimulationImpl<B>& sim) {
  sim.phase("forces", [&] { pbf_predict(sim); });
  sim.phase("grid", [&] { sim.sort_by_predicted(); });
  sim.phase("constraints", [&] { pbf_solve(sim); });
  sim.phase("velocity", [&] { pbf_update_velocity(sim); });
  return sim.constants().dt;
}

}  // namespace tp
