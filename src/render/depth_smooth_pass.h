// Surface mode, pass 2: a separable bilateral filter of the eye depth, x then y
// (depth_raw -> depth_temp -> depth_smooth), which also rounds the outline, at the
// resolution scale. Why this filter: see shaders/depth_smooth.frag.
#pragma once

#include <string>

#include "render/gl_program.h"
#include "render/render_types.h"
#include "render/surface_targets.h"

namespace tp {

class DepthSmoothPass {
 public:
  explicit DepthSmoothPass(const std::string& shader_dir);  ///< throws RenderError
  // `world_radius` [m]: the filter's radius on the water, projected per pixel;
  // `outline_radius` [m]: the width of the blur that rounds the outline's bumps, which
  // reaches out from the water at most as far as it can at `nearest_depth` [m] (no fluid
  // is nearer the eye; 0 = unknown);
  // `depth_falloff` [m]: depth differences much larger than this are not averaged.
  // Draws the water's rectangle (FluidBoundsPass) grown by outline_search() + 1 texels.
  void draw_axis(const CameraView& camera, const SurfaceTargets& targets, int axis,
                 float world_radius, float outline_radius, float nearest_depth,
                 float depth_falloff) const;
  // [texels] how far from the water a pixel can get some of it (the outline's blur): the
  // smoothed depth and coverage are 0 further out than this from the spheres' rectangle.
  int outline_search(const CameraView& camera, const SurfaceTargets& targets, float outline_radius,
                     float nearest_depth) const;

 private:
  GlProgram program_;
};

}  // namespace tp
