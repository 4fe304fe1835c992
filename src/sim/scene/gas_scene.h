// A gas scene (sim/scene/scene.h, "gas") turned into a grid and a running gas simulation.
#pragma once

#include <string>
#include <vector>

#include "sim/gas/gas_sim.h"
#include "sim/scene/scene.h"

namespace tp {

// The grid of a gas scene with `cells` along the tank's longest side (0: the scene's own
// count): cubic cells, the tank rounded to whole cells from its min corner. In 2D one layer
// of cells through the middle of the tank in z. The obstacles, sources and walls as given.
// Throws SceneError when the grid would be too large.
GasSetup gas_setup(const Scene& scene, int cells = 0);

// Resets `gas` to the scene: the grid, the smoke blocks, the scene's parameters over the
// defaults (then `overrides`, "key=value" as --set gives them). Throws SceneError, also
// when the grid would not fit in `budget` bytes (0: memory_budget_bytes(kind)), before
// allocating anything.
void start_gas(GasSimulation& gas, const Scene& scene, int cells = 0,
               const std::vector<std::pair<std::string, std::string>>& overrides = {},
               BackendKind kind = BackendKind::Cpu, uint64_t budget = 0);

}  // namespace tp
