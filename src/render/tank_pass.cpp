#include "render/tank_pass.h"

#include <algorithm>
#include <cstddef>
#include <glm/gtc/type_ptr.hpp>
#include <utility>
#include <vector>

namespace tp {

namespace {

struct TankVertex {
  glm::vec3 position;
  glm::vec3 normal;
};

// Two triangles for the quad p0 p1 p2 p3 (in cyclic order), wound counter-clockwise as
// seen from the side `inward` points to, so back-face culling hides a wall exactly when
// the camera is outside it.
void add_quad(std::vector<TankVertex>& out, glm::vec3 p0, glm::vec3 p1, glm::vec3 p2, glm::vec3 p3,
              glm::vec3 inward) {
  if (glm::dot(glm::cross(p1 - p0, p2 - p0), inward) < 0.0f) std::swap(p1, p3);
  for (const glm::vec3& p : {p0, p1, p2, p0, p2, p3}) out.push_back({p, inward});
}

}  // namespace

TankPass::TankPass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "tank.vert", "tank.frag")) {
  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &vbo_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(TankVertex), nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(TankVertex),
                        reinterpret_cast<void*>(offsetof(TankVertex, normal)));
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

TankPass::~TankPass() {
  glDeleteBuffers(1, &vbo_);
  glDeleteVertexArrays(1, &vao_);
}

void TankPass::set_box(const glm::vec3& lo, const glm::vec3& hi) {
  // Corner k has x from bit 0, y from bit 1, z from bit 2.
  auto corner = [&](int k) {
    return glm::vec3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z);
  };
  std::vector<TankVertex> v;
  floor_first_ = GLint(v.size());
  add_quad(v, corner(0), corner(1), corner(5), corner(4), {0, 1, 0});
  floor_count_ = GLint(v.size()) - floor_first_;

  walls_first_ = GLint(v.size());
  add_quad(v, corner(0), corner(2), corner(6), corner(4), {1, 0, 0});   // x = lo
  add_quad(v, corner(1), corner(3), corner(7), corner(5), {-1, 0, 0});  // x = hi
  add_quad(v, corner(0), corner(1), corner(3), corner(2), {0, 0, 1});   // z = lo
  add_quad(v, corner(4), corner(5), corner(7), corner(6), {0, 0, -1});  // z = hi
  walls_count_ = GLint(v.size()) - walls_first_;

  edges_first_ = GLint(v.size());
  for (int a = 0; a < 8; ++a) {
    for (int bit = 1; bit < 8; bit <<= 1) {
      if (a & bit) continue;  // each edge once, from its lower end
      v.push_back({corner(a), {0, 1, 0}});
      v.push_back({corner(a | bit), {0, 1, 0}});
    }
  }
  edges_count_ = GLint(v.size()) - edges_first_;

  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(v.size() * sizeof(TankVertex)), v.data(),
               GL_STATIC_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  // About 20 checker cells across the larger side of the floor.
  cell_ = std::max(hi.x - lo.x, hi.z - lo.z) / 20.0f;
  if (!(cell_ > 0.0f)) cell_ = 0.1f;
  have_box_ = true;
}

void TankPass::bind(const CameraView& camera, int mode, const glm::vec4& color) const {
  program_.use();
  const glm::mat4 view_projection = camera.projection * camera.view;
  glUniformMatrix4fv(program_.uniform("u_view_projection"), 1, GL_FALSE,
                     glm::value_ptr(view_projection));
  glUniform1i(program_.uniform("u_mode"), mode);
  glUniform4fv(program_.uniform("u_color"), 1, glm::value_ptr(color));
  const glm::vec3 light = glm::normalize(glm::vec3(-0.4f, 1.0f, 0.55f));
  glUniform3fv(program_.uniform("u_light_dir"), 1, glm::value_ptr(light));
  glUniform1f(program_.uniform("u_cell"), cell_);
  glBindVertexArray(vao_);
}

void TankPass::draw_floor(const CameraView& camera) const {
  if (!have_box_) return;
  bind(camera, 0, glm::vec4(1.0f));
  glDrawArrays(GL_TRIANGLES, floor_first_, floor_count_);
  glBindVertexArray(0);
}

void TankPass::draw_walls(const CameraView& camera) const {
  draw_wall_faces(camera);
  draw_edges(camera);
}

void TankPass::draw_wall_faces(const CameraView& camera) const {
  if (!have_box_) return;
  // Caller has blending on and depth writes off: the walls tint what is behind them only.
  bind(camera, 1, glm::vec4(0.75f, 0.85f, 1.0f, 0.05f));
  glEnable(GL_CULL_FACE);
  glCullFace(GL_BACK);
  glFrontFace(GL_CCW);
  glDrawArrays(GL_TRIANGLES, walls_first_, walls_count_);
  glDisable(GL_CULL_FACE);
  glBindVertexArray(0);
}

void TankPass::draw_edges(const CameraView& camera) const {
  if (!have_box_) return;
  bind(camera, 1, glm::vec4(0.80f, 0.85f, 0.92f, 0.55f));  // (blending on, as for the walls)
  glDrawArrays(GL_LINES, edges_first_, edges_count_);
  glBindVertexArray(0);
}

}  // namespace tp
