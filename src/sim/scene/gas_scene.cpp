#include "sim/scene/gas_scene.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/gas/gas_params.h"
#include "sim/backend/memory.h"

namespace tp {

GasSetup gas_setup(const Scene& scene, int cells) {
  const GasScene& g = scene.gas;
  const int count = cells > 0 ? cells : g.cells;
  const Vec3 extent = scene.tank_hi - scene.tank_lo;
  const bool plane = g.dimensions == 2;
  const float longest = plane ? std::max(extent.x, extent.y) : std::max({extent.x, extent.y, extent.z});
  GasSetup s;
  s.grid.dx = longest / float(count);
  const auto along = [&](float e) { return std::max(1, int(std::lround(e / s.grid.dx))); };
  s.grid.n = Int3{along(extent.x), along(extent.y), plane ? 1 : along(extent.z)};
  const double total = double(s.grid.n.x) * s.grid.n.y * s.grid.n.z;
  if (total > 256.0 * 256.0 * 256.0)
    throw SceneError("gas scene '" + scene.name + "': " + std::to_string(count) + " cells along the longest side make " +
                     std::to_string(uint64_t(total)) + " cells, more than 256^3; choose fewer");
  // 2D: the plane is the tank's middle slice in z, one cell thick.
  s.grid.lo = Vec3{scene.tank_lo.x, scene.tank_lo.y,
                   plane ? 0.5f * (scene.tank_lo.z + scene.tank_hi.z) - 0.5f * s.grid.dx : scene.tank_lo.z};
  s.grid.open = g.open;
  s.walls.no_slip = g.no_slip;
  for (int k = 0; k < 6; ++k) s.walls.velocity[k] = g.wall_velocity[k];
  s.obstacles = scene.obstacles;
  s.sources = g.sources;
  return s;
}

void start_gas(GasSimulation& gas, const Scene& scene, int cells,
               const std::vector<std::pair<std::string, std::string>>& overrides, BackendKind kind, uint64_t budget) {
  GasParams params = default_gas_params();
  for (const auto& list : {scene.gas.params, overrides})
    for (const auto& [key, value] : list) {
      std::string error;
      if (!set_gas_param_from_text(params, key, value, &error)) throw SceneError("gas scene '" + scene.name + "': " + error);
    }
  const GasSetup setup = gas_setup(scene, cells);
  const uint64_t need = gas_memory_bytes(setup.grid), have = budget ? budget : memory_budget_bytes(kind);
  if (need > have) {
    // (in MB: a small grid refused under a small budget read "need 0.0 GB and 0.0 GB are free")
    char text[80];
    std::snprintf(text, sizeof(text), "%dx%dx%d cells", setup.grid.n.x, setup.grid.n.y, setup.grid.n.z);
    throw SceneError("gas scene '" + scene.name + "': " + text + " need " + megabytes_text(double(need)) + " and " +
                     megabytes_text(double(have)) + " are free; choose fewer cells");
  }
  try {
    gas.reset(setup);
  } catch (const std::exception& e) {
    throw SceneError("gas scene '" + scene.name + "': " + e.what());
  }
  gas.params() = params;
  if (scene.gas.blocks.empty()) return;
  const GasGrid& g = setup.grid;
  std::vector<std::vector<float>> channels(kGasChannels);
  for (int ch = 0; ch < kGasChannels; ++ch) gas.read_channel(ch, &channels[size_t(ch)]);
  for (uint c = 0; c < g.cells(); ++c) {
    const Vec3 x = gas_node_position(g, kGasCells, g.cell_of(c));
    for (const SmokeBlock& b : scene.gas.blocks) {
      const bool in_z = g.n.z == 1 || (x.z >= b.lo.z && x.z <= b.hi.z);
      if (!(x.x >= b.lo.x && x.x <= b.hi.x && x.y >= b.lo.y && x.y <= b.hi.y && in_z)) continue;
      channels[kGasDensity][c] += b.density;
      channels[kGasTemperature][c] += b.temperature;
      channels[kGasRed][c] += b.density * b.color.x;
      channels[kGasGreen][c] += b.density * b.color.y;
      channels[kGasBlue][c] += b.density * b.color.z;
    }
  }
  for (int ch = 0; ch < kGasChannels; ++ch) gas.write_channel(ch, channels[size_t(ch)]);
}

}  // namespace tp
