// The gas simulation's picture of its grid, as the gas passes draw it: one RGBA float texel
// per cell in a 3D texture (GL_RGBA32F, linear filtering, clamped at the edges), x fastest,
// then y, then z. rgb is the light the smoke in the cell sends toward the eye per unit of
// opacity (already lit by the simulation), a the density (>= 0), -1 in solid cells, 1000
// in the opaque debug views. The simulation writes into a pixel-unpack buffer (the PBO),
// either through map_for_write (CPU path: straight into mapped driver memory) or, with
// CUDA-GL interop, on the device (the app reserves the store, CUDA writes it, set_count
// says it did); either way the PBO is then copied into the texture on the GL side, with no
// host round trip. Like ParticleBuffer, the store is reallocated only in reserve (and
// map_for_write, which reserves), so an interop registration stays valid between them.
#pragma once

#include <glad/gl.h>

#include <cstddef>
#include <glm/glm.hpp>

#include "kernels/common.h"

namespace tp {

class GasField {
 public:
  GasField();
  ~GasField();
  GasField(const GasField&) = delete;
  GasField& operator=(const GasField&) = delete;

  // The grid's world box [m] and its cells per axis. (Re)allocates the texture when the
  // cells change; any change clears ready() (the same grid again keeps it). Cells that are
  // not positive, or more than the driver's 3D texture size per axis, leave no texture:
  // nothing is drawn until a valid grid comes.
  void set_grid(const glm::vec3& lo, const glm::vec3& hi, const glm::ivec3& cells);

  // Maps the PBO for writing `cells` texels (growing it first); the previous contents are
  // discarded. nullptr when it cannot be mapped or cells is 0 (then not ready()). Every
  // non-null map must be followed by unmap(), which copies the PBO into the texture when
  // `cells` is the grid's cell count (see set_count).
  Vec4* map_for_write(size_t cells);
  void unmap();

  // Makes the PBO hold at least `cells` texels without mapping it (its contents are
  // undefined after a growth). For writers that reach the PBO another way (CUDA-GL interop,
  // which must not be registered while the store is reallocated).
  void reserve(size_t cells);
  // After such a writer has filled `cells` texels (never while mapped): when that is the
  // grid's cell count (and the PBO holds them), copies the PBO into the texture and
  // becomes ready; any other count clears ready (the texels do not fit the grid).
  void set_count(size_t cells);

  size_t capacity() const { return capacity_; }  ///< texels the PBO holds
  GLuint pixel_buffer() const { return pbo_; }
  GLuint texture() const { return texture_; }

  bool ready() const { return ready_; }         ///< the texture holds a field to draw
  void clear() { ready_ = false; }              ///< nothing to draw until the next write
  bool two_d() const { return cells_.z == 1; }  ///< one cell thick: drawn as a plane
  glm::vec3 lo() const { return lo_; }          ///< [m]
  glm::vec3 hi() const { return hi_; }          ///< [m]
  glm::ivec3 cells() const { return cells_; }
  size_t cell_count() const;  ///< nx * ny * nz, 0 without a valid grid

 private:
  GLuint texture_ = 0;
  GLuint pbo_ = 0;
  size_t capacity_ = 0;  ///< texels the PBO holds
  size_t pending_ = 0;   ///< texels of the map in progress
  bool mapped_ = false;
  bool ready_ = false;
  glm::vec3 lo_{0.0f}, hi_{0.0f};
  glm::ivec3 cells_{0};
  glm::ivec3 texture_cells_{0};  ///< the size the texture was allocated at (0: none)
};

}  // namespace tp
