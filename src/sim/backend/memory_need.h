// How much memory a simulation takes, and how much there is: what lets a particle count,
// a spacing or a diffuse particle cap that does not fit be refused up front, with the
// memory it would need, rather than fail to allocate later.
#pragma once

#include <cstdint>
#include <string>

#include "sim/scene/scene.h"
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

// Memory this process may still take [bytes]: the kernel's MemAvailable (free memory plus
// caches it can drop), less where a control group (a container) sets a lower limit, and
// at most TIDEPOOL_MEMORY_MB megabytes when that is set (to keep Tidepool to part of a
// shared machine, and for tests).
uint64_t available_memory_bytes();

// The memory a simulation on `backend` may take [bytes]: available_memory_bytes(), and on
// CUDA no more than the device has free now (device 0, the one the CUDA backend runs on;
// its total where the free memory is unknown).
uint64_t memory_budget_bytes(BackendKind backend);

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

// Called before the neighbour lists of `n` particles grow to `slots` slots per particle
// (fluid and boundary together; src/sim/neighbor_list.h), or those of `n` boundary
// samples (`whose` names them): throws SceneError when they
// would not fit, so that a simulation packed far denser than water stops with a sentence
// rather than an allocation failure.
void require_neighbor_list_memory(uint64_t n, uint64_t slots, bool device,
                                  const char* whose = "particles");

// "1,234,567" and "1,234 MB" (rounded up, at least 1 MB) for messages.
std::string count_text(double count);
std::string megabytes_text(double bytes);

// Throws SceneError "<what> would need N MB of memory, but only M MB is free; <advice>"
// when `need` is more than 80 % of `available` (0: available_memory_bytes()).
void require_memory(double need, uint64_t available, const std::string& what,
                    const std::string& advice);

}  // namespace tp
