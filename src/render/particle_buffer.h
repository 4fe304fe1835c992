// The GL vertex buffer the particles are drawn from: one tp::Vec4 per particle, xyz the
// position and w the value to colour by. The simulation fills it once a frame, either
// through map_for_write (CPU path: straight into mapped driver memory, no staging copy) or,
// with CUDA-GL interop, on the device: then the app reserves the storage, CUDA writes into
// it and set_count says how many particles it wrote.
#pragma once

#include <glad/gl.h>

#include <cstddef>

#include "kernels/common.h"

namespace tp {

class ParticleBuffer {
 public:
  ParticleBuffer();
  ~ParticleBuffer();
  ParticleBuffer(const ParticleBuffer&) = delete;
  ParticleBuffer& operator=(const ParticleBuffer&) = delete;

  // Maps room for `count` particles for writing; the previous contents are discarded.
  // Returns nullptr when the buffer cannot be mapped (or count is 0); then nothing is drawn
  // until a later map succeeds. Every non-null map must be followed by unmap().
  Vec4* map_for_write(size_t count);
  void unmap();

  // Makes the GL store hold at least `count` particles without mapping it (the contents
  // are undefined after a growth). For writers that reach the buffer another way (CUDA-GL
  // interop, which must not be registered while the store is reallocated).
  void reserve(size_t count);
  // The number of particles to draw, after such a writer has filled them (at most the
  // capacity; never while mapped).
  void set_count(size_t count);

  size_t count() const { return count_; }  ///< particles written by the last successful map
  size_t capacity() const { return capacity_; }  ///< particles the GL store holds
  GLuint vbo() const { return vbo_; }

 private:
  GLuint vbo_ = 0;
  size_t capacity_ = 0;  ///< particles the GL store holds
  size_t pending_ = 0;   ///< count of the map in progress
  bool mapped_ = false;
  size_t count_ = 0;
};

}  // namespace tp
