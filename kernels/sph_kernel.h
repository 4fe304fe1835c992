// The SPH smoothing kernel shared by every solver: the cubic spline of Monaghan (1992),
// "Smoothed particle hydrodynamics", Annu. Rev. Astron. Astrophys. 30, Eq. 2.6, written
// with compact support h (W = 0 for r >= h), as in Koschier et al. 2019, "SPH techniques
// for the physics based simulation of fluids and solids", Eq. 4 (Eurographics tutorial).
// With particle spacing s we use h = 2 s, about 33 neighbours per particle in 3D and 13 in
// 2D; the dimension enters only through the normalisation (kernels/dimension.h).
#pragma once

#include "common.h"
#include "dimension.h"
#include "lanes.h"

namespace tp {

struct CubicKernel {
  float h;      ///< support radius [m]
  float inv_h;  ///< 1 / h
  float k;      ///< W normalisation, 8 / (pi h^3) in 3D, 40 / (7 pi h^2) in 2D
  float l;      ///< gradient normalisation, 6 k
  float w_zero; ///< W(0), used for a particle's own contribution

  template <int D = 3>
  TP_HD static CubicKernel make(float support) {
    CubicKernel c;
    c.h = support;
    c.inv_h = 1.0f / support;
    c.k = Dimension<D>::cubic_norm(support);
    c.l = 6.0f * c.k;
    c.w_zero = c.k;
    return c;
  }
  // For a dimension known at run time (2 or 3).
  static CubicKernel make_for(int dimensions, float support) {
    return with_dimension(dimensions, [&](auto d) { return make<decltype(d)::value>(support); });
  }

  // W(r), r >= 0. [Monaghan 1992, Eq. 2.6] with q = r / h in [0, 1]: 6q^3 - 6q^2 + 1 for
  // q <= 1/2, 2(1 - q)^3 beyond. Written without a branch as 2 (1 - q)^3 - 8 (1/2 - q)^3,
  // each cube clipped at zero: the two pieces agree there, and a branch on q mispredicts
  // for about one neighbour in eight. R is float, or 16 lanes (kernels/lanes.h); so below.
  template <class R>
  TP_HD TP_INLINE R w(R r) const {
    const R q = r * inv_h;
    const R a = maxf(1.0f - q, 0.0f), b = maxf(0.5f - q, 0.0f);
    return k * (2.0f * a * a * a - 8.0f * b * b * b);
  }

  // grad W(x) for x = x_i - x_j, r = |x|. The derivative of w() above, times x / r.
  template <class V, class R>
  TP_HD TP_INLINE V grad(const V& x, R r) const {
    return grad(x, r, select(r > 1e-9f, 1.0f / r, R(0.0f)));
  }
  // The same with 1 / r supplied by a caller that has it already (0 for r = 0).
  // dW/dq = l q (3q - 2) for q <= 1/2 and -l (1 - q)^2 beyond; without a branch, as
  // l (4 (1/2 - q)^2 - (1 - q)^2) with both clipped at zero. Zero for r < 1e-9: the self
  // pair, and particles on top of each other, exert no force.
  template <class V, class R>
  TP_HD TP_INLINE V grad(const V& x, R r, R inv_r) const {
    const R q = r * inv_h;
    const R a = maxf(1.0f - q, 0.0f), b = maxf(0.5f - q, 0.0f);
    const R dwdq = l * (4.0f * b * b - a * a);
    const R zero(0.0f);
    return select(r < 1e-9f, V{zero, zero, zero}, x * (dwdq * inv_h * inv_r));
  }
};

}  // namespace tp
