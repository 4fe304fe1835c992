// WCSPH (Becker & Teschner 2007) as a list of phases; the per-particle physics is in
// kernels/wcsph.h and kernels/forces.h.
#pragma once

#include "sim/simulation_impl.h"

namespace tp {

template <class B>
double Wcsph<B>::step(SimulationImpl<B>& sim) {
  StepConstants& c = sim.constants();
  sim.phase("grid", [&] { sim.sort_particles(); });
  sim.phase("density", [&] { sim.compute_density(); });
  sim.phase("pressure", [&] {
    const FluidView f = sim.fluid.view();
    const GridView g = sim.grid_view();
    const BoundaryView b = sim.boundary_view();
    const StepConstants k = c;
    B::for_each(f.n, [=] TP_HD(uint i) {
      const float p = tait_pressure(f.density[i], k);
      const float inv_rho = 1.0f / f.density[i];
      f.pressure[i] = p;
      f.pressure_term[i] = p * inv_rho * inv_rho;
      f.inv_density[i] = inv_rho;
    });
    B::for_each(b.n, [=] TP_HD(uint s) { b.pressure[s] = boundary_pressure(s, f, g, b, k); });
  });
  sim.phase("forces", [&] {
    const FluidView f = sim.fluid.view();
    const GridView g = sim.grid_view();
    const BoundaryView b = sim.boundary_view();
    const StepConstants k = c;
    B::for_each(f.n, [=] TP_HD(uint i) {
      const Vec3 a = wcsph_acceleration(i, f, g, b, k) +
                     body_acceleration(xyz(f.position[i]), xyz(f.velocity[i]), k);
      f.acceleration[i] = make_vec4(a, 0.0f);
    });
  });
  sim.phase("integrate", [&] {
    c.dt = wcsph_time_step(sim.max_speed(), sim.max_acceleration(), sim.max_density_ratio(), c);
    sim.integrate();
  });
  return c.dt;
}

}  // namespace tp
