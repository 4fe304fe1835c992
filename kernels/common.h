// Shared by host (g++) and device (nvcc) code: the TP_HD qualifier, the small vector
// types every kernel uses, and the few atomics the grid build and the neighbour lists
// need. No STL containers,
// no GL, no CUDA headers: the CPU backend compiles this with no toolkit installed.
//
// Vector type choice: our own Vec3/Vec4 rather than GLM. GLM 0.9.9 in nvcc device code
// needs either warning suppressions or GLM_FORCE_CUDA with cuda.h first (see TOOLCHAIN.md),
// and we want kernels/ to compile identically under both compilers with no configuration.
// The app and renderer use GLM for camera matrices; only Vec3/Vec4 cross into kernels/.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define TP_HD __host__ __device__
#define TP_INLINE __forceinline__
#else
#define TP_HD
#define TP_INLINE inline __attribute__((always_inline))
#endif

namespace tp {

using uint = unsigned int;

struct Vec3 {
  float x, y, z;
};

// 16-byte aligned so that a particle's position or velocity is one vector load on
// both backends. The w lane is free for per-particle data (see ParticleView).
struct alignas(16) Vec4 {
  float x, y, z, w;
};

struct Int3 {
  int x, y, z;
};

TP_HD TP_INLINE Vec3 make_vec3(float x, float y, float z) { return Vec3{x, y, z}; }
TP_HD TP_INLINE Vec3 xyz(const Vec4& v) { return Vec3{v.x, v.y, v.z}; }
TP_HD TP_INLINE Vec4 make_vec4(const Vec3& v, float w) { return Vec4{v.x, v.y, v.z, w}; }

TP_HD TP_INLINE Vec3 operator+(Vec3 a, Vec3 b) { return Vec3{a.x + b.x, a.y + b.y, a.z + b.z}; }
TP_HD TP_INLINE Vec3 operator-(Vec3 a, Vec3 b) { return Vec3{a.x - b.x, a.y - b.y, a.z - b.z}; }
TP_HD TP_INLINE Vec3 operator-(Vec3 a) { return Vec3{-a.x, -a.y, -a.z}; }
TP_HD TP_INLINE Vec3 operator*(Vec3 a, float s) { return Vec3{a.x * s, a.y * s, a.z * s}; }
TP_HD TP_INLINE Vec3 operator*(float s, Vec3 a) { return Vec3{a.x * s, a.y * s, a.z * s}; }
TP_HD TP_INLINE Vec3 operator/(Vec3 a, float s) { return a * (1.0f / s); }
TP_HD TP_INLINE Vec3& operator+=(Vec3& a, Vec3 b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
  return a;
}
TP_HD TP_INLINE Vec3& operator-=(Vec3& a, Vec3 b) {
  a.x -= b.x;
  a.y -= b.y;
  a.z -= b.z;
  return a;
}
TP_HD TP_INLINE float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
TP_HD TP_INLINE Vec3 cross(Vec3 a, Vec3 b) {
  return Vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
TP_HD TP_INLINE float length2(Vec3 a) { return dot(a, a); }
TP_HD TP_INLINE float length(Vec3 a) { return sqrtf(dot(a, a)); }
// fmaxf and fminf, with their rule for a NaN operand (the other operand wins), but inline:
// without -ffast-math, which this build never uses, g++ calls libm for fmaxf on x86, a
// function call per neighbour pair in the kernels (9 % of a PCISPH step). Written so that
// g++ emits maxss/minss and no branch.
TP_HD TP_INLINE float maxf(float a, float b) {
#if defined(__CUDA_ARCH__)
  return fmaxf(a, b);
#else
  const float m = a > b ? a : b;  // one maxss: it returns b when a is NaN
  return b != b ? a : m;           // folds away when b is a constant
#endif
}
TP_HD TP_INLINE float minf(float a, float b) {
#if defined(__CUDA_ARCH__)
  return fminf(a, b);
#else
  const float m = a < b ? a : b;
  return b != b ? a : m;
#endif
}
TP_HD TP_INLINE float clampf(float v, float lo, float hi) { return minf(maxf(v, lo), hi); }
// The box [lo, hi] grown to hold the box [a, b], axis by axis.
TP_HD TP_INLINE void grow_box(Vec3& lo, Vec3& hi, Vec3 a, Vec3 b) {
  lo = Vec3{minf(lo.x, a.x), minf(lo.y, a.y), minf(lo.z, a.z)};
  hi = Vec3{maxf(hi.x, b.x), maxf(hi.y, b.y), maxf(hi.z, b.z)};
}
// A loop the host compiler should vectorise (its iterations independent); nothing on CUDA.
// TP_SIMD_SUM(a, b, ...): the same, its body adding to the sums a, b, ...
#if defined(__CUDACC__)
#define TP_SIMD
#define TP_SIMD_SUM(...)
#else
#define TP_SIMD _Pragma("omp simd")
#define TP_SIMD_PRAGMA(x) _Pragma(#x)
#define TP_SIMD_SUM(...) TP_SIMD_PRAGMA(omp simd reduction(+ : __VA_ARGS__))
#endif

TP_HD TP_INLINE int maxi(int a, int b) { return a > b ? a : b; }
TP_HD TP_INLINE int mini(int a, int b) { return a < b ? a : b; }
TP_HD TP_INLINE int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// True for a finite float. Written out (rather than std::isfinite) so that it means the
// same thing in device code; the build never uses -ffast-math, which would fold it away.
TP_HD TP_INLINE bool is_finite(float v) { return v == v && fabsf(v) <= 3.402823466e38f; }
TP_HD TP_INLINE bool is_finite(Vec3 v) { return is_finite(v.x) && is_finite(v.y) && is_finite(v.z); }

// The max that the backends' reductions combine with (reduce_max): a NaN operand is
// skipped, as IEEE's maxNum (fmaxf) does, so that the max over values with NaNs among
// them is the max of the others in every order of combination, on the CPU's chunks and
// in a GPU's reduction tree alike (`a < b ? b : a` keeps a NaN that comes first, and the
// tree's order decides which does). The NaN guard (src/sim/water/step_guard.h) deals with the
// particles that hold them.
struct MaxSkippingNaN {
  TP_HD TP_INLINE float operator()(float a, float b) const { return (b > a || a != a) ? b : a; }
};

// Three maxima taken in one pass (reduce_max3: the time step's speed, acceleration and
// density ratio, one wait for the host instead of three on a GPU).
struct Max3 {
  float a, b, c;
};
struct Max3SkippingNaN {
  TP_HD TP_INLINE Max3 operator()(const Max3& x, const Max3& y) const {
    const MaxSkippingNaN m;
    return Max3{m(x.a, y.a), m(x.b, y.b), m(x.c, y.c)};
  }
};

// Atomic add returning the previous value: CUDA's atomicAdd on the device, the GCC/Clang
// builtin on the host (OpenMP threads). The grid build is the only user.
TP_HD TP_INLINE uint atomic_add(uint* address, uint value) {
#if defined(__CUDA_ARCH__)
  return atomicAdd(address, value);
#else
  return __atomic_fetch_add(address, value, __ATOMIC_RELAXED);
#endif
}

// Atomic store: several threads may set the same flag (to the same value).
TP_HD TP_INLINE void atomic_store(uint* address, uint value) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<volatile uint*>(address) = value;
#else
  __atomic_store_n(address, value, __ATOMIC_RELAXED);
#endif
}

}  // namespace tp
