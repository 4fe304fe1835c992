// What the command line asks of the water's window beyond the start (app/start/start_plan.h)
// and the window itself (app/window/window_options.h): how it draws the water, the mesh
// mode's settings, and the Record's default rate.
#pragma once

#include "render/render_types.h"
#include "sim/mesh/mesh.h"

namespace tp {

struct WaterViewOptions {
  ColorMode color = ColorMode::Water;       ///< --color
  RenderMode render = RenderMode::Spheres;  ///< --render
  /// --surface-scale auto|S: the surface mode's resolution scale, chosen each frame or
  /// fixed at S in [0.5, 1] (see SurfaceSettings::auto_scale)
  bool surface_scale_auto = true;
  float surface_scale = 1.0f;
  bool surface_anisotropic = true;  ///< --surface-anisotropic
  bool grid_overlay = false;        ///< --grid-overlay: the Debug views' grid overlay on
  MeshSettings mesh;                ///< --mesh-cell, --mesh-iso, --mesh-anisotropic
  double record_fps = 30.0;         ///< --export-fps: the panel's Record rate to start with
  /// --replay with --video: the replay rendered offline at this many frames per simulated
  /// second (--fps); 0: replayed in the window on its clock.
  double replay_offline_fps = 0.0;
  /// --render and --color were given: a replay keeps them rather than the recorded ones.
  bool render_given = false, color_given = false;
};

}  // namespace tp
