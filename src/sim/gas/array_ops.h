// Whole-array operations on a backend B's arrays that the gas's parts share: fill, copy,
// the largest |x| and the dot product (in double, deterministic on both backends).
#pragma once

#include <cmath>

#include "kernels/common.h"

namespace tp {

template <class B, class T>
void fill_array(T* p, uint n, T value) {
  B::for_each(n, [=] TP_HD(uint i) { p[i] = value; });
}

template <class B, class T>
void copy_array(T* to, const T* from, uint n) {
  B::for_each(n, [=] TP_HD(uint i) { to[i] = from[i]; });
}

template <class B>
float max_abs_array(const float* p, uint n) {
  return B::reduce_max(n, 0.0f, [=] TP_HD(uint i) { return fabsf(p[i]); });
}

template <class B>
double dot_arrays(const float* a, const float* b, uint n) {
  return B::reduce_sum(n, [=] TP_HD(uint i) { return double(a[i]) * double(b[i]); });
}

}  // namespace tp
