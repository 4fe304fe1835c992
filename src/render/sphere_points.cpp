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
                        const PointSource& points, int width, int height) const {
  if (points.count == 0 || points.vbo == 0) return;
  glUniformMatrix4fv(program.uniform("u_view"), 1, GL_FALSE, glm::value_ptr(camera.view));
  glUniformMatrix4fv(program.uniform("u_projection"), 1, GL_FALSE,
                     glm::value_ptr(camera.projection));
  glUniform1f(program.uniform("u_radius"), radius);
  glUniform2f(program.uniform("u_viewport"), float(width), float(height));
  glUniform1i(program.uniform("u_ellipsoids"), points.ellipsoids ? 1 : 0);
  glEnable(GL_PROGRAM_POINT_SIZE);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, points.vbo);
  const GLsizei stride = GLsizei((points.ellipsoids ? 3 : 1) * sizeof(Vec4));
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, stride, nullptr);
  for (GLuint a = 2; a <= 3; ++a) {
    if (points.ellipsoids) {
      glEnableVertexAttribArray(a);
      glVertexAttribPointer(a, 4, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<const void*>((a - 1) * sizeof(Vec4)));
    } else {
      glDisableVertexAttribArray(a);
    }
  }
  glDrawArrays(GL_POINTS, 0, GLsizei(points.count));
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glBindVertexArray(0);
  glDisable(GL_PROGRAM_POINT_SIZE);
}

}  // namespace tp
