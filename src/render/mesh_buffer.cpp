#include "render/mesh_buffer.h"

namespace tp {

MeshBuffer::MeshBuffer() {
  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &vbo_);
  glGenBuffers(1, &ibo_);
  glBindVertexArray(vao_);
  glEnableVertexAttribArray(0);
  glEnableVertexAttribArray(1);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo_);  // (recorded by the vertex array)
  glBindVertexArray(0);
}

MeshBuffer::~MeshBuffer() {
  glDeleteVertexArrays(1, &vao_);
  glDeleteBuffers(1, &vbo_);
  glDeleteBuffers(1, &ibo_);
}

void MeshBuffer::reserve_vertices(size_t count) {
  if (count <= vertex_capacity_) return;
  vertex_capacity_ = count + count / 4;
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(vertex_capacity_ * kVertexBytes), nullptr, GL_STREAM_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void MeshBuffer::reserve_triangles(size_t count) {
  if (count <= triangle_capacity_) return;
  triangle_capacity_ = count + count / 4;
  // The element binding is the vertex array's: bound through it, not left on another.
  glBindVertexArray(vao_);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(triangle_capacity_ * kTriangleBytes), nullptr, GL_STREAM_DRAW);
  glBindVertexArray(0);
}

void MeshBuffer::upload(const Vec4* vertices, size_t vertex_count, const uint32_t* indices,
                        size_t triangle_count) {
  reserve_vertices(vertex_count);
  reserve_triangles(triangle_count);
  if (vertex_count) {
    glBindBuffer(GL_ARRAY_BUFFER, vbo_);
    glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(vertex_count * kVertexBytes), vertices);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
  }
  if (triangle_count) {
    glBindVertexArray(vao_);
    glBufferSubData(GL_ELEMENT_ARRAY_BUFFER, 0, GLsizeiptr(triangle_count * kTriangleBytes), indices);
    glBindVertexArray(0);
  }
  vertices_ = vertex_count;
  triangles_ = triangle_count;
}

void MeshBuffer::draw() const {
  if (triangles_ == 0 || vertices_ == 0) return;
  glBindVertexArray(vao_);
  // The normals start after this mesh's positions: pointed at for each draw.
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(Vec4), nullptr);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(Vec4),
                        reinterpret_cast<const void*>(vertices_ * sizeof(Vec4)));
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glDrawElements(GL_TRIANGLES, GLsizei(triangles_ * 3), GL_UNSIGNED_INT, nullptr);
  glBindVertexArray(0);
}

}  // namespace tp
