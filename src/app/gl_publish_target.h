// The simulation's PublishTarget over the renderer's particle buffer: the one place where
// the solver library and the renderer meet. CPU path: publish() writes straight into the
// mapped GL buffer. (CUDA-GL interop will add map_device here.)
#pragma once

#include "render/particle_buffer.h"
#include "sim/simulation.h"

namespace tp {

class GlPublishTarget : public PublishTarget {
 public:
  explicit GlPublishTarget(ParticleBuffer& buffer) : buffer_(buffer) {}
  Vec4* map_host(size_t count) override { return buffer_.map_for_write(count); }
  void unmap() override { buffer_.unmap(); }

 private:
  ParticleBuffer& buffer_;
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
