// The Debug views' grid overlay: the edges of the neighbour grid's occupied cells, as
// 1-pixel lines coloured by the particles in each cell (dim red for one, orange, pale
// yellow for a full cell and more). One instanced draw: the unit cube's 12 edges (in 2D
// the unit square's 4, in the plane) per cell. Depth-tested against the water drawn
// before it, each line pulled a little towards the eye so that the edges of the cells at
// the water's surface show on it rather than half inside the spheres.
#pragma once

#include <glad/gl.h>

#include <string>
#include <vector>

#include "kernels/common.h"
#include "render/gl_program.h"
#include "render/render_types.h"

namespace tp {

struct GridOverlayDraw {
  std::vector<Vec4> cells;  ///< xyz the cell's lowest corner [m], w its particle count
  float cell = 0.0f;        ///< [m] cell size
  bool plane = false;       ///< 2D: squares in the plane z = the corners' z
  float full = 8.0f;        ///< the count drawn at the ramp's top (a full cell)
  float pull = 0.0f;        ///< [m] towards the eye, in view space
};

class GridOverlayPass {
 public:
  explicit GridOverlayPass(const std::string& shader_dir);  ///< throws RenderError
  ~GridOverlayPass();
  GridOverlayPass(const GridOverlayPass&) = delete;
  GridOverlayPass& operator=(const GridOverlayPass&) = delete;

  // Uploads grid.cells (a new buffer each time: no wait for the frame drawing the old
  // ones), drawn by every draw() until the next upload.
  void upload(const GridOverlayDraw& grid);
  // Into the bound framebuffer, depth-tested without depth writes, blended; leaves depth
  // writes on and blending off. The cells of the last upload, with grid's other fields.
  void draw(const CameraView& camera, const GridOverlayDraw& grid) const;

  // The ramp's ends and middle (also in the shader), for the panel and the tests.
  static constexpr float kSparse[3] = {0.50f, 0.10f, 0.10f};  ///< one particle
  static constexpr float kHalf[3] = {0.95f, 0.50f, 0.10f};    ///< half full
  static constexpr float kFull[3] = {1.00f, 0.95f, 0.55f};    ///< full and more

 private:
  GlProgram program_;
  GLuint vao_ = 0;
  GLuint edges_vbo_ = 0;  ///< the unit cube's 24 line ends, then the unit square's 8
  GLuint cells_vbo_ = 0;  ///< one Vec4 per cell, per instance
  size_t count_ = 0;      ///< cells uploaded
};

}  // namespace tp
