// capture() and restore(): the whole simulation state through the host, for state files,
// and the roll-back of a reset or restore that fails part-way (all_or_nothing).
// A restored simulation steps bit for bit as the captured one would have: the fluid keeps
// its memory order (a grid build of already sorted particles keeps their order), the
// tank's samples theirs, and every value a step reads from the one before is restored
// (the rest density's ramp, the last speed and time step, PCISPH's warm-start pressures
// and time-step limit, the emitters' progress, the obstacles' targets, the diffuse
// particles and the step count that seeds their random numbers).
#pragma once

#include "sim/water/diffuse.h"
#include "sim/water/scene_objects.h"
#include "sim/water/simulation_impl.h"

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
  const std::string note = guard_note_;
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
      wall_n_ = obstacle_n_ = 0;
      obstacles_.clear();
      obstacle_target_.clear();
      emitters_.clear();
      emitter_travel_.clear();
      outflows_.clear();
      stats_ = RunStats{};
      stats_.halted = true;
      guard_note_ = "The simulation stopped: " + why + ", and the running scene could not be "
                    "restored (" + again.what() + "). Reset or load a scene.";
      stats_.guard_note = guard_note_;
      throw std::runtime_error(guard_note_);
    }
    stats_.halted = halted;
    guard_note_ = note;
    mouse_ = mouse;
    if (refused) throw std::invalid_argument(why + "; the running simulation is kept");
    throw std::runtime_error(why + "; the running simulation is kept");
  }
}

template <class B>
void SimulationImpl<B>::reset(const InitialState& s) {
  validate_initial(s);  // before anything is copied or changed
  all_or_nothing([&] { reset_state(s); });
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
  if (record_.size()) settle(false);  // a step still to be judged is judged first
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
  init.boundary.resize(wall_n_);
  B::copy_to_host(init.boundary.data(), boundary_.data(), wall_n_);
  init.obstacles = obstacles_;
  init.emitters = emitters_;
  init.outflows = outflows_;
  init.max_particles = max_particles_;
  s.params = params_;
  s.obstacle_target = obstacle_target_;
  s.emitter_travel = emitter_travel_;
  s.diffuse = diffuse_snapshot();
  s.diffuse_time = diffuse_time_;
  s.mass = mass_;
  s.pending_measure = pending_measure_;
  s.rest_density = rest_density_;
  s.solver_dt_limit = solver_dt_limit_;
  s.previous_solver = previous_solver_;
  s.next_id = next_id_;
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
  if (s.initial.velocity.size() != n || s.id.size() != n || s.pressure.size() != n)
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
  obstacles_ = s.initial.obstacles;  // with their velocities
  B::copy_from_host(fluid.pressure.data(), s.pressure.data(), uint(n));
  obstacle_target_ = s.obstacle_target;
  emitter_travel_ = s.emitter_travel;
  next_id_ = s.next_id;
  rest_density_ = s.rest_density;
  solver_dt_limit_ = s.solver_dt_limit;
  previous_solver_ = s.previous_solver;
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
  diffuse_time_ = s.diffuse_time;
  stats_.diffuse.spawned = s.stats.diffuse.spawned;
  pending_measure_ = s.pending_measure;
  refresh_constants();
}

}  // namespace tp
