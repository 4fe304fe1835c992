// What changes the gas's velocity and scalars between advection and projection, on a
// backend B: the sources (smoke, heat, dye, and the velocity they pull toward), buoyancy
// and vorticity confinement (Fedkiw, Stam & Jensen 2001), and the implicit viscosity. Free
// faces only: the fixed ones are the caller's to put back (GasBoundary::enforce). The
// per-face and per-cell code: kernels/gas.h.
#pragma once

#include <algorithm>
#include <vector>

#include "kernels/gas.h"
#include "sim/gas/array_ops.h"
#include "sim/gas/gas_boundary.h"
#include "sim/gas/gas_fields.h"
#include "sim/gas/gas_sim.h"

namespace tp {

template <class B>
class GasForces {
 public:
  template <class T>
  using Buffer = typename B::template Buffer<T>;

  static constexpr int kMaxSources = 32;

  void reset() { sources_buffer_.resize(kMaxSources); }

  // The first kMaxSources of `sources` (the caller keeps no more).
  void add_sources(const GasGrid& grid, const std::vector<GasSource>& sources, const GasBoundary<B>& boundary,
                   GasFields<B>& fields, float dt) {
    if (sources.empty()) return;
    const GasGrid g = grid;
    const int count = int(std::min<size_t>(sources.size(), kMaxSources));
    B::copy_from_host(sources_buffer_.data(), sources.data(), size_t(count));
    const GasSource* src = sources_buffer_.data();
    const unsigned char* solid = boundary.solid();
    float* s = fields.scalars.data();
    B::for_each(g.cells(), [=] TP_HD(uint c) { gas_add_sources_cell(g, solid, src, count, dt, c, s); });
    for (int axis = 0; axis < 3; ++axis) {
      float* ua = fields.velocity[axis].data();
      const unsigned char* fixed = boundary.fixed(axis);
      B::for_each(g.faces(axis), [=] TP_HD(uint f) { gas_source_pull_face(g, fixed, src, count, axis, dt, f, ua); });
    }
  }

  void add_buoyancy(const GasGrid& grid, const GasParams& params, const GasBoundary<B>& boundary,
                    GasFields<B>& fields, float dt) {
    if (params.buoyancy == 0.0f && params.weight == 0.0f) return;
    const GasGrid g = grid;
    const uint n = g.cells();
    const float* rho = fields.channel(kGasDensity, n);
    const float* temp = fields.channel(kGasTemperature, n);
    const float lift = params.buoyancy, weight = params.weight;
    const unsigned char* fixed = boundary.fixed(1);
    float* v = fields.velocity[1].data();
    B::for_each(g.faces(1), [=] TP_HD(uint f) { gas_buoyancy_face(g, fixed, rho, temp, lift, weight, dt, f, v); });
  }

  // The cells' velocity, then their vorticity (w: its length), then the confinement force
  // of each cell, which the faces take (add_cell_force).
  void add_confinement(const GasGrid& grid, const GasParams& params, const GasBoundary<B>& boundary,
                       GasFields<B>& fields, float dt) {
    const GasGrid g = grid;
    const uint n = g.cells();
    const GasVelocity u = fields.view();
    const unsigned char* solid = boundary.solid();
    Vec4* cv = fields.cell_vectors.data();
    Vec4* om = fields.cell_vectors2.data();
    B::for_each(n, [=] TP_HD(uint c) { cv[c] = gas_fluid_cell_velocity(g, solid, u, c); });
    B::for_each(n, [=] TP_HD(uint c) {
      const Vec3 w = solid[c] ? Vec3{0, 0, 0} : gas_vorticity(g, solid, cv, g.cell_of(c));
      om[c] = make_vec4(w, length(w));
    });
    const float eps = params.vorticity;
    B::for_each(n, [=] TP_HD(uint c) {
      cv[c] = solid[c] ? Vec4{0, 0, 0, 0} : make_vec4(gas_confinement(g, solid, om, g.cell_of(c), eps), 0.0f);
    });
    add_cell_force(g, cv, boundary, fields, dt);
  }

  // Free faces += dt x the mean of their two cells' `force`.
  void add_cell_force(const GasGrid& grid, const Vec4* force, const GasBoundary<B>& boundary, GasFields<B>& fields,
                      float dt) {
    const GasGrid g = grid;
    for (int axis = 0; axis < (g.n.z > 1 ? 3 : 2); ++axis) {
      float* ua = fields.velocity[axis].data();
      const unsigned char* fixed = boundary.fixed(axis);
      B::for_each(g.faces(axis), [=] TP_HD(uint f) { gas_add_cell_force_face(g, fixed, force, axis, dt, f, ua); });
    }
  }

  // (1 - nu dt Laplacian) u' = u by params.viscosity_iterations Jacobi sweeps per axis,
  // between the two scratch arrays; the walls as `walls` says (no-slip: ghost faces).
  void apply_viscosity(const GasGrid& grid, const GasWalls& walls, const GasParams& params,
                       const GasBoundary<B>& boundary, GasFields<B>& fields, float dt) {
    const GasGrid g = grid;
    const GasWalls w = walls;
    const float alpha = params.viscosity * dt / (g.dx * g.dx);
    for (int axis = 0; axis < (g.n.z > 1 ? 3 : 2); ++axis) {
      const uint count = g.faces(axis);
      const float* old = fields.velocity[axis].data();
      copy_array<B>(fields.scratch[axis].data(), old, count);
      float* cur = fields.scratch[axis].data();
      float* next = fields.scratch2[axis].data();
      const unsigned char* fixed = boundary.fixed(axis);
      for (int it = 0; it < params.viscosity_iterations; ++it) {
        B::for_each(count, [=] TP_HD(uint f) { gas_viscosity_face(g, w, fixed, axis, alpha, old, cur, f, next); });
        float* t = cur;
        cur = next;
        next = t;
      }
      if (cur != fields.scratch[axis].data()) copy_array<B>(fields.scratch[axis].data(), cur, count);
      fields.velocity[axis].swap(fields.scratch[axis]);
    }
  }

 private:
  Buffer<GasSource> sources_buffer_;  ///< the sources' copy on the backend
};

}  // namespace tp
