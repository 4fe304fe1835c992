// The gas's advection on a backend B: the velocity and every scalar carried along the
// velocity of the step before (divergence-free after its projection). Each node is traced
// back with a second-order Runge-Kutta step and sampled there (semi-Lagrangian, Stam 1999);
// with MacCormack's correction (Selle et al. 2008) half a round trip's error is added back,
// clamped to the nodes the first sample read. The per-node code: kernels/gas.h.
#pragma once

#include "kernels/gas.h"
#include "sim/gas/array_ops.h"
#include "sim/gas/gas_fields.h"

namespace tp {

template <class B>
class GasAdvector {
 public:
  template <class T>
  using Buffer = typename B::template Buffer<T>;

  void reset(const GasGrid& grid) {
    for (int a = 0; a < 3; ++a) trace_[a].resize(grid.faces(a));
    trace_[3].resize(grid.cells());
  }

  // Every field of `fields` advected over dt (the fixed faces as the advection left them:
  // the caller puts them back).
  void advect(const GasGrid& g, GasFields<B>& fields, float dt, bool maccormack) {
    const GasVelocity u = fields.view();
    // Velocity: each component along the old velocity, into the scratch arrays.
    for (int axis = 0; axis < 3; ++axis) {
      if (axis == 2 && g.n.z == 1) {
        copy_array<B>(fields.scratch[2].data(), fields.velocity[2].data(), g.faces(2));
        continue;
      }
      advect_field(g, axis, 1, fields.velocity[axis].data(), fields.scratch[axis].data(),
                   fields.scratch2[axis].data(), u, dt, maccormack);
    }
    // Scalars, every channel along one trace per cell.
    advect_field(g, kGasCells, kGasChannels, fields.scalars.data(), fields.scalar_scratch.data(),
                 fields.scalar_scratch2.data(), u, dt, maccormack);
    for (int axis = 0; axis < 3; ++axis) fields.velocity[axis].swap(fields.scratch[axis]);
    fields.scalars.swap(fields.scalar_scratch);
  }

  // (Public for nvcc's device lambdas.) `channels` fields of `axis` (a face axis or
  // kGasCells), planar in src, advected into dst (tmp: MacCormack's first, forward result).
  void advect_field(const GasGrid& grid, int axis, int channels, const float* src, float* dst, float* tmp,
                    GasVelocity u, float dt, bool maccormack) {
    const GasGrid g = grid;
    const Int3 d = axis == kGasCells ? g.n : g.face_dims(axis);
    const uint count = uint(d.x) * uint(d.y) * uint(d.z);
    Vec4* trace = trace_[axis == kGasCells ? 3 : axis].data();
    float* first = maccormack ? tmp : dst;
    B::for_each(count, [=] TP_HD(uint e) { gas_advect_node(g, u, axis, d, channels, dt, src, e, trace, first); });
    if (maccormack)
      B::for_each(count, [=] TP_HD(uint e) { gas_maccormack_node(d, channels, trace, src, first, e, dst); });
  }

 private:
  Buffer<Vec4> trace_[4];  ///< the backtraced index positions: faces of each axis, cells
};

}  // namespace tp
