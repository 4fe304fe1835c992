// The GL buffers of the water's triangle mesh (the mesh render mode). The vertex buffer
// holds the positions, then the normals (2 x vertices Vec4, w unused): the layout the
// simulation's backend writes, so that on CUDA the mesh goes in through the interop without
// a host copy (app/gl_mesh_target.h); the index buffer holds 3 indices per triangle. The
// mesh is drawn until the next upload or device write.
#pragma once

#include <glad/gl.h>

#include <cstddef>
#include <cstdint>

#include "kernels/common.h"

namespace tp {

class MeshBuffer {
 public:
  static constexpr size_t kVertexBytes = 2 * sizeof(Vec4);        ///< a position and a normal
  static constexpr size_t kTriangleBytes = 3 * sizeof(uint32_t);

  MeshBuffer();
  ~MeshBuffer();
  MeshBuffer(const MeshBuffer&) = delete;
  MeshBuffer& operator=(const MeshBuffer&) = delete;

  // `vertices`: 2 x vertex_count Vec4 (positions, then normals), `indices`: 3 per
  // triangle. Grows the GL stores when needed.
  void upload(const Vec4* vertices, size_t vertex_count, const uint32_t* indices, size_t triangle_count);
  // Grows a store (its contents lost) to hold at least `count` vertices / triangles; a
  // quarter more, so that a growing mesh rarely reallocates. Never while CUDA holds it
  // registered (the interop unregisters first).
  void reserve_vertices(size_t count);
  void reserve_triangles(size_t count);
  size_t vertex_capacity() const { return vertex_capacity_; }
  size_t triangle_capacity() const { return triangle_capacity_; }
  GLuint vertex_buffer() const { return vbo_; }
  GLuint index_buffer() const { return ibo_; }
  // After a device write into the stores: what they now hold.
  void set_vertex_count(size_t count) { vertices_ = count; }
  void set_triangle_count(size_t count) { triangles_ = count; }
  void clear() { triangles_ = 0; }
  size_t triangle_count() const { return triangles_; }
  size_t vertex_count() const { return vertices_; }
  // Binds the vertex array (attribute 0 the position, 1 the normal) and draws the triangles.
  void draw() const;

 private:
  GLuint vao_ = 0, vbo_ = 0, ibo_ = 0;
  size_t vertex_capacity_ = 0, triangle_capacity_ = 0, vertices_ = 0, triangles_ = 0;
};

}  // namespace tp
