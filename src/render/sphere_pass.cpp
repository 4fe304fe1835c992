#include "render/sphere_pass.h"

#include <glm/gtc/type_ptr.hpp>

#include "kernels/common.h"

namespace tp {

namespace {
constexpr GLuint kCornerAttribute = 0;
constexpr GLuint kParticleAttribute = 1;
}  // namespace

SpherePass::SpherePass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "sphere.vert", "sphere.frag")) {
  const float corners[] = {-1, -1, 1, -1, -1, 1, 1, 1};  // triangle strip order
  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &corners_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, corners_);
  glBufferData(GL_ARRAY_BUFFER, sizeof(corners), corners, GL_STATIC_DRAW);
  glEnableVertexAttribArray(kCornerAttribute);
  glVertexAttribPointer(kCornerAttribute, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glEnableVertexAttribArray(kParticleAttribute);
  glVertexAttribDivisor(kParticleAttribute, 1);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

SpherePass::~SpherePass() {
  glDeleteBuffers(1, &corners_);
  glDeleteVertexArrays(1, &vao_);
}

void SpherePass::draw(const CameraView& camera, const SphereDraw& spheres) const {
  if (spheres.count == 0 || spheres.vbo == 0) return;
  program_.use();
  glUniformMatrix4fv(program_.uniform("u_view"), 1, GL_FALSE, glm::value_ptr(camera.view));
  glUniformMatrix4fv(program_.uniform("u_projection"), 1, GL_FALSE,
                     glm::value_ptr(camera.projection));
  glUniform1f(program_.uniform("u_radius"), spheres.radius);
  glUniform1i(program_.uniform("u_color_mode"), spheres.color_mode);
  glUniform2f(program_.uniform("u_range"), spheres.range.x, spheres.range.y);
  glUniform3fv(program_.uniform("u_flat_color"), 1, glm::value_ptr(spheres.flat_color));
  glUniform1f(program_.uniform("u_alpha"), spheres.alpha);
  // A key light from above and behind the viewer's left shoulder, fixed in world space so
  // the shading stays put while the camera orbits.
  const glm::vec3 light_world = glm::normalize(glm::vec3(-0.4f, 1.0f, 0.55f));
  const glm::vec3 light_view = glm::normalize(glm::mat3(camera.view) * light_world);
  glUniform3fv(program_.uniform("u_light_dir"), 1, glm::value_ptr(light_view));

  glBindVertexArray(vao_);
  // The instance buffer is re-attached per draw: the same pass draws the fluid and the
  // marker from different buffers, and it costs two calls.
  glBindBuffer(GL_ARRAY_BUFFER, spheres.vbo);
  glVertexAttribPointer(kParticleAttribute, 4, GL_FLOAT, GL_FALSE, sizeof(Vec4), nullptr);
  glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, GLsizei(spheres.count));
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glBindVertexArray(0);
}

}  // namespace tp
