#include "render/sphere_pass.h"

#include <glm/gtc/type_ptr.hpp>

namespace tp {

SpherePass::SpherePass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "sphere.vert", "sphere.frag")) {}

void SpherePass::draw(const CameraView& camera, const SphereDraw& spheres) const {
  if (spheres.count == 0 || spheres.vbo == 0) return;
  program_.use();
  glUniform1i(program_.uniform("u_color_mode"), spheres.color_mode);
  glUniform2f(program_.uniform("u_range"), spheres.range.x, spheres.range.y);
  glUniform3fv(program_.uniform("u_flat_color"), 1, glm::value_ptr(spheres.flat_color));
  glUniform1f(program_.uniform("u_alpha"), spheres.alpha);
  glUniform1i(program_.uniform("u_disc"), spheres.disc ? 1 : 0);
  // A key light from above and behind the viewer's left shoulder, fixed in world space so
  // the shading stays put while the camera orbits.
  const glm::vec3 light_world = glm::normalize(glm::vec3(-0.4f, 1.0f, 0.55f));
  const glm::vec3 light_view = glm::normalize(glm::mat3(camera.view) * light_world);
  glUniform3fv(program_.uniform("u_light_dir"), 1, glm::value_ptr(light_view));

  // The same pass draws the fluid and the marker from different buffers.
  quads_.draw(program_, camera, spheres.radius, spheres.vbo, spheres.count);
}

}  // namespace tp
