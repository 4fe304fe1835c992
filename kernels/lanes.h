// Lanes: the neighbour loops written once for one particle (CUDA's thread, the CPU's
// scalar loop) and for 16 or 8 particles at once (the CPU backend built with AVX-512 or
// AVX2).
//
// A kernel that loops over neighbours is a template on its particle index I: uint for
// one particle, Lanes16 or Lanes8 for 16 or 8 consecutive ones (kernels/lanes_avx512.h,
// kernels/lanes_avx2.h). Its numbers are RealOf<I> (float, F16 or F8) and its vectors
// Vec3Of<I> (Vec3, or Vec3L of them: kernels/lanes_simd.h), and
// it reads the particle arrays with load / load_xyz / load_xyzw / load_w, which take a particle index
// or, inside the loop, a neighbour index (uint, or Index16 / Index8). The same source
// then compiles to the scalar code CUDA runs and to AVX-512 or AVX2 code that does 16 or 8
// pairs with each instruction; the solver drivers call it through Backend::for_each_lanes and
// TP_LANES.
//
// The rule that makes one source serve both: a pair term must vanish when W and grad W
// do. The lanes' loop runs to the longest list of its particles and feeds the lanes
// past their own list, and any neighbour that moved out of reach, a pair at distance 2h
// with x_ij = 0 (neighbour index 0), where W = 0 and grad W = 0 exactly, instead of
// skipping it. So a kernel body has no branch on the pair, and the self pair (r = 0,
// grad W = 0) needs no test either.
#pragma once

#include "common.h"

namespace tp {

template <class I>
struct LaneTypes;
template <>
struct LaneTypes<uint> {
  using Real = float;
  using Vec = Vec3;
  using Index = uint;  // a neighbour's index
};
template <class I>
using RealOf = typename LaneTypes<I>::Real;
template <class I>
using Vec3Of = typename LaneTypes<I>::Vec;
template <class I>
using IndexOf = typename LaneTypes<I>::Index;

TP_HD TP_INLINE float load(const float* a, uint i) { return a[i]; }
// An index array (a list of samples, say) read at the lanes' own entries.
TP_HD TP_INLINE uint load_index(const uint* a, uint i) { return a[i]; }
// Keeps only the lanes below n; whether any is left (for one particle, whether i < n).
TP_HD TP_INLINE bool keep_lanes_below(uint* i, uint n) { return *i < n; }
TP_HD TP_INLINE Vec3 load_xyz(const Vec4* a, uint i) { return xyz(a[i]); }
TP_HD TP_INLINE float load_w(const Vec4* a, uint i) { return a[i].w; }
// x, y, z and w of particle arrays' entries at once (for the lane types, one transpose).
template <class V, class R>
struct XyzW {
  V xyz;
  R w;
};
TP_HD TP_INLINE XyzW<Vec3, float> load_xyzw(const Vec4* a, uint i) {
  const Vec4 p = a[i];
  return {xyz(p), p.w};
}
TP_HD TP_INLINE void store(float* a, uint i, float v) { a[i] = v; }
TP_HD TP_INLINE void store_xyzw(Vec4* a, uint i, Vec3 v, float w) { a[i] = make_vec4(v, w); }
// Writes xyz with w = 0.
TP_HD TP_INLINE void store_xyz(Vec4* a, uint i, Vec3 v) { store_xyzw(a, i, v, 0.0f); }

TP_HD TP_INLINE float select(bool c, float a, float b) { return c ? a : b; }
// Whether a condition holds for any of the lanes: for one particle, whether it holds.
TP_HD TP_INLINE bool any_lane(bool c) { return c; }
TP_HD TP_INLINE Vec3 select(bool c, Vec3 a, Vec3 b) { return c ? a : b; }
TP_HD TP_INLINE float sqrt_lanes(float v) { return sqrtf(v); }
TP_HD TP_INLINE float pow_lanes(float v, float e) { return powf(v, e); }

}  // namespace tp

// TP_LANE_WIDTH: the particles for_each_lanes gives a CPU kernel at once, 16 with AVX-512,
// 8 with AVX2 and FMA, or 0 (one at a time, as CUDA's threads) without either. Where it
// is not 0, CpuLanes is the block type, make_lanes(base, live) makes one and kLaneIsa
// names the instructions.
#if defined(__AVX512F__) && !defined(__CUDACC__)
#define TP_LANE_WIDTH 16
#include "lanes_avx512.h"
namespace tp {
using CpuLanes = Lanes16;
TP_INLINE Lanes16 make_lanes(uint base, uint live) {
  return Lanes16{base, _cvtu32_mask16(live >= 16u ? 0xFFFFu : (1u << live) - 1u)};
}
inline constexpr const char* kLaneIsa = "AVX-512";
}  // namespace tp
#elif defined(__AVX2__) && defined(__FMA__) && !defined(__CUDACC__)
#define TP_LANE_WIDTH 8
#include "lanes_avx2.h"
namespace tp {
using CpuLanes = Lanes8;
TP_INLINE Lanes8 make_lanes(uint base, uint live) { return Lanes8{base, live < 8u ? live : 8u}; }
inline constexpr const char* kLaneIsa = "AVX2";
}  // namespace tp
#else
#define TP_LANE_WIDTH 0
#endif

// The parameter list of a lambda that for_each_lanes calls: a generic lambda on the CPU
// (called with uint or CpuLanes), one taking uint under nvcc, whose device lambdas cannot
// be generic.
#if defined(__CUDACC__)
#define TP_LANES(i) [=] TP_HD(uint i)
#else
#define TP_LANES(i) [=](auto i)
#endif
