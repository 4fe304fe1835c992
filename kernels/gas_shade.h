// What the renderer draws of the gas: one Vec4 per cell (lit smoke and dye, or a view's
// colour map), and the sun's shadow through the smoke, layer by layer; written on the
// backend (src/sim/gas/gas_publisher.h). The grid and its layout: gas.h.
#pragma once

#include "gas.h"

namespace tp {

// ---------------------------------------------------------------------------------------
// Drawing: what the renderer's texture holds per cell (one Vec4), written on the backend

enum GasView : int {
  kGasViewSmoke = 0,      ///< the smoke or dye, lit by the sun and the sky
  kGasViewSpeed = 1,      ///< |u| on a sequential colour map
  kGasViewVorticity = 2,  ///< 3D: |omega|, sequential; 2D: omega_z, diverging (red +, blue -)
  kGasViews = 3,
};

// How the cells are lit and coloured for drawing. The sun's shadow: the optical depth from
// each cell toward the sun, layer by layer from the top (gas_sun_layer), with the same
// extinction as the renderer's ray-march so that what looks thick also casts a dark shadow.
struct GasShade {
  int view = kGasViewSmoke;  ///< GasView
  Vec3 sun{0.45f, 0.85f, 0.3f};  ///< toward the sun (need not be unit length; y > 0)
  float sun_light = 1.0f;   ///< the sun's strength on lit smoke
  float ambient = 0.35f;    ///< the sky's, unshadowed
  float extinction = 40.0f;  ///< [1/m per unit density] the renderer's (GasLook)
  float view_range = 1.0f;   ///< [m/s] or [1/s]: the top of the speed and vorticity maps
  // (the app's "auto": the largest speed, or that speed over four cells for vorticity)
};

// A perceptual sequential map (dark blue, teal, green, yellow) at t in [0, 1].
TP_HD TP_INLINE Vec3 gas_sequential(float t) {
  t = minf(maxf(t, 0.0f), 1.0f) * 4.0f;
  const Vec3 stops[5] = {{0.27f, 0.00f, 0.33f}, {0.23f, 0.32f, 0.55f}, {0.13f, 0.57f, 0.55f},
                         {0.37f, 0.79f, 0.38f}, {0.99f, 0.91f, 0.14f}};
  const int k = t >= 4.0f ? 3 : int(t);
  const float f = t - float(k);
  return stops[k] + (stops[k + 1] - stops[k]) * f;
}
// A diverging map: blue at -1, near-white at 0, red at +1.
TP_HD TP_INLINE Vec3 gas_diverging(float t) {
  t = minf(maxf(t, -1.0f), 1.0f);
  const Vec3 mid{0.93f, 0.93f, 0.93f};
  return t < 0.0f ? mid + (Vec3{0.23f, 0.30f, 0.75f} - mid) * (-t) : mid + (Vec3{0.71f, 0.02f, 0.15f} - mid) * t;
}

// The opacity a solid cell stands for in the sun's shadow (per unit of extinction): an
// obstacle shades the smoke below it as very dense smoke would.
constexpr float kGasSolidShadowDensity = 1000.0f;

// The sun's optical depth at the cells of layer j (the k-th column (i, k) of it): the
// optical depth one cell toward the sun (interpolated in layer j + 1, which the previous
// call filled) plus the path through the two half cells between. The top layer sees the
// sky. `tau` holds one float per cell.
TP_HD TP_INLINE void gas_sun_layer(const GasGrid& g, const unsigned char* solid, const float* rho,
                                   const GasShade& shade, int j, uint column, float* tau) {
  const int i = int(column % uint(g.n.x)), k = int(column / uint(g.n.x));
  const uint c = g.cell(i, j, k);
  const float sy = maxf(shade.sun.y, 1e-3f);
  const float path = g.dx * sqrtf(dot(shade.sun, shade.sun)) / sy;  // [m] per layer
  const float here = solid[c] ? kGasSolidShadowDensity : maxf(rho[c], 0.0f);
  if (j == g.n.y - 1) {
    tau[c] = 0.5f * path * shade.extinction * here;
    return;
  }
  // One layer up, the sun's ray is shade.sun.x / sy cells along x (and z in 3D).
  const Vec3 p{float(i) + shade.sun.x / sy, float(j + 1), g.n.z > 1 ? float(k) + shade.sun.z / sy : 0.0f};
  const bool inside = p.x >= -0.5f && p.x <= float(g.n.x) - 0.5f && p.z >= -0.5f && p.z <= float(g.n.z) - 0.5f;
  if (!inside) {  // the ray leaves through a side: lit from there
    tau[c] = 0.5f * path * shade.extinction * here;
    return;
  }
  // Layer j + 1's optical depth and density at p (bilinear in x, z).
  const float* up_tau = tau + size_t(g.n.x) * size_t(j + 1);
  const Int3 d{g.n.x, 1, g.n.z};
  const int row = g.n.x * g.n.y;  // one z-step in the cell layout
  // gas_sample over a (n.x, 1, n.z) field whose z stride is row: sample x, z by hand.
  const float px = minf(maxf(p.x, 0.0f), float(d.x - 1)), pz = minf(maxf(p.z, 0.0f), float(d.z - 1));
  const int i0 = mini(int(px), maxi(d.x - 2, 0)), k0 = mini(int(pz), maxi(d.z - 2, 0));
  const int i1 = d.x > 1 ? i0 + 1 : i0, k1 = d.z > 1 ? k0 + 1 : k0;
  const float tx = px - float(i0), tz = pz - float(k0);
  auto lerp2 = [&](const float* f, float solid_value) {
    const uint a = uint(i0 + row * k0), b = uint(i1 + row * k0), e = uint(i0 + row * k1), h = uint(i1 + row * k1);
    float va = f[a], vb = f[b], ve = f[e], vh = f[h];
    if (solid_value >= 0.0f) {
      const unsigned char* s = solid + size_t(g.n.x) * size_t(j + 1);
      va = s[a] ? solid_value : maxf(va, 0.0f), vb = s[b] ? solid_value : maxf(vb, 0.0f);
      ve = s[e] ? solid_value : maxf(ve, 0.0f), vh = s[h] ? solid_value : maxf(vh, 0.0f);
    }
    const float x0 = va + (vb - va) * tx, x1 = ve + (vh - ve) * tx;
    return x0 + (x1 - x0) * tz;
  };
  const float above = lerp2(up_tau, -1.0f);
  const float dense = lerp2(rho + size_t(g.n.x) * size_t(j + 1), kGasSolidShadowDensity);
  tau[c] = above + 0.5f * path * shade.extinction * (here + dense);
}

constexpr float kGasDyeFloor = 0.02f;  ///< density below which the dye fades to white

// The texel of cell c: rgb the light it sends toward the eye per unit of opacity, a the
// density (-1 in a solid cell: the renderer's rays stop there). `cv` holds the cells'
// velocities (w unused) and `om` their vorticity (xyz; the views need them), `tau` the
// sun's optical depth (gas_sun_layer; in 2D unused: the plane is lit evenly).
TP_HD TP_INLINE Vec4 gas_shade_cell(const GasGrid& g, const unsigned char* solid, const float* scalars,
                                    const Vec4* cv, const Vec4* om, const float* tau, const GasShade& shade, uint c) {
  if (solid[c]) return Vec4{0, 0, 0, -1.0f};
  const uint n = g.cells();
  const float rho = maxf(scalars[size_t(kGasDensity) * n + c], 0.0f);
  const float range = shade.view_range > 1e-6f ? shade.view_range : 1e-6f;
  // The views: opaque in the plane; in a volume as dense as the value is high (2 t^2 for t
  // its share of the range), so that the fast or spinning core shows through the still gas.
  const auto view_density = [&](float t) {
    t = minf(maxf(t, 0.0f), 1.0f);
    return g.n.z == 1 ? 1000.0f : 2.0f * t * t;
  };
  if (shade.view == kGasViewSpeed) {
    const float t = length(xyz(cv[c])) / range;
    return make_vec4(gas_sequential(t), view_density(t));
  }
  if (shade.view == kGasViewVorticity) {
    const Vec3 w = xyz(om[c]);
    const float t = (g.n.z == 1 ? fabsf(w.z) : length(w)) / range;
    return make_vec4(g.n.z == 1 ? gas_diverging(w.z / range) : gas_sequential(t), view_density(t));
  }
  // The dye's colour: the carried dye over the density, toward white where there is little
  // of either (kGasDyeFloor): in the thin fringes the two fields' interpolation errors would
  // otherwise divide into saturated specks.
  const Vec3 dye{scalars[size_t(kGasRed) * n + c], scalars[size_t(kGasGreen) * n + c],
                 scalars[size_t(kGasBlue) * n + c]};
  Vec3 color = (dye + Vec3{kGasDyeFloor, kGasDyeFloor, kGasDyeFloor}) * (1.0f / (rho + kGasDyeFloor));
  color = Vec3{minf(maxf(color.x, 0.0f), 1.0f), minf(maxf(color.y, 0.0f), 1.0f), minf(maxf(color.z, 0.0f), 1.0f)};
  const float light = g.n.z == 1 ? 1.0f : shade.ambient + shade.sun_light * expf(-tau[c]);
  return make_vec4(color * light, rho);
}

}  // namespace tp
