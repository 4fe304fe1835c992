// Surface mode, pass 3: view-space normals from the smoothed depth into
// SurfaceTargets::normal (shaders/surface_normal.frag).
#pragma once

#include <string>

#include "render/gl_program.h"
#include "render/render_types.h"
#include "render/surface_targets.h"

namespace tp {

class SurfaceNormalPass {
 public:
  explicit SurfaceNormalPass(const std::string& shader_dir);  ///< throws RenderError
  void draw(const CameraView& camera, const SurfaceTargets& targets) const;

 private:
  GlProgram program_;
};

}  // namespace tp
