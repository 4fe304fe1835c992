// The tank the fluid lives in: a lit, checkered floor so that depth reads, faint far walls
// that never hide the fluid (front-facing walls are culled), and thin edges.
#pragma once

#include <glad/gl.h>

#include <glm/glm.hpp>
#include <string>

#include "render/gl_program.h"
#include "render/render_types.h"

namespace tp {

class TankPass {
 public:
  explicit TankPass(const std::string& shader_dir);  ///< throws RenderError
  ~TankPass();
  TankPass(const TankPass&) = delete;
  TankPass& operator=(const TankPass&) = delete;

  void set_box(const glm::vec3& lo, const glm::vec3& hi);  ///< inner faces [m]

  void draw_floor(const CameraView& camera) const;  ///< opaque, before the fluid
  void draw_walls(const CameraView& camera) const;  ///< translucent, after the fluid
  // draw_walls in two halves: the far walls' faces, and the edges (the gas goes between:
  // the far walls are behind it, the edges are drawn over it).
  void draw_wall_faces(const CameraView& camera) const;
  void draw_edges(const CameraView& camera) const;

 private:
  void bind(const CameraView& camera, int mode, const glm::vec4& color) const;

  GlProgram program_;
  GLuint vao_ = 0;
  GLuint vbo_ = 0;
  GLint floor_first_ = 0, floor_count_ = 0;
  GLint walls_first_ = 0, walls_count_ = 0;
  GLint edges_first_ = 0, edges_count_ = 0;
  float cell_ = 0.1f;
  bool have_box_ = false;
};

}  // namespace tp
