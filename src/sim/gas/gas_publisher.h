// What the gas hands the renderer, on a backend B: one Vec4 per cell (kernels/gas_shade.h
// gas_shade_cell: the lit smoke and dye, or a view's colour map) written into a
// PublishTarget, on CUDA straight into the GL buffer when the interop allows. The views
// need the cells' velocity and vorticity, the smoke the sun's optical depth from the top
// down; all three go in the fields' scratch arrays, which are free between steps.
#pragma once

#include <algorithm>
#include <cmath>

#include "kernels/gas_shade.h"
#include "sim/backend/publish_values.h"
#include "sim/gas/gas_fields.h"

namespace tp {

template <class B>
class GasPublisher {
 public:
  template <class T>
  using Buffer = typename B::template Buffer<T>;

  // `asked` brought into range first (sane_shade).
  void publish(const GasGrid& grid, const unsigned char* solid, GasFields<B>& fields, const GasShade& asked,
               PublishTarget& target) {
    const GasShade shade = sane_shade(asked);
    const GasGrid g = grid;
    const uint n = g.cells();
    const float* s = fields.scalars.data();
    const GasVelocity u = fields.view();
    Vec4* cv = fields.cell_vectors.data();
    Vec4* om = fields.cell_vectors2.data();
    float* tau = fields.scalar_scratch.data();
    if (shade.view != kGasViewSmoke)
      B::for_each(n, [=] TP_HD(uint c) { cv[c] = gas_fluid_cell_velocity(g, solid, u, c); });
    if (shade.view == kGasViewVorticity)
      B::for_each(n, [=] TP_HD(uint c) {
        om[c] = make_vec4(solid[c] ? Vec3{0, 0, 0} : gas_vorticity(g, solid, cv, g.cell_of(c)), 0.0f);
      });
    if (shade.view == kGasViewSmoke && g.n.z > 1) {
      const float* rho = s + size_t(kGasDensity) * n;
      const uint columns = uint(g.n.x) * uint(g.n.z);
      for (int j = g.n.y - 1; j >= 0; --j)  // from the top down: each layer reads the one above
        B::for_each(columns, [=] TP_HD(uint column) { gas_sun_layer(g, solid, rho, shade, j, column, tau); });
    }
    publish_values<B>(target, n, staging_,
                      [=] TP_HD(uint c) { return gas_shade_cell(g, solid, s, cv, om, tau, shade, c); });
  }

  // Each value of `shade` into its range; a NaN, or a view that is none, the default's.
  static GasShade sane_shade(GasShade shade) {
    const GasShade fallback;
    auto in = [](float v, float lo, float hi, float otherwise) {
      return std::isfinite(v) ? std::clamp(v, lo, hi) : otherwise;
    };
    if (shade.view < 0 || shade.view >= kGasViews) shade.view = kGasViewSmoke;
    shade.sun = Vec3{in(shade.sun.x, -10.0f, 10.0f, fallback.sun.x), in(shade.sun.y, 0.05f, 10.0f, fallback.sun.y),
                     in(shade.sun.z, -10.0f, 10.0f, fallback.sun.z)};
    shade.sun_light = in(shade.sun_light, 0.0f, 100.0f, fallback.sun_light);
    shade.ambient = in(shade.ambient, 0.0f, 100.0f, fallback.ambient);
    shade.extinction = in(shade.extinction, 0.0f, 1e6f, fallback.extinction);
    shade.view_range = in(shade.view_range, 1e-6f, 1e6f, fallback.view_range);
    return shade;
  }

 private:
  Buffer<Vec4> staging_;  ///< CUDA without the interop: the values before their copy to the host
};

}  // namespace tp
