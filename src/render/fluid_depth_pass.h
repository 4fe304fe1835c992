// Surface mode, pass 1: the particles' sphere depth into SurfaceTargets::depth_raw (linear
// eye depth) at the resolution scale, depth-tested against the scene
// (shaders/sphere_point.vert + fluid_depth.frag).
#pragma once

#include <string>

#include "render/gl_program.h"
#include "render/render_types.h"
#include "render/sphere_points.h"
#include "render/surface_targets.h"

namespace tp {

class FluidDepthPass {
 public:
  explicit FluidDepthPass(const std::string& shader_dir);  ///< throws RenderError
  // `test_scene`: the spheres are depth-tested against a copy of the scene's depth. Without
  // it they are tested among themselves only: right where nothing of the scene can stand
  // in front of a particle (no obstacles, the eye above the floor), and cheaper (the copy
  // of the window-sized depth costs about a third of the pass in software GL).
  void draw(const CameraView& camera, const SurfaceTargets& targets, const SpherePoints& spheres,
            const PointSource& points, float radius, bool test_scene) const;

 private:
  GlProgram program_;
};

}  // namespace tp
