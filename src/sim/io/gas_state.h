// The gas's whole state in a file (the window's Save state / Load state for gas scenes):
// the grid, the walls, the obstacles where they are now, the sources, every parameter, the
// clock and every field (velocity on the faces, density, temperature and dye in the cells).
// Loading it continues exactly where it was saved. Binary, this machine's byte order; the
// layout in docs/gas.md.
#pragma once

#include <string>

#include "sim/gas/gas_sim.h"

namespace tp {

// Writes `gas` to `path` atomically (a failure leaves any old file whole); `scene_source`
// names the scene it came from. False with a sentence on failure.
bool save_gas_state(const std::string& path, const GasSimulation& gas, const std::string& scene_source,
                    std::string* error);

// Replaces `gas` with the state in `path`. The file is read and checked whole first: a
// missing, truncated or foreign file, or a grid this backend cannot hold, leaves `gas` as
// it was and returns false with a sentence naming the file.
bool load_gas_state(const std::string& path, GasSimulation& gas, std::string* scene_source, std::string* error);

}  // namespace tp
