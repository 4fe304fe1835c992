// Particles as ray-cast sphere impostors: one instanced 4-vertex quad per particle, the
// fragment shader intersects the view ray with the sphere and writes the true depth, so
// spheres intersect each other and the tank correctly at any size.
#pragma once

#include <glad/gl.h>

#include <string>

#include "render/gl_program.h"
#include "render/render_types.h"
#include "render/sphere_instances.h"

namespace tp {

struct SphereDraw {
  GLuint vbo = 0;  ///< instance data, one Vec4 per sphere
  size_t count = 0;
  float radius = 0.02f;  ///< [m]
  int color_mode = 0;    ///< ColorMode
  glm::vec2 range{0, 1};
  glm::vec3 flat_color{1.0f};
  float alpha = 1.0f;  ///< < 1 for the translucent marker (blend must be on)
  /// A flat disc (2D): the colour without lighting, a thin darker rim. Depth as the sphere's.
  bool disc = false;
};

class SpherePass {
 public:
  explicit SpherePass(const std::string& shader_dir);  ///< throws RenderError

  void draw(const CameraView& camera, const SphereDraw& spheres) const;

 private:
  GlProgram program_;
  SphereInstances quads_;
};

}  // namespace tp
