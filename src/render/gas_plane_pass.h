// A 2D gas grid (GasField one cell thick) as what it is, a sheet: one quad in the box's
// middle z plane spanning its x and y, each pixel the field sampled there (linearly
// between the cells), its light rgb at the opacity alpha = 1 - exp(-plane_opacity * a) of
// its density a, nothing over solid cells (a = -1; the obstacle is drawn there). Full
// resolution: one texture lookup a pixel.
#pragma once

#include <glad/gl.h>

#include <string>

#include "render/gas_field.h"
#include "render/gl_program.h"
#include "render/render_types.h"

namespace tp {

class GasPlanePass {
 public:
  explicit GasPlanePass(const std::string& shader_dir);  ///< throws RenderError
  ~GasPlanePass();
  GasPlanePass(const GasPlanePass&) = delete;
  GasPlanePass& operator=(const GasPlanePass&) = delete;

  // Blends the field (when ready) premultiplied over the bound framebuffer, depth-tested
  // (GL_LESS: an obstacle standing out of the plane hides it) without writing depth, both
  // faces. `look` must be clamped (clamp_gas_look). Leaves blending and face culling off,
  // the depth test on (GL_LESS), depth writes on, texture unit 0 active.
  void draw(const CameraView& camera, const GasField& field, const GasLook& look) const;

 private:
  GlProgram program_;
  GLuint vao_ = 0;  ///< empty: the quad is made from gl_VertexID
};

}  // namespace tp
