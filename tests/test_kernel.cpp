// The cubic spline kernel: normalisation, gradient, symmetry, support.
#include <gtest/gtest.h>

#include "kernels/sph_kernel.h"

using namespace tp;

namespace {

// Sum over a fine lattice of W times the cell volume: the integral of W over space.
double lattice_integral(const CubicKernel& k, float d) {
  const int reach = int(k.h / d) + 1;
  double sum = 0.0;
  for (int z = -reach; z <= reach; ++z)
    for (int y = -reach; y <= reach; ++y)
      for (int x = -reach; x <= reach; ++x) sum += k.w(d * std::sqrt(float(x * x + y * y + z * z)));
  return sum * double(d) * d * d;
}

}  // namespace

TEST(CubicKernel, IntegratesToOne) {
  for (float h : {0.05f, 0.1f, 1.0f}) {
    const CubicKernel k = CubicKernel::make(h);
    EXPECT_NEAR(lattice_integral(k, h / 40.0f), 1.0, 1e-3) << "h = " << h;
  }
}

TEST(CubicKernel, ZeroAtAndBeyondSupportPositiveInside) {
  const CubicKernel k = CubicKernel::make(0.1f);
  EXPECT_EQ(k.w(0.1f), 0.0f);
  EXPECT_EQ(k.w(0.2f), 0.0f);
  EXPECT_GT(k.w(0.0999f), 0.0f);
  EXPECT_FLOAT_EQ(k.w(0.0f), k.w_zero);
  for (float r = 0.0f; r < 0.1f; r += 0.001f) EXPECT_GE(k.w(r), k.w(r + 0.001f)) << r;
}

TEST(CubicKernel, GradientMatchesFiniteDifferences) {
  const CubicKernel k = CubicKernel::make(0.1f);
  const float eps = 1e-4f;
  for (Vec3 x : {Vec3{0.01f, 0.02f, -0.03f}, Vec3{0.06f, 0.0f, 0.01f}, Vec3{-0.02f, 0.05f, 0.07f},
                 Vec3{0.03f, -0.03f, 0.0f}}) {
    const Vec3 g = k.grad(x, length(x));
    auto w_at = [&](Vec3 p) { return k.w(length(p)); };
    const float fx = (w_at(x + Vec3{eps, 0, 0}) - w_at(x - Vec3{eps, 0, 0})) / (2 * eps);
    const float fy = (w_at(x + Vec3{0, eps, 0}) - w_at(x - Vec3{0, eps, 0})) / (2 * eps);
    const float fz = (w_at(x + Vec3{0, 0, eps}) - w_at(x - Vec3{0, 0, eps})) / (2 * eps);
    const float scale = std::max(1.0f, length(g));
    EXPECT_NEAR(g.x, fx, 2e-3f * scale);
    EXPECT_NEAR(g.y, fy, 2e-3f * scale);
    EXPECT_NEAR(g.z, fz, 2e-3f * scale);
  }
}

TEST(CubicKernel, GradientIsAntisymmetricAndPointsInward) {
  const CubicKernel k = CubicKernel::make(0.1f);
  const Vec3 x{0.02f, -0.03f, 0.04f};
  const Vec3 a = k.grad(x, length(x)), b = k.grad(-x, length(x));
  EXPECT_FLOAT_EQ(a.x, -b.x);
  EXPECT_FLOAT_EQ(a.y, -b.y);
  EXPECT_FLOAT_EQ(a.z, -b.z);
  EXPECT_LT(dot(a, x), 0.0f);  // W decreases away from the centre
  const Vec3 zero = k.grad(Vec3{0, 0, 0}, 0.0f);
  EXPECT_EQ(length(zero), 0.0f);
}
