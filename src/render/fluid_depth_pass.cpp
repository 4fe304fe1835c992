#include "render/fluid_depth_pass.h"

namespace tp {

FluidDepthPass::FluidDepthPass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "sphere_point.vert", "fluid_depth.frag")) {}

void FluidDepthPass::draw(const CameraView& camera, const SurfaceTargets& targets,
                          const SpherePoints& spheres, GLuint vbo, size_t count,
                          float radius) const {
  targets.copy_scene_depth();
  glBindFramebuffer(GL_FRAMEBUFFER, targets.depth_fbo);
  glViewport(0, 0, targets.scaled_width(), targets.scaled_height());
  // Only the colour: the depth buffer holds the scene, which hides spheres behind it.
  const GLfloat none[] = {0.0f, 0.0f, 0.0f, 0.0f};
  glClearBufferfv(GL_COLOR, 0, none);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  program_.use();
  glUniform1i(program_.uniform("u_bounds_mode"), 0);
  spheres.draw(program_, camera, radius, vbo, count, targets.scaled_width(),
               targets.scaled_height());
}

}  // namespace tp
