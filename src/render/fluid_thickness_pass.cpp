#include "render/fluid_thickness_pass.h"

#include <glm/gtc/type_ptr.hpp>

namespace tp {

FluidThicknessPass::FluidThicknessPass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "sphere_point.vert", "fluid_thickness.frag")) {}

void FluidThicknessPass::draw(const CameraView& camera, const SurfaceTargets& targets,
                              const SpherePoints& spheres, const PointSource& points,
                          float radius,
                              bool clip_to_scene) const {
  glBindFramebuffer(GL_FRAMEBUFFER, targets.thickness_fbo);
  const GLfloat none[] = {0.0f, 0.0f, 0.0f, 0.0f};
  glClearBufferfv(GL_COLOR, 0, none);
  glViewport(0, 0, targets.thickness_width(), targets.thickness_height());
  glDisable(GL_DEPTH_TEST);
  glEnable(GL_BLEND);
  glBlendFunc(GL_ONE, GL_ONE);
  program_.use();
  glUniform1i(program_.uniform("u_bounds_mode"), 0);
  glUniform1i(program_.uniform("u_clip_to_scene"), clip_to_scene ? 1 : 0);
  if (clip_to_scene) {
    // The scene's depth is read, not attached: the thickness target has no depth buffer.
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, targets.scene_depth);
    glUniform1i(program_.uniform("u_scene_depth"), 0);
    // The window's texels per thickness texel, along x and y.
    glUniform2f(program_.uniform("u_scene_per_texel"),
                float(targets.width()) / float(targets.thickness_width()),
                float(targets.height()) / float(targets.thickness_height()));
  }
  spheres.draw(program_, camera, radius, points, targets.thickness_width(),
               targets.thickness_height());
  glDisable(GL_BLEND);
  glBindTexture(GL_TEXTURE_2D, 0);
}

}  // namespace tp
