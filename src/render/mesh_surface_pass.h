// Mesh mode: the simulation's triangle mesh into the surface's targets, in place of the
// splat passes (thickness, depth, bounds, smoothing, normals): its thickness (front faces
// subtract their depth, back faces add theirs), then its nearest depth and normal in one
// depth-tested pass, and the water's rectangle set to the whole screen. The surface's
// shading and composite follow as in the surface mode (SurfaceRenderer::draw_mesh).
#pragma once

#include <string>

#include "render/gl_program.h"
#include "render/mesh_buffer.h"
#include "render/render_types.h"
#include "render/surface_targets.h"

namespace tp {

class MeshSurfacePass {
 public:
  explicit MeshSurfacePass(const std::string& shader_dir);
  // `test_scene`: the depth is tested against the scene's (obstacles, the eye below the floor).
  void draw_thickness(const CameraView& camera, const SurfaceTargets& targets, const MeshBuffer& mesh) const;
  void draw_surface(const CameraView& camera, const SurfaceTargets& targets, const MeshBuffer& mesh,
                    bool test_scene) const;

 private:
  void set_camera(const GlProgram& program, const CameraView& camera) const;
  GlProgram thickness_;
  GlProgram surface_;
};

}  // namespace tp
