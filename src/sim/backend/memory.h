// How much memory there is, and refusing what would not fit: a particle count, a grid or a
// list that would not fit is refused up front, with a sentence saying the memory it would
// need, rather than failing to allocate later.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "sim/backend/backend_kind.h"

namespace tp {

// What was asked cannot be set up (a scene file, a count, a grid, the memory it needs),
// with a sentence for the user: for a file, naming the file and the key path. Thrown by
// the scene loader (sim/scene/scene.h) and by the simulations' set-up.
class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Memory this process may still take [bytes]: the kernel's MemAvailable (free memory plus
// caches it can drop), less where a control group (a container) sets a lower limit, and
// at most TIDEPOOL_MEMORY_MB megabytes when that is set (to keep Tidepool to part of a
// shared machine, and for tests).
uint64_t available_memory_bytes();

// The memory a simulation on `backend` may take [bytes]: available_memory_bytes(), and on
// CUDA no more than the device has free now (device 0, the one the CUDA backend runs on;
// its total where the free memory is unknown).
uint64_t memory_budget_bytes(BackendKind backend);

// Called before the neighbour lists of `n` particles grow to `slots` slots per particle
// (fluid and boundary together; src/sim/neighbors/neighbor_list.h), or those of `n`
// boundary samples (`whose` names them): throws SceneError when they would not fit, so
// that a simulation packed far denser than water stops with a sentence rather than an
// allocation failure.
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
