#include <cmath>

#include "sim/water/simulation_impl.h"

namespace tp {

namespace {

// Calls f(offset) for every point of the D-dimensional lattice of the given spacing within
// `reach` spacings of the origin along each axis (z = 0 in 2D).
template <int D, class F>
void for_each_lattice_point(float spacing, int reach, F&& f) {
  const int zreach = D == 3 ? reach : 0;
  for (int z = -zreach; z <= zreach; ++z)
    for (int y = -reach; y <= reach; ++y)
      for (int x = -reach; x <= reach; ++x) f(Vec3{spacing * x, spacing * y, spacing * z});
}

template <int D>
float kernel_sum(const CubicKernel& kernel, float spacing) {
  double sum = 0.0;
  for_each_lattice_point<D>(spacing, int(std::ceil(kernel.h / spacing)),
                            [&](Vec3 d) { sum += kernel.w(length(d)); });
  return float(sum);
}

template <int D>
float gradient_sum(const CubicKernel& kernel, float spacing) {
  double sum = 0.0;
  for_each_lattice_point<D>(spacing, int(std::ceil(kernel.h / spacing)), [&](Vec3 d) {
    const Vec3 g = kernel.grad(d, length(d));
    sum += double(dot(g, g));
  });
  return float(sum);
}

}  // namespace

float lattice_kernel_sum(const CubicKernel& kernel, float spacing, int dimensions) {
  return with_dimension(dimensions, [&](auto d) { return kernel_sum<decltype(d)::value>(kernel, spacing); });
}

float lattice_gradient_sum(const CubicKernel& kernel, float spacing, int dimensions) {
  return with_dimension(dimensions, [&](auto d) { return gradient_sum<decltype(d)::value>(kernel, spacing); });
}

}  // namespace tp
