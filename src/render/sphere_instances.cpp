#include "render/sphere_instances.h"

#include <glm/gtc/type_ptr.hpp>

#include "kernels/common.h"

namespace tp {

SphereInstances::SphereInstances() {
  const float corners[] = {-1, -1, 1, -1, -1, 1, 1, 1};  // triangle strip order
  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &corners_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, corners_);
  glBufferData(GL_ARRAY_BUFFER, sizeof(corners), corners, GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribDivisor(1, 1);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

SphereInstances::~SphereInstances() {
  glDeleteBuffers(1, &corners_);
  glDeleteVertexArrays(1, &vao_);
}

void SphereInstances::draw(const GlProgram& program, const CameraView& camera, float radius,
                           GLuint vbo, size_t count) const {
  if (count == 0 || vbo == 0) return;
  glUniformMatrix4fv(program.uniform("u_view"), 1, GL_FALSE, glm::value_ptr(camera.view));
  glUniformMatrix4fv(program.uniform("u_projection"), 1, GL_FALSE,
                     glm::value_ptr(camera.projection));
  glUniform1f(program.uniform("u_radius"), radius);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo);
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(Vec4), nullptr);
  glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, GLsizei(count));
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glBindVertexArray(0);
}

}  // namespace tp
