// The instanced quads of the sphere impostors (shaders/sphere.vert), shared by every pass
// that draws particles as spheres with its own fragment stage (spheres, surface depth,
// thickness): one 4-corner quad in [-1, 1]^2 per particle.
#pragma once

#include <glad/gl.h>

#include <cstddef>

#include "render/gl_program.h"
#include "render/render_types.h"

namespace tp {

class SphereInstances {
 public:
  SphereInstances();
  ~SphereInstances();
  SphereInstances(const SphereInstances&) = delete;
  SphereInstances& operator=(const SphereInstances&) = delete;

  // One quad per Vec4 of `vbo`, of the given radius [m], seen by `camera`. `program` (whose
  // vertex stage is sphere.vert) is in use; this sets the vertex stage's uniforms, the
  // caller those of its fragment stage.
  void draw(const GlProgram& program, const CameraView& camera, float radius, GLuint vbo,
            size_t count) const;

 private:
  GLuint vao_ = 0;
  GLuint corners_ = 0;
};

}  // namespace tp
