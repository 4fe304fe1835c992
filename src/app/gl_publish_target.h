// The simulation's PublishTarget over the renderer's particle buffer: the one place where
// the solver library and the renderer meet. CPU backend: publish() writes straight into the
// mapped GL buffer (map_host). CUDA backend: map_device hands the solver a device pointer
// into the same GL buffer (CUDA-GL interop, no host copy); when the driver refuses interop
// it returns nullptr and the solver copies through map_host instead (see InteropPublisher).
#pragma once

#include <memory>

#include "app/interop_publisher.h"
#include "render/particle_buffer.h"
#include "render/render_types.h"
#include "sim/simulation.h"

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

class GlPublishTarget : public PublishTarget {
 public:
  // Interop is tried only on the CUDA backend; on the CPU backend `runtime` is never used.
  GlPublishTarget(PublishBuffer& buffer, BackendKind backend, CudaRuntime& runtime);
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

// The published per-particle value each colour mode needs.
inline ColorField color_field_for(ColorMode mode) {
  switch (mode) {
    case ColorMode::Density:
      return ColorField::Density;
    case ColorMode::Pressure:
      return ColorField::Pressure;
    default:
      return ColorField::Speed;  // water, speed; flat ignores it
  }
}

}  // namespace tp
