#include "render/obstacle_pass.h"

#include <cmath>
#include <cstddef>
#include <glm/gtc/type_ptr.hpp>
#include <utility>

namespace tp {

namespace {

struct ObstacleVertex {
  glm::vec3 position;
  glm::vec3 normal;
};

// Appends a triangle, wound counter-clockwise seen from outside (where `outward` points).
void add_triangle(std::vector<ObstacleVertex>& out, glm::vec3 a, glm::vec3 b, glm::vec3 c,
                  glm::vec3 na, glm::vec3 nb, glm::vec3 nc, glm::vec3 outward) {
  const glm::vec3 face = glm::cross(b - a, c - a);
  if (glm::dot(face, face) < 1e-14f) return;  // degenerate (a sphere's pole)
  if (glm::dot(face, outward) < 0.0f) {
    std::swap(b, c);
    std::swap(nb, nc);
  }
  out.push_back({a, na});
  out.push_back({b, nb});
  out.push_back({c, nc});
}

// The cube [-1, 1]^3, six faces with flat normals.
void add_cube(std::vector<ObstacleVertex>& out) {
  for (int axis = 0; axis < 3; ++axis) {
    for (float side : {-1.0f, 1.0f}) {
      glm::vec3 n(0.0f);
      n[axis] = side;
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      glm::vec3 corner[4];
      for (int k = 0; k < 4; ++k) {
        corner[k] = n;
        corner[k][u] = (k == 1 || k == 2) ? 1.0f : -1.0f;
        corner[k][v] = k >= 2 ? 1.0f : -1.0f;
      }
      add_triangle(out, corner[0], corner[1], corner[2], n, n, n, n);
      add_triangle(out, corner[0], corner[2], corner[3], n, n, n, n);
    }
  }
}

// The unit sphere in latitude and longitude bands. At 64 x 32 the silhouette of a sphere
// 300 px across deviates from a circle by under 0.2 px.
void add_sphere(std::vector<ObstacleVertex>& out, int slices, int stacks) {
  const float pi = 3.14159265f;
  auto point = [&](int i, int j) {
    const float theta = pi * float(i) / float(stacks);  // from +y
    const float phi = 2.0f * pi * float(j) / float(slices);
    return glm::vec3(std::sin(theta) * std::cos(phi), std::cos(theta),
                     std::sin(theta) * std::sin(phi));
  };
  for (int i = 0; i < stacks; ++i) {
    for (int j = 0; j < slices; ++j) {
      const glm::vec3 a = point(i, j), b = point(i + 1, j), c = point(i + 1, j + 1),
                      d = point(i, j + 1);
      const glm::vec3 outward = a + b + c + d;
      add_triangle(out, a, b, c, a, b, c, outward);
      add_triangle(out, a, c, d, a, c, d, outward);
    }
  }
}

}  // namespace

ObstaclePass::ObstaclePass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "obstacle.vert", "obstacle.frag")) {
  std::vector<ObstacleVertex> v;
  box_first_ = GLint(v.size());
  add_cube(v);
  box_count_ = GLint(v.size()) - box_first_;
  sphere_first_ = GLint(v.size());
  add_sphere(v, 64, 32);
  sphere_count_ = GLint(v.size()) - sphere_first_;

  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &vbo_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(v.size() * sizeof(ObstacleVertex)), v.data(),
               GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(ObstacleVertex), nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(ObstacleVertex),
                        reinterpret_cast<void*>(offsetof(ObstacleVertex, normal)));
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

ObstaclePass::~ObstaclePass() {
  glDeleteBuffers(1, &vbo_);
  glDeleteVertexArrays(1, &vao_);
}

void ObstaclePass::draw(const CameraView& camera,
                        const std::vector<ObstacleDraw>& obstacles) const {
  if (obstacles.empty()) return;
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glEnable(GL_CULL_FACE);
  glCullFace(GL_BACK);
  glFrontFace(GL_CCW);
  program_.use();
  const glm::mat4 view_projection = camera.projection * camera.view;
  glUniformMatrix4fv(program_.uniform("u_view_projection"), 1, GL_FALSE,
                     glm::value_ptr(view_projection));
  // The eye: the view matrix is a rotation and a translation.
  const glm::vec3 eye = -glm::transpose(glm::mat3(camera.view)) * glm::vec3(camera.view[3]);
  glUniform3fv(program_.uniform("u_eye"), 1, glm::value_ptr(eye));
  const glm::vec3 light = glm::normalize(glm::vec3(-0.4f, 1.0f, 0.55f));  // as the tank's
  glUniform3fv(program_.uniform("u_light_dir"), 1, glm::value_ptr(light));
  glUniform3fv(program_.uniform("u_color"), 1, kColor);
  const GLint kind = program_.uniform("u_kind"), center = program_.uniform("u_center"),
              scale = program_.uniform("u_scale"), highlight = program_.uniform("u_highlight");
  glBindVertexArray(vao_);
  for (const ObstacleDraw& o : obstacles) {
    const bool sphere = o.kind == int(ObstacleKind::Sphere);
    const glm::vec3 s = sphere ? glm::vec3(o.radius) : o.half_extent;
    if (!(s.x > 0.0f && s.y > 0.0f && s.z > 0.0f)) continue;
    glUniform1i(kind, sphere ? 1 : 0);
    glUniform3fv(center, 1, glm::value_ptr(o.center));
    glUniform3fv(scale, 1, glm::value_ptr(s));
    glUniform1i(highlight, o.highlighted ? 1 : 0);
    if (sphere)
      glDrawArrays(GL_TRIANGLES, sphere_first_, sphere_count_);
    else
      glDrawArrays(GL_TRIANGLES, box_first_, box_count_);
  }
  glBindVertexArray(0);
  glDisable(GL_CULL_FACE);
}

}  // namespace tp
