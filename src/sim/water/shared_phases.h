// The phases every solver shares, in the order a step meets them: the constants a step
// reads, the grid build and the neighbour lists, the density and its error, the forces
// besides pressure, surface tension, the integration (or PBF's commit of its predicted
// positions, the obstacles moving with either) and the time step's maxima, the step's one
// wait, where the verdict on the step before is given (settle: the record read, a failed
// step's start restored, the start of this one saved). The solvers (wcsph.h, pcisph.h,
// pbf.h, dfsph.h) call them between their own phases.
#pragma once

#include "sim/water/simulation_impl.h"

namespace tp {

template <class B>
BoundaryView SimulationImpl<B>::boundary_view() {
  BoundaryView b{boundary_.data(),         boundary_velocity_.data(), boundary_pressure_.data(),
                 boundary_grid_.view(),    objects_.grid_view(),      wall_n_,
                 wall_n_ + objects_.sample_count(), lists_.boundary(), wall_clear_lo_,
                 wall_clear_hi_,           objects_.box_lo(),         objects_.box_hi(),
                 lists_.boundary_active(), {}};
  objects_.object_boxes(&b);
  return b;
}

// The tank's samples do not move: place_boundary_samples copied them once, and only the
// obstacles' and bodies' are written here.
template <class B>
BoundaryView SimulationImpl<B>::boundary_view_ahead(float dt) {
  BoundaryView b = boundary_view();
  const Vec4* x = b.sample + wall_n_;
  const Vec4* v = b.velocity + wall_n_;
  Vec4* ahead = boundary_ahead_.data() + wall_n_;
  B::for_each(b.n - wall_n_, [=] TP_HD(uint k) {
    ahead[k] = make_vec4(xyz(x[k]) + xyz(v[k]) * dt, x[k].w);  // (w: the sample's volume)
  });
  b.sample = boundary_ahead_.data();
  return b;
}

template <class B>
void SimulationImpl<B>::sort_particles() {
  if (sorted_) return;
  as_stepped_ = false;  // the step's per-particle terms (position_term, wall_moves_) are not reordered
  grid_.build(fluid.position.data(), fluid.n);
  grid_.reorder(fluid.position, fluid.spare4);
  grid_.reorder(fluid.velocity, fluid.spare4);
  grid_.reorder(fluid.id, fluid.spare_id);
  grid_.reorder(fluid.pressure, fluid.spare_f);
  if (params_.solver == int(SolverKind::Dfsph)) grid_.reorder(fluid.divergence_impulse, fluid.spare_f);
  build_lists(fluid.position.data());
  sorted_ = listed_ = true;
}

// On a device, a list that runs out of slots is reported through the record (settle()
// grows it and has the work redone): the build itself never waits. The CPU, which reads
// for free, checks at once and searches again with room, as before the record.
template <class B>
Max3* SimulationImpl<B>::overflow_slot(typename StepRecorder<B>::Field* field) {
  *field = start_saved_ ? StepRecorder<B>::kOverDone : StepRecorder<B>::kOver;
  return start_saved_ ? &record_.slots()->over_done : &record_.slots()->over;
}

template <class B>
void SimulationImpl<B>::build_lists(const Vec4* positions, bool mark) {
  if (!B::kIsDevice) {
    lists_.build(positions, fluid.n, grid_.view(), boundary_view(), constants_.kernel.h, mark);
    return;
  }
  typename StepRecorder<B>::Field field;
  Max3* over = overflow_slot(&field);
  lists_.build(positions, fluid.n, grid_.view(), boundary_view(), constants_.kernel.h, mark, over,
               record_.written(field));
  record_.mark(field);
}

template <class B>
SampleLists SimulationImpl<B>::sample_lists(uint first) {
  if (!B::kIsDevice) return lists_.samples(boundary_view(), nullptr, false, nullptr, first);
  typename StepRecorder<B>::Field field;
  Max3* over = overflow_slot(&field);
  bool wrote = false;
  const SampleLists s = lists_.samples(boundary_view(), over, record_.written(field), &wrote, first);
  if (wrote) record_.mark(field);
  return s;
}

template <class B>
void SimulationImpl<B>::compute_density() {
  if (!density_valid_) {
    const FluidView f = fluid.view();
    const NeighborList nl = fluid_list();
    const BoundaryView b = boundary_view();
    const StepConstants c = constants_;
    B::for_each_lanes(f.n, TP_LANES(i) {
      const auto rho = sph_density(i, f.position, nl, b, c);
      store(f.density, i, rho);
      store(f.scratch, i, compression(rho, c));
    });
  }
  density_computed();
}

template <class B>
void SimulationImpl<B>::density_and_gradient_sums() {
  const FluidView f = fluid.view();
  const NeighborList nl = fluid_list();
  const BoundaryView b = boundary_view();
  const StepConstants k = constants_;
  float* grad_sum = fluid.spare_f.data();
  B::for_each_lanes(f.n, TP_LANES(i) {
    RealOf<decltype(i)> s;
    const auto rho = density_and_gradient_sum(i, f.position, nl, b, k, &s);
    store(f.density, i, rho);
    store(f.scratch, i, compression(rho, k));
    store(grad_sum, i, s);
  });
  density_computed();
}

template <class B>
void SimulationImpl<B>::measure_pending() {
  if (!pending_measure_) return;
  if (fluid.n == 0) {  // the outflows took every particle
    pending_measure_ = false;
    return;
  }
  const float* err = fluid.scratch.data();
  pending_measure_ = false;
  if (solving_) {  // read at the step's wait (settle: add_measure)
    record_.error(err, fluid.n);
    return;
  }
  const auto sum_max = B::reduce_sum_max(fluid.n, [=] TP_HD(uint i) { return err[i]; });
  add_measure(sum_max.sum / fluid.n, sum_max.max);
}

template <class B>
void SimulationImpl<B>::add_measure(double mean, float max) {
  error_sum_ += mean;
  measured_++;
  stats_.last_density_error = mean;
  stats_.density_error_max = std::max(stats_.density_error_max, double(max));
  stats_.density_error_mean = error_sum_ / double(measured_);
}

template <class B>
void SimulationImpl<B>::nonpressure_accelerations() {
  const FluidView f = fluid.view();
  const NeighborList nl = fluid_list();
  const BoundaryView b = boundary_view();
  const StepConstants k = constants_;
  B::for_each(f.n, [=] TP_HD(uint i) {
    f.velocity_inv_density[i] = make_vec4(xyz(f.velocity[i]), 1.0f / f.density[i]);
  });
  B::for_each_lanes(f.n, TP_LANES(i) {
    store_xyz(f.acceleration, i, viscous_acceleration(i, f, nl, b, k) +
                                     body_acceleration(load_xyz(f.position, i), load_xyz(f.velocity, i), k));
  });
}

template <class B>
void SimulationImpl<B>::add_surface_forces(const Vec4* positions, Vec4* target, float scale) {
  const StepConstants k = constants_;
  if (!surface_forces_on(k)) return;
  const NeighborList nl = fluid_list();
  const BoundaryView b = boundary_view();
  const float* density = fluid.density.data();
  Vec4* normal_density = fluid.aux.data();
  const uint n = fluid.n;
  B::for_each_lanes(n, TP_LANES(i) {
    store_xyzw(normal_density, i, surface_normal(i, positions, density, nl, k), load(density, i));
  });
  B::for_each_lanes(n, TP_LANES(i) {
    store_xyz(target, i, load_xyz(target, i) +
                             surface_acceleration(i, positions, normal_density, nl, b, k) * scale);
  });
}

template <class B>
void SimulationImpl<B>::integrate() {
  advance_obstacles();
  const FluidView f = fluid.view();
  const StepConstants c = constants_;
  inject_nan(f.acceleration);
  // scratch is free here (the density error it held has been measured): it flags the
  // particles whose state was not finite, which the NaN guard counts. aux is free too
  // (PCISPH's pressure accelerations are in the accelerations now): the clamp's pushes
  // out of bodies, which the bodies take back.
  Vec4* pushes = has_bodies() ? fluid.aux.data() : nullptr;
  B::for_each(f.n, [=] TP_HD(uint i) {
    f.scratch[i] = integrate_particle(i, f.position, f.velocity, f.acceleration, c, pushes) ? 1.0f : 0.0f;
  });
  if (pushes) take_back_pushes(pushes, f.position);
  publish_body_sums();
  count_nonfinite();
  sorted_ = density_valid_ = false;
  pending_measure_ = true;
}

template <class B>
void SimulationImpl<B>::commit_predicted() {
  // (The obstacles and bodies are where the step ends already: pbf_predict moved them.)
  const FluidView f = fluid.view();
  const Vec4* target = fluid.predicted.data();
  const StepConstants c = constants_;
  inject_nan(fluid.predicted.data());
  // aux is free here (the lambdas, vorticities and normals it held are used): the clamp's
  // pushes out of bodies, as in integrate().
  Vec4* pushes = has_bodies() ? fluid.aux.data() : nullptr;
  B::for_each(f.n, [=] TP_HD(uint i) {
    f.scratch[i] = commit_particle(i, f.position, f.velocity, target, c, pushes) ? 1.0f : 0.0f;
  });
  if (pushes) take_back_pushes(pushes, f.position);
  publish_body_sums();
  count_nonfinite();
  sorted_ = density_valid_ = false;
}

// The bodies' sums, complete once the step's clamp has given its pushes back, into the
// step record: the host reads them at the next wait (the next step's save point takes
// them), with no wait of their own.
template <class B>
void SimulationImpl<B>::publish_body_sums() {
  if (!has_bodies()) return;
  objects_.bodies().publish_sums(record_.slots()->bodies);
  record_.mark(StepRecorder<B>::kBodies);
}

template <class B>
void SimulationImpl<B>::sort_by_predicted() {
  grid_.build(fluid.predicted.data(), fluid.n);
  grid_.reorder(fluid.position, fluid.spare4);
  grid_.reorder(fluid.velocity, fluid.spare4);
  grid_.reorder(fluid.predicted, fluid.spare4);
  grid_.reorder(fluid.id, fluid.spare_id);
  grid_.reorder(fluid.pressure, fluid.spare_f);
  build_lists(fluid.predicted.data(), false);  // PBF has no use for the samples' marks
  sorted_ = density_valid_ = false;  // sorted for the predicted positions, not the current
  listed_ = true;
}

template <class B>
void SimulationImpl<B>::record_iterations(int iterations, double error) {
  stats_.last_iterations = iterations;
  if (!std::isnan(error)) stats_.last_solver_error = error;  // NaN: from the record
  iteration_sum_ += iterations;
  iteration_steps_++;
  stats_.mean_iterations = double(iteration_sum_) / double(iteration_steps_);
}

namespace detail {
// The tank's corners along gravity: `top` the highest, `bottom` the lowest (both as
// points), so that depths below the one and above the other are >= 0, as maxima from 0
// need.
struct GravityFrame {
  Vec3 down, top, bottom;
};
inline GravityFrame gravity_frame(const StepConstants& c) {
  const Vec3 gravity{c.p.gravity_x, c.p.gravity_y, c.p.gravity_z};
  const float g_abs = length(gravity);
  GravityFrame f{g_abs > 0.0f ? gravity * (1.0f / g_abs) : Vec3{0.0f, -1.0f, 0.0f}, {}, {}};
  for (int a = 0; a < 3; ++a) {
    const bool falls_along = (&f.down.x)[a] > 0.0f;
    (&f.top.x)[a] = falls_along ? (&c.tank_lo.x)[a] : (&c.tank_hi.x)[a];
    (&f.bottom.x)[a] = falls_along ? (&c.tank_hi.x)[a] : (&c.tank_lo.x)[a];
  }
  return f;
}
}  // namespace detail

template <class B>
void SimulationImpl<B>::record_extent(const float* third) {
  const detail::GravityFrame g = detail::gravity_frame(constants_);
  const Vec4* x = fluid.position.data();
  record_.max3(&record_.slots()->extra, StepRecorder<B>::kExtra, fluid.n, [=] TP_HD(uint i) {
    const Vec3 xi = xyz(x[i]);
    return Max3{dot(xi - g.top, g.down), dot(g.bottom - xi, g.down), third ? third[i] : 0.0f};
  });
}

template <class B>
float SimulationImpl<B>::extent_seen() const {
  const detail::GravityFrame g = detail::gravity_frame(constants_);
  const Max3 depths = record_.seen().extra;
  return depths.a + depths.b - dot(g.bottom - g.top, g.down) + constants_.spacing;
}

template <class B>
typename SimulationImpl<B>::FlowMaxima SimulationImpl<B>::flow_maxima(bool density) {
  const Vec4* v = fluid.velocity.data();
  const Vec4* a = fluid.acceleration.data();
  const float* rho = fluid.density.data();
  const float inv_rest = density ? 1.0f / constants_.p.rest_density : 0.0f;
  record_.max3(&record_.slots()->flow, StepRecorder<B>::kFlow, fluid.n, [=] TP_HD(uint i) {
    return Max3{length(xyz(v[i])), length(xyz(a[i])), density ? rho[i] * inv_rest : 0.0f};
  });
  settle(true);  // the wait (and the save point): may throw StepRetaken
  const Max3 m = record_.seen().flow;
  stats_.last_max_speed = m.a;
  stats_.max_speed = std::max(stats_.max_speed, double(m.a));
  // The bodies' fastest points count as flow: the time step's CFL bound keeps a body from
  // overrunning the water in a step (its samples push the water from where it starts).
  return FlowMaxima{std::max(m.a, objects_.bodies().max_point_speed()), m.b, m.c};
}

template <class B>
void SimulationImpl<B>::refresh_constants() {
  clamp_params(params_);
  constants_.p = params_;
  constants_.p.rest_density = rest_density_;
  constants_.dimensions = dimensions_;
  with_dimension(dimensions_, [&](auto d) {
    using D = decltype(d);
    const float h = 2.0f * spacing_;
    constants_.kernel = CubicKernel::make<D::value>(h);
    constants_.cohesion_norm = D::cohesion_norm(h);
    constants_.adhesion_norm = D::adhesion_norm(h);
    constants_.curvature_scale = D::curvature_scale;
  });
  if (dimensions_ == 2) constants_.p.gravity_z = 0.0f;  // the plane's gravity is its x and y
  constants_.spacing = spacing_;
  constants_.mass = mass_;
  constants_.lattice_grad2 = lattice_grad2_;
  // The Tait equation must stay subsonic: with the speed of sound below the flow's (strong
  // gravity, a low stiffness, a flung mouse), WCSPH forms shocks and throws particles at
  // several times the physical speed. The stiffness in use is raised, when needed, so that
  // c >= kMinSoundToFlow * v, with v the larger of the last step's top speed and the speed
  // of a fall across the tank along gravity. The user's value is kept and shown beside it.
  const Vec3 g{params_.gravity_x, params_.gravity_y, params_.gravity_z};
  const float g_len = length(g);
  const Vec3 extent = tank_hi_ - tank_lo_;
  const float fall = g_len > 0.0f ? fabsf(dot(extent, g)) / g_len : 0.0f;
  const float v_ref = std::max(float(stats_.last_max_speed), std::sqrt(2.0f * g_len * fall));
  const float c_floor = kMinSoundToFlow * v_ref;
  constants_.sound_speed = tait_sound_speed(constants_.p);
  if (constants_.sound_speed < c_floor) {
    constants_.sound_speed = c_floor;
    constants_.p.stiffness = constants_.p.rest_density * c_floor * c_floor / constants_.p.exponent;
  }
  stats_.stiffness_in_use = constants_.p.stiffness;
  constants_.tank_lo = tank_lo_;
  constants_.tank_hi = tank_hi_;
  constants_.mouse = mouse_;
  objects_.copy_to(constants_);
}

template <class B>
void SimulationImpl<B>::ensure_density() {
  if (density_valid_ || fluid.n == 0) return;
  refresh_constants();
  phase("grid", [&] { sort_particles(); });
  phase("density", [&] { compute_density(); });
}

template <class B>
void SimulationImpl<B>::density_computed() {
  density_valid_ = true;
  measure_pending();
}

template <class B>
void SimulationImpl<B>::record_state_error() {
  pending_measure_ = true;
  measure_pending();
}

// The obstacles' samples where the obstacles are, after the tank's in the boundary arrays.
template <class B>
void SimulationImpl<B>::place_obstacle_samples() {
  objects_.copy_to(constants_);
  objects_.place_samples(boundary_.data() + wall_n_, boundary_velocity_.data() + wall_n_);
}

template <class B>
void SimulationImpl<B>::advance_obstacles() {
  const Vec3 gravity{constants_.p.gravity_x, constants_.p.gravity_y, constants_.p.gravity_z};
  const bool moved = objects_.advance(constants_.dt, gravity);
  objects_.copy_to(constants_);
  // The samples follow at once, so that the end state's density (statistics, the diffuse
  // particles, a density reused by the next step) sees the obstacles where they are.
  if (moved) place_obstacle_samples();
}

template <class B>
void SimulationImpl<B>::gather_body_forces(bool in_solve) {
  if (!has_bodies()) return;
  const FluidView f = fluid.view();
  const BoundaryView b = boundary_view();
  const SampleLists s = sample_lists();
  const StepConstants c = constants_;
  const uint* order = objects_.sample_order();
  const uint* owner = objects_.sample_owner();
  const uint base = objects_.body_owner_base(), wall_n = wall_n_, n = objects_.sample_count();
  Vec4* force = objects_.sample_force();
  B::for_each(n, [=] TP_HD(uint k) { force[k] = Vec4{0, 0, 0, 0}; });
  B::for_each(s.n, [=] TP_HD(uint q) {
    if (q >= *s.listed || s.sample[q] < wall_n) return;
    const uint k = order[s.sample[q] - wall_n];
    if (owner[k] < base) return;
    force[k] = make_vec4(body_sample_pressure_force(q, s, f, b, c), 0.0f);
  });
  objects_.sum_body_forces(in_solve);
}

template <class B>
std::optional<Vec3> SimulationImpl<B>::wall_fluid_force(Vec3 lo, Vec3 hi) {
  const int solver = params_.solver;
  if (stats_.steps == 0 || previous_solver() != solver || !as_stepped_) return std::nullopt;
  if (solver == int(SolverKind::Pbf)) return pbf_wall_force(lo, hi);
  const FluidView f = fluid.view();
  const BoundaryView b = boundary_view();
  const SampleLists s = sample_lists();
  const StepConstants c = constants_;
  const uint wall_n = wall_n_;
  // The walls' pressures anew: sample_lists() zeroes them (NeighborLists::samples), and
  // the force is what the fluid's pressures push them with. DFSPH's water felt both solves'
  // pressure (fluid.pressure holds their sum between steps), and the terms the force reads
  // hold the density solve's last iteration's unless bodies had them written
  // (dfsph_pressure_solve); WCSPH's and PCISPH's are the step's. The next step writes both
  // anew.
  const float* pressure = f.pressure;
  if (solver == int(SolverKind::Dfsph)) {
    const float inv_rho0_2 = 1.0f / (c.p.rest_density * c.p.rest_density);
    B::for_each(f.n, [=] TP_HD(uint i) {
      f.position_term[i] = make_vec4(xyz(f.position_term[i]), pressure[i] * inv_rho0_2);
    });
  }
  B::for_each(s.n, [=] TP_HD(uint q) {
    if (q < *s.listed && s.sample[q] < wall_n) b.pressure[s.sample[q]] = boundary_pressure(q, s, f, b, c, pressure);
  });
  const auto component = [&](int axis) {
    return B::reduce_sum(s.n, [=] TP_HD(uint q) -> float {
      if (q >= *s.listed || s.sample[q] >= wall_n) return 0.0f;
      if (!inside_box(xyz(b.sample[s.sample[q]]), lo, hi)) return 0.0f;
      const Vec3 force = body_sample_pressure_force(q, s, f, b, c);
      return axis == 0 ? force.x : axis == 1 ? force.y : force.z;
    });
  };
  return Vec3{float(component(0)), float(component(1)), float(component(2))};
}

// PBF's walls: minus the momentum m dx / dt their moves (pbf_wall_share, summed over the
// step in wall_moves_) gave the particles now in [lo, hi], over the step's length.
template <class B>
std::optional<Vec3> SimulationImpl<B>::pbf_wall_force(Vec3 lo, Vec3 hi) {
  if (!measuring_walls_ || walls_measured_at_ + 1 != stats_.steps || wall_moves_.size() < fluid.n)
    return std::nullopt;
  const Vec4* x = fluid.position.data();
  const Vec4* moves = wall_moves_.data();
  const auto component = [&](int axis) {
    return B::reduce_sum(fluid.n, [=] TP_HD(uint i) -> float {
      if (!inside_box(xyz(x[i]), lo, hi)) return 0.0f;
      return axis == 0 ? moves[i].x : axis == 1 ? moves[i].y : moves[i].z;
    });
  };
  const double dt = stats_.last_dt;
  const double scale = -double(constants_.mass) / (dt * dt);
  return Vec3{float(scale * component(0)), float(scale * component(1)), float(scale * component(2))};
}

template <class B>
void SimulationImpl<B>::gather_body_forces_pbf(const Vec4* predicted_lambda, bool first, float weight) {
  if (!has_bodies()) return;
  const BoundaryView b = boundary_view();
  const SampleLists s = sample_lists(wall_n_);  // the bodies' (and obstacles'): PBF's walls need none
  const StepConstants c = constants_;
  const uint* order = objects_.sample_order();
  const uint* owner = objects_.sample_owner();
  const uint base = objects_.body_owner_base(), wall_n = wall_n_, n = objects_.sample_count();
  Vec4* force = objects_.sample_force();
  if (first) B::for_each(n, [=] TP_HD(uint k) { force[k] = Vec4{0, 0, 0, 0}; });
  // Each listed sample's force with lanes (a scalar loop per sample was 4 % of a step with
  // eight bodies), then added to its body sample's: only the objects' samples are listed,
  // at most n of them.
  if (listed_force_.size() < n) listed_force_.resize(n);
  Vec4* listed = listed_force_.data();
  B::for_each_lanes(s.n, TP_LANES(q) {
    if (!keep_lanes_below(&q, *s.listed)) return;
    store_xyz(listed, q, body_sample_pbf_force(q, s, predicted_lambda, b, c));
  });
  B::for_each(s.n, [=] TP_HD(uint q) {
    if (q >= *s.listed || s.sample[q] < wall_n) return;
    const uint k = order[s.sample[q] - wall_n];
    if (owner[k] < base) return;
    force[k] = make_vec4(xyz(force[k]) + xyz(listed[q]) * weight, 0.0f);
  });
}

// How far the lists that ran out of slots must grow (NeighborLists::grow), and whether any did.
inline bool lists_overflowed(const Max3& over) { return over.a > 0.0f || over.b > 0.0f || over.c > 0.0f; }

template <class B>
bool SimulationImpl<B>::settle(bool in_solve) {
  using R = StepRecorder<B>;
  if (!record_.any_written() && !guard_.verdict_pending()) return false;
  const unsigned w = record_.read();  // the wait
  const typename R::Record& seen = record_.seen();
  if (w & R::kBodies) objects_.bodies().read_sums(seen.bodies);  // (a step undone restores them)
  const Max3 none{0.0f, 0.0f, 0.0f};
  const Max3 over = (w & R::kOver) ? seen.over : none;
  const Max3 over_done = (w & R::kOverDone) ? seen.over_done : none;
  const Max3 most{fmaxf(over.a, over_done.a), fmaxf(over.b, over_done.b), fmaxf(over.c, over_done.c)};
  const uint64_t nonfinite = (w & R::kNonfinite) ? uint64_t(seen.nonfinite.sum + 0.5) : 0u;
  const bool judged = guard_.take_verdict();
  // The verdict first, then the lists' growth (which may refuse for memory, and throw).
  if (judged && (nonfinite > 0 || lists_overflowed(over_done))) {
    // The completed step goes, and what was measured of it, with what the steps since
    // changed. A device judges a step after step() has moved the spray with it (the CPU
    // judges before): after a step with non-finite particles the spray goes too (it took
    // its velocities from them); after lists that ran out of slots (a finite state) it
    // stays, moved one step more than the water, rather than vanish from the screen.
    const double time = stats_.simulated_time;
    restore_step_start();
    undone_time_ += time - stats_.simulated_time;
    if (B::kIsDevice && nonfinite > 0) diffuse_.clear();
    guard_.reject(nonfinite, stats_);
    lists_.grow(most);
    if (in_solve) throw StepRetaken{};
    return true;
  }
  const double error = record_.mean_error(w);
  if (!std::isnan(error)) add_measure(error, seen.error.max);
  const double first = record_.mean_first_error(w);
  if (!std::isnan(first)) stats_.last_solver_error = first;
  if (judged) guard_.accept(stats_);
  lists_.grow(most);
  if (lists_overflowed(over)) {  // lists of this solve (or of a state between steps)
    sorted_ = density_valid_ = listed_ = false;
    if (in_solve) throw StepRetaken{};
  }
  if (in_solve) {  // the save point: what a failed step goes back to
    objects_.bodies().take_forces();  // the fluid's force of the step before moves them
    save_step_start();
    start_saved_ = true;
  }
  return false;
}

// Copies position, velocity and id from one set of arrays into another (one pass).
template <class B>
void copy_particles(uint n, const Vec4* x, const Vec4* v, const uint* id, Vec4* x_to, Vec4* v_to,
                    uint* id_to) {
  B::for_each(n, [=] TP_HD(uint i) {
    x_to[i] = x[i];
    v_to[i] = v[i];
    id_to[i] = id[i];
  });
}

template <class B>
void SimulationImpl<B>::save_step_start() {
  FluidState<B>& f = fluid;
  copy_particles<B>(f.n, f.position.data(), f.velocity.data(), f.id.data(), f.start_position.data(),
                    f.start_velocity.data(), f.start_id.data());
  f.start_n = f.n;
  start_.values = step_values();
  start_.objects = objects_.moment();
  guard_.saved(stats_.steps + 1, stats_.simulated_time);
}

template <class B>
void SimulationImpl<B>::restore_step_start() {
  FluidState<B>& f = fluid;
  f.n = f.start_n;
  copy_particles<B>(f.n, f.start_position.data(), f.start_velocity.data(), f.start_id.data(),
                    f.position.data(), f.velocity.data(), f.id.data());
  pressures_kept_ = false;  // the failed attempt's, not its start's
  step_values() = start_.values;
  objects_.restore(start_.objects);
  if (!objects_.obstacles().empty() || objects_.bodies().size() > 0) {  // samples where they were
    place_obstacle_samples();
    objects_.copy_to(constants_);
  }
  // Every derived array (grid order, neighbour lists, densities) belongs to the failed
  // attempt: the next one rebuilds them.
  sorted_ = density_valid_ = listed_ = false;
}

// The test hook (inject_nan_for_test): NaN into values[index].
template <class B>
void SimulationImpl<B>::inject_nan(Vec4* values) {
  uint k = 0;
  if (!guard_.injection(fluid.n, &k)) return;
  B::for_each(1, [=] TP_HD(uint) { values[k] = make_vec4(Vec3{NAN, NAN, NAN}, 0.0f); });
}

// The integration's flags (fluid.scratch: 1 where the end state was not finite) summed
// into the record.
template <class B>
void SimulationImpl<B>::count_nonfinite() {
  const float* flags = fluid.scratch.data();
  record_.sum_max(&record_.slots()->nonfinite, StepRecorder<B>::kNonfinite, fluid.n,
                  [=] TP_HD(uint i) { return flags[i]; });
}

}  // namespace tp
