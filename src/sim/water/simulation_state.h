// The simulation's state in and out: reset() from a scene's initial state, the constants a
// step reads (refresh_constants), and capture() and restore(): the whole simulation state
// through the host, for state files, and the roll-back of a reset or restore that fails
// part-way (all_or_nothing).
// A restored simulation steps bit for bit as the captured one would have: the fluid keeps
// its memory order (a grid build of already sorted particles keeps their order), the
// tank's samples theirs, and every value a step reads from the one before is restored
// (the rest density's ramp, the last speed and time step, PCISPH's warm-start pressures
// and time-step limit, the emitters' progress, the obstacles' targets, the diffuse
// particles and the step count that seeds their random numbers).
#pragma once

#include "sim/water/shared_phases.h"

namespace tp {

// All or nothing: a reset or restore that fails part-way (out of memory on the host or
// the device, or an object of the scene refused after the particles were built) leaves
// the running simulation as it was, restored from a copy taken first (capture(): bit for
// bit, as state files are). The copy costs a host copy of the state, once per reset.
template <class B>
template <class F>
void SimulationImpl<B>::all_or_nothing(F&& change) {
  // Anything reset before (even with no particles left: an emitter's scene before its
  // first layer, a drained one) is kept; the parameters and what a capture does not hold
  // (the NaN guard's stop and note, the mouse) are put back by hand.
  std::optional<SimState> before;
  if (spacing_ > 0.0f) before = capture();
  const SimParams params = params_;
  const bool halted = stats_.halted;
  const std::string note = guard_.pending_note();
  const MouseForce mouse = mouse_;
  try {
    change();
  } catch (const std::exception& e) {
    params_ = params;
    if (!before) throw;
    const std::string why =
        dynamic_cast<const std::bad_alloc*>(&e) ? std::string("out of memory") : e.what();
    const bool refused = dynamic_cast<const std::invalid_argument*>(&e) != nullptr;
    try {
      restore_state(*before);
    } catch (const std::exception& again) {
      // Not even the old state fits any more (another program took the memory): stopped,
      // empty, and said so, never half-built.
      fluid.resize(0);
      diffuse_.clear();
      wall_n_ = 0;
      objects_.clear();
      stats_ = RunStats{};
      stats_.halted = true;
      stats_.guard_note = "The simulation stopped: " + why + ", and the running scene could not be "
                          "restored (" + again.what() + "). Reset or load a scene.";
      guard_.set_pending_note(stats_.guard_note);
      throw std::runtime_error(stats_.guard_note);
    }
    stats_.halted = halted;
    guard_.set_pending_note(note);
    mouse_ = mouse;
    if (refused) throw std::invalid_argument(why + "; the running simulation is kept");
    throw std::runtime_error(why + "; the running simulation is kept");
  }
}

template <class B>
void SimulationImpl<B>::reset(const InitialState& s) {
  validate_initial(s);  // before anything is copied or changed
  if (s.bodies.empty()) {
    all_or_nothing([&] { reset_state(s); });
    return;
  }
  // The water a body displaces goes (displaces: inside it or within 0.4 spacings of it).
  InitialState kept = s;
  kept.fluid.clear();
  kept.velocity.clear();
  std::vector<SolidBody> solids;
  for (const BodySpec& b : s.bodies) solids.push_back(solid_of(b));
  for (size_t i = 0; i < s.fluid.size(); ++i) {
    const Vec3 x = xyz(s.fluid[i]);
    bool inside = false;
    for (size_t k = 0; k < solids.size() && !inside; ++k) inside = displaces(solids[k], s.bodies[k].pose, x, s.spacing);
    if (inside) continue;
    kept.fluid.push_back(s.fluid[i]);
    if (!s.velocity.empty()) kept.velocity.push_back(s.velocity[i]);
  }
  validate_initial(kept);
  all_or_nothing([&] { reset_state(kept); });
}

template <class B>
void SimulationImpl<B>::validate_initial(const InitialState& s) {
  if (!(s.spacing > 0.0f) || !std::isfinite(s.spacing))
    throw std::invalid_argument("particle spacing must be a positive number");
  if (s.dimensions != 2 && s.dimensions != 3)
    throw std::invalid_argument("dimensions must be 2 or 3, not " + std::to_string(s.dimensions));
  if (s.dimensions == 2) {
    if (!(s.tank_lo.x < s.tank_hi.x && s.tank_lo.y < s.tank_hi.y && s.tank_lo.z == s.tank_hi.z))
      throw std::invalid_argument(
          "a 2D tank's min corner must be below its max corner in x and y, with one z (the plane)");
  } else if (!(s.tank_lo.x < s.tank_hi.x && s.tank_lo.y < s.tank_hi.y && s.tank_lo.z < s.tank_hi.z)) {
    throw std::invalid_argument("the tank's min corner must be below its max corner on every axis");
  }
  if (s.fluid.empty() && s.emitters.empty())
    throw std::invalid_argument("the scene has no fluid particles and no emitter");
  if (!s.velocity.empty() && s.velocity.size() != s.fluid.size())
    throw std::invalid_argument("initial velocities must match the fluid particles");
  if (s.fluid.size() >= (size_t(1) << 31))
    throw std::invalid_argument("too many particles (the limit is 2^31)");
}

template <class B>
SimState SimulationImpl<B>::capture() {
  if (record_.ready()) settle(false);  // a step still to be judged is judged first
  SimState s;
  const uint n = fluid.n;
  InitialState& init = s.initial;
  init.tank_lo = tank_lo_;
  init.tank_hi = tank_hi_;
  init.spacing = spacing_;
  init.dimensions = dimensions_;
  init.fluid.resize(n);
  init.velocity.resize(n);
  s.id.resize(n);
  s.pressure.resize(n);
  B::copy_to_host(init.fluid.data(), fluid.position.data(), n);
  B::copy_to_host(init.velocity.data(), fluid.velocity.data(), n);
  B::copy_to_host(s.id.data(), fluid.id.data(), n);
  B::copy_to_host(s.pressure.data(), fluid.pressure.data(), n);
  // (Only DFSPH's own last step leaves an impulse its next step reads: after any other the
  // buffer holds what it held, which would make the file's bytes differ between runs.)
  s.divergence_impulse.assign(n, 0.0f);
  if (previous_solver_ == int(SolverKind::Dfsph) && n > 0)
    B::copy_to_host(s.divergence_impulse.data(), fluid.divergence_impulse.data(), n);
  init.boundary.resize(wall_n_);
  B::copy_to_host(init.boundary.data(), boundary_.data(), wall_n_);
  init.obstacles = objects_.obstacles();
  init.emitters = objects_.emitters();
  init.outflows = objects_.outflows();
  init.bodies = objects_.bodies().bodies();
  objects_.bodies().latest_sums(&s.body_force, &s.body_torque);
  init.max_particles = objects_.max_particles();
  s.params = params_;
  s.obstacle_target = objects_.targets();
  s.emitter_travel = objects_.emitter_travel();
  s.diffuse = diffuse_.snapshot();
  s.diffuse_time = diffuse_.elapsed();
  s.diffuse_spawn_time = diffuse_.spawn_time();
  s.mass = mass_;
  s.pending_measure = pending_measure_;
  s.rest_density = rest_density_;
  s.solver_dt_limit = solver_dt_limit_;
  s.previous_solver = previous_solver_;
  s.pressures_kept = pressures_kept_;
  s.switched_at = switched_at_;
  s.switched_compression = switched_compression_;
  s.mouse = mouse_;
  s.next_id = objects_.next_id();
  s.time_debt = time_debt_;
  s.stats = stats_;
  s.stats.phases.clear();
  s.error_sum = error_sum_;
  s.measured = measured_;
  s.iteration_sum = iteration_sum_;
  s.iteration_steps = iteration_steps_;
  return s;
}

template <class B>
void SimulationImpl<B>::restore(const SimState& s) {
  const size_t n = s.initial.fluid.size();
  if (s.initial.velocity.size() != n || s.id.size() != n || s.pressure.size() != n ||
      (!s.divergence_impulse.empty() && s.divergence_impulse.size() != n))
    throw std::invalid_argument("the state's particle arrays differ in length");
  if (!(s.mass > 0.0f) || !std::isfinite(s.mass) || !(s.rest_density > 0.0f))
    throw std::invalid_argument("the state's particle mass or rest density is not valid");
  if (s.obstacle_target.size() != s.initial.obstacles.size() ||
      s.emitter_travel.size() != s.initial.emitters.size())
    throw std::invalid_argument("the state's obstacles or emitters are incomplete");
  for (const Vec4& b : s.initial.boundary)
    if (!(b.w > 0.0f) || !is_finite(xyz(b))) throw std::invalid_argument("the state's boundary samples are not valid");
  std::vector<uint> ids(s.id);
  std::sort(ids.begin(), ids.end());
  if (std::adjacent_find(ids.begin(), ids.end()) != ids.end() || (n && ids.back() >= s.next_id))
    throw std::invalid_argument("the state's particle ids are not unique");
  validate_initial(s.initial);  // before anything is copied or changed
  // all_or_nothing() puts back what was there when anything fails.
  all_or_nothing([&] { restore_state(s); });
}

template <class B>
void SimulationImpl<B>::restore_state(const SimState& s) {
  const size_t n = s.initial.fluid.size();
  params_ = s.params;
  reset_state(s.initial);
  B::copy_from_host(fluid.id.data(), s.id.data(), uint(n));
  mass_ = s.mass;
  B::copy_from_host(fluid.pressure.data(), s.pressure.data(), uint(n));
  // The obstacles with their velocities, where they were going, the emitters' progress.
  objects_.restore(s.initial.obstacles, s.obstacle_target, s.emitter_travel, s.next_id);
  objects_.bodies().restore_sums(s.body_force, s.body_torque);
  rest_density_ = s.rest_density;
  solver_dt_limit_ = s.solver_dt_limit;
  previous_solver_ = s.previous_solver;
  as_stepped_ = false;  // the step's per-particle terms are not in a state file
  // The solvers' memory between steps, when the state has it (older files: none).
  const bool memory = s.divergence_impulse.size() == n;
  switched_at_ = memory ? s.switched_at : -1.0;
  switched_compression_ = memory ? s.switched_compression : 0.0f;
  pressures_kept_ = memory && s.pressures_kept;
  if (memory) mouse_ = s.mouse;
  if (memory && n > 0) {
    B::copy_from_host(fluid.divergence_impulse.data(), s.divergence_impulse.data(), uint(n));
  } else if (n > 0) {  // (none kept: zeros, as after a reset)
    float* impulse = fluid.divergence_impulse.data();
    B::for_each(uint(n), [=] TP_HD(uint i) { impulse[i] = 0.0f; });
  }
  time_debt_ = s.time_debt;
  stats_ = s.stats;
  stats_.halted = false;  // a restored state runs again (the NaN guard's stop is undone)
  error_sum_ = s.error_sum;
  measured_ = s.measured;
  iteration_sum_ = s.iteration_sum;
  iteration_steps_ = s.iteration_steps;
  place_obstacle_samples();  // where the obstacles are, with their velocities
  diffuse_.clear();
  add_diffuse(s.diffuse);
  diffuse_.set_elapsed(s.diffuse_time);
  diffuse_.set_spawn_time(s.diffuse_spawn_time);
  stats_.diffuse.spawned = s.stats.diffuse.spawned;
  pending_measure_ = s.pending_measure;
  refresh_constants();
  // The time step the constants still hold between steps is the last one (DFSPH's
  // divergence solve reads it before the step chooses its own).
  if (memory) constants_.dt = float(stats_.last_dt);
}

template <class B>
void SimulationImpl<B>::reset_state(const InitialState& s) {
  validate_initial(s);
  clamp_params(params_);
  spacing_ = s.spacing;
  dimensions_ = s.dimensions;
  tank_lo_ = s.tank_lo;
  tank_hi_ = s.tank_hi;
  const CubicKernel kernel = CubicKernel::make_for(dimensions_, 2.0f * spacing_);
  const float lattice_sum = lattice_kernel_sum(kernel, spacing_, dimensions_);
  mass_ = params_.rest_density / lattice_sum;
  lattice_grad2_ = lattice_gradient_sum(kernel, spacing_, dimensions_);
  rest_density_ = params_.rest_density;

  // The grids cover the tank plus one kernel support of boundary samples around it, in
  // cells of h (see kernels/grid.h); in 2D one layer of cells, on the plane.
  const float pad = kernel.h + spacing_, zpad = dimensions_ == 2 ? 0.0f : pad;
  const Vec3 lo = tank_lo_ - Vec3{pad, pad, zpad};
  const Vec3 hi = tank_hi_ + Vec3{pad, pad, zpad};
  grid_.configure(lo, hi, kernel.h);
  boundary_grid_.configure(lo, hi, kernel.h);
  const float zclear = dimensions_ == 2 ? -INFINITY : kernel.h;  // no walls in z
  wall_clear_lo_ = tank_lo_ + Vec3{kernel.h, kernel.h, zclear};
  wall_clear_hi_ = tank_hi_ - Vec3{kernel.h, kernel.h, zclear};

  const uint n = uint(s.fluid.size());
  fluid.resize(n);
  std::vector<Vec4> host(s.fluid);
  B::copy_from_host(fluid.position.data(), host.data(), n);
  if (s.velocity.empty()) host.assign(n, Vec4{0, 0, 0, 0});
  else host = s.velocity;
  B::copy_from_host(fluid.velocity.data(), host.data(), n);
  std::vector<uint> ids(n);
  for (uint i = 0; i < n; ++i) ids[i] = i;
  B::copy_from_host(fluid.id.data(), ids.data(), n);
  {
    // Until the first step computes them: rest density and no pressure (what publish()
    // shows when the colour is density or pressure right after a reset). DFSPH's
    // divergence impulse too: unused until DFSPH has stepped (pressures_kept_), but carried
    // by every sort, and a device's fresh memory holds whatever was there (compute-
    // sanitizer's initcheck on the H200: 6,000 reads of it in 8 steps).
    const FluidView f = fluid.view();
    float* impulse = fluid.divergence_impulse.data();
    const float rho0 = params_.rest_density;
    B::for_each(n, [=] TP_HD(uint i) {
      f.density[i] = rho0;
      f.pressure[i] = 0.0f;
      impulse[i] = 0.0f;
    });
  }

  sorted_ = density_valid_ = listed_ = pending_measure_ = false;
  record_.reset();
  guard_.reset();
  start_saved_ = false;
  time_debt_ = 0.0;
  stats_ = RunStats{};
  error_sum_ = 0.0;
  measured_ = 0;
  iteration_sum_ = iteration_steps_ = 0;
  previous_solver_ = -1;
  as_stepped_ = false;
  switched_at_ = -1.0;
  pressures_kept_ = false;
  solver_dt_limit_ = 1e-3f;
  timers_.clear();
  mouse_ = MouseForce{};
  diffuse_.clear();
  stats_.diffuse.capacity = diffuse_.capacity(params_);
  objects_.setup(s, n, spacing_, 1.0f / lattice_sum);
  place_boundary_samples(s, lattice_sum);
  refresh_constants();
}

// The tank's samples sorted once by their grid, then room for the obstacles' after them.
template <class B>
void SimulationImpl<B>::place_boundary_samples(const InitialState& s, float lattice_sum) {
  std::vector<Vec4> samples(s.boundary);
  for (Vec4& b : samples)
    if (!(b.w > 0.0f)) b.w = 1.0f / lattice_sum;
  wall_n_ = uint(samples.size());
  const uint total = wall_n_ + objects_.sample_count();
  boundary_.resize(total);
  B::copy_from_host(boundary_.data(), samples.data(), wall_n_);
  boundary_grid_.build(boundary_.data(), wall_n_);
  boundary_grid_.reorder(boundary_, boundary_spare_);
  lists_.set_walls(boundary_.data(), wall_n_);
  boundary_pressure_.resize(total);
  boundary_velocity_.resize(total);
  boundary_ahead_.resize(total);
  Vec4* v = boundary_velocity_.data();
  float* p = boundary_pressure_.data();
  const Vec4* walls = boundary_.data();
  Vec4* ahead = boundary_ahead_.data();  // the tank's stay where they are (boundary_view_ahead)
  const uint wall_n = wall_n_;
  B::for_each(total, [=] TP_HD(uint k) {
    v[k] = Vec4{0, 0, 0, 0};
    p[k] = 0.0f;
    if (k < wall_n) ahead[k] = walls[k];
  });
  place_obstacle_samples();
}

template <class B>
void SimulationImpl<B>::set_mouse(const MouseForce& force) {
  mouse_ = force;
  if (dimensions_ == 2) {  // in the plane, whatever the caller's ray met
    mouse_.point.z = tank_lo_.z;
    mouse_.velocity.z = 0.0f;
  }
}

template <class B>
std::string SimulationImpl<B>::take_guard_note() {
  if (record_.ready()) settle(false);  // a step not yet judged may have something to say
  return guard_.take_note();
}

}  // namespace tp
