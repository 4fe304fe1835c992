#include "render/fluid_depth_pass.h"

namespace tp {

FluidDepthPass::FluidDepthPass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "sphere_point.vert", "fluid_depth.frag")) {}

void FluidDepthPass::draw(const CameraView& camera, const SurfaceTargets& targets,
                          const SpherePoints& spheres, const PointSource& points,
                          float radius, bool test_scene) const {
  if (test_scene) targets.copy_scene_depth();
  glBindFramebuffer(GL_FRAMEBUFFER, targets.depth_fbo);
  glViewport(0, 0, targets.scaled_width(), targets.scaled_height());
  // The depth buffer holds the scene, which hides spheres behind it, or nothing.
  const GLfloat none[] = {0.0f, 0.0f, 0.0f, 0.0f};
  glClearBufferfv(GL_COLOR, 0, none);
  const GLfloat far_depth = 1.0f;
  if (!test_scene) glClearBufferfv(GL_DEPTH, 0, &far_depth);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  program_.use();
  glUniform1i(program_.uniform("u_bounds_mode"), 0);
  spheres.draw(program_, camera, radius, points, targets.scaled_width(),
               targets.scaled_height());
}

}  // namespace tp
