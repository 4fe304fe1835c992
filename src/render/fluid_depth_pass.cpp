#include "render/fluid_depth_pass.h"

#include <glm/gtc/type_ptr.hpp>

namespace tp {

FluidDepthPass::FluidDepthPass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "sphere.vert", "fluid_depth.frag")) {}

void FluidDepthPass::draw(const CameraView& camera, const SurfaceTargets& targets,
                          const SphereInstances& spheres, GLuint vbo, size_t count,
                          float radius) const {
  glBindFramebuffer(GL_FRAMEBUFFER, targets.depth_fbo);
  // Only the colour: the depth buffer holds the scene, which hides spheres behind it.
  const GLfloat none[] = {0.0f, 0.0f, 0.0f, 0.0f};
  glClearBufferfv(GL_COLOR, 0, none);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  program_.use();
  glUniformMatrix4fv(program_.uniform("u_view"), 1, GL_FALSE, glm::value_ptr(camera.view));
  glUniformMatrix4fv(program_.uniform("u_projection"), 1, GL_FALSE,
                     glm::value_ptr(camera.projection));
  glUniform1f(program_.uniform("u_radius"), radius);
  spheres.draw(vbo, count);
}

}  // namespace tp
