#include "render/sphere_points.h"

#include <glm/gtc/type_ptr.hpp>

#include "kernels/common.h"

namespace tp {

SpherePoints::SpherePoints() {
  glGenVertexArrays(1, &vao_);
  glBindVertexArray(vao_);
  glEnableVertexAttribArray(1);
  glBindVertexArray(0);
}

SpherePoints::~SpherePoints() { glDeleteVertexArrays(1, &vao_); }

void SpherePoints::draw(const GlProgram& program, const CameraView& camera, float radius,
                        GLuint vbo, size_t count, int width, int height) const {
  if (count == 0 || vbo == 0) return;
  glUniformMatrix4fv(program.uniform("u_view"), 1, GL_FALSE, glm::value_ptr(camera.view));
  glUniformMatrix4fv(program.uniform("u_projection"), 1, GL_FALSE,
                     glm::value_ptr(camera.projection));
  glUniform1f(program.uniform("u_radius"), radius);
  glUniform2f(program.uniform("u_viewport"), float(width), float(height));
  glEnable(GL_PROGRAM_POINT_SIZE);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo);
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(Vec4), nullptr);
  glDrawArrays(GL_POINTS, 0, GLsizei(count));
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glBindVertexArray(0);
  glDisable(GL_PROGRAM_POINT_SIZE);
}

}  // namespace tp
