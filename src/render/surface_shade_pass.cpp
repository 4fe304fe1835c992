#include "render/surface_shade_pass.h"

#include <glm/gtc/type_ptr.hpp>

#include <cstdlib>

namespace tp {

SurfaceShadePass::SurfaceShadePass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "water_rect.vert", "surface_shade.frag")) {}

void SurfaceShadePass::draw(const CameraView& camera, const SurfaceTargets& targets,
                            GLuint environment, const SurfaceSettings& settings,
                            float thickness_per_chord, glm::vec2 grow, bool two_d,
                            const SurfaceGlass& glass) const {
  glBindFramebuffer(GL_FRAMEBUFFER, targets.shade_fbo);
  glViewport(0, 0, targets.scaled_width(), targets.scaled_height());
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  program_.use();
  const GLuint textures[] = {targets.depth_smooth, targets.normal, targets.thickness, environment};
  const char* names[] = {"u_depth", "u_normal", "u_thickness", "u_environment"};
  program_.bind_textures(names, textures, 4);
  glUniformMatrix4fv(program_.uniform("u_projection"), 1, GL_FALSE,
                     glm::value_ptr(camera.projection));
  const glm::mat3 view_to_world = glm::transpose(glm::mat3(camera.view));  // a rotation
  glUniformMatrix3fv(program_.uniform("u_view_to_world"), 1, GL_FALSE,
                     glm::value_ptr(view_to_world));
  const glm::vec3 eye = glm::vec3(glm::inverse(camera.view)[3]);
  glUniform3fv(program_.uniform("u_eye_world"), 1, glm::value_ptr(eye));
  glUniform3fv(program_.uniform("u_tank_lo"), 1, glm::value_ptr(glass.lo));
  glUniform3fv(program_.uniform("u_tank_hi"), 1, glm::value_ptr(glass.hi));
  glUniform1f(program_.uniform("u_glass_spacing"), glass.spacing);
  // The key light of the other passes, which is also the sun of assets/textures/sky.png.
  const glm::vec3 light_world = glm::normalize(glm::vec3(-0.4f, 1.0f, 0.55f));
  const glm::vec3 light_view = glm::normalize(glm::mat3(camera.view) * light_world);
  glUniform3fv(program_.uniform("u_light_dir"), 1, glm::value_ptr(light_view));
  glUniform3fv(program_.uniform("u_absorption"), 1, glm::value_ptr(settings.absorption));
  glUniform1f(program_.uniform("u_thickness_scale"),
              settings.thickness_scale * thickness_per_chord);
  glUniform1f(program_.uniform("u_reflectivity"), settings.reflectivity);
  glUniform1f(program_.uniform("u_refraction"), settings.refraction);
  glUniform1i(program_.uniform("u_two_d"), two_d ? 1 : 0);
  glUniform1f(program_.uniform("u_thickness_cap"), two_d ? kTwoDimensionalDepth * settings.thickness_scale : 0.0f);
  // A look at the intermediate textures, for whoever tunes the passes.
  static const int debug_view = [] {
    const char* env = std::getenv("TIDEPOOL_SURFACE_DEBUG");
    return env ? std::atoi(env) : 0;
  }();
  glUniform1i(program_.uniform("u_debug"), debug_view);
  targets.draw_water_rect(program_, grow);
}

}  // namespace tp
