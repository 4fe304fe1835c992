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
  Buffer<float> pressure;  ///< reordered too, so that a snapshot shows the last step's
  /// DFSPH: its divergence solve's pressure times its step [Pa s], its warm start
  Buffer<float> divergence_impulse;
  // Recomputed every step.
  Buffer<Vec4> acceleration;
  Buffer<float> density;
  Buffer<Vec4> position_term;
  Buffer<Vec4> velocity_inv_density;
  Buffer<float> scratch;
  Buffer<Vec4> predicted;  ///< PCISPH/PBF: predicted positions (PBF sorts by them)
  /// per step: PCISPH's pressure acceleration; PBF's positions with lambdas, then vorticity
  Buffer<Vec4> aux;
  // Gather targets for the reorder.
  Buffer<Vec4> spare4;
  Buffer<uint> spare_id;
  Buffer<float> spare_f;
  Buffer<float> best_pressure;  ///< PCISPH: the pressures of the loop's best iteration
  Buffer<float> target_density;  ///< PCISPH: the density each particle's loop aims at
  // The step's start (the NaN guard, src/sim/water/step_guard.h): what a step that met a
  // non-finite value is repeated from.
  Buffer<Vec4> start_position;
  Buffer<Vec4> start_velocity;
  Buffer<uint> start_id;
  uint n = 0;
  uint start_n = 0;   ///< particles in start_* (the NaN guard's step start)
  uint capacity = 0;  ///< every buffer's size; emitters grow it (reserve), outflows free slots

  // n and capacity change only once every buffer has its new size: an allocation that
  // fails leaves them describing the buffers there are (SimulationImpl::reset rolls back).
  void resize(uint count) {
    position.resize(count);
    velocity.resize(count);
    id.resize(count);
    acceleration.resize(count);
    density.resize(count);
    pressure.resize(count);
    divergence_impulse.resize(count);
    position_term.resize(count);
    velocity_inv_density.resize(count);
    scratch.resize(count);
    predicted.resize(count);
    aux.resize(count);
    spare4.resize(count);
    spare_id.resize(count);
    spare_f.resize(count);
    best_pressure.resize(count);
    target_density.resize(count);
    start_position.resize(count);
    start_velocity.resize(count);
    start_id.resize(count);
    n = count;
    start_n = 0;
    capacity = count;
  }

  // Room for `count` particles, keeping the first n of the persistent arrays (the others
  // are recomputed every step). Grows by half again, so that a running emitter rarely
  // reallocates.
  void reserve(uint count) {
    if (count <= capacity) return;
    const uint grown = capacity + capacity / 2;
    const uint cap = count > grown ? count : grown;
    keep(position, spare4, cap);
    keep(velocity, spare4, cap);
    keep(id, spare_id, cap);
    keep(pressure, spare_f, cap);
    keep(divergence_impulse, spare_f, cap);
    for (auto* b : {&acceleration, &position_term, &velocity_inv_density, &predicted, &aux, &spare4})
      b->resize(cap);
    for (auto* b : {&density, &scratch, &spare_f, &best_pressure, &target_density})
      b->resize(cap);
    spare_id.resize(cap);
    // The step's start (the NaN guard's) is kept too: its verdict may come after an
    // emitter of the next step has grown the arrays (step_guard.h).
    keep(start_position, spare4, cap, start_n);
    keep(start_velocity, spare4, cap, start_n);
    keep(start_id, spare_id, cap, start_n);
    spare4.resize(cap);
    spare_id.resize(cap);
    capacity = cap;
  }

  // data grows to cap with its first n elements kept (spare is the copy's target).
  template <class T>
  void keep(Buffer<T>& data, Buffer<T>& spare, uint cap) {
    keep(data, spare, cap, n);
  }
  template <class T>
  void keep(Buffer<T>& data, Buffer<T>& spare, uint cap, uint count) {
    spare.resize(cap);
    const T* src = data.data();
    T* dst = spare.data();
    Backend::for_each(count, [=] TP_HD(uint i) { dst[i] = src[i]; });
    data.swap(spare);
  }

  FluidView view() {
    return FluidView{position.data(), velocity.data(),      acceleration.data(),
                     density.data(),  pressure.data(),      position_term.data(),
                     velocity_inv_density.data(), scratch.data(), n};
  }
};

// The diffuse particles (spray, foam, bubbles; src/sim/water/diffuse.h). Sized to the cap, so
// that nothing allocates while running; `n` are alive, in birth order.
template <class Backend>
struct DiffuseState {
  template <class T>
  using Buffer = typename Backend::template Buffer<T>;

  Buffer<Vec4> position;       ///< xyz, w = lifetime left [s]
  Buffer<Vec4> velocity;       ///< xyz, w = kind (DiffuseKind)
  Buffer<Vec4> next_position;  ///< the compaction's targets, swapped in after it
  Buffer<Vec4> next_velocity;
  Buffer<uint> flags;          ///< survivors, then their places (scan); n + 1
  Buffer<Vec4> normal;         ///< per fluid particle: surface normal, w = |grad c| h
  Buffer<uint> spawn;          ///< per fluid particle: how many it spawns, then where (scan)
  Buffer<float> expected;      ///< per fluid particle: 1 if fast enough to spawn, then how many
  Buffer<float> columns;       ///< the CPU's vector search: fluid x, y, z, vx, vy, vz arrays
  Buffer<Vec4> sample;         ///< and its result per diffuse particle: velocity, w = count
  Buffer<Vec4> staging;        ///< publish_diffuse() without interop (CUDA only)
  uint n = 0;

  void clear() { n = 0; }
};

}  // namespace tp
