// How much memory a particle simulation takes (sim/backend/memory.h: how much there is):
// what lets a particle count, a spacing or a diffuse particle cap that does not fit be
// refused up front, with the memory it would need, rather than fail to allocate later.
#pragma once

#include <cstdint>
#include <string>

#include "sim/backend/memory.h"
#include "sim/water/simulation.h"

namespace tp {

// The most a simulation allocates [bytes] (host memory on the CPU backend, device memory
// on CUDA) for `fluid` particles, `boundary` samples, `cells` neighbour-grid cells (per
// grid) and a cap of `diffuse` spray, foam and bubble particles; `growing`: emitters add
// particles up to `fluid`, so the particle arrays may be allocated half as large again.
// Counts every buffer of the particle state, the grids, the neighbour lists (at their
// first size, with the room their growth keeps) and the copies made for a reset, a
// snapshot, a PLY frame or a state file. tests/test_memory_need.cpp holds it against
// what a simulation really allocates.
uint64_t estimate_memory_bytes(uint64_t fluid, uint64_t boundary, uint64_t cells,
                               uint64_t diffuse = 0, bool growing = false);

// The neighbour-grid cells (per grid) of a tank of this size at particle spacing s.
double grid_cells(Vec3 tank_lo, Vec3 tank_hi, float spacing);

// The diffuse particle cap a simulation with these parameters uses on `backend`:
// diffuse_cap, or with 0 the backend's own (kept equal to SimulationImpl's by a test).
uint64_t diffuse_cap_for(const SimParams& params, BackendKind backend);

// A diffuse particle cap raised while the simulation runs (the panel, a preset): when the
// particles it adds would not fit in `budget` (0: memory_budget_bytes(backend)), puts
// params.diffuse_cap back to `previous_setting` and returns a note for the panel saying
// why; else returns "".
std::string keep_diffuse_cap_in_memory(SimParams& params, int previous_setting, BackendKind backend,
                                       uint64_t budget = 0);

}  // namespace tp
