// The GL buffers of the water's triangle mesh (the mesh render mode): vertices as
// interleaved position and normal (6 floats), and 3 indices per triangle. The app uploads
// each new mesh the simulation publishes; the mesh is drawn until the next upload.
#pragma once

#include <glad/gl.h>

#include <cstddef>
#include <cstdint>

namespace tp {

class MeshBuffer {
 public:
  MeshBuffer();
  ~MeshBuffer();
  MeshBuffer(const MeshBuffer&) = delete;
  MeshBuffer& operator=(const MeshBuffer&) = delete;

  // `vertices`: 6 floats each (x y z nx ny nz), `indices`: 3 per triangle. Grows the GL
  // stores when needed.
  void upload(const float* vertices, size_t vertex_count, const uint32_t* indices, size_t triangle_count);
  void clear() { triangles_ = 0; }
  size_t triangle_count() const { return triangles_; }
  // Binds the vertex array (attribute 0 the position, 1 the normal) and draws the triangles.
  void draw() const;

 private:
  GLuint vao_ = 0, vbo_ = 0, ibo_ = 0;
  size_t vertex_capacity_ = 0, index_capacity_ = 0, triangles_ = 0;
};

}  // namespace tp
