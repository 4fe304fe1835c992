#include "render/particle_buffer.h"

namespace tp {

ParticleBuffer::ParticleBuffer() { glGenBuffers(1, &vbo_); }

ParticleBuffer::~ParticleBuffer() {
  if (mapped_) unmap();
  glDeleteBuffers(1, &vbo_);
}

Vec4* ParticleBuffer::map_for_write(size_t count) {
  if (mapped_) unmap();
  if (count == 0) {
    count_ = 0;
    return nullptr;
  }
  reserve(count);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  const GLsizeiptr bytes = GLsizeiptr(count * sizeof(Vec4));
  // INVALIDATE_BUFFER lets the driver hand out fresh storage (orphaning) while the GPU may
  // still be drawing last frame's particles, so the map never waits for it.
  void* memory =
      glMapBufferRange(GL_ARRAY_BUFFER, 0, bytes, GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  if (!memory) {
    count_ = 0;
    return nullptr;
  }
  mapped_ = true;
  pending_ = count;
  return static_cast<Vec4*>(memory);
}

void ParticleBuffer::reserve(size_t count) {
  if (count <= capacity_) return;
  if (mapped_) unmap();
  // Grow with headroom so that adding a few particles does not reallocate every frame.
  const size_t capacity = count + count / 4;
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(capacity * sizeof(Vec4)), nullptr, GL_STREAM_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  capacity_ = capacity;
}

void ParticleBuffer::set_count(size_t count) {
  if (mapped_) return;
  count_ = count < capacity_ ? count : capacity_;
}

void ParticleBuffer::unmap() {
  if (!mapped_) return;
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  // GL_FALSE means the store was lost (e.g. a display mode change): draw nothing this frame
  // rather than garbage; the next publish refills it.
  const GLboolean intact = glUnmapBuffer(GL_ARRAY_BUFFER);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  mapped_ = false;
  count_ = intact ? pending_ : 0;
}

}  // namespace tp
