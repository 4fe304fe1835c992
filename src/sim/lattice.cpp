#include <cmath>

#include "sim/simulation_impl.h"

namespace tp {

float lattice_kernel_sum(const CubicKernel& kernel, float spacing) {
  const int reach = int(std::ceil(kernel.h / spacing));
  double sum = 0.0;
  for (int z = -reach; z <= reach; ++z)
    for (int y = -reach; y <= reach; ++y)
      for (int x = -reach; x <= reach; ++x) {
        const float r = spacing * std::sqrt(float(x * x + y * y + z * z));
        sum += kernel.w(r);
      }
  return float(sum);
}

float lattice_gradient_sum(const CubicKernel& kernel, float spacing) {
  const int reach = int(std::ceil(kernel.h / spacing));
  double sum = 0.0;
  for (int z = -reach; z <= reach; ++z)
    for (int y = -reach; y <= reach; ++y)
      for (int x = -reach; x <= reach; ++x) {
        const Vec3 d{spacing * x, spacing * y, spacing * z};
        const Vec3 g = kernel.grad(d, length(d));
        sum += double(dot(g, g));
      }
  return float(sum);
}

}  // namespace tp
