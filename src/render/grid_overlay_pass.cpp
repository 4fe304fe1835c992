#include "render/grid_overlay_pass.h"

#include <glm/gtc/type_ptr.hpp>

namespace tp {

namespace {

constexpr GLint kCubeFirst = 0, kCubeCount = 24;   // 12 edges
constexpr GLint kSquareFirst = 24, kSquareCount = 8;  // 4 edges, z = 0

std::vector<glm::vec3> unit_edges() {
  std::vector<glm::vec3> v;
  // Corner k has x from bit 0, y from bit 1, z from bit 2; each edge once, from its lower end.
  auto corner = [](int k) { return glm::vec3(k & 1 ? 1 : 0, k & 2 ? 1 : 0, k & 4 ? 1 : 0); };
  for (int a = 0; a < 8; ++a)
    for (int bit = 1; bit < 8; bit <<= 1) {
      if (a & bit) continue;
      v.push_back(corner(a));
      v.push_back(corner(a | bit));
    }
  for (int a = 0; a < 4; ++a)
    for (int bit = 1; bit < 4; bit <<= 1) {
      if (a & bit) continue;
      v.push_back(corner(a));
      v.push_back(corner(a | bit));
    }
  return v;
}

}  // namespace

GridOverlayPass::GridOverlayPass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "grid_overlay.vert", "grid_overlay.frag")) {
  const std::vector<glm::vec3> edges = unit_edges();
  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &edges_vbo_);
  glGenBuffers(1, &cells_vbo_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, edges_vbo_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(edges.size() * sizeof(glm::vec3)), edges.data(), GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(glm::vec3), nullptr);
  glBindBuffer(GL_ARRAY_BUFFER, cells_vbo_);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(Vec4), nullptr);
  glVertexAttribDivisor(1, 1);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

GridOverlayPass::~GridOverlayPass() {
  glDeleteBuffers(1, &cells_vbo_);
  glDeleteBuffers(1, &edges_vbo_);
  glDeleteVertexArrays(1, &vao_);
}

void GridOverlayPass::upload(const GridOverlayDraw& grid) {
  count_ = grid.cells.size();
  if (count_ == 0) return;
  glBindBuffer(GL_ARRAY_BUFFER, cells_vbo_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(count_ * sizeof(Vec4)), grid.cells.data(), GL_STREAM_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void GridOverlayPass::draw(const CameraView& camera, const GridOverlayDraw& grid) const {
  if (count_ == 0 || !(grid.cell > 0.0f)) return;
  const GLsizei n = GLsizei(count_);

  program_.use();
  glUniformMatrix4fv(program_.uniform("u_view"), 1, GL_FALSE, glm::value_ptr(camera.view));
  glUniformMatrix4fv(program_.uniform("u_projection"), 1, GL_FALSE, glm::value_ptr(camera.projection));
  glUniform1f(program_.uniform("u_cell"), grid.cell);
  glUniform1f(program_.uniform("u_full"), grid.full);
  glUniform1f(program_.uniform("u_pull"), grid.pull);
  glUniform3fv(program_.uniform("u_sparse"), 1, kSparse);
  glUniform3fv(program_.uniform("u_half"), 1, kHalf);
  glUniform3fv(program_.uniform("u_full_color"), 1, kFull);

  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  glDepthMask(GL_FALSE);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glBindVertexArray(vao_);
  if (grid.plane)
    glDrawArraysInstanced(GL_LINES, kSquareFirst, kSquareCount, n);
  else
    glDrawArraysInstanced(GL_LINES, kCubeFirst, kCubeCount, n);
  glBindVertexArray(0);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glDepthFunc(GL_LESS);
}

}  // namespace tp
