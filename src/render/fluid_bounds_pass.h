// Surface mode, bounds pass: the rectangle on screen that holds every particle's sphere,
// into SurfaceTargets::bounds (one texel, MAX blending; shaders/sphere_point.vert in bounds
// mode + fluid_bounds.frag). The passes after it draw that rectangle, grown by what their
// filters reach, instead of the whole screen (SurfaceTargets::draw_water_rect): most of
// the window is not water, and in software GL every pixel a pass covers costs. It stays
// on the GPU: nothing is read back, and it is the rectangle of this very frame.
#pragma once

#include <string>

#include "render/gl_program.h"
#include "render/render_types.h"
#include "render/sphere_points.h"
#include "render/surface_targets.h"

namespace tp {

class FluidBoundsPass {
 public:
  explicit FluidBoundsPass(const std::string& shader_dir);  ///< throws RenderError
  void draw(const CameraView& camera, const SurfaceTargets& targets, const SpherePoints& spheres,
            const PointSource& points, float radius) const;

 private:
  GlProgram program_;
};

}  // namespace tp
