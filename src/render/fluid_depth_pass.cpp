#include "render/fluid_depth_pass.h"

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
  spheres.draw(program_, camera, radius, vbo, count);
}

}  // namespace tp
