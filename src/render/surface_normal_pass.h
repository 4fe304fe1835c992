// Surface mode, pass 3: view-space normals from the smoothed depth into
// SurfaceTargets::normal, at the resolution scale (shaders/surface_normal.frag).
#pragma once

#include <string>

#include "render/gl_program.h"
#include "render/render_types.h"
#include "render/surface_targets.h"

namespace tp {

class SurfaceNormalPass {
 public:
  explicit SurfaceNormalPass(const std::string& shader_dir);  ///< throws RenderError
  // Over the water's rectangle grown by `grow` scaled texels (see draw_water_rect).
  void draw(const CameraView& camera, const SurfaceTargets& targets, glm::vec2 grow) const;

 private:
  GlProgram program_;
};

}  // namespace tp
