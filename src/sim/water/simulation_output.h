// What the host and the renderer read of a simulation: the particle under the mouse
// (pick), the particles for drawing (publish), a snapshot for export, and the statistics.
// Each read of the state judges a step not yet judged first (settle: step_guard.h).
#pragma once

#include <algorithm>
#include <vector>

#include "sim/backend/publish_values.h"
#include "sim/water/shared_phases.h"

namespace tp {

template <class B>
std::optional<Vec3> SimulationImpl<B>::pick(const Ray& ray) const {
  if (fluid.n == 0) return std::nullopt;
  const Vec4* x = fluid.position.data();
  const float radius = kPickRadiusSpacings * spacing_;
  const Vec3 o = ray.origin, d = ray.direction;
  // max of -t over particles within `radius` of the ray, in front of its origin.
  const float best = B::reduce_max(
      fluid.n, -INFINITY, [=] TP_HD(uint i) { return pick_entry(xyz(x[i]), o, d, radius); });
  if (!(best > -INFINITY)) return std::nullopt;
  return o + d * (-best);
}

template <class B>
void SimulationImpl<B>::publish(PublishTarget& target, ColorField field) {
  if (field == ColorField::Neighbors || field == ColorField::Vorticity || field == ColorField::DensityError) {
    publish_debug(target, field);
    return;
  }
  const Vec4* x = fluid.position.data();
  const Vec4* v = fluid.velocity.data();
  const float* rho = fluid.density.data();
  const float* p = fluid.pressure.data();
  const bool have_density = density_valid_;
  const float rest = constants_.p.rest_density;
  const uint n = fluid.n;
  auto value = [=] TP_HD(uint i) -> Vec4 {
    float w = 0.0f;
    if (field == ColorField::Speed) w = length(xyz(v[i]));
    else if (field == ColorField::Density) w = have_density ? rho[i] / rest : 1.0f;
    else w = p[i];
    return make_vec4(xyz(x[i]), w);
  };
  publish_values<B>(target, n, staging_, value);
}

// The debug views' values, for the current positions (their lists and densities first:
// a grid build when a step has moved the particles since, as for a snapshot), into
// fluid.spare_f (free between steps), then published with the positions.
template <class B>
void SimulationImpl<B>::publish_debug(PublishTarget& target, ColorField field) {
  settle(false);
  ensure_density();
  const FluidView f = fluid.view();
  const NeighborList nl = fluid_list();
  const BoundaryView b = boundary_view();
  const StepConstants k = constants_;
  float* value = fluid.spare_f.data();
  const uint n = fluid.n;
  if (field == ColorField::Neighbors) {
    B::for_each(n, [=] TP_HD(uint i) {
      const Vec3 xi = xyz(f.position[i]);
      float count = 0.0f;
      for_each_listed(nl, i, f.position, xi, k.kernel.h, [&](uint j, const Vec3&, float r) {
        count += (j != i && r < k.kernel.h) ? 1.0f : 0.0f;
      });
      for_each_boundary_neighbor(b, i, xi, k.kernel.h, [&](uint, const Vec3&, float r, float) {
        count += r < k.kernel.h ? 1.0f : 0.0f;
      });
      value[i] = count;
    });
  } else if (field == ColorField::Vorticity) {
    B::for_each(n, [=] TP_HD(uint i) {
      f.velocity_inv_density[i] = make_vec4(xyz(f.velocity[i]), 1.0f / f.density[i]);
    });
    B::for_each(n, [=] TP_HD(uint i) { value[i] = length(pbf_vorticity(i, f.position, f.velocity_inv_density, nl, k)); });
  } else {
    B::for_each(n, [=] TP_HD(uint i) { value[i] = 100.0f * compression(f.density[i], k); });
  }
  const Vec4* x = f.position;
  publish_values<B>(target, n, staging_, [=] TP_HD(uint i) { return make_vec4(xyz(x[i]), value[i]); });
}

template <class B>
Snapshot SimulationImpl<B>::snapshot() {
  settle(false);
  ensure_density();
  const uint n = fluid.n;
  std::vector<uint> id(n);
  std::vector<Vec4> x(n), v(n);
  std::vector<float> rho(n), pressure(n, 0.0f);
  B::copy_to_host(id.data(), fluid.id.data(), n);
  if (previous_solver_ == int(SolverKind::Wcsph) || previous_solver_ == int(SolverKind::Pcisph) ||
      previous_solver_ == int(SolverKind::Dfsph))
    B::copy_to_host(pressure.data(), fluid.pressure.data(), n);
  B::copy_to_host(x.data(), fluid.position.data(), n);
  B::copy_to_host(v.data(), fluid.velocity.data(), n);
  B::copy_to_host(rho.data(), fluid.density.data(), n);
  // Rows in id order: ids are unique (the initial particles' indices, then the emitted
  // ones' in order of birth), with gaps where outflows removed particles.
  std::vector<uint> order(n);
  for (uint k = 0; k < n; ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](uint a, uint b) { return id[a] < id[b]; });
  Snapshot s;
  s.id.resize(n);
  s.position.resize(n);
  s.velocity.resize(n);
  s.density.resize(n);
  s.pressure.resize(n);
  for (uint i = 0; i < n; ++i) {
    const uint k = order[i];
    s.id[i] = id[k];
    s.position[i] = x[k];
    s.velocity[i] = v[k];
    s.density[i] = rho[k];
    s.pressure[i] = pressure[k];
  }
  return s;
}

template <class B>
MeshInput SimulationImpl<B>::mesh_input() {
  settle(false);
  if (!mesher_) mesher_ = std::make_unique<SurfaceMesher<B>>();
  return MeshInput{fluid.position.data(), fluid.velocity.data(), fluid.n, spacing_, 2.0f * spacing_,
                   tank_lo_, tank_hi_, objects_.obstacles().data(), int(objects_.obstacles().size())};
}

template <class B>
void SimulationImpl<B>::build_mesh(const MeshSettings& settings, TriangleMesh* out, MeshTimes* times) {
  const MeshInput in = mesh_input();
  mesher_->build(in, settings, times);
  if (out) mesher_->download(out);
}

template <class B>
void SimulationImpl<B>::publish_mesh(MeshTarget& target) {
  const uint vertices = mesher_ ? mesher_->vertex_count() : 0;
  const uint triangles = mesher_ ? mesher_->triangle_count() : 0;
  Vec4* vout = nullptr;
  uint32_t* iout = nullptr;
  if (B::kIsDevice && triangles > 0 && target.map_device(vertices, triangles, &vout, &iout)) {
    // Into the GL buffers on the device (interop): positions, then normals, then indices.
    const Vec4* p = mesher_->positions();
    const Vec4* nrm = mesher_->normals();
    const uint* index = mesher_->indices();
    B::for_each(vertices, [=] TP_HD(uint i) {
      vout[i] = p[i];
      vout[vertices + i] = nrm[i];
    });
    B::for_each(3 * triangles, [=] TP_HD(uint i) { iout[i] = index[i]; });
    B::synchronize();
    target.unmap();
    return;
  }
  TriangleMesh m;
  if (mesher_) mesher_->download(&m);
  target.upload(m);
}

template <class B>
void SimulationImpl<B>::build_splats(const MeshSettings& settings, std::vector<Vec4>* out) {
  const MeshInput in = mesh_input();
  mesher_->splats(in, settings, out);
}

template <class B>
void SimulationImpl<B>::publish_splats(PublishTarget& target) {
  const uint n = mesher_ ? mesher_->splat_count() : 0;
  const Vec4* values = n ? mesher_->splat_values() : nullptr;
  publish_values<B>(target, n, staging_, [=] TP_HD(uint i) { return values[i]; });
}

template <class B>
RunStats SimulationImpl<B>::stats() {
  settle(false);
  ensure_density();
  if (record_.written(StepRecorder<B>::kOver)) {  // that grid build's lists: grown and built again if they overflowed
    settle(false);
    ensure_density();
  }
  return stats_as_stepped();
}

template <class B>
RunStats SimulationImpl<B>::stats_as_stepped() {
  settle(false);
  timers_.collect(true);
  RunStats s = stats_;
  s.last_solver = previous_solver_;
  s.phases = timers_.totals();
  s.neighbors_per_particle = lists_.mean_fluid();
  s.boundary_neighbors_per_particle = lists_.mean_boundary();
  return s;
}

}  // namespace tp
