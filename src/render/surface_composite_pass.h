// Surface mode, last pass: the water at the window's resolution, drawn into the bound
// (window's) framebuffer where there is fluid, from the shading done at the surface's
// resolution scale (SurfaceShadePass) and the scene behind the water, with the smoothed
// surface's depth (shaders/surface_composite.frag: how it upsamples without a rim or a
// staircase at the outline). With `opaque_in_front_check` (obstacles in the scene) a
// refracted lookup that lands on something nearer than the water (SurfaceTargets::
// scene_depth) falls back to the straight one, so an obstacle in front of the water does
// not show in it as a halo.
#pragma once

#include <string>

#include "render/gl_program.h"
#include "render/render_types.h"
#include "render/surface_targets.h"

namespace tp {

class SurfaceCompositePass {
 public:
  explicit SurfaceCompositePass(const std::string& shader_dir);  ///< throws RenderError
  // Over the water's rectangle grown by `grow` scaled texels (see draw_water_rect).
  void draw(const CameraView& camera, const SurfaceTargets& targets, glm::vec2 grow,
            bool opaque_in_front_check) const;

 private:
  GlProgram program_;
};

}  // namespace tp
