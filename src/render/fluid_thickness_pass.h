// Surface mode, thickness pass: the summed length of the eye ray inside the particles'
// spheres into SurfaceTargets::thickness (half the resolution scale's), by additive
// blending, without
// a depth test (shaders/sphere_point.vert + fluid_thickness.frag). With `clip_to_scene` each
// sphere's chord ends where the opaque scene (SurfaceTargets::scene_depth) begins, so
// water behind an obstacle does not darken the water in front of it.
#pragma once

#include <string>

#include "render/gl_program.h"
#include "render/render_types.h"
#include "render/sphere_points.h"
#include "render/surface_targets.h"

namespace tp {

class FluidThicknessPass {
 public:
  explicit FluidThicknessPass(const std::string& shader_dir);  ///< throws RenderError
  void draw(const CameraView& camera, const SurfaceTargets& targets, const SpherePoints& spheres,
            const PointSource& points, float radius, bool clip_to_scene) const;

 private:
  GlProgram program_;
};

}  // namespace tp
