// The gas's fields on a backend B: the face velocities, the cell scalars (kernels/gas.h's
// GasChannel, planar) and the scratch arrays the phases of a step write into before they
// swap them in. The solver's parts (GasAdvector, GasForces, GasPublisher) work on them.
#pragma once

#include "kernels/gas.h"
#include "sim/gas/array_ops.h"

namespace tp {

template <class B>
struct GasFields {
  template <class T>
  using Buffer = typename B::template Buffer<T>;

  Buffer<float> velocity[3];                    ///< [m/s] u, v, w on the faces of each axis
  Buffer<float> scratch[3], scratch2[3];        ///< per face axis (advection, viscosity)
  Buffer<float> scalars;                        ///< kGasChannels planar fields of cells
  Buffer<float> scalar_scratch, scalar_scratch2;
  Buffer<Vec4> cell_vectors, cell_vectors2;     ///< per cell (confinement, the views)

  // Sized for `grid`, the gas at rest and empty.
  void reset(const GasGrid& grid) {
    for (int a = 0; a < 3; ++a) {
      velocity[a].resize(grid.faces(a));
      scratch[a].resize(grid.faces(a));
      scratch2[a].resize(grid.faces(a));
      fill_array<B>(velocity[a].data(), grid.faces(a), 0.0f);
    }
    const uint n = grid.cells();
    scalars.resize(size_t(kGasChannels) * n);
    scalar_scratch.resize(size_t(kGasChannels) * n);
    scalar_scratch2.resize(size_t(kGasChannels) * n);
    fill_array<B>(scalars.data(), uint(kGasChannels) * n, 0.0f);
    cell_vectors.resize(n);
    cell_vectors2.resize(n);
  }

  GasVelocity view() const { return GasVelocity{{velocity[0].data(), velocity[1].data(), velocity[2].data()}}; }

  // Channel `channel` (GasChannel) of the grid's n cells.
  float* channel(int channel, uint n) { return scalars.data() + size_t(channel) * n; }
  const float* channel(int channel, uint n) const { return scalars.data() + size_t(channel) * n; }
};

}  // namespace tp
