// Eight boxes along the world's axes, tested against a point or a box in one pass. Every
// particle asks at every step whether an object is near it (the list build's test of the
// obstacles' and bodies' boxes, kernels/particles.h near_objects) and whether a body may be
// (the clamp's and PBF's projection, kernels/rigid_body.h near_body_slots); with eight
// bodies the loops over the boxes cost 3 % of a PBF step (2026-12-04). So each coordinate
// of the eight is stored side by side and the CPU compares all eight in one pass of 8 AVX
// lanes; CUDA and builds without AVX loop over the same comparisons of the same numbers.
#pragma once

#if defined(__AVX__) && !defined(__CUDACC__)
#include <immintrin.h>
#endif
#include "common.h"

namespace tp {

struct Boxes8 {
  static constexpr int kCount = 8;
  int count;  ///< boxes [0, count) are set
  float lo_x[kCount], lo_y[kCount], lo_z[kCount];
  float hi_x[kCount], hi_y[kCount], hi_z[kCount];
};

// No boxes: every one empty (no point or box meets it), count 0.
TP_HD TP_INLINE void clear_boxes(Boxes8* b) {
  b->count = 0;
  for (int k = 0; k < Boxes8::kCount; ++k) {
    b->lo_x[k] = b->lo_y[k] = b->lo_z[k] = 1e30f;
    b->hi_x[k] = b->hi_y[k] = b->hi_z[k] = -1e30f;
  }
}

// Box k grown to hold [lo, hi] too (k < kCount); count grows to k + 1.
TP_HD TP_INLINE void grow_box(Boxes8* b, int k, Vec3 lo, Vec3 hi) {
  b->count = k + 1 > b->count ? k + 1 : b->count;
  b->lo_x[k] = fminf(b->lo_x[k], lo.x), b->lo_y[k] = fminf(b->lo_y[k], lo.y), b->lo_z[k] = fminf(b->lo_z[k], lo.z);
  b->hi_x[k] = fmaxf(b->hi_x[k], hi.x), b->hi_y[k] = fmaxf(b->hi_y[k], hi.y), b->hi_z[k] = fmaxf(b->hi_z[k], hi.z);
}

// Bit k for each box k of [0, count) that [lo, hi] meets, box k widened on every side by
// reach + speed[k] * dt (speed: nullptr for none), faces included.
TP_HD TP_INLINE uint boxes_met(const Boxes8& b, Vec3 lo, Vec3 hi, float reach, const float* speed = nullptr,
                               float dt = 0.0f) {
  const uint set = (1u << b.count) - 1u;  // (count <= kCount: grow_box's k is below it)
#if defined(__AVX__) && !defined(__CUDACC__)
  __m256 w = _mm256_set1_ps(reach);
  if (speed) w = _mm256_add_ps(w, _mm256_mul_ps(_mm256_loadu_ps(speed), _mm256_set1_ps(dt)));
  auto below = [&](float x, const float* box_lo) {  // x >= box_lo - w
    return _mm256_cmp_ps(_mm256_set1_ps(x), _mm256_sub_ps(_mm256_loadu_ps(box_lo), w), _CMP_GE_OQ);
  };
  auto above = [&](float x, const float* box_hi) {  // x <= box_hi + w
    return _mm256_cmp_ps(_mm256_set1_ps(x), _mm256_add_ps(_mm256_loadu_ps(box_hi), w), _CMP_LE_OQ);
  };
  const __m256 in = _mm256_and_ps(_mm256_and_ps(_mm256_and_ps(below(hi.x, b.lo_x), above(lo.x, b.hi_x)),
                                                _mm256_and_ps(below(hi.y, b.lo_y), above(lo.y, b.hi_y))),
                                  _mm256_and_ps(below(hi.z, b.lo_z), above(lo.z, b.hi_z)));
  return uint(_mm256_movemask_ps(in)) & set;
#else
  uint met = 0u;
  for (int k = 0; k < b.count; ++k) {
    const float w = speed ? reach + speed[k] * dt : reach;
    if (hi.x >= b.lo_x[k] - w && lo.x <= b.hi_x[k] + w && hi.y >= b.lo_y[k] - w && lo.y <= b.hi_y[k] + w &&
        hi.z >= b.lo_z[k] - w && lo.z <= b.hi_z[k] + w)
      met |= 1u << k;
  }
  return met & set;
#endif
}

}  // namespace tp
