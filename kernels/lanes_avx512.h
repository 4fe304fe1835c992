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

#include "lanes_simd.h"

namespace tp {

struct M16 {
  __mmask16 m;
};

struct F16 {
  static constexpr int kWidth = 16;
  __m512 v;
  F16() = default;
  F16(float s) : v(_mm512_set1_ps(s)) {}  // NOLINT: a float is 16 equal lanes
  explicit F16(__m512 x) : v(x) {}
};

TP_INLINE F16 operator+(F16 a, F16 b) { return F16(_mm512_add_ps(a.v, b.v)); }
TP_INLINE F16 operator-(F16 a, F16 b) { return F16(_mm512_sub_ps(a.v, b.v)); }
TP_INLINE F16 operator*(F16 a, F16 b) { return F16(_mm512_mul_ps(a.v, b.v)); }
TP_INLINE F16 operator/(F16 a, F16 b) { return F16(_mm512_div_ps(a.v, b.v)); }
TP_INLINE M16 operator<(F16 a, F16 b) { return M16{_mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ)}; }
TP_INLINE M16 operator>(F16 a, F16 b) { return M16{_mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ)}; }
TP_INLINE M16 operator<=(F16 a, F16 b) { return M16{_mm512_cmp_ps_mask(a.v, b.v, _CMP_LE_OQ)}; }
TP_INLINE M16 operator>=(F16 a, F16 b) { return M16{_mm512_cmp_ps_mask(a.v, b.v, _CMP_GE_OQ)}; }

template <>
struct IsLaneReal<F16> : std::true_type {};

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
TP_INLINE void to_floats(F16 a, float* t) { _mm512_storeu_ps(t, a.v); }
TP_INLINE F16 from_floats(const float* t, F16) { return F16(_mm512_loadu_ps(t)); }

using Vec3x16 = Vec3L<F16>;

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
// The particles' own indices; lanes past the last particle get 0.
TP_INLINE Index16 indices(Lanes16 i) {
  return Index16{_mm512_maskz_add_epi32(i.live, lane_iota(), _mm512_set1_epi32(int(i.base)))};
}

TP_INLINE Index16 load_index(const uint* a, Lanes16 i) { return Index16{_mm512_maskz_loadu_epi32(i.live, a + i.base)}; }
TP_INLINE bool keep_lanes_below(Lanes16* i, uint n) {
  const uint left = n > i->base ? n - i->base : 0u;
  i->live = _kand_mask16(i->live, _cvtu32_mask16(left >= 16u ? 0xFFFFu : (1u << left) - 1u));
  return _cvtmask16_u32(i->live) != 0u;
}
TP_INLINE F16 load(const float* a, Lanes16 i) { return F16(_mm512_maskz_loadu_ps(i.live, a + i.base)); }
TP_INLINE F16 load(const float* a, Index16 j) { return F16(_mm512_i32gather_ps(j.v, a, 4)); }
TP_INLINE F16 load_w(const Vec4* a, Index16 j) {
  return F16(_mm512_i32gather_ps(_mm512_slli_epi32(j.v, 2), &a[0].w, 4));
}

// x, y, z and w of 16 Vec4s: each a 16-byte load into a quarter of a register, then a
// 4x4 transpose within each quarter. Cheaper than three gathers on the AVX-512 machines we
// have (AMD Zen 4).
TP_INLINE XyzW<Vec3x16, F16> load_xyzw(const Vec4* a, Index16 j) {
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
  return {{F16(_mm512_shuffle_ps(t0, t1, 0x44)), F16(_mm512_shuffle_ps(t0, t1, 0xEE)),
           F16(_mm512_shuffle_ps(t2, t3, 0x44))},
          F16(_mm512_shuffle_ps(t2, t3, 0xEE))};
}
TP_INLINE Vec3x16 load_xyz(const Vec4* a, Index16 j) { return load_xyzw(a, j).xyz; }

TP_INLINE void store(float* a, Lanes16 i, F16 v) { _mm512_mask_storeu_ps(a + i.base, i.live, v.v); }
// The transpose of load_xyzw, four particles to a register.
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

// The list cursor of for_each_listed (kernels/lanes_simd.h).
struct Counts16 {  // the lanes' list lengths
  __m512i v;
};
struct Listed16 {
  __mmask16 m;
};
TP_INLINE Counts16 listed_counts(const uint* count, Lanes16 i) {
  return Counts16{_mm512_maskz_loadu_epi32(i.live, count + i.base)};
}
TP_INLINE uint longest_count(Counts16 count) { return _mm512_reduce_max_epu32(count.v); }
TP_INLINE Listed16 lanes_listed(uint k, Counts16 count) {
  return Listed16{_mm512_cmplt_epu32_mask(_mm512_set1_epi32(int(k)), count.v)};
}
TP_INLINE Index16 load_listed(const uint* p, Listed16 listed) { return Index16{_mm512_maskz_loadu_epi32(listed.m, p)}; }
TP_INLINE M16 listed_within(Listed16 listed, F16 r2, F16 h2) {
  return M16{_mm512_mask_cmp_ps_mask(listed.m, r2.v, h2.v, _CMP_LT_OQ)};
}

// Of a block of candidates (lanes of a cell row), the ones that exist and lie within h
// (r2 < h2); whether any lane holds.
TP_INLINE M16 lanes_within(Lanes16 i, F16 r2, F16 h2) {
  return M16{_mm512_mask_cmp_ps_mask(i.live, r2.v, h2.v, _CMP_LT_OQ)};
}
// sqrt as a times its reciprocal square root, refined by one Newton step (about 24 bits
// from rsqrt14's 14; 0 at 0): cheaper than sqrt_ps, which a loop of mostly arithmetic waits
// on. Near r = h a kernel's weight goes to zero, so rsqrt's bits alone put a neighbour
// there several per cent off.
TP_INLINE F16 sqrt_approx_lanes(F16 a) {
  const __m512 y = _mm512_rsqrt14_ps(a.v);
  const __m512 half_a = _mm512_mul_ps(a.v, _mm512_set1_ps(0.5f));
  const __m512 refined = _mm512_mul_ps(y, _mm512_fnmadd_ps(half_a, _mm512_mul_ps(y, y), _mm512_set1_ps(1.5f)));
  return F16(_mm512_maskz_mul_ps(_mm512_cmp_ps_mask(a.v, _mm512_setzero_ps(), _CMP_GT_OQ), a.v, refined));
}
TP_INLINE M16 operator&(M16 a, M16 b) { return M16{_kand_mask16(a.m, b.m)}; }
TP_INLINE bool any_lane(M16 m) { return _cvtmask16_u32(m.m) != 0; }
// The sum of the 16 lanes.
TP_INLINE float sum_lanes(F16 a) { return _mm512_reduce_add_ps(a.v); }

}  // namespace tp
