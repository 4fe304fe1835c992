// What the CPU's lane types (kernels/lanes_avx512.h: 16 floats, kernels/lanes_avx2.h: 8)
// share, written once on top of the few operations each instruction set defines:
//   F (a number per lane): + - * / and the comparisons (giving its mask type), select,
//     maxf, minf, sqrt_lanes, and to_floats / from_floats (an array of kWidth floats;
//     from_floats takes an F only for its type);
//   L (consecutive particles: base, and which lanes exist): indices(L), load and store of
//     floats, store_xyzw, listed_counts (the list lengths, 0 for lanes that do not exist);
//   the index type: load and load_w (gathers), and load_xyzw (x, y, z and w at once) by
//     16-byte loads and a transpose;
//   the list cursor: longest_count, lanes_listed(k, counts), load_listed (neighbour k of
//     each lane, 0 where there is none) and listed_within (listed and closer than h).
// (Every such operation takes one of the header's own types, which is how this file's
// templates find them.)
// Each header declares its types to LaneTypes (kernels/lanes.h) and to IsLaneReal.
#pragma once

#include <type_traits>

#include "neighbor_list.h"

namespace tp {

template <class F>
struct IsLaneReal : std::false_type {};
template <class F>
using LaneRealOnly = std::enable_if_t<IsLaneReal<F>::value>;

// A number and a float: the float in every lane.
template <class F, class = LaneRealOnly<F>>
TP_INLINE F operator+(F a, float b) { return a + F(b); }
template <class F, class = LaneRealOnly<F>>
TP_INLINE F operator-(F a, float b) { return a - F(b); }
template <class F, class = LaneRealOnly<F>>
TP_INLINE F operator*(F a, float b) { return a * F(b); }
template <class F, class = LaneRealOnly<F>>
TP_INLINE F operator/(F a, float b) { return a / F(b); }
template <class F, class = LaneRealOnly<F>>
TP_INLINE F operator+(float a, F b) { return F(a) + b; }
template <class F, class = LaneRealOnly<F>>
TP_INLINE F operator-(float a, F b) { return F(a) - b; }
template <class F, class = LaneRealOnly<F>>
TP_INLINE F operator*(float a, F b) { return F(a) * b; }
template <class F, class = LaneRealOnly<F>>
TP_INLINE F operator/(float a, F b) { return F(a) / b; }
template <class F, class = LaneRealOnly<F>>
TP_INLINE F operator-(F a) { return F(0.0f) - a; }
template <class F, class = LaneRealOnly<F>>
TP_INLINE F& operator+=(F& a, F b) { return a = a + b; }
template <class F, class = LaneRealOnly<F>>
TP_INLINE F& operator-=(F& a, F b) { return a = a - b; }
template <class F, class = LaneRealOnly<F>>
TP_INLINE F& operator*=(F& a, F b) { return a = a * b; }
template <class F, class = LaneRealOnly<F>>
TP_INLINE auto operator<(F a, float b) { return a < F(b); }
template <class F, class = LaneRealOnly<F>>
TP_INLINE auto operator>(F a, float b) { return a > F(b); }
template <class F, class = LaneRealOnly<F>>
TP_INLINE auto operator<=(F a, float b) { return a <= F(b); }
template <class F, class = LaneRealOnly<F>>
TP_INLINE auto operator>=(F a, float b) { return a >= F(b); }

// powf lane by lane (a rare path: kernels take the common exponents without it).
template <class F, class = LaneRealOnly<F>>
inline F pow_lanes(F a, float e) {
  alignas(64) float t[F::kWidth];
  to_floats(a, t);
  for (float& x : t) x = powf(x, e);
  return from_floats(t, a);
}

// Three numbers per lane: x, y and z of one vector per particle.
template <class F>
struct Vec3L {
  F x, y, z;
};

template <class F>
TP_INLINE Vec3L<F> operator+(const Vec3L<F>& a, const Vec3L<F>& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
template <class F>
TP_INLINE Vec3L<F> operator-(const Vec3L<F>& a, const Vec3L<F>& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
template <class F>
TP_INLINE Vec3L<F> operator-(const Vec3L<F>& a) { return {-a.x, -a.y, -a.z}; }
template <class F>
TP_INLINE Vec3L<F> operator*(const Vec3L<F>& a, F s) { return {a.x * s, a.y * s, a.z * s}; }
template <class F>
TP_INLINE Vec3L<F> operator*(F s, const Vec3L<F>& a) { return a * s; }
template <class F>
TP_INLINE Vec3L<F> operator*(const Vec3L<F>& a, float s) { return a * F(s); }
template <class F>
TP_INLINE Vec3L<F> operator*(float s, const Vec3L<F>& a) { return a * F(s); }
template <class F>
TP_INLINE Vec3L<F> operator/(const Vec3L<F>& a, F s) { return a * (1.0f / s); }
template <class F>
TP_INLINE Vec3L<F> operator/(const Vec3L<F>& a, float s) { return a * F(1.0f / s); }
template <class F>
TP_INLINE Vec3L<F>& operator+=(Vec3L<F>& a, const Vec3L<F>& b) { return a = a + b; }
template <class F>
TP_INLINE Vec3L<F>& operator-=(Vec3L<F>& a, const Vec3L<F>& b) { return a = a - b; }
template <class F>
TP_INLINE F dot(const Vec3L<F>& a, const Vec3L<F>& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <class F>
TP_INLINE Vec3L<F> cross(const Vec3L<F>& a, const Vec3L<F>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class F>
TP_INLINE F length(const Vec3L<F>& a) { return sqrt_lanes(dot(a, a)); }
template <class M, class F>
TP_INLINE Vec3L<F> select(M c, const Vec3L<F>& a, const Vec3L<F>& b) {
  return {select(c, a.x, b.x), select(c, a.y, b.y), select(c, a.z, b.z)};
}

// Particle arrays read and written at the lanes' own particles.
template <class L, class = LaneRealOnly<RealOf<L>>>
TP_INLINE Vec3Of<L> load_xyz(const Vec4* a, L i) { return load_xyz(a, indices(i)); }
template <class L, class = LaneRealOnly<RealOf<L>>>
TP_INLINE RealOf<L> load_w(const Vec4* a, L i) { return load_w(a, indices(i)); }
template <class L, class = LaneRealOnly<RealOf<L>>>
TP_INLINE auto load_xyzw(const Vec4* a, L i) { return load_xyzw(a, indices(i)); }
// Writes xyz with w = 0.
template <class L, class = LaneRealOnly<RealOf<L>>>
TP_INLINE void store_xyz(Vec4* a, L i, const Vec3Of<L>& v) { store_xyzw(a, i, v, RealOf<L>(0.0f)); }

// for_each_listed_w and for_each_listed (kernels/neighbor_list.h) for a block of lanes:
// f(j, x_ij, r, w_j) or f(j, x_ij, r) with a neighbour per lane at a time, the k-th of each
// particle's list (the lists are interleaved in blocks of 16: one load for 16 lanes, half
// of one for 8). Lanes past a particle's list get j = 0 (particle 0's w), and those and the
// lanes whose neighbour is beyond h get x_ij = 0 and r = 2h (see lanes.h).
template <class L, class Fn, class = LaneRealOnly<RealOf<L>>>
TP_INLINE void for_each_listed_w(const NeighborList& l, L i, const Vec4* positions,
                                 const Vec3Of<L>& xi, float h, Fn&& f) {
  using R = RealOf<L>;
  const auto count = listed_counts(l.count, i);
  const uint longest = longest_count(count);
  const uint* p = l.index + list_slot(i.base, 0, l.slots, l.shift);
  const size_t stride = size_t(1) << l.shift;
  const R h2(h * h), far(2.0f * h), zero(0.0f);
  for (uint k = 0; k < longest; ++k) {
    const auto listed = lanes_listed(k, count);
    const IndexOf<L> j = load_listed(p + k * stride, listed);
    const auto pj = load_xyzw(positions, j);
    Vec3Of<L> xij = xi - pj.xyz;
    const R r2 = dot(xij, xij);
    const auto in = listed_within(listed, r2, h2);
    xij = select(in, xij, Vec3Of<L>{zero, zero, zero});
    f(j, xij, select(in, sqrt_lanes(r2), far), pj.w);
  }
}
template <class L, class Fn, class = LaneRealOnly<RealOf<L>>>
TP_INLINE void for_each_listed(const NeighborList& l, L i, const Vec4* positions,
                               const Vec3Of<L>& xi, float h, Fn&& f) {
  using R = RealOf<L>;
  for_each_listed_w(l, i, positions, xi, h,
                    [&](IndexOf<L> j, const Vec3Of<L>& xij, R r, R) { f(j, xij, r); });
}

// listed_max (kernels/neighbor_list.h) for a block of lanes; value must not be negative.
template <class L, class = LaneRealOnly<RealOf<L>>>
TP_INLINE RealOf<L> listed_max(const NeighborList& l, L i, const float* value) {
  using R = RealOf<L>;
  const auto count = listed_counts(l.count, i);
  const uint longest = longest_count(count);
  const uint* p = l.index + list_slot(i.base, 0, l.slots, l.shift);
  const size_t stride = size_t(1) << l.shift;
  const R zero(0.0f), one(1.0f);
  R most = zero;
  for (uint k = 0; k < longest; ++k) {
    const auto listed = lanes_listed(k, count);
    // (listed_within of 0 < 1: the lanes whose list is that long.)
    most = maxf(most, select(listed_within(listed, zero, one), load(value, load_listed(p + k * stride, listed)), zero));
  }
  return most;
}

}  // namespace tp
