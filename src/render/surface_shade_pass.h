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

// The tank's inner faces, world frame, and the particle spacing (0: no tank). Water
// pressed against a face the eye looks through is seen through the glass there, not as a
// free surface: the screen-space surface rounds the edge where the top meets the glass
// (its depth is smoothed across it), and that rounded edge, turning through every normal
// between up and towards the eye, caught the sun as a bright line along the front glass
// at the waterline. Within two spacings of such a face the sun's highlight and the sky's
// reflection fade out (the water's own colour and what lies behind it stay).
struct SurfaceGlass {
  glm::vec3 lo{0.0f}, hi{0.0f};
  float spacing = 0.0f;
};

class SurfaceShadePass {
 public:
  explicit SurfaceShadePass(const std::string& shader_dir);  ///< throws RenderError
  void draw(const CameraView& camera, const SurfaceTargets& targets, GLuint environment,
            const SurfaceSettings& settings, float thickness_per_chord, glm::vec2 grow,
            bool two_d = false, const SurfaceGlass& glass = SurfaceGlass{}) const;
  // two_d: the water glows as if lit through its side, and its thickness stops at
  // kTwoDimensionalDepth (a whole layer is that deep, whatever the particles' disorder);
  // the glass in front of it and behind it are not faded (the whole layer lies on them).

 private:
  GlProgram program_;
};

}  // namespace tp
