// The CPU backend: OpenMP over all cores (or --threads N), the standard library, no CUDA
// toolkit. Implements the backend policy that the solver drivers are templated on:
//   Buffer<T>, for_each, exclusive_scan, reduce_max, reduce_sum, copy_to_host,
//   copy_from_host, upload, synchronize.
// Reductions run over fixed-size chunks combined in order, so results do not depend on
// the thread count or the scheduling: the same inputs give bitwise-identical outputs.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "kernels/common.h"
#include "kernels/lanes.h"
#include "sim/backend/backend_kind.h"
#include "util/alloc_faults.h"

namespace tp {

// max, with each thread's copy starting at the caller's `init` rather than at OpenMP's
// "least representable value": GCC's libgomp takes -inf for a float, clang's libomp -FLT_MAX,
// which then wins over an all -inf result (pick() found fluid where there was none).
#pragma omp declare reduction(tp_max : float : omp_out = tp::MaxSkippingNaN()(omp_out, omp_in)) \
    initializer(omp_priv = omp_orig)

// A host array that does not initialise its elements (the solver writes before reading).
template <class T>
class HostBuffer {
 public:
  HostBuffer() = default;
  explicit HostBuffer(size_t n) { resize(n); }
  HostBuffer(HostBuffer&&) noexcept = default;
  HostBuffer& operator=(HostBuffer&&) noexcept = default;

  void resize(size_t n) {
    if (n == size_) return;
    if (n && alloc_faults::should_fail()) throw std::bad_alloc();  // (tests)
    data_.reset(n ? new T[n] : nullptr);
    size_ = n;
  }
  // At least n elements, growing by a quarter more when it must (contents not kept):
  // arrays sized by a changing particle count then rarely allocate.
  void grow(size_t n) {
    if (n > size_) resize(n + n / 4);
  }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  size_t size() const { return size_; }
  void swap(HostBuffer& other) {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }

 private:
  std::unique_ptr<T[]> data_;
  size_t size_ = 0;
};

struct CpuBackend {
  template <class T>
  using Buffer = HostBuffer<T>;

  static constexpr bool kIsDevice = false;
  static constexpr uint kChunk = 4096;  // reduction chunk: fixed, so sums are deterministic
  static BackendInfo describe();

  // Device-side phase timing (CudaBackend::PhaseEvents). The CPU times its phases with the
  // host clock (SimulationImpl::phase) and never calls these.
  struct PhaseEvents {
    void start(size_t) {}
    void stop(size_t) {}
    bool ready(bool) { return true; }
    double elapsed_ms(size_t) { return 0.0; }
  };

  // Below this many items a loop runs on the calling thread: waking the team costs more
  // than it saves, and on a busy machine every parallel region can cost a scheduler
  // time slice (a thread of the team waits for a core).
  static constexpr uint kParallelThreshold = 4096;

  // Dynamic in chunks of kForEachChunk: a particle's cost follows its neighbour count,
  // which a splash or PBF's compressed pockets make uneven, and with equal static halves
  // one thread waited for the other for a quarter of a PBF step. Each i writes only its
  // own outputs, so the order of the chunks does not change any result.
  static constexpr uint kForEachChunk = 512;
  template <class F>
  static void for_each(uint n, F f) {
#pragma omp parallel for schedule(dynamic, kForEachChunk) if (n >= kParallelThreshold)
    for (long long i = 0; i < (long long)n; ++i) f(uint(i));
  }

  // f(i) for a few large items (the mesh's lattice blocks: hundreds of them, each
  // thousands of nodes): one item at a time to whichever thread is free, in parallel from
  // two items on.
  template <class F>
  static void for_each_coarse(uint n, F f) {
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (long long i = 0; i < (long long)n; ++i) f(uint(i));
  }

  // Whether for_each_lanes runs a block of lanes a call where the build can (the default).
  // TIDEPOOL_SCALAR=1 in the environment turns that off, to time the scalar loops CUDA's
  // threads run in the same binary; set_lanes(false) does too (the tests that compare the
  // two paths).
  static bool lanes_enabled() { return lanes_flag(); }
  static void set_lanes(bool on) { lanes_flag() = on; }
  static bool& lanes_flag() {
    static bool on = [] {
      const char* v = std::getenv("TIDEPOOL_SCALAR");
      return !(v && *v && std::string(v) != "0");
    }();
    return on;
  }

  // f(i) for every particle i in [0, n): a block of TP_LANE_WIDTH particles a call where the
  // build has AVX-512 or AVX2 (i is a CpuLanes, and f a kernel written for lanes:
  // kernels/lanes.h), one a call otherwise. Scheduled as for_each.
  template <class F>
  static void for_each_lanes(uint n, F f) {
#if TP_LANE_WIDTH
    if (!lanes_enabled()) return for_each(n, f);
    constexpr uint kWidth = TP_LANE_WIDTH;
    const long long blocks = (long long)((n + kWidth - 1) / kWidth);
#pragma omp parallel for schedule(dynamic, kForEachChunk / kWidth) if (n >= kParallelThreshold)
    for (long long b = 0; b < blocks; ++b) {
      const uint base = uint(b) * kWidth;
      f(make_lanes(base, n - base));
    }
#else
    for_each(n, f);
#endif
  }

  // In-place exclusive prefix sum over data[0, n); data[n] receives the total. The team may
  // be smaller than omp_get_max_threads() (nested regions, OMP_THREAD_LIMIT, OMP_DYNAMIC),
  // so the blocks are cut from the team size the region actually got.
  static void exclusive_scan(uint* data, uint n) {
    const int max_threads = omp_get_max_threads();
    if (n < 65536 || max_threads == 1) {
      serial_exclusive_scan(data, n);
      return;
    }
    std::vector<uint> block_sum(size_t(max_threads) + 1, 0);
#pragma omp parallel num_threads(max_threads)
    {
      const int threads = omp_get_num_threads();
      const int t = omp_get_thread_num();
      const uint begin = uint((unsigned long long)n * t / threads);
      const uint end = uint((unsigned long long)n * (t + 1) / threads);
      uint sum = 0;
      for (uint i = begin; i < end; ++i) sum += data[i];
      block_sum[t + 1] = sum;
#pragma omp barrier
#pragma omp single
      for (int k = 1; k <= threads; ++k) block_sum[k] += block_sum[k - 1];
      uint run = block_sum[t];
      for (uint i = begin; i < end; ++i) {
        const uint v = data[i];
        data[i] = run;
        run += v;
      }
#pragma omp single
      data[n] = block_sum[threads];
    }
  }

  static void serial_exclusive_scan(uint* data, uint n) {
    uint sum = 0;
    for (uint i = 0; i < n; ++i) {
      const uint v = data[i];
      data[i] = sum;
      sum += v;
    }
    data[n] = sum;
  }

  // max over i of f(i), or `init` when n == 0.
  template <class F>
  static float reduce_max(uint n, float init, F f) {
    float result = init;
#pragma omp parallel for schedule(static) reduction(tp_max : result) if (n >= kParallelThreshold)
    for (long long i = 0; i < (long long)n; ++i) result = MaxSkippingNaN()(result, f(uint(i)));
    return result;
  }

  // The three maxima of f(i) (a Max3) in one pass, from 0 (reduce_max's, three at once).
  template <class F>
  static Max3 reduce_max3(uint n, F f) {
    float a = 0.0f, b = 0.0f, c = 0.0f;
#pragma omp parallel for schedule(static) reduction(tp_max : a, b, c) if (n >= kParallelThreshold)
    for (long long i = 0; i < (long long)n; ++i) {
      const Max3 v = f(uint(i));
      a = MaxSkippingNaN()(a, v.a);
      b = MaxSkippingNaN()(b, v.b);
      c = MaxSkippingNaN()(c, v.c);
    }
    return Max3{a, b, c};
  }

  // sum over i of f(i) in double, in fixed chunks combined in order (reduce_sum_max's
  // sum: the max costs one instruction an element).
  template <class F>
  static double reduce_sum(uint n, F f) {
    return reduce_sum_max(n, f).sum;
  }

  // reduce_sum and reduce_max (from 0) of the same f in one pass: one parallel region for
  // a loop that needs both (PCISPH's convergence test, each iteration).
  struct SumMax {
    double sum;
    float max;
  };
  template <class F>
  static SumMax reduce_sum_max(uint n, F f) {
    const uint chunks = (n + kChunk - 1) / kChunk;
    std::vector<double> partial(chunks, 0.0);
    std::vector<float> most(chunks, 0.0f);
#pragma omp parallel for schedule(static) if (n >= kParallelThreshold)
    for (long long c = 0; c < (long long)chunks; ++c) {
      const uint begin = uint(c) * kChunk;
      const uint end = std::min(n, begin + kChunk);
      double s = 0.0;
      float m = 0.0f;
      for (uint i = begin; i < end; ++i) {
        const auto v = f(i);
        s += double(v);
        m = MaxSkippingNaN()(m, float(v));
      }
      partial[c] = s;
      most[c] = m;
    }
    SumMax out{0.0, 0.0f};
    for (uint c = 0; c < chunks; ++c) {
      out.sum += partial[c];
      out.max = MaxSkippingNaN()(out.max, most[c]);
    }
    return out;
  }

  // The reductions whose result stays in the backend's memory (`out`) for a later read:
  // on a device they do not wait; here they are the reductions above.
  template <class F>
  static void reduce_max3_to(uint n, F f, Max3* out) {
    *out = reduce_max3(n, f);
  }
  template <class F>
  static void reduce_sum_max_to(uint n, F f, SumMax* out) {
    *out = reduce_sum_max(n, f);
  }

  template <class T>
  static void copy_to_host(T* host, const T* buffer, size_t n) {
    if (n) std::memcpy(host, buffer, n * sizeof(T));
  }
  template <class T>
  static void copy_from_host(T* buffer, const T* host, size_t n) {
    if (n) std::memcpy(buffer, host, n * sizeof(T));
  }
  // A copy to the backend that the host need not wait for (on a GPU: staged, stream
  // ordered); `host` may be reused at once. Here the same as copy_from_host.
  template <class T>
  static void upload(T* buffer, const T* host, size_t n) {
    copy_from_host(buffer, host, n);
  }
  static void synchronize() {}
};

}  // namespace tp
