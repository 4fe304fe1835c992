#include "render/gas_plane_pass.h"

#include <glm/gtc/type_ptr.hpp>

namespace tp {

GasPlanePass::GasPlanePass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "gas_plane.vert", "gas_plane.frag")) {
  glGenVertexArrays(1, &vao_);
}

GasPlanePass::~GasPlanePass() { glDeleteVertexArrays(1, &vao_); }

void GasPlanePass::draw(const CameraView& camera, const GasField& field,
                        const GasLook& look) const {
  if (!field.ready()) return;
  const glm::vec3 lo = field.lo(), hi = field.hi();
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_FALSE);
  glDisable(GL_CULL_FACE);
  glEnable(GL_BLEND);
  glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);  // premultiplied
  program_.use();
  const glm::mat4 view_projection = camera.projection * camera.view;
  glUniformMatrix4fv(program_.uniform("u_view_projection"), 1, GL_FALSE,
                     glm::value_ptr(view_projection));
  glUniform3fv(program_.uniform("u_lo"), 1, glm::value_ptr(lo));
  glUniform3fv(program_.uniform("u_hi"), 1, glm::value_ptr(hi));
  glUniform1f(program_.uniform("u_opacity"), look.plane_opacity);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_3D, field.texture());
  glUniform1i(program_.uniform("u_field"), 0);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  glBindVertexArray(0);
  glBindTexture(GL_TEXTURE_3D, 0);
  glDisable(GL_BLEND);
  glDepthMask(GL_TRUE);
}

}  // namespace tp
