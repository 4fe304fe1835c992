// The particle state shared by every solver: structure-of-arrays buffers on one backend.
#pragma once

#include "kernels/particles.h"

namespace tp {

template <class Backend>
struct FluidState {
  template <class T>
  using Buffer = typename Backend::template Buffer<T>;

  // Persistent across steps (reordered into cell order by every grid build).
  Buffer<Vec4> position;
  Buffer<Vec4> velocity;
  Buffer<uint> id;  ///< the particle's index at reset; export writes rows in this order
  // Recomputed every step.
  Buffer<Vec4> acceleration;
  Buffer<float> density;
  Buffer<float> pressure;
  Buffer<float> pressure_term;
  Buffer<float> inv_density;
  Buffer<float> scratch;
  // Gather targets for the reorder.
  Buffer<Vec4> spare4;
  Buffer<uint> spare_id;
  uint n = 0;

  void resize(uint count) {
    n = count;
    position.resize(count);
    velocity.resize(count);
    id.resize(count);
    acceleration.resize(count);
    density.resize(count);
    pressure.resize(count);
    pressure_term.resize(count);
    inv_density.resize(count);
    scratch.resize(count);
    spare4.resize(count);
    spare_id.resize(count);
  }

  FluidView view() {
    return FluidView{position.data(), velocity.data(),      acceleration.data(),
                     density.data(),  pressure.data(),      pressure_term.data(),
                     inv_density.data(), scratch.data(), n};
  }
};

}  // namespace tp
