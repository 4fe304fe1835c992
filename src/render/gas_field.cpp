#include "render/gas_field.h"

namespace tp {

GasField::GasField() {
  glGenBuffers(1, &pbo_);
  glGenTextures(1, &texture_);
}

GasField::~GasField() {
  if (mapped_) unmap();
  glDeleteBuffers(1, &pbo_);
  glDeleteTextures(1, &texture_);
}

size_t GasField::cell_count() const {
  if (texture_cells_ != cells_ || cells_.x <= 0) return 0;  // no valid texture
  return size_t(cells_.x) * size_t(cells_.y) * size_t(cells_.z);
}

void GasField::set_grid(const glm::vec3& lo, const glm::vec3& hi, const glm::ivec3& cells) {
  if (lo == lo_ && hi == hi_ && cells == cells_) return;
  lo_ = lo;
  hi_ = hi;
  cells_ = cells;
  ready_ = false;
  if (cells == texture_cells_) return;
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_3D_TEXTURE_SIZE, &max_size);
  const bool valid = cells.x > 0 && cells.y > 0 && cells.z > 0 && cells.x <= max_size &&
                     cells.y <= max_size && cells.z <= max_size;
  // No PBO bound while allocating: a bound one would make the null pointer an offset into it.
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  glBindTexture(GL_TEXTURE_3D, texture_);
  // An invalid grid leaves a 1-texel placeholder (cell_count() is 0: never drawn).
  const glm::ivec3 size = valid ? cells : glm::ivec3(1);
  glTexImage3D(GL_TEXTURE_3D, 0, GL_RGBA32F, size.x, size.y, size.z, 0, GL_RGBA, GL_FLOAT, nullptr);
  glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_WRAP_R, GL_CLAMP_TO_EDGE);
  glBindTexture(GL_TEXTURE_3D, 0);
  texture_cells_ = valid ? cells : glm::ivec3(0);
}

Vec4* GasField::map_for_write(size_t cells) {
  if (mapped_) unmap();
  if (cells == 0) {
    ready_ = false;
    return nullptr;
  }
  reserve(cells);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_);
  // INVALIDATE_BUFFER lets the driver hand out fresh storage while last frame's copy into
  // the texture may still be pending, so the map never waits for it.
  void* memory = glMapBufferRange(GL_PIXEL_UNPACK_BUFFER, 0, GLsizeiptr(cells * sizeof(Vec4)),
                                  GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  if (!memory) {
    ready_ = false;
    return nullptr;
  }
  mapped_ = true;
  pending_ = cells;
  return static_cast<Vec4*>(memory);
}

void GasField::unmap() {
  if (!mapped_) return;
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_);
  // GL_FALSE: the store was lost (a display mode change); draw nothing rather than garbage.
  const GLboolean intact = glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  mapped_ = false;
  if (intact)
    set_count(pending_);
  else
    ready_ = false;
}

void GasField::reserve(size_t cells) {
  if (cells <= capacity_) return;
  if (mapped_) unmap();
  // The exact size: a grid does not grow a few cells at a time as particles do.
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_);
  glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(cells * sizeof(Vec4)), nullptr, GL_STREAM_DRAW);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  capacity_ = cells;
}

void GasField::set_count(size_t cells) {
  if (mapped_) return;
  const size_t want = cell_count();
  if (want == 0 || cells != want || cells > capacity_) {
    ready_ = false;
    return;
  }
  // The copy runs in the driver (on the GPU with a hardware driver), from offset 0 of the
  // bound PBO. A row of RGBA32F texels is a multiple of 16 bytes, so any unpack alignment
  // fits; the row length and skips are GL's defaults (0), which nothing here changes.
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_);
  glBindTexture(GL_TEXTURE_3D, texture_);
  glTexSubImage3D(GL_TEXTURE_3D, 0, 0, 0, 0, cells_.x, cells_.y, cells_.z, GL_RGBA, GL_FLOAT,
                  nullptr);
  glBindTexture(GL_TEXTURE_3D, 0);
  // Unbound again: with a PBO bound, every later glTexImage* would read from it.
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  ready_ = true;
}

}  // namespace tp
