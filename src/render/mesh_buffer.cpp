#include "render/mesh_buffer.h"

namespace tp {

MeshBuffer::MeshBuffer() {
  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &vbo_);
  glGenBuffers(1, &ibo_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float),
                        reinterpret_cast<const void*>(3 * sizeof(float)));
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo_);  // (recorded by the vertex array)
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

MeshBuffer::~MeshBuffer() {
  glDeleteVertexArrays(1, &vao_);
  glDeleteBuffers(1, &vbo_);
  glDeleteBuffers(1, &ibo_);
}

void MeshBuffer::upload(const float* vertices, size_t vertex_count, const uint32_t* indices,
                        size_t triangle_count) {
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  const size_t vertex_bytes = vertex_count * 6 * sizeof(float);
  if (vertex_count > vertex_capacity_) {  // a quarter more: a growing mesh rarely reallocates
    vertex_capacity_ = vertex_count + vertex_count / 4;
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(vertex_capacity_ * 6 * sizeof(float)), nullptr, GL_STREAM_DRAW);
  }
  if (vertex_bytes) glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(vertex_bytes), vertices);
  const size_t index_count = triangle_count * 3;
  if (index_count > index_capacity_) {
    index_capacity_ = index_count + index_count / 4;
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(index_capacity_ * sizeof(uint32_t)), nullptr, GL_STREAM_DRAW);
  }
  if (index_count)
    glBufferSubData(GL_ELEMENT_ARRAY_BUFFER, 0, GLsizeiptr(index_count * sizeof(uint32_t)), indices);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  triangles_ = triangle_count;
}

void MeshBuffer::draw() const {
  if (triangles_ == 0) return;
  glBindVertexArray(vao_);
  glDrawElements(GL_TRIANGLES, GLsizei(triangles_ * 3), GL_UNSIGNED_INT, nullptr);
  glBindVertexArray(0);
}

}  // namespace tp
