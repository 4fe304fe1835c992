#include "render/gas_volume_pass.h"

#include <algorithm>
#include <cmath>
#include <glm/gtc/type_ptr.hpp>
#include <vector>

namespace tp {

namespace {

// The unit cube's 12 triangles, counter-clockwise seen from outside: culling the front
// faces leaves the back ones, one per pixel the box covers.
std::vector<glm::vec3> unit_cube() {
  std::vector<glm::vec3> out;
  for (int axis = 0; axis < 3; ++axis) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;  // (u, v, axis) is right-handed
    for (int side = 0; side < 2; ++side) {
      glm::vec3 c[4];
      for (int k = 0; k < 4; ++k) {
        c[k][axis] = float(side);
        c[k][u] = (k == 1 || k == 2) ? 1.0f : 0.0f;
        c[k][v] = k >= 2 ? 1.0f : 0.0f;
      }
      // c0 c1 c2 c3 turn counter-clockwise about +axis: outward on the far side only.
      const int order[6] = {0, 1, 2, 0, 2, 3};
      for (int k = 0; k < 6; ++k) out.push_back(c[side ? order[k] : order[5 - k]]);
    }
  }
  return out;
}

}  // namespace

GasVolumePass::GasVolumePass(const std::string& shader_dir)
    : march_(GlProgram::load(shader_dir, "gas_volume.vert", "gas_volume.frag")),
      composite_(GlProgram::load(shader_dir, "gas_volume.vert", "gas_composite.frag")) {
  const std::vector<glm::vec3> cube = unit_cube();
  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &vbo_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(cube.size() * sizeof(glm::vec3)), cube.data(),
               GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(glm::vec3), nullptr);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

GasVolumePass::~GasVolumePass() {
  glDeleteFramebuffers(1, &fbo_);
  glDeleteTextures(1, &target_);
  glDeleteBuffers(1, &vbo_);
  glDeleteVertexArrays(1, &vao_);
}

void GasVolumePass::resize(int width, int height) {
  if (width == width_ && height == height_ && fbo_) return;
  glDeleteFramebuffers(1, &fbo_);
  glDeleteTextures(1, &target_);
  glGenTextures(1, &target_);
  glBindTexture(GL_TEXTURE_2D, target_);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA16F, width, height, 0, GL_RGBA, GL_FLOAT, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);  // the upsampling
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindTexture(GL_TEXTURE_2D, 0);
  glGenFramebuffers(1, &fbo_);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target_, 0);
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  // (The caller binds its framebuffer again.)
  if (status != GL_FRAMEBUFFER_COMPLETE) {
    glDeleteFramebuffers(1, &fbo_);
    fbo_ = 0;
    width_ = height_ = 0;
    throw RenderError(
        "the graphics driver cannot render into the gas volume's off-screen texture "
        "(framebuffer status " +
        std::to_string(status) + ")");
  }
  width_ = width;
  height_ = height;
}

void GasVolumePass::draw(const CameraView& camera, const GasField& field, const GasLook& look) {
  if (!field.ready()) return;
  const glm::vec3 lo = field.lo(), hi = field.hi();
  const glm::ivec3 cells = field.cells();
  if (!(glm::all(glm::lessThan(lo, hi))) || glm::any(glm::lessThan(cells, glm::ivec3(1)))) return;
  // The step [m]: step_cells of the smallest cell side; the march's length bounded by the
  // box's diagonal in steps (and by the shader's own cap, whatever the box's proportions).
  const glm::vec3 cell = (hi - lo) / glm::vec3(cells);
  const float step = look.step_cells * std::min(cell.x, std::min(cell.y, cell.z));
  const float diagonal = glm::length(hi - lo);
  if (!std::isfinite(diagonal) || !(step > 0.0f)) return;
  const int max_steps = int(std::min(std::ceil(diagonal / step) + 2.0f, 8192.0f));

  GLint draw_fbo = 0, read_fbo = 0, viewport[4] = {};
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_fbo);
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_fbo);
  glGetIntegerv(GL_VIEWPORT, viewport);
  if (viewport[2] <= 0 || viewport[3] <= 0) return;
  const int width = std::max(1, int(std::lround(float(viewport[2]) * look.volume_scale)));
  const int height = std::max(1, int(std::lround(float(viewport[3]) * look.volume_scale)));

  // The march, into the off-screen texture: each pixel once (the box's back faces), so no
  // blending and no depth.
  resize(width, height);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glViewport(0, 0, width, height);
  const GLfloat clear[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  glClearBufferfv(GL_COLOR, 0, clear);  // (leaves the clear colour alone)
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glEnable(GL_CULL_FACE);
  glCullFace(GL_FRONT);
  glFrontFace(GL_CCW);

  const glm::mat4 view_projection = camera.projection * camera.view;
  const glm::vec3 eye = glm::vec3(glm::inverse(camera.view)[3]);

  march_.use();
  glUniformMatrix4fv(march_.uniform("u_view_projection"), 1, GL_FALSE,
                     glm::value_ptr(view_projection));
  glUniform3fv(march_.uniform("u_lo"), 1, glm::value_ptr(lo));
  glUniform3fv(march_.uniform("u_hi"), 1, glm::value_ptr(hi));
  glUniform3fv(march_.uniform("u_eye"), 1, glm::value_ptr(eye));
  glUniform1f(march_.uniform("u_step"), step);
  // alpha = 1 - exp(-extinction * density * step) = 1 - exp2(-density * this).
  glUniform1f(march_.uniform("u_optical_step"), look.extinction * step / std::log(2.0f));
  glUniform1i(march_.uniform("u_max_steps"), max_steps);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_3D, field.texture());
  glUniform1i(march_.uniform("u_field"), 0);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLES, 0, 36);
  glBindTexture(GL_TEXTURE_3D, 0);

  // The composite, at the framebuffer's resolution, over the box's pixels only.
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, GLuint(draw_fbo));
  glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(read_fbo));
  glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
  glEnable(GL_BLEND);
  glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);  // premultiplied
  composite_.use();
  glUniformMatrix4fv(composite_.uniform("u_view_projection"), 1, GL_FALSE,
                     glm::value_ptr(view_projection));
  glUniform3fv(composite_.uniform("u_lo"), 1, glm::value_ptr(lo));
  glUniform3fv(composite_.uniform("u_hi"), 1, glm::value_ptr(hi));
  glUniform4f(composite_.uniform("u_viewport"), float(viewport[0]), float(viewport[1]),
              float(viewport[2]), float(viewport[3]));
  glBindTexture(GL_TEXTURE_2D, target_);
  glUniform1i(composite_.uniform("u_gas"), 0);
  glDrawArrays(GL_TRIANGLES, 0, 36);
  glBindTexture(GL_TEXTURE_2D, 0);
  glBindVertexArray(0);

  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
}

}  // namespace tp
