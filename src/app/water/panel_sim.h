// What the water's panel sees of the running simulation (PanelSim) and of its scene (the
// water's depth, the pressure it puts on the colour range), for the panel (panel.h), its
// Debug views section (panel_debug.h) and the water's window.
#pragma once

#include <string>
#include <vector>

#include "app/start/setup.h"
#include "sim/bodies/body_spec.h"
#include "sim/scene/scene.h"
#include "app/water/grid_overlay.h"
#include "sim/water/params.h"

namespace tp {

// The particle inspector (shift + left click on a particle; the Debug views section): the
// particle's values as of the last refresh, and its fluid neighbours (highlighted).
struct ParticleInspector {
  bool active = false;
  uint id = 0;
  Vec3 position{}, velocity{};
  float density = 0.0f, pressure = 0.0f, density_error = 0.0f;  ///< kg/m^3, Pa, %
  int neighbours = 0;  ///< fluid particles within h
  std::vector<Vec4> neighbour_positions;
  double refreshed_at = -1.0;  ///< wall time of the last refresh
  bool just_picked = false;    ///< the panel opens its section once, then clears it
};

// What the panel reads and edits of the running simulation. The parameters are the
// window's copy, which the frame loop hands to the simulation (it may be stepping on a
// thread of its own); the counts come from the latest published state.
struct PanelSim {
  SimSetup& setup;    ///< the scene (its file, emitters, outflows), the backend message
  SimParams& params;  ///< edited by the panel
  uint particle_count = 0, boundary_count = 0;
  BackendKind backend = BackendKind::Cpu;
  std::string device;  ///< the backend's description, "CPU (OpenMP, 2 threads)"
  const std::vector<Vec4>* particles = nullptr;  ///< the state's positions and colour values (CPU)
  ParticleInspector* inspector = nullptr;        ///< the Debug views section shows and stops it
  int dimensions = 3;  ///< 2: the simulation runs in a plane (the title says 2D, no mesh mode)
  const GridOccupancy* grid = nullptr;  ///< the grid overlay's cells, while it is on (CPU)
  const std::vector<BodySpec>* bodies = nullptr;  ///< the state's rigid bodies (the Bodies section)
  int grabbed_body = -1;                          ///< the one the mouse holds, -1 none
};

// Depth of the scene's water at rest [m]: the higher of its tallest fluid block (clipped to
// the tank) and its blocks' and spheres' volume spread over the tank's floor. 0 for a
// scene of emitters alone.
float rest_water_depth(const Scene& scene);

// Typical pressure [Pa] of the scene: the hydrostatic pressure under its water at rest
// (rest_water_depth), the top of the default pressure colour range.
float pressure_scale(const SimParams& params, const Scene& scene);

}  // namespace tp
