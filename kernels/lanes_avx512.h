// The 16-lane types of kernels/lanes.h for the CPU backend built with AVX-512
// (-march=native on a machine that has it): F16 (16 floats), M16 (a mask), Vec3x16,
// Lanes16 (16 consecutive particles) and Index16 (16 neighbour indices), with the
// operations kernel bodies use, and the 16-lane loop over the neighbour lists.
// Included by lanes.h only where __AVX512F__ is defined and nvcc is not compiling.
#pragma once

// GCC 12's AVX-512 intrinsics pass _mm512_undefined_*() to their builtins, which
// -Wuninitialized then reports at every use (GCC bug 105593, fixed in GCC 13).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include "neighbor_list.h"

namespace tp {

struct M16 {
  __mmask16 m;
};

struct F16 {
  __m512 v;
  F16() = default;
  F16(float s) : v(_mm512_set1_ps(s)) {}  // NOLINT: a float is 16 equal lanes
  explicit F16(__m512 x) : v(x) {}
};

TP_INLINE F16 operator+(F16 a, F16 b) { return F16(_mm512_add_ps(a.v, b.v)); }
TP_INLINE F16 operator-(F16 a, F16 b) { return F16(_mm512_sub_ps(a.v, b.v)); }
TP_INLINE F16 operator*(F16 a, F16 b) { return F16(_mm512_mul_ps(a.v, b.v)); }
TP_INLINE F16 operator/(F16 a, F16 b) { return F16(_mm512_div_ps(a.v, b.v)); }
TP_INLINE F16 operator+(F16 a, float b) { return a + F16(b); }
TP_INLINE F16 operator-(F16 a, float b) { return a - F16(b); }
TP_INLINE F16 operator*(F16 a, float b) { return a * F16(b); }
TP_INLINE F16 operator/(F16 a, float b) { return a / F16(b); }
TP_INLINE F16 operator+(float a, F16 b) { return F16(a) + b; }
TP_INLINE F16 operator-(float a, F16 b) { return F16(a) - b; }
TP_INLINE F16 operator*(float a, F16 b) { return F16(a) * b; }
TP_INLINE F16 operator/(float a, F16 b) { return F16(a) / b; }
TP_INLINE F16 operator-(F16 a) { return F16(_mm512_sub_ps(_mm512_setzero_ps(), a.v)); }
TP_INLINE F16& operator+=(F16& a, F16 b) { return a = a + b; }
TP_INLINE F16& operator-=(F16& a, F16 b) { return a = a - b; }
TP_INLINE F16& operator*=(F16& a, F16 b) { return a = a * b; }

TP_INLINE M16 operator<(F16 a, F16 b) { return M16{_mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ)}; }
TP_INLINE M16 operator>(F16 a, F16 b) { return M16{_mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ)}; }
TP_INLINE M16 operator<=(F16 a, F16 b) { return M16{_mm512_cmp_ps_mask(a.v, b.v, _CMP_LE_OQ)}; }
TP_INLINE M16 operator>=(F16 a, F16 b) { return M16{_mm512_cmp_ps_mask(a.v, b.v, _CMP_GE_OQ)}; }
TP_INLINE M16 operator<(F16 a, float b) { return a < F16(b); }
TP_INLINE M16 operator>(F16 a, float b) { return a > F16(b); }
TP_INLINE M16 operator<=(F16 a, float b) { return a <= F16(b); }
TP_INLINE M16 operator>=(F16 a, float b) { return a >= F16(b); }

TP_INLINE F16 select(M16 c, F16 a, F16 b) { return F16(_mm512_mask_blend_ps(c.m, b.v, a.v)); }
// maxf/minf of common.h lane by lane, with their NaN rule (a NaN b gives a).
TP_INLINE F16 maxf(F16 a, F16 b) {
  const __m512 m = _mm512_max_ps(a.v, b.v);  // b where unordered
  return F16(_mm512_mask_blend_ps(_mm512_cmp_ps_mask(b.v, b.v, _CMP_UNORD_Q), m, a.v));
}
TP_INLINE F16 minf(F16 a, F16 b) {
  const __m512 m = _mm512_min_ps(a.v, b.v);
  return F16(_mm512_mask_blend_ps(_mm512_cmp_ps_mask(b.v, b.v, _CMP_UNORD_Q), m, a.v));
}
// With a constant b (never NaN), max_ps alone has maxf's rule.
TP_INLINE F16 maxf(F16 a, float b) { return F16(_mm512_max_ps(a.v, _mm512_set1_ps(b))); }
TP_INLINE F16 minf(F16 a, float b) { return F16(_mm512_min_ps(a.v, _mm512_set1_ps(b))); }
TP_INLINE F16 sqrt_lanes(F16 a) { return F16(_mm512_sqrt_ps(a.v)); }
// powf lane by lane (a rare path: kernels take the common exponents without it).
inline F16 pow_lanes(F16 a, float e) {
  alignas(64) float t[16];
  _mm512_store_ps(t, a.v);
  for (float& x : t) x = powf(x, e);
  return F16(_mm512_load_ps(t));
}

struct Vec3x16 {
  F16 x, y, z;
};

TP_INLINE Vec3x16 operator+(const Vec3x16& a, const Vec3x16& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
TP_INLINE Vec3x16 operator-(const Vec3x16& a, const Vec3x16& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
TP_INLINE Vec3x16 operator-(const Vec3x16& a) { return {-a.x, -a.y, -a.z}; }
TP_INLINE Vec3x16 operator*(const Vec3x16& a, F16 s) { return {a.x * s, a.y * s, a.z * s}; }
TP_INLINE Vec3x16 operator*(F16 s, const Vec3x16& a) { return a * s; }
TP_INLINE Vec3x16 operator*(const Vec3x16& a, float s) { return a * F16(s); }
TP_INLINE Vec3x16 operator/(const Vec3x16& a, F16 s) { return a * (1.0f / s); }
TP_INLINE Vec3x16& operator+=(Vec3x16& a, const Vec3x16& b) { return a = a + b; }
TP_INLINE Vec3x16& operator-=(Vec3x16& a, const Vec3x16& b) { return a = a - b; }
TP_INLINE F16 dot(const Vec3x16& a, const Vec3x16& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
TP_INLINE Vec3x16 cross(const Vec3x16& a, const Vec3x16& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
TP_INLINE F16 length(const Vec3x16& a) { return sqrt_lanes(dot(a, a)); }
TP_INLINE Vec3x16 select(M16 c, const Vec3x16& a, const Vec3x16& b) {
  return {select(c, a.x, b.x), select(c, a.y, b.y), select(c, a.z, b.z)};
}

// 16 consecutive particles, base to base + 15; `live` has a bit for each that exists (the
// last block of n particles may be partial). base is a multiple of 16.
struct Lanes16 {
  uint base;
  __mmask16 live;
};
// 16 indices into a particle or sample array.
struct Index16 {
  __m512i v;
};

template <>
struct LaneTypes<Lanes16> {
  using Real = F16;
  using Vec = Vec3x16;
  using Index = Index16;
};

TP_INLINE __m512i lane_iota() { return _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }
// The particles' own indices; lanes past the last particle repeat the block's first.
TP_INLINE Index16 indices(Lanes16 i) {
  return Index16{_mm512_maskz_add_epi32(i.live, lane_iota(), _mm512_set1_epi32(int(i.base)))};
}

TP_INLINE F16 load(const float* a, Lanes16 i) { return F16(_mm512_maskz_loadu_ps(i.live, a + i.base)); }
TP_INLINE F16 load(const float* a, Index16 j) { return F16(_mm512_i32gather_ps(j.v, a, 4)); }
TP_INLINE F16 load_w(const Vec4* a, Index16 j) {
  return F16(_mm512_i32gather_ps(_mm512_slli_epi32(j.v, 2), &a[0].w, 4));
}
TP_INLINE F16 load_w(const Vec4* a, Lanes16 i) { return load_w(a, indices(i)); }

// x, y and z of 16 Vec4s: each a 16-byte load into a quarter of a register, then a 4x4
// transpose within each quarter. Cheaper than three gathers on the AVX-512 machines we
// have (AMD Zen 4).
TP_INLINE Vec3x16 load_xyz(const Vec4* a, Index16 j) {
  alignas(64) uint k[16];
  _mm512_store_si512(k, j.v);
  __m512 r[4];
  for (int q = 0; q < 4; ++q) {  // r[q], quarter L: a[k[4L + q]]
    __m512 v = _mm512_castps128_ps512(_mm_load_ps(&a[k[q]].x));
    v = _mm512_insertf32x4(v, _mm_load_ps(&a[k[4 + q]].x), 1);
    v = _mm512_insertf32x4(v, _mm_load_ps(&a[k[8 + q]].x), 2);
    r[q] = _mm512_insertf32x4(v, _mm_load_ps(&a[k[12 + q]].x), 3);
  }
  const __m512 t0 = _mm512_unpacklo_ps(r[0], r[1]), t1 = _mm512_unpacklo_ps(r[2], r[3]);
  const __m512 t2 = _mm512_unpackhi_ps(r[0], r[1]), t3 = _mm512_unpackhi_ps(r[2], r[3]);
  return {F16(_mm512_shuffle_ps(t0, t1, 0x44)), F16(_mm512_shuffle_ps(t0, t1, 0xEE)),
          F16(_mm512_shuffle_ps(t2, t3, 0x44))};
}
TP_INLINE Vec3x16 load_xyz(const Vec4* a, Lanes16 i) { return load_xyz(a, indices(i)); }

TP_INLINE void store(float* a, Lanes16 i, F16 v) { _mm512_mask_storeu_ps(a + i.base, i.live, v.v); }
// The transpose of load_xyz, four particles to a register.
TP_INLINE void store_xyzw(Vec4* a, Lanes16 i, const Vec3x16& v, F16 w4) {
  const __m512 w = w4.v;
  const __m512 t0 = _mm512_unpacklo_ps(v.x.v, v.y.v), t1 = _mm512_unpacklo_ps(v.z.v, w);
  const __m512 t2 = _mm512_unpackhi_ps(v.x.v, v.y.v), t3 = _mm512_unpackhi_ps(v.z.v, w);
  // u[q], quarter L: particle 4L + q
  const __m512 u0 = _mm512_shuffle_ps(t0, t1, 0x44), u1 = _mm512_shuffle_ps(t0, t1, 0xEE);
  const __m512 u2 = _mm512_shuffle_ps(t2, t3, 0x44), u3 = _mm512_shuffle_ps(t2, t3, 0xEE);
  const __m512 p = _mm512_shuffle_f32x4(u0, u1, 0x44), q = _mm512_shuffle_f32x4(u2, u3, 0x44);
  const __m512 r = _mm512_shuffle_f32x4(u0, u1, 0xEE), s = _mm512_shuffle_f32x4(u2, u3, 0xEE);
  const __m512 out[4] = {_mm512_shuffle_f32x4(p, q, 0x88), _mm512_shuffle_f32x4(p, q, 0xDD),
                         _mm512_shuffle_f32x4(r, s, 0x88), _mm512_shuffle_f32x4(r, s, 0xDD)};
  const uint live = _cvtmask16_u32(i.live);
  for (int g = 0; g < 4; ++g) {  // register g: particles 4g to 4g + 3, four floats each
    const uint bits = (live >> (4 * g)) & 0xFu;
    uint mask = 0;
    for (int p4 = 0; p4 < 4; ++p4) mask |= ((bits >> p4) & 1u) ? (0xFu << (4 * p4)) : 0u;
    if (mask) _mm512_mask_storeu_ps(&a[i.base + 4 * g].x, _cvtu32_mask16(mask), out[g]);
  }
}
// Writes xyz with w = 0.
TP_INLINE void store_xyz(Vec4* a, Lanes16 i, const Vec3x16& v) { store_xyzw(a, i, v, F16(0.0f)); }

// for_each_listed (kernels/neighbor_list.h) for 16 particles: f(j, x_ij, r) with 16
// neighbours at a time, the k-th of each particle's list (the lists are interleaved in
// blocks of 16: one load). Lanes past a particle's list, or whose neighbour is beyond h,
// get j = 0, x_ij = 0 and r = 2h (see lanes.h).
template <class F>
TP_INLINE void for_each_listed(const NeighborList& l, Lanes16 i, const Vec4* positions,
                               const Vec3x16& xi, float h, F&& f) {
  const __m512i count = _mm512_maskz_loadu_epi32(i.live, l.count + i.base);
  const uint longest = _mm512_reduce_max_epu32(count);
  const uint* p = l.index + list_slot(i.base, 0, l.slots, l.shift);
  const F16 h2(h * h), far(2.0f * h), zero(0.0f);
  for (uint k = 0; k < longest; ++k) {
    const __mmask16 listed = _mm512_cmplt_epu32_mask(_mm512_set1_epi32(int(k)), count);
    const Index16 j{_mm512_maskz_loadu_epi32(listed, p + size_t(k) * 16)};
    const Vec3x16 xj = load_xyz(positions, j);
    Vec3x16 xij = xi - xj;
    const F16 r2 = dot(xij, xij);
    const M16 in{_mm512_mask_cmp_ps_mask(listed, r2.v, h2.v, _CMP_LT_OQ)};
    xij = select(in, xij, Vec3x16{zero, zero, zero});
    f(j, xij, select(in, sqrt_lanes(r2), far));
  }
}

}  // namespace tp
