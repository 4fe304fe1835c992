// The dimension of a simulation as a compile-time parameter: everything in the per-particle
// physics that depends on it is a normalisation, collected here as Dimension<2> and
// Dimension<3>. The kernel bodies themselves are the same vector arithmetic in both: a 2D
// simulation keeps its particles, boundary samples and forces in the plane z = plane (the
// tank's middle), so every pair's x_ij has z = 0 and every force stays in the plane; the
// tank clamp holds z and v_z there against rounding and outside input (boundary.h).
// Drivers pick the specialisation once per reset (with_dimension below) and put its
// constants into StepConstants.
#pragma once

#include "common.h"

namespace tp {

template <int D>
struct Dimension;

template <>
struct Dimension<3> {
  static constexpr int value = 3;
  // Cubic spline W normalisation [Monaghan 1992]: 8 / (pi h^3) for support h.
  TP_HD static float cubic_norm(float h) { return 8.0f / (3.14159265f * h * h * h); }
  // Akinci et al. 2013's cohesion spline C, Eq. 3: 32 / (pi h^9).
  TP_HD static float cohesion_norm(float h) {
    const float h3 = h * h * h;
    return 32.0f / (3.14159265f * h3 * h3 * h3);
  }
  // Their adhesion spline A, Eq. 8: 0.007 / h^3.25.
  TP_HD static float adhesion_norm(float h) { return 0.007f / powf(h, 3.25f); }
  // Their curvature term as written: a plain sum over the neighbours (below).
  static constexpr float curvature_scale = 1.0f;
};

template <>
struct Dimension<2> {
  static constexpr int value = 2;
  // The 2D cubic spline [Monaghan 1992, Eq. 2.6 with sigma = 40 / (7 pi) for support h]:
  // the same polynomial, integrating to 1 over the plane.
  TP_HD static float cubic_norm(float h) { return 40.0f / (7.0f * 3.14159265f * h * h); }
  // Akinci's splines carry 3D normalisations and are not normalised to 1 (C integrates to
  // 0.235, A to 0.0158 over space), so there is no "same integral" to keep. What a user
  // sees of them is the pull on the water's surface: a particle at a flat free surface, with
  // a half-space of neighbours at density rho0, is pulled inwards by
  //   3D: rho0 N3 / h^9 * pi * Int_0^h f(r) r^2 dr      (the half sphere's mean cosine)
  //   2D: rho0 N2 / h^8 * 2  * Int_0^h f(r) r dr        (the half disc's)
  // for the spline's polynomial f. Equal pulls (the same gamma gives the same acceleration
  // at a flat surface in both): with Int f r^2 = 79/43008 h^9 and Int f r = 209/71680 h^8
  // (exact, the pieces being polynomials), N2 = 32 * (79/43008) / (2 * 209/71680)
  // = 6320/627 = 10.0797. tests/test_dimension.cpp integrates both numerically.
  TP_HD static float cohesion_norm(float h) {
    const float h2 = h * h, h4 = h2 * h2;
    return (6320.0f / 627.0f) / (h4 * h4);
  }
  // The same for the adhesion spline a(r) = (-4 r^2/h + 6 r - 2 h)^(1/4) against a flat wall
  // the particle touches: 0.007 pi Int a r^2 / (2 Int a r) = 0.0085085 for h = 1 (the
  // integrals numerical: 0.179338 and 0.231759), over h^2.25.
  TP_HD static float adhesion_norm(float h) { return 0.0085085f / powf(h, 2.25f); }
  // The curvature term -gamma sum_j K_ij (n_i - n_j) carries no mass or kernel weight: at a
  // surface it adds about n_i once per neighbour, so it grows with the neighbour count,
  // (4/3) pi (h/s)^3 = 33.5 in 3D against pi (h/s)^2 = 12.6 in 2D for h = 2 s, while |n_i| at a
  // flat surface is nearly the same in both (h Int_plane W = 1.40 in 3D, h Int_line W = 1.36
  // in 2D). Scaled by their ratio 8/3, the same gamma pulls as hard in 2D; without it, 2D
  // blocks in zero gravity stopped half-way to round (inertia ratio 4 -> 2.7-3.5 over 2 s,
  // cohesion holding them like a solid).
  static constexpr float curvature_scale = 8.0f / 3.0f;
};

// Calls f(Dimension<2>{}) or f(Dimension<3>{}) for a dimension known at run time (a
// scene's); anything but 2 is 3.
template <class F>
inline auto with_dimension(int dimensions, F&& f) {
  if (dimensions == 2) return f(Dimension<2>{});
  return f(Dimension<3>{});
}

}  // namespace tp
