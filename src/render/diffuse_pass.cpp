#include "render/diffuse_pass.h"

#include <glm/gtc/type_ptr.hpp>

#include <algorithm>

#include "kernels/common.h"

namespace tp {

namespace {
// Smallest drawn sprite radius [px]: below it a sprite is drawn this large but fainter.
constexpr float kMinPixels = 1.25f;
}  // namespace

DiffusePass::DiffusePass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "diffuse.vert", "diffuse.frag")) {
  glGenVertexArrays(1, &vao_);
  glBindVertexArray(vao_);
  glEnableVertexAttribArray(0);
  glBindVertexArray(0);
  GLfloat range[2] = {1.0f, 64.0f};
  glGetFloatv(GL_POINT_SIZE_RANGE, range);
  max_point_pixels_ = 0.5f * std::max(range[1], 1.0f);
}

DiffusePass::~DiffusePass() { glDeleteVertexArrays(1, &vao_); }

void DiffusePass::draw(const CameraView& camera, const DiffuseDraw& particles) const {
  if (particles.count == 0 || particles.vbo == 0) return;
  program_.use();
  glUniformMatrix4fv(program_.uniform("u_view"), 1, GL_FALSE, glm::value_ptr(camera.view));
  glUniformMatrix4fv(program_.uniform("u_projection"), 1, GL_FALSE,
                     glm::value_ptr(camera.projection));
  glUniform1f(program_.uniform("u_radius"), particles.radius);
  glUniform1f(program_.uniform("u_max_pixels"), max_point_pixels_);
  const float pixels_per_metre = camera.projection[1][1] * 0.5f * float(camera.framebuffer_height);
  glUniform1f(program_.uniform("u_pixels_per_metre_at_1m"), pixels_per_metre);
  glUniform1f(program_.uniform("u_min_pixels"), kMinPixels);
  const glm::vec3 light_world = glm::normalize(glm::vec3(-0.4f, 1.0f, 0.55f));  // the key light
  const glm::vec3 light_view = glm::normalize(glm::mat3(camera.view) * light_world);
  glUniform3fv(program_.uniform("u_light_dir"), 1, glm::value_ptr(light_view));
  glUniform3fv(program_.uniform("u_absorption"), 1, glm::value_ptr(particles.absorption));
  glUniform1i(program_.uniform("u_opaque_depth"), 0);
  glUniform1i(program_.uniform("u_water_depth"), 1);

  glUniform3f(program_.uniform("u_depth_pull"), particles.surface_pull, particles.surface_pull,
              0.0f);
  const bool surface_mode = particles.opaque_depth != 0;
  glUniform1i(program_.uniform("u_surface_mode"), surface_mode ? 1 : 0);
  glUniform1i(program_.uniform("u_have_water"), particles.water_depth != 0 ? 1 : 0);

  glEnable(GL_PROGRAM_POINT_SIZE);
  glEnable(GL_BLEND);
  glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);  // premultiplied
  glDepthMask(GL_FALSE);
  if (surface_mode) {
    // The depth buffer holds the water's surface, which hides the bubbles: the shader
    // tests against the floor's and the water's depth instead.
    glDisable(GL_DEPTH_TEST);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, particles.opaque_depth);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, particles.water_depth);
  } else {
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
  }
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, particles.vbo);
  glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, sizeof(Vec4), nullptr);
  glDrawArrays(GL_POINTS, 0, GLsizei(particles.count));
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glBindVertexArray(0);
  if (surface_mode) {
    glBindTexture(GL_TEXTURE_2D, 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, 0);
  }

  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_PROGRAM_POINT_SIZE);
}

}  // namespace tp
