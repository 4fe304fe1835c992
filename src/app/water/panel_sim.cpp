#include "app/water/panel_sim.h"

#include <algorithm>
#include <cmath>

namespace tp {

float pressure_scale(const SimParams& p, const Scene& scene) {
  const float g =
      std::sqrt(p.gravity_x * p.gravity_x + p.gravity_y * p.gravity_y + p.gravity_z * p.gravity_z);
  const float scale = p.rest_density * g * rest_water_depth(scene);
  return scale > 0.0f ? scale : 5000.0f;
}

float rest_water_depth(const Scene& scene) {
  // The tallest block's water stands that deep at the start (a dam break's column); the
  // volume over the floor is what settles (a ball dropped into a pool adds to the pool).
  const float floor = scene.tank_lo.y, ceiling = scene.tank_hi.y;
  float depth = 0.0f;
  for (const FluidBlock& block : scene.blocks)
    if (block.lo.y < ceiling && block.hi.y > floor)
      depth = std::max(depth, std::min(block.hi.y, ceiling) - floor);
  // (In 2D fluid_volume is an area and the water's depth that over the tank's width.)
  const double area = double(scene.tank_hi.x - scene.tank_lo.x) *
                      (scene.dimensions == 2 ? 1.0 : double(scene.tank_hi.z - scene.tank_lo.z));
  if (area > 0.0) depth = std::max(depth, float(fluid_volume(scene) / area));
  return std::min(depth, ceiling - floor);
}

}  // namespace tp
