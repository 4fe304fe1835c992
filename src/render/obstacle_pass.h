// Rigid obstacles as solid, lit shapes: a box (the unit cube scaled to its half extents)
// or a sphere (a finely tessellated unit sphere, shaded with the exact per-fragment
// normal), drawn opaque with depth test and depth writes. The renderer draws them twice in
// surface mode: into the scene texture the water refracts (and whose depth hides the
// particles behind them), and into the window before the water's shading.
#pragma once

#include <glad/gl.h>

#include <string>
#include <vector>

#include "render/gl_program.h"
#include "render/render_types.h"

namespace tp {

class ObstaclePass {
 public:
  explicit ObstaclePass(const std::string& shader_dir);  ///< throws RenderError
  ~ObstaclePass();
  ObstaclePass(const ObstaclePass&) = delete;
  ObstaclePass& operator=(const ObstaclePass&) = delete;

  // Into the bound framebuffer, depth-tested and writing depth; back faces culled. Leaves
  // blending off, culling off.
  void draw(const CameraView& camera, const std::vector<ObstacleDraw>& obstacles) const;

  // The base colour: a warm sandstone, unlike the water's blues and the tank's greys.
  static constexpr float kColor[3] = {0.80f, 0.62f, 0.42f};

 private:
  GlProgram program_;
  GLuint vao_ = 0;
  GLuint vbo_ = 0;
  GLint box_first_ = 0, box_count_ = 0;
  GLint sphere_first_ = 0, sphere_count_ = 0;
};

}  // namespace tp
