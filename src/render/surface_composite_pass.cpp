#include "render/surface_composite_pass.h"

#include <glm/gtc/type_ptr.hpp>

namespace tp {

SurfaceCompositePass::SurfaceCompositePass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "water_rect.vert", "surface_composite.frag")) {}

void SurfaceCompositePass::draw(const CameraView& camera, const SurfaceTargets& targets,
                                glm::vec2 grow, bool opaque_in_front_check) const {
  glViewport(0, 0, targets.width(), targets.height());
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  program_.use();
  const GLuint textures[] = {targets.shade_a, targets.shade_b, targets.shade_c, targets.scene_color,
                             targets.scene_depth};
  const char* names[] = {"u_a", "u_b", "u_c", "u_scene", "u_opaque_depth"};
  const int units = opaque_in_front_check ? 5 : 4;
  glUniform1i(program_.uniform("u_check_opaque"), opaque_in_front_check ? 1 : 0);
  program_.bind_textures(names, textures, units);
  glUniformMatrix4fv(program_.uniform("u_projection"), 1, GL_FALSE,
                     glm::value_ptr(camera.projection));
  targets.draw_water_rect(program_, grow);
}

}  // namespace tp
