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

// What the points are drawn from: a VBO of one Vec4 per particle (xyz its position), or of
// ellipsoid splats, 3 Vec4 per particle (Simulation::build_splats(): the centre and its
// bounding radius over h, then the quadratic form A' = h^2 A, the ellipsoid being
// (x - c)^T A' (x - c) <= r^2 for the drawn radius r).
struct PointSource {
  GLuint vbo = 0;
  size_t count = 0;  ///< particles
  bool ellipsoids = false;
};

class SpherePoints {
 public:
  SpherePoints();
  ~SpherePoints();
  SpherePoints(const SpherePoints&) = delete;
  SpherePoints& operator=(const SpherePoints&) = delete;

  // One point per particle of `points`, a sphere of the given radius [m] (or its ellipsoid
  // of that radius), seen by `camera` in a target of `width` x `height` pixels (the
  // viewport, set by the caller). `program` (whose vertex stage is sphere_point.vert) is
  // in use; this sets the uniforms of the vertex stage and u_viewport, the caller those of
  // its fragment stage.
  void draw(const GlProgram& program, const CameraView& camera, float radius, const PointSource& points,
            int width, int height) const;

 private:
  GLuint vao_ = 0;
};

}  // namespace tp
