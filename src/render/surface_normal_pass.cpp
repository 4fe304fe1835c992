#include "render/surface_normal_pass.h"

#include <glm/gtc/type_ptr.hpp>

namespace tp {

SurfaceNormalPass::SurfaceNormalPass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "water_rect.vert", "surface_normal.frag")) {}

void SurfaceNormalPass::draw(const CameraView& camera, const SurfaceTargets& targets,
                             glm::vec2 grow) const {
  glBindFramebuffer(GL_FRAMEBUFFER, targets.normal_fbo);
  glViewport(0, 0, targets.scaled_width(), targets.scaled_height());
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  program_.use();
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, targets.depth_smooth);
  glUniform1i(program_.uniform("u_depth"), 0);
  glUniformMatrix4fv(program_.uniform("u_projection"), 1, GL_FALSE,
                     glm::value_ptr(camera.projection));
  targets.draw_water_rect(program_, grow);
}

}  // namespace tp
