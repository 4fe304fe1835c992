#include "render/fluid_bounds_pass.h"

namespace tp {

FluidBoundsPass::FluidBoundsPass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "sphere_point.vert", "fluid_bounds.frag")) {}

void FluidBoundsPass::draw(const CameraView& camera, const SurfaceTargets& targets,
                           const SpherePoints& spheres, const PointSource& points,
                          float radius) const {
  glBindFramebuffer(GL_FRAMEBUFFER, targets.bounds_fbo);
  glViewport(0, 0, 1, 1);
  // An empty rectangle (lo = 2 > hi = -2) until a sphere widens it.
  const GLfloat empty[] = {-2.0f, -2.0f, -2.0f, -2.0f};
  glClearBufferfv(GL_COLOR, 0, empty);
  glDisable(GL_DEPTH_TEST);
  glEnable(GL_BLEND);
  glBlendEquation(GL_MAX);
  glBlendFunc(GL_ONE, GL_ONE);
  program_.use();
  glUniform1i(program_.uniform("u_bounds_mode"), 1);
  // The silhouettes are measured in the scaled targets' pixels (their rounding up).
  spheres.draw(program_, camera, radius, points, targets.scaled_width(),
               targets.scaled_height());
  glBlendEquation(GL_FUNC_ADD);
  glDisable(GL_BLEND);
}

}  // namespace tp
