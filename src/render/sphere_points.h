// The particles as point sprites of sphere impostors (shaders/sphere_point.vert), shared
// by the surface's depth and thickness passes: one point per particle, sized to cover its
// sphere on screen. Cheaper than SphereInstances' quads where the particles are many and
// small on screen (see sphere_point.vert); the fragment stage casts its ray from
// gl_FragCoord. A sphere larger on screen than the largest point the driver draws
// (GL_POINT_SIZE_RANGE, 255 px in Mesa's software GL) is cut to that square.
#pragma once

#include <glad/gl.h>

#include <cstddef>

#include "render/gl_program.h"
#include "render/render_types.h"

namespace tp {

class SpherePoints {
 public:
  SpherePoints();
  ~SpherePoints();
  SpherePoints(const SpherePoints&) = delete;
  SpherePoints& operator=(const SpherePoints&) = delete;

  // One point per Vec4 of `vbo`, a sphere of the given radius [m], seen by `camera` in a
  // target of `width` x `height` pixels (the viewport, set by the caller). `program`
  // (whose vertex stage is sphere_point.vert) is in use; this sets the uniforms of the
  // vertex stage and u_viewport, the caller those of its fragment stage.
  void draw(const GlProgram& program, const CameraView& camera, float radius, GLuint vbo,
            size_t count, int width, int height) const;

 private:
  GLuint vao_ = 0;
};

}  // namespace tp
