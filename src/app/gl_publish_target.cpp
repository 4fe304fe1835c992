#include "app/gl_publish_target.h"

namespace tp {

GlPublishTarget::GlPublishTarget(PublishBuffer& buffer, BackendKind backend,
                                 CudaRuntime& runtime)
    : buffer_(buffer) {
  // Constructing the publisher touches nothing; it registers on the first map_device.
  if (backend == BackendKind::Cuda) interop_ = std::make_unique<InteropPublisher>(runtime, buffer);
}

GlPublishTarget::~GlPublishTarget() { unmap(); }

Vec4* GlPublishTarget::map_host(size_t count) {
  unmap();
  Vec4* memory = buffer_.map_host(count);
  if (memory) mapped_ = Mapped::Host;
  return memory;
}

void* GlPublishTarget::map_device(size_t count) {
  unmap();
  if (!interop_) return nullptr;
  void* memory = interop_->map(count);
  if (memory) mapped_ = Mapped::Device;
  return memory;
}

void GlPublishTarget::unmap() {
  if (mapped_ == Mapped::Host) buffer_.unmap_host();
  if (mapped_ == Mapped::Device) interop_->unmap();
  mapped_ = Mapped::None;
}

}  // namespace tp
