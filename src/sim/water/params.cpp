#include "sim/water/params.h"


namespace tp {

namespace {

constexpr auto real = &real_field<SimParams>;
constexpr auto whole = &whole_field<SimParams>;
constexpr auto choice = &choice_field<SimParams>;

// Marks a parameter as belonging to one solver (the panel shows it only for that one).
ParamInfo only(SolverKind solver, ParamInfo info) {
  info.solver = int(solver);
  return info;
}

std::vector<ParamInfo> make_table() {
  using P = SimParams;
  return {
      choice("solver", "Solver", &P::solver, 0, solver_names(),
             "Pressure solver. WCSPH: weakly compressible SPH (Becker & Teschner 2007), "
             "explicit, small time steps. PCISPH: predictive-corrective (Solenthaler & "
             "Pajarola 2009), iterates pressure to a density tolerance. PBF: position based "
             "fluids (Macklin & Mueller 2013), a few constraint iterations, large steps. "
             "DFSPH: divergence-free SPH (Bender & Koschier 2015), a divergence-free and a "
             "constant-density solve, each warm-started, large steps. Switching keeps the water where it is."),
      real("gravity_x", "Gravity x", "m/s^2", &P::gravity_x, -100, 100, 0, false,
           "Gravity along x."),
      real("gravity_y", "Gravity y", "m/s^2", &P::gravity_y, -100, 100, -9.81, false,
           "Gravity along y (up is +y). Earth: -9.81."),
      real("gravity_z", "Gravity z", "m/s^2", &P::gravity_z, -100, 100, 0, false,
           "Gravity along z."),
      real("rest_density", "Rest density", "kg/m^3", &P::rest_density, 100, 10000, 1000, true,
           "Target density rho0. Particle masses stay as they were at reset, so raising it "
           "compresses the fluid and lowering it lets the fluid expand."),
      real("viscosity", "Viscosity", "m^2/s", &P::viscosity, 0, 0.1, 3e-4, true,
           "Kinematic viscosity nu. Water 1e-6 is below what the particles resolve; the "
           "default 3e-4 is the least at which every solver's water still settles calm, "
           "and with free-slip walls looks as water does. Oil ~1e-4, honey ~5e-3 to 1e-2."),
      only(SolverKind::Wcsph,
           real("stiffness", "Stiffness", "Pa", &P::stiffness, 1e3, 1e7, 5e4, true,
                "WCSPH: Tait stiffness B in p = B((rho/rho0)^gamma - 1). Higher is less "
                "compressible but needs smaller time steps (speed of sound sqrt(B gamma / "
                "rho0)).")),
      only(SolverKind::Wcsph, real("exponent", "Tait exponent", "", &P::exponent, 1, 10, 7, false,
                                   "WCSPH: exponent gamma of the Tait equation (7 for water).")),
      only(SolverKind::Wcsph,
           real("alpha", "Artificial viscosity", "", &P::alpha, 0, 1, 0.02, false,
                "WCSPH: Monaghan's artificial viscosity alpha, damping the noise of the weakly "
                "compressible solver between approaching particles (Becker & Teschner use up "
                "to 0.08). 0 leaves only the physical viscosity.")),
      only(SolverKind::Pcisph,
           real("pcisph_tolerance", "Density tolerance", "%", &P::pcisph_tolerance, 0.01, 10, 1,
                true,
                "PCISPH: the pressure loop stops when the mean predicted compression of the "
                "particles is below this (Solenthaler & Pajarola use 1 %).")),
      only(SolverKind::Pcisph,
           whole("pcisph_max_iterations", "Max iterations", &P::pcisph_max_iterations, 1, 200, 50,
                 "PCISPH: the most predict-correct iterations per step. A step that does not "
                 "reach the tolerance within them is redone at half the time step.")),
      only(SolverKind::Dfsph,
           real("dfsph_tolerance", "Density tolerance", "%", &P::dfsph_tolerance, 0.001, 10, 0.05,
                true,
                "DFSPH: the constant-density solve stops when the mean compression the step "
                "would end with is below this (Bender & Koschier use 0.01 to 0.1 %).")),
      only(SolverKind::Dfsph,
           real("dfsph_divergence_tolerance", "Divergence tolerance", "%",
                &P::dfsph_divergence_tolerance, 0.001, 10, 0.1, true,
                "DFSPH: the divergence-free solve stops when the mean growth of density that "
                "the velocities would give within a step is below this.")),
      only(SolverKind::Dfsph,
           whole("dfsph_max_iterations", "Max iterations", &P::dfsph_max_iterations, 1, 200, 100,
                 "DFSPH: the most iterations of each of its two solves per step.")),
      // At least 2: with one iteration the dam break reached the speed limit (50 m/s) within
      // a second, and so did a small pool under 3 g (tests/test_param_extremes.cpp).
      only(SolverKind::Pbf,
           whole("pbf_iterations", "Iterations", &P::pbf_iterations, 2, 100, 10,
                 "PBF: density-constraint iterations per step (the most, when a tolerance is "
                 "set). More is stiffer (less compression) and slower. Real-time demos use 2 "
                 "to 5 and accept a few per cent of compression; 10 keeps a 30-particle column "
                 "within 1 %.")),
      only(SolverKind::Pbf,
           real("pbf_tolerance", "Density tolerance", "%", &P::pbf_tolerance, 0, 10, 0, false,
                "PBF: with a tolerance, the iterations stop once the mean compression measured "
                "before the last one is below it (after at least two, as SPlisHSPlasH does), "
                "and Iterations is their cap. 0 runs Iterations every step.")),
      // Both for real time (docs/realtime.md, "Fidelity"): off in the table, on in the
      // realtime quality's preset.
      only(SolverKind::Pbf,
           real("pbf_warm_start", "Warm start", "", &P::pbf_warm_start, 0, 0.75, 0, false,
                "PBF: each step starts from this share of the last step's multipliers (averaged over "
                "each particle's neighbours, scaled "
                "to the new step's length), so that a deep pool's pressure carries over instead "
                "of being built again by a few iterations: at 3 iterations it halves the "
                "compression. Costs one correction pass. Above 0.5 the water grows restless.")),
      only(SolverKind::Pbf,
           real("pbf_final_weight", "Final iteration weight", "", &P::pbf_final_weight, 0.1, 1, 1,
                false,
                "PBF: the last iteration's corrections are weighted by this (damped Jacobi). "
                "Undamped, a few iterations leave resting water trembling (a pool at 3 "
                "iterations: 0.2 m/s RMS at the floor for as long as it runs); 0.5 calms it.")),
      only(SolverKind::Pbf,
           real("pbf_relaxation", "Relaxation", "", &P::pbf_relaxation, 1e-4, 10, 0.01, true,
                "PBF: constraint softening (the eps of lambda = -C / (|grad C|^2 + eps)), "
                "relative to a particle with a full neighbourhood. Larger is softer and "
                "steadier.")),
      only(SolverKind::Pbf,
           real("pbf_scorr_k", "Tensile correction k", "", &P::pbf_scorr_k, 0, 1, 0.1, false,
                "PBF: strength of the artificial pressure s_corr = -k (W(r)/W(dq))^n that keeps "
                "particles from clumping at the surface.")),
      only(SolverKind::Pbf, real("pbf_scorr_n", "Tensile correction n", "", &P::pbf_scorr_n, 2, 8,
                                 4, false, "PBF: exponent n of s_corr.")),
      only(SolverKind::Pbf,
           real("pbf_scorr_dq", "Tensile correction dq", "h", &P::pbf_scorr_dq, 0.05, 0.3, 0.2,
                false, "PBF: reference distance dq of s_corr, as a fraction of the support h.")),
      only(SolverKind::Pbf,
           real("pbf_vorticity", "Vorticity confinement", "m/s", &P::pbf_vorticity, 0, 1, 0.01,
                false,
                "PBF: puts back the swirl that the position solver damps (eps of Macklin & "
                "Mueller's Eq. 16).")),
      only(SolverKind::Pbf,
           real("pbf_xsph", "XSPH smoothing", "", &P::pbf_xsph, 0, 1, 0.01, false,
                "PBF: XSPH velocity smoothing c, the solver's own artificial viscosity "
                "(separate from the physical viscosity above).")),
      real("cfl", "CFL number", "", &P::cfl, 0.05, 1.0, 0.4, false,
           "Time step = CFL * spacing / the faster of the speed of sound (WCSPH) and the "
           "fastest particle, also limited by forces "
           "and viscosity. Smaller is more stable and slower."),
      real("dt_max", "Max time step", "s", &P::dt_max, 1e-5, 0.02, 0.005, true,
           "Largest time step the solver may take."),
      real("dt_min", "Min time step", "s", &P::dt_min, 1e-7, 1e-3, 1e-6, true,
           "Smallest time step. When stability needs less, the simulation runs slower "
           "than real time rather than taking larger steps."),
      real("speed_limit", "Speed limit", "m/s", &P::speed_limit, 1, 1000, 50, true,
           "A safety net, not physics: a particle faster than this is slowed to it, so that "
           "a violent impact or an extreme setting cannot fling particles at absurd speeds. "
           "Ordinary flows (a dam break: under 10 m/s) never reach it."),
      real("wall_friction", "Wall friction", "", &P::wall_friction, 0, 1, 0, false,
           "Where a particle touches the tank or an obstacle: the share of its velocity along "
           "the wall taken away at each contact. 0: it slides freely; 1: it sticks."),
      real("wall_restitution", "Wall restitution", "", &P::wall_restitution, 0, 1, 0, false,
           "Where a particle hits the tank or an obstacle: the share of its speed into the wall "
           "sent back. 0: it stops there; 1: it bounces back as fast (a lone drop bounces to "
           "about this squared of its height)."),
      real("wall_slip", "Wall slip", "", &P::wall_slip, 0, 1, 1, false,
           "How the walls and obstacles take part in the viscosity. 1: free slip, water "
           "slides along them as real water does at this scale (its boundary layer is far "
           "thinner than a particle); 0: no slip, the water next to them is held at their "
           "speed (a layer about two spacings thick, as in a viscous fluid); between: some of "
           "each."),
      real("surface_tension", "Surface tension", "gamma", &P::surface_tension, 0, 10, 0, false,
           "Surface tension (Akinci et al. 2013): cohesion between neighbouring particles and "
           "a force that flattens the surface's curvature, so that water pulls itself into "
           "round drops. A model coefficient (the paper's gamma), not N/m: 1 gives an "
           "acceleration of about 10 m/s^2 between two particles at 3/4 of the kernel's "
           "reach, at any spacing. 0 (the default): none, as real water at this scale, "
           "whose capillary length (2.7 mm) is below a particle."),
      real("adhesion", "Adhesion", "beta", &P::adhesion, 0, 10, 0, false,
           "Adhesion (Akinci et al. 2013): the attraction of the water to the walls and "
           "obstacles, so that it wets them and spreads on them. A model coefficient (the "
           "paper's beta). 0 (the default): none."),
      choice("mouse_mode", "Mouse mode", &P::mouse_mode, 0, {"push", "pull", "drag"},
             "Left drag in the water: push it away, pull it in, or drag it along."),
      real("mouse_radius", "Mouse radius", "m", &P::mouse_radius, 0.01, 2.0, 0.3, false,
           "Radius of the mouse force around the point under the cursor."),
      real("mouse_strength", "Mouse strength", "m/s^2", &P::mouse_strength, 0, 1000, 80, true,
           "Push/pull: peak acceleration. Drag: rate (1/s) at which the fluid takes the "
           "mouse's velocity."),
      choice("diffuse", "Spray and foam", &P::diffuse, 1, {"off", "on"},
             "Diffuse particles (Ihmsen et al. 2012): spray thrown into the air, foam on the "
             "surface and bubbles under it, spawned where air is trapped, at wave crests and "
             "where the water is fast. They ride on the water and do not push it."),
      whole("diffuse_cap", "Diffuse particle cap", &P::diffuse_cap, 0, 4000000, 0,
            "Most diffuse particles alive at once; when more are spawned the oldest go first. "
            "0: sized for the backend (50,000 on the CPU, 2,000,000 on CUDA)."),
      real("diffuse_interval", "Spray update interval", "s", &P::diffuse_interval, 0.001, 0.05, 0.0025,
           true,
           "Simulated time between two updates of the spray, foam and bubbles (at most one "
           "a step). The realtime quality on the CPU updates them once a 60 Hz frame, 0.016 s "
           "(every other step of its PBF), which halves their cost; new ones are spawned "
           "every 0.016 s whatever this is."),
      real("diffuse_trapped_min", "Trapped air from", "m/s", &P::diffuse_trapped_min, 0, 100, 4,
           false,
           "Trapped-air potential (neighbours approaching each other: colliding water "
           "traps air) at which spawning starts."),
      real("diffuse_trapped_max", "Trapped air to", "m/s", &P::diffuse_trapped_max, 0.1, 200, 15,
           false, "Trapped-air potential at which it is full."),
      real("diffuse_crest_min", "Wave crest from", "", &P::diffuse_crest_min, 0, 50, 1, false,
           "Wave-crest potential (curvature of the surface where it moves outwards) at which "
           "spawning starts."),
      real("diffuse_crest_max", "Wave crest to", "", &P::diffuse_crest_max, 0.1, 100, 5, false,
           "Wave-crest potential at which it is full."),
      real("diffuse_energy_min", "Energy from", "J/kg", &P::diffuse_energy_min, 0, 100, 0.5,
           false,
           "Kinetic energy per kilogram (v^2 / 2) below which water spawns nothing: slow water "
           "makes no spray."),
      real("diffuse_energy_max", "Energy to", "J/kg", &P::diffuse_energy_max, 0.1, 500, 5, false,
           "Kinetic energy per kilogram at which the spawn rate is full."),
      real("diffuse_trapped_rate", "Trapped air rate", "1/s", &P::diffuse_trapped_rate, 0, 10000,
           300, true,
           "Diffuse particles per second from one fluid particle at full trapped-air and "
           "energy potentials."),
      real("diffuse_crest_rate", "Wave crest rate", "1/s", &P::diffuse_crest_rate, 0, 10000, 300,
           true,
           "Diffuse particles per second from one fluid particle at full wave-crest and "
           "energy potentials."),
      real("diffuse_life_min", "Foam lifetime from", "s", &P::diffuse_life_min, 0.1, 60, 2, false,
           "Foam dissolves after a lifetime drawn between these two (spray and bubbles last "
           "until they become foam)."),
      real("diffuse_life_max", "Foam lifetime to", "s", &P::diffuse_life_max, 0.1, 60, 5, false,
           "Longest foam lifetime."),
      real("diffuse_buoyancy", "Bubble buoyancy", "", &P::diffuse_buoyancy, 0, 10, 2, false,
           "Bubbles rise with this many times gravity's acceleration, against it (k_b)."),
      real("diffuse_bubble_drag", "Bubble drag", "1/s", &P::diffuse_bubble_drag, 0, 1000, 40,
           true,
           "Rate at which a bubble takes the water's velocity (k_d). With the buoyancy it "
           "sets how fast bubbles rise through still water: buoyancy x 9.81 / drag, 0.5 m/s "
           "by default."),
      real("diffuse_spray_drag", "Spray air drag", "1/s", &P::diffuse_spray_drag, 0, 10, 0.3,
           false, "Air drag on spray droplets: 0 is a pure ballistic flight."),
  };
}

}  // namespace

const std::vector<ParamInfo>& param_table() {
  static const std::vector<ParamInfo> table = make_table();
  return table;
}

const ParamInfo* find_param(const std::string& name) { return find_field(param_table(), name); }

SimParams default_params() { return default_fields(param_table()); }

std::string param_range_text(const ParamInfo& info) { return field_range_text(info); }

std::vector<std::string> clamp_params(SimParams& p, const SimParams& previous) {
  std::vector<std::string> notes = clamp_fields(param_table(), p, previous);
  if (p.dt_min > p.dt_max) {
    notes.push_back("dt_min: " + param_text::number(p.dt_min) + " is above dt_max " + param_text::number(p.dt_max) +
                    "; clamped to it (dt_min may not exceed dt_max)");
    p.dt_min = p.dt_max;
  }
  return notes;
}

std::vector<std::string> clamp_params(SimParams& p) { return clamp_params(p, default_params()); }

const std::vector<const char*>& solver_names() {
  static const std::vector<const char*> names = {
#define TP_SOLVER_NAME(type, name, label) name,
      TP_SOLVERS(TP_SOLVER_NAME)
#undef TP_SOLVER_NAME
  };
  return names;
}

const char* solver_name(int kind) {
  const auto& names = solver_names();
  return kind >= 0 && kind < int(names.size()) ? names[size_t(kind)] : "?";
}

bool parse_solver(const std::string& name, int* kind) {
  const auto& names = solver_names();
  for (size_t k = 0; k < names.size(); ++k)
    if (name == names[k]) {
      *kind = int(k);
      return true;
    }
  return false;
}

std::string solver_names_list() {
  std::string list;
  for (const char* n : solver_names()) list += (list.empty() ? "" : ", ") + std::string(n);
  return list;
}

std::string param_keys_list() { return field_keys_list(param_table()); }

bool set_param_from_text(SimParams& p, const std::string& key, const std::string& value,
                         std::string* error) {
  return set_field_from_text(param_table(), p, key, value, error);
}

}  // namespace tp
