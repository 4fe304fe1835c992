// The phases every solver shares, in the order a step meets them: the grid build and the
// neighbour lists, the density and its error, the forces besides pressure, surface
// tension, the integration (or PBF's commit of its predicted positions) and the time
// step's maxima (the step's one wait). The solvers (wcsph.h, pcisph.h, pbf.h) call them
// between their own phases.
#pragma once

#include "sim/water/simulation_impl.h"

namespace tp {

template <class B>
BoundaryView SimulationImpl<B>::boundary_view() {
  return BoundaryView{boundary_.data(),         boundary_velocity_.data(), boundary_pressure_.data(),
                      boundary_grid_.view(),    objects_.grid_view(),      wall_n_,
                      wall_n_ + objects_.sample_count(), lists_.boundary(), wall_clear_lo_,
                      wall_clear_hi_,           objects_.box_lo(),         objects_.box_hi(),
                      lists_.boundary_active()};
}

template <class B>
void SimulationImpl<B>::sort_particles() {
  if (sorted_) return;
  grid_.build(fluid.position.data(), fluid.n);
  grid_.reorder(fluid.position, fluid.spare4);
  grid_.reorder(fluid.velocity, fluid.spare4);
  grid_.reorder(fluid.id, fluid.spare_id);
  grid_.reorder(fluid.pressure, fluid.spare_f);
  build_lists(fluid.position.data());
  sorted_ = true;
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
SampleLists SimulationImpl<B>::sample_lists() {
  if (!B::kIsDevice) return lists_.samples(boundary_view());
  typename StepRecorder<B>::Field field;
  Max3* over = overflow_slot(&field);
  bool wrote = false;
  const SampleLists s = lists_.samples(boundary_view(), over, record_.written(field), &wrote);
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
  // particles whose state was not finite, which the NaN guard counts.
  B::for_each(f.n, [=] TP_HD(uint i) {
    f.scratch[i] = integrate_particle(i, f.position, f.velocity, f.acceleration, c) ? 1.0f : 0.0f;
  });
  count_nonfinite();
  sorted_ = density_valid_ = false;
  pending_measure_ = true;
}

template <class B>
void SimulationImpl<B>::commit_predicted() {
  advance_obstacles();
  const FluidView f = fluid.view();
  const Vec4* target = fluid.predicted.data();
  const StepConstants c = constants_;
  inject_nan(fluid.predicted.data());
  B::for_each(f.n, [=] TP_HD(uint i) {
    f.scratch[i] = commit_particle(i, f.position, f.velocity, target, c) ? 1.0f : 0.0f;
  });
  count_nonfinite();
  sorted_ = density_valid_ = false;
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
}

template <class B>
void SimulationImpl<B>::record_iterations(int iterations, double error) {
  stats_.last_iterations = iterations;
  if (!std::isnan(error)) stats_.last_solver_error = error;  // NaN: from the record
  iteration_sum_ += iterations;
  iteration_steps_++;
  stats_.mean_iterations = double(iteration_sum_) / double(iteration_steps_);
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
  return FlowMaxima{m.a, m.b, m.c};
}

}  // namespace tp
