// The 8-lane types of kernels/lanes.h for the CPU backend built with AVX2 and FMA but not
// AVX-512 (-march=native on such a machine, e.g. AMD Zen 2 and 3, Intel since Haswell):
// F8 (8 floats), M8 (a mask: all bits set in the lanes where it holds), Lanes8 (8
// consecutive particles), Index8 (8 neighbour indices), with the operations
// kernels/lanes_simd.h builds on. AVX2 has no mask registers: a lane that does not exist
// or is not listed is one whose integer mask is 0; loads and stores take that mask only in
// a partial block (masked ones are slow), and list loads AND their result with it.
// Included by lanes.h only where __AVX2__ and __FMA__ are defined, __AVX512F__ is not, and
// nvcc is not compiling.
#pragma once

#include <immintrin.h>

#include "lanes_simd.h"

namespace tp {

struct M8 {
  __m256 m;
};

struct F8 {
  static constexpr int kWidth = 8;
  __m256 v;
  F8() = default;
  F8(float s) : v(_mm256_set1_ps(s)) {}  // NOLINT: a float is 8 equal lanes
  explicit F8(__m256 x) : v(x) {}
};
template <>
struct IsLaneReal<F8> : std::true_type {};

TP_INLINE F8 operator+(F8 a, F8 b) { return F8(_mm256_add_ps(a.v, b.v)); }
TP_INLINE F8 operator-(F8 a, F8 b) { return F8(_mm256_sub_ps(a.v, b.v)); }
TP_INLINE F8 operator*(F8 a, F8 b) { return F8(_mm256_mul_ps(a.v, b.v)); }
TP_INLINE F8 operator/(F8 a, F8 b) { return F8(_mm256_div_ps(a.v, b.v)); }

TP_INLINE M8 operator<(F8 a, F8 b) { return M8{_mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ)}; }
TP_INLINE M8 operator>(F8 a, F8 b) { return M8{_mm256_cmp_ps(a.v, b.v, _CMP_GT_OQ)}; }
TP_INLINE M8 operator<=(F8 a, F8 b) { return M8{_mm256_cmp_ps(a.v, b.v, _CMP_LE_OQ)}; }
TP_INLINE M8 operator>=(F8 a, F8 b) { return M8{_mm256_cmp_ps(a.v, b.v, _CMP_GE_OQ)}; }

TP_INLINE F8 select(M8 c, F8 a, F8 b) { return F8(_mm256_blendv_ps(b.v, a.v, c.m)); }
// maxf/minf of common.h lane by lane, with their NaN rule (a NaN b gives a).
TP_INLINE F8 maxf(F8 a, F8 b) {
  const __m256 m = _mm256_max_ps(a.v, b.v);  // b where unordered
  return F8(_mm256_blendv_ps(m, a.v, _mm256_cmp_ps(b.v, b.v, _CMP_UNORD_Q)));
}
TP_INLINE F8 minf(F8 a, F8 b) {
  const __m256 m = _mm256_min_ps(a.v, b.v);
  return F8(_mm256_blendv_ps(m, a.v, _mm256_cmp_ps(b.v, b.v, _CMP_UNORD_Q)));
}
// With a constant b (never NaN), max_ps alone has maxf's rule.
TP_INLINE F8 maxf(F8 a, float b) { return F8(_mm256_max_ps(a.v, _mm256_set1_ps(b))); }
TP_INLINE F8 minf(F8 a, float b) { return F8(_mm256_min_ps(a.v, _mm256_set1_ps(b))); }
TP_INLINE F8 sqrt_lanes(F8 a) { return F8(_mm256_sqrt_ps(a.v)); }
TP_INLINE void to_floats(F8 a, float* t) { _mm256_storeu_ps(t, a.v); }
TP_INLINE F8 from_floats(const float* t, F8) { return F8(_mm256_loadu_ps(t)); }

using Vec3x8 = Vec3L<F8>;

// 8 consecutive particles from base (a multiple of 8), of which the first `live` exist
// (the last block of n particles may be partial).
struct Lanes8 {
  uint base;
  uint live;
};
// 8 indices into a particle or sample array.
struct Index8 {
  __m256i v;
};

template <>
struct LaneTypes<Lanes8> {
  using Real = F8;
  using Vec = Vec3x8;
  using Index = Index8;
};

TP_INLINE __m256i lane_iota8() { return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); }
// All bits set in the lanes of the particles that exist.
TP_INLINE __m256i live_mask(Lanes8 i) { return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(i.live)), lane_iota8()); }
// The particles' own indices; lanes past the last particle get 0.
TP_INLINE Index8 indices(Lanes8 i) {
  return Index8{_mm256_and_si256(live_mask(i), _mm256_add_epi32(lane_iota8(), _mm256_set1_epi32(int(i.base))))};
}

// Masked loads and stores cost several times a plain one on AMD Zen 3 (a masked load of
// the list indices took a quarter of a loop's time): only a partial block (the last)
// takes them.
TP_INLINE Index8 load_index(const uint* a, Lanes8 i) {
  const int* p = reinterpret_cast<const int*>(a + i.base);
  return Index8{i.live == 8 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)) : _mm256_maskload_epi32(p, live_mask(i))};
}
TP_INLINE bool keep_lanes_below(Lanes8* i, uint n) {
  const uint left = n > i->base ? n - i->base : 0u;
  i->live = i->live < left ? i->live : left;
  return i->live > 0u;
}
TP_INLINE F8 load(const float* a, Lanes8 i) {
  return F8(i.live == 8 ? _mm256_loadu_ps(a + i.base) : _mm256_maskload_ps(a + i.base, live_mask(i)));
}
TP_INLINE F8 load(const float* a, Index8 j) { return F8(_mm256_i32gather_ps(a, j.v, 4)); }
TP_INLINE F8 load_w(const Vec4* a, Index8 j) {
  return F8(_mm256_i32gather_ps(&a[0].w, _mm256_slli_epi32(j.v, 2), 4));
}

// x, y, z and w of 8 Vec4s: each a 16-byte load into a half of a register, then a 4x4
// transpose within each half (as the 16-lane load_xyzw).
TP_INLINE XyzW<Vec3x8, F8> load_xyzw(const Vec4* a, Index8 j) {
  alignas(32) uint k[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(k), j.v);
  __m256 r[4];
  for (int q = 0; q < 4; ++q)  // r[q], half L: a[k[4L + q]]
    r[q] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(&a[k[q]].x)), _mm_load_ps(&a[k[4 + q]].x), 1);
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpacklo_ps(r[2], r[3]);
  const __m256 t2 = _mm256_unpackhi_ps(r[0], r[1]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  return {{F8(_mm256_shuffle_ps(t0, t1, 0x44)), F8(_mm256_shuffle_ps(t0, t1, 0xEE)),
           F8(_mm256_shuffle_ps(t2, t3, 0x44))},
          F8(_mm256_shuffle_ps(t2, t3, 0xEE))};
}
TP_INLINE Vec3x8 load_xyz(const Vec4* a, Index8 j) { return load_xyzw(a, j).xyz; }

TP_INLINE void store(float* a, Lanes8 i, F8 v) {
  if (i.live == 8) _mm256_storeu_ps(a + i.base, v.v);
  else _mm256_maskstore_ps(a + i.base, live_mask(i), v.v);
}
// The transpose of load_xyzw, two particles to a register.
TP_INLINE void store_xyzw(Vec4* a, Lanes8 i, const Vec3x8& v, F8 w8) {
  const __m256 w = w8.v;
  const __m256 t0 = _mm256_unpacklo_ps(v.x.v, v.y.v), t1 = _mm256_unpacklo_ps(v.z.v, w);
  const __m256 t2 = _mm256_unpackhi_ps(v.x.v, v.y.v), t3 = _mm256_unpackhi_ps(v.z.v, w);
  // u[q], half L: particle 4L + q
  const __m256 u0 = _mm256_shuffle_ps(t0, t1, 0x44), u1 = _mm256_shuffle_ps(t0, t1, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t2, t3, 0x44), u3 = _mm256_shuffle_ps(t2, t3, 0xEE);
  const __m256 out[4] = {_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u2, u3, 0x20),
                         _mm256_permute2f128_ps(u0, u1, 0x31), _mm256_permute2f128_ps(u2, u3, 0x31)};
  float* p = &a[i.base].x;
  if (i.live == 8) {
    for (int g = 0; g < 4; ++g) _mm256_storeu_ps(p + 8 * g, out[g]);
    return;
  }
  const __m256i half = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
  for (int g = 0; 2 * g < int(i.live); ++g)  // register g: particles 2g and 2g + 1
    _mm256_maskstore_ps(p + 8 * g, _mm256_cmpgt_epi32(_mm256_set1_epi32(int(i.live) - 2 * g), half), out[g]);
}

// The list cursor of for_each_listed (kernels/lanes_simd.h): masks are integer lanes.
struct Counts8 {  // the lanes' list lengths
  __m256i v;
};
struct Listed8 {
  __m256i m;
};
TP_INLINE Counts8 listed_counts(const uint* count, Lanes8 i) {
  const int* c = reinterpret_cast<const int*>(count + i.base);
  return Counts8{i.live == 8 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c)) : _mm256_maskload_epi32(c, live_mask(i))};
}
TP_INLINE uint longest_count(Counts8 counts) {
  const __m256i count = counts.v;
  __m256i m = _mm256_max_epu32(count, _mm256_permute2x128_si256(count, count, 1));
  m = _mm256_max_epu32(m, _mm256_shuffle_epi32(m, 0x4E));
  m = _mm256_max_epu32(m, _mm256_shuffle_epi32(m, 0xB1));
  return uint(_mm256_cvtsi256_si32(m));
}
// (Counts are far below 2^31: the signed comparison serves.)
TP_INLINE Listed8 lanes_listed(uint k, Counts8 count) {
  return Listed8{_mm256_cmpgt_epi32(count.v, _mm256_set1_epi32(int(k)))};
}
// Neighbour k's slot exists for every lane (k is below the longest count, which the
// capacity bounds): a plain load, and the lanes not listed set to 0.
TP_INLINE Index8 load_listed(const uint* p, Listed8 listed) {
  return Index8{_mm256_and_si256(listed.m, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)))};
}
TP_INLINE M8 listed_within(Listed8 listed, F8 r2, F8 h2) {
  return M8{_mm256_and_ps(_mm256_castsi256_ps(listed.m), _mm256_cmp_ps(r2.v, h2.v, _CMP_LT_OQ))};
}

// Of a block of candidates (lanes of a cell row), the ones that exist and lie within h
// (r2 < h2); whether any lane holds.
TP_INLINE M8 lanes_within(Lanes8 i, F8 r2, F8 h2) {
  return M8{_mm256_and_ps(_mm256_castsi256_ps(live_mask(i)), _mm256_cmp_ps(r2.v, h2.v, _CMP_LT_OQ))};
}
// sqrt as a times its reciprocal square root, refined by one Newton step (about 22 bits
// from rsqrt's 12; 0 at 0): see lanes_avx512.h.
TP_INLINE F8 sqrt_approx_lanes(F8 a) {
  const __m256 positive = _mm256_cmp_ps(a.v, _mm256_setzero_ps(), _CMP_GT_OQ);
  const __m256 y = _mm256_rsqrt_ps(a.v);
  const __m256 half_a = _mm256_mul_ps(a.v, _mm256_set1_ps(0.5f));
  const __m256 refined = _mm256_mul_ps(y, _mm256_fnmadd_ps(half_a, _mm256_mul_ps(y, y), _mm256_set1_ps(1.5f)));
  return F8(_mm256_and_ps(positive, _mm256_mul_ps(a.v, refined)));
}
TP_INLINE M8 operator&(M8 a, M8 b) { return M8{_mm256_and_ps(a.m, b.m)}; }
TP_INLINE bool any_lane(M8 m) { return _mm256_movemask_ps(m.m) != 0; }
// The sum of the 8 lanes.
TP_INLINE float sum_lanes(F8 a) {
  const __m128 q = _mm_add_ps(_mm256_castps256_ps128(a.v), _mm256_extractf128_ps(a.v, 1));
  const __m128 d = _mm_add_ps(q, _mm_movehl_ps(q, q));
  return _mm_cvtss_f32(_mm_add_ss(d, _mm_movehdup_ps(d)));
}

}  // namespace tp
