#include "render/fluid_thickness_pass.h"

namespace tp {

FluidThicknessPass::FluidThicknessPass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "sphere.vert", "fluid_thickness.frag")) {}

void FluidThicknessPass::draw(const CameraView& camera, const SurfaceTargets& targets,
                              const SphereInstances& spheres, GLuint vbo, size_t count,
                              float radius) const {
  glBindFramebuffer(GL_FRAMEBUFFER, targets.thickness_fbo);
  const GLfloat none[] = {0.0f, 0.0f, 0.0f, 0.0f};
  glClearBufferfv(GL_COLOR, 0, none);
  glViewport(0, 0, targets.thickness_width(), targets.thickness_height());
  glDisable(GL_DEPTH_TEST);
  glEnable(GL_BLEND);
  glBlendFunc(GL_ONE, GL_ONE);
  program_.use();
  spheres.draw(program_, camera, radius, vbo, count);
  glDisable(GL_BLEND);
  glViewport(0, 0, targets.width(), targets.height());
}

}  // namespace tp
