#include "render/surface_normal_pass.h"

#include <glm/gtc/type_ptr.hpp>

namespace tp {

SurfaceNormalPass::SurfaceNormalPass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "fullscreen.vert", "surface_normal.frag")) {}

void SurfaceNormalPass::draw(const CameraView& camera, const SurfaceTargets& targets) const {
  glBindFramebuffer(GL_FRAMEBUFFER, targets.normal_fbo);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  program_.use();
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, targets.depth_smooth);
  glUniform1i(program_.uniform("u_depth"), 0);
  glUniformMatrix4fv(program_.uniform("u_projection"), 1, GL_FALSE,
                     glm::value_ptr(camera.projection));
  glBindVertexArray(targets.empty_vao);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
}

}  // namespace tp
