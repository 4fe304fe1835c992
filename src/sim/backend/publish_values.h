// Writing one Vec4 per element into a PublishTarget from a backend: straight into the
// mapped GL buffer (CUDA-GL interop, or the CPU backend's mapped memory), else (CUDA
// without interop) through a staging buffer and one copy to the host. Shared by the
// particles, the spray, the splats and the gas's cells.
#pragma once

#include "kernels/common.h"

namespace tp {

// Where publish() writes one Vec4 per particle: xyz position, w = the chosen ColorField.
// The renderer implements it over a GL buffer. On the CPU path map_host gives mapped
// buffer memory (one upload, no staging copy); on the CUDA path map_device may give a
// device pointer into the same buffer (CUDA-GL interop), else the host path is used.
class PublishTarget {
 public:
  virtual ~PublishTarget() = default;
  virtual Vec4* map_host(size_t count) = 0;  ///< nullptr on failure
  virtual void* map_device(size_t count) { (void)count; return nullptr; }
  virtual void unmap() = 0;
};

// Writes value(i), i < n, into `target`; `staging` is kept between frames by the caller.
template <class B, class F>
void publish_values(PublishTarget& target, uint n, typename B::template Buffer<Vec4>& staging, F value) {
  if (B::kIsDevice) {
    if (Vec4* out = static_cast<Vec4*>(target.map_device(n))) {
      B::for_each(n, [=] TP_HD(uint i) { out[i] = value(i); });
      B::synchronize();
      target.unmap();
      return;
    }
    staging.grow(n);
    Vec4* s = staging.data();
    B::for_each(n, [=] TP_HD(uint i) { s[i] = value(i); });
    Vec4* out = target.map_host(n);
    if (!out) return;
    B::copy_to_host(out, s, n);
    target.unmap();
    return;
  }
  Vec4* out = target.map_host(n);
  if (!out) return;
  B::for_each(n, [=] TP_HD(uint i) { out[i] = value(i); });
  target.unmap();
}

}  // namespace tp
