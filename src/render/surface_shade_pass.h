// Surface mode, last pass: refraction, Beer-Lambert absorption, Fresnel reflection of the
// environment and a specular highlight, drawn into the bound (window's) framebuffer where
// there is fluid, with the smoothed surface's depth (shaders/surface_shade.frag). With
// `opaque_in_front_check` (obstacles in the scene; needs SurfaceTargets::opaque_depth
// kept) a refracted lookup that lands on something nearer than the water falls back to
// the straight one, so an obstacle in front of the water does not show in it as a halo.
#pragma once

#include <string>

#include "render/gl_program.h"
#include "render/render_types.h"
#include "render/surface_targets.h"

namespace tp {

class SurfaceShadePass {
 public:
  explicit SurfaceShadePass(const std::string& shader_dir);  ///< throws RenderError
  void draw(const CameraView& camera, const SurfaceTargets& targets, GLuint environment,
            const SurfaceSettings& settings, float thickness_per_chord,
            bool opaque_in_front_check) const;

 private:
  GlProgram program_;
};

}  // namespace tp
