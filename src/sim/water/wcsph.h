// WCSPH (Becker & Teschner 2007) as a list of phases; the per-particle physics is in
// kernels/wcsph.h and kernels/forces.h.
#pragma once

#include "sim/water/shared_phases.h"

namespace tp {

// Tait pressure of every particle (and p/rho^2, 1/rho for the force loop), then the
// walls' pressure extrapolated from the fluid [Adami 2012].
template <class B>
void wcsph_pressure(SimulationImpl<B>& sim) {
  const FluidView f = sim.fluid.view();
  const BoundaryView b = sim.boundary_view();
  const SampleLists s = sim.sample_lists();
  const StepConstants k = sim.constants();
  B::for_each(f.n, [=] TP_HD(uint i) {
    const float p = tait_pressure(f.density[i], k);
    const float inv_rho = 1.0f / f.density[i];
    f.pressure[i] = p;
    f.position_term[i] = make_vec4(xyz(f.position[i]), p * inv_rho * inv_rho);
    f.velocity_inv_density[i] = make_vec4(xyz(f.velocity[i]), inv_rho);
  });
  B::for_each(s.n, [=] TP_HD(uint q) {
      if (q < *s.listed) b.pressure[s.sample[q]] = boundary_pressure(q, s, f, b, k);
    });
}

// Pressure, viscosity, gravity and the mouse: the acceleration of every particle; then
// surface tension and adhesion, when on.
template <class B>
void wcsph_forces(SimulationImpl<B>& sim) {
  const FluidView f = sim.fluid.view();
  const NeighborList nl = sim.fluid_list();
  const BoundaryView b = sim.boundary_view();
  const StepConstants k = sim.constants();
  B::for_each_lanes(f.n, TP_LANES(i) {
    store_xyz(f.acceleration, i, wcsph_acceleration(i, f, nl, b, k) +
                                     body_acceleration(load_xyz(f.position, i), load_xyz(f.velocity, i), k));
  });
  sim.add_surface_forces(f.position, f.acceleration, 1.0f);
  sim.gather_body_forces();  // the bodies' reaction, for their next move
}

// The time step from this step's speeds, accelerations and compression, then the move.
template <class B>
void wcsph_integrate(SimulationImpl<B>& sim) {
  StepConstants& c = sim.constants();
  const auto most = sim.flow_maxima(true);
  c.dt = sim.limit_dt(wcsph_time_step(most.speed, most.acceleration, most.density_ratio, c));
  sim.integrate();
}

template <class B>
double Wcsph<B>::step(SimulationImpl<B>& sim) {
  sim.phase("grid", [&] { sim.sort_particles(); });
  sim.phase("density", [&] { sim.compute_density(); });
  sim.phase("pressure", [&] { wcsph_pressure(sim); });
  sim.phase("forces", [&] { wcsph_forces(sim); });
  sim.phase("integrate", [&] { wcsph_integrate(sim); });
  return sim.constants().dt;
}

}  // namespace tp
