// Surface mode, shading, at the surface's resolution scale: refraction, Beer-Lambert
// absorption, Fresnel reflection of the environment and a specular highlight, into
// SurfaceTargets::shade_a, b and c as what multiplies the scene behind the water, what adds
// to it, the refraction's shift and the depth (shaders/surface_shade.frag).
// SurfaceCompositePass then draws the water into the window from them.
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
            const SurfaceSettings& settings, float thickness_per_chord, glm::vec2 grow,
            bool two_d = false) const;
  // two_d: the water glows as if lit through its side, and its thickness stops at
  // kTwoDimensionalDepth (a whole layer is that deep, whatever the particles' disorder).

 private:
  GlProgram program_;
};

}  // namespace tp
