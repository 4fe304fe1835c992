// The simulation's PublishTarget over the renderer's particle buffer: the one place where
// the solver library and the renderer meet. CPU backend: publish() writes straight into the
// mapped GL buffer (map_host). CUDA backend: map_device hands the solver a device pointer
// into the same GL buffer (CUDA-GL interop, no host copy); when the driver refuses interop
// it returns nullptr and the solver copies through map_host instead (see InteropPublisher).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/window/interop_publisher.h"
#include "render/gas_field.h"
#include "render/mesh_buffer.h"
#include "render/particle_buffer.h"
#include "render/render_types.h"
#include "sim/water/simulation.h"

namespace tp {

// The renderer's ParticleBuffer as the publisher sees it.
class GlParticleBuffer final : public PublishBuffer {
 public:
  explicit GlParticleBuffer(ParticleBuffer& buffer) : buffer_(buffer) {}
  unsigned gl_name() const override { return buffer_.vbo(); }
  size_t capacity() const override { return buffer_.capacity(); }
  void reserve(size_t count) override { buffer_.reserve(count); }
  Vec4* map_host(size_t count) override { return buffer_.map_for_write(count); }
  void unmap_host() override { buffer_.unmap(); }
  void set_count(size_t count) override { buffer_.set_count(count); }

 private:
  ParticleBuffer& buffer_;
};

// The renderer's GasField (its pixel buffer, copied into the 3D texture after each write)
// as the publisher sees it: one Vec4 per cell.
class GlGasBuffer final : public PublishBuffer {
 public:
  explicit GlGasBuffer(GasField& field) : field_(field) {}
  unsigned gl_name() const override { return field_.pixel_buffer(); }
  size_t capacity() const override { return field_.capacity(); }
  void reserve(size_t count) override { field_.reserve(count); }
  Vec4* map_host(size_t count) override { return field_.map_for_write(count); }
  void unmap_host() override { field_.unmap(); }
  void set_count(size_t count) override { field_.set_count(count); }

 private:
  GasField& field_;
};

class GlPublishTarget : public PublishTarget {
 public:
  // Interop is tried only on the CUDA backend; on the CPU backend `runtime` is never used.
  // `what` names the data in the interop's one line on giving up.
  GlPublishTarget(PublishBuffer& buffer, BackendKind backend, CudaRuntime& runtime,
                  const std::string& what = "particles");
  ~GlPublishTarget() override;  ///< unregisters the buffer from CUDA (GL context current)

  Vec4* map_host(size_t count) override;
  void* map_device(size_t count) override;
  void unmap() override;

 private:
  enum class Mapped { None, Host, Device };
  PublishBuffer& buffer_;
  std::unique_ptr<InteropPublisher> interop_;  ///< CUDA backend only
  Mapped mapped_ = Mapped::None;
};

// The mesh's two GL buffers as the publishers see them, and the host path: GL-free, so
// that tests drive GlMeshTarget with fakes.
class MeshPublishBuffers {
 public:
  virtual ~MeshPublishBuffers() = default;
  virtual InteropBuffer& vertices() = 0;   ///< elements: a vertex (position, normal Vec4)
  virtual InteropBuffer& triangles() = 0;  ///< elements: a triangle (3 uint32)
  virtual void upload(const TriangleMesh& mesh) = 0;  ///< through the host
};

// The renderer's MeshBuffer as the publishers see it.
class GlMeshBuffers final : public MeshPublishBuffers {
 public:
  explicit GlMeshBuffers(MeshBuffer& mesh) : vertices_(mesh), triangles_(mesh), mesh_(mesh) {}
  InteropBuffer& vertices() override { return vertices_; }
  InteropBuffer& triangles() override { return triangles_; }
  void upload(const TriangleMesh& mesh) override;

 private:
  struct Vertices final : InteropBuffer {
    explicit Vertices(MeshBuffer& m) : mesh(m) {}
    unsigned gl_name() const override { return mesh.vertex_buffer(); }
    size_t capacity() const override { return mesh.vertex_capacity(); }
    void reserve(size_t count) override { mesh.reserve_vertices(count); }
    void set_count(size_t count) override { mesh.set_vertex_count(count); }
    size_t element_bytes() const override { return MeshBuffer::kVertexBytes; }
    MeshBuffer& mesh;
  };
  struct Triangles final : InteropBuffer {
    explicit Triangles(MeshBuffer& m) : mesh(m) {}
    unsigned gl_name() const override { return mesh.index_buffer(); }
    size_t capacity() const override { return mesh.triangle_capacity(); }
    void reserve(size_t count) override { mesh.reserve_triangles(count); }
    void set_count(size_t count) override { mesh.set_triangle_count(count); }
    size_t element_bytes() const override { return MeshBuffer::kTriangleBytes; }
    MeshBuffer& mesh;
  };
  Vertices vertices_;
  Triangles triangles_;
  MeshBuffer& mesh_;
  std::vector<Vec4> staging_;  ///< positions then normals, kept between uploads
};

// The simulation's MeshTarget over the mesh's buffers. CUDA backend: map_device maps both
// GL buffers (interop, as GlPublishTarget does for particles); when either is refused,
// both give up for good with one line on stderr and the mesh comes through upload().
class GlMeshTarget final : public MeshTarget {
 public:
  GlMeshTarget(MeshPublishBuffers& buffers, BackendKind backend, CudaRuntime& runtime);
  ~GlMeshTarget() override;  ///< unmaps and unregisters (GL context current)

  bool map_device(size_t vertices, size_t triangles, Vec4** vertex_out, uint32_t** index_out) override;
  void unmap() override;
  void upload(const TriangleMesh& mesh) override;
  bool interop_unavailable() const { return !vertices_ || vertices_->unavailable(); }

 private:
  MeshPublishBuffers& buffers_;
  std::unique_ptr<InteropPublisher> vertices_, triangles_;  ///< CUDA backend only
};

// The published per-particle value each colour mode needs.
inline ColorField color_field_for(ColorMode mode) {
  switch (mode) {
    case ColorMode::Density:
      return ColorField::Density;
    case ColorMode::Pressure:
      return ColorField::Pressure;
    case ColorMode::Neighbors:
      return ColorField::Neighbors;
    case ColorMode::Vorticity:
      return ColorField::Vorticity;
    case ColorMode::DensityError:
      return ColorField::DensityError;
    default:
      return ColorField::Speed;  // water, speed; flat ignores it
  }
}

}  // namespace tp
