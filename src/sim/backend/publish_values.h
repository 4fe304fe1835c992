// Writing one Vec4 per element into a PublishTarget from a backend: straight into the
// mapped GL buffer (CUDA-GL interop, or the CPU backend's mapped memory), else (CUDA
// without interop) through a staging buffer and one copy to the host. Shared by the
// particles, the spray, the splats and the gas's cells.
#pragma once

#include "sim/water/simulation.h"

namespace tp {

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
