// The CUDA backend: kernels launched over the same per-particle bodies as the CPU backend,
// Thrust (CCCL, from the toolkit) for scans and reductions. Compiled by nvcc only.
//
// Everything runs in order on the default stream. The host waits for the device only
// where it needs a value back. The waits of one step (issue 7):
//   grid build    1: the neighbour lists' check for a list that ran out of slots (and a
//                 second search when one did, rare); the scan itself does not wait
//   time step     WCSPH: max speed, max acceleration, max rho/rho0 (3 reductions);
//                 PCISPH: deepest and highest point, max speed, max acceleration (4);
//                 PBF: max speed, max acceleration (2)
//   PCISPH loop   mean and max predicted compression, per iteration (2 x iterations, >= 6)
//   statistics    mean and max density error of an end state (2), non-finite particle
//                 count (1), PBF's initial compression (1)
//   scenes        outflows: the survivor count (1 copy, every step); emitters: 1 copy per
//                 layer laid; diffuse particles (every 2.5 ms simulated): 2 copies, 3 counts
//                 (and a grid build after a PBF step)
//   per frame     publish(): 1 (cudaDeviceSynchronize before the GL unmap, or the copy);
//                 stats(): the mean list lengths (2) and a wait for the last phase's end
//                 event, to read the phase times
// In all: WCSPH 7, PCISPH 8 + 2 x iterations, PBF 7 (before: 14, 15 + 2 x iterations and
// 13, with a cudaDeviceSynchronize after every phase and Thrust's blocking scan in every
// grid build). Not waits: the scan (par_nosync), phase timing (CUDA events, read after
// the step: CudaPhaseEvents below), kernel launches. Each reduction is one stream sync and
// one 4-8 byte copy; Thrust's temporaries come from cudaMallocAsync (par_nosync), not
// cudaMalloc/cudaFree, whose cudaFree would wait for the whole device.
// Left for later (they touch the solver files): one fused reduction for the time step
// (3-4 -> 1), the PCISPH check as one reduction of (sum, max) (2 -> 1 per iteration), and
// the statistics accumulated on the device and read in stats() (-3 or -4 per step).
#pragma once

#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/transform_reduce.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common.h"
#include "sim/simulation.h"

namespace tp {

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
}

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n) { resize(n); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept { swap(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    swap(o);
    return *this;
  }

  void resize(size_t n) {
    if (n == size_) return;
    release();
    if (n) cuda_check(cudaMalloc(&data_, n * sizeof(T)), "out of device memory");
    size_ = n;
  }
  // At least n elements, growing by a quarter more when it must (contents not kept).
  void grow(size_t n) {
    if (n > size_) resize(n + n / 4);
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  void swap(DeviceBuffer& o) {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
  }

 private:
  void release() {
    if (data_) cudaFree(data_);
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  size_t size_ = 0;
};

template <class F>
__global__ void for_each_kernel(uint n, F f) {
  const uint i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}

// Device-side timing of the simulation's phases (SimulationImpl::phase): a start and an
// end event per phase, recorded into the stream without waiting, and read back once the
// step's work has finished. Events are created once per slot and reused every step.
class CudaPhaseEvents {
 public:
  CudaPhaseEvents() = default;
  ~CudaPhaseEvents() {
    for (Pair& p : pairs_) {  // errors ignored: at exit the context may be gone already
      cudaEventDestroy(p.start);
      cudaEventDestroy(p.stop);
    }
  }
  CudaPhaseEvents(const CudaPhaseEvents&) = delete;
  CudaPhaseEvents& operator=(const CudaPhaseEvents&) = delete;

  // Marks the start and the end of the k-th phase since the last collection.
  void start(size_t k) {
    while (pairs_.size() <= k) {
      Pair p{};
      cuda_check(cudaEventCreateWithFlags(&p.start, cudaEventDefault), "create event");
      const cudaError_t e = cudaEventCreateWithFlags(&p.stop, cudaEventDefault);
      if (e != cudaSuccess) cudaEventDestroy(p.start);
      cuda_check(e, "create event");
      pairs_.push_back(p);
    }
    cuda_check(cudaEventRecord(pairs_[k].start, 0), "record event");
  }
  void stop(size_t k) {
    cuda_check(cudaEventRecord(pairs_[k].stop, 0), "record event");
    last_ = k;
  }
  // Whether every phase recorded so far has finished on the device; with `wait`, waits
  // for it (the last end event recorded: the stream runs in order).
  bool ready(bool wait) {
    if (pairs_.empty()) return true;
    if (wait) {
      cuda_check(cudaEventSynchronize(pairs_[last_].stop), "wait for event");
      return true;
    }
    const cudaError_t e = cudaEventQuery(pairs_[last_].stop);
    if (e == cudaErrorNotReady) return false;
    cuda_check(e, "query event");
    return true;
  }
  // Device time of the k-th phase [ms]; only once ready().
  double elapsed_ms(size_t k) {
    float ms = 0.0f;
    cuda_check(cudaEventElapsedTime(&ms, pairs_[k].start, pairs_[k].stop), "event time");
    return ms;
  }

 private:
  struct Pair {
    cudaEvent_t start, stop;
  };
  std::vector<Pair> pairs_;
  size_t last_ = 0;
};

struct CudaBackend {
  template <class T>
  using Buffer = DeviceBuffer<T>;
  static constexpr bool kIsDevice = true;

  using PhaseEvents = CudaPhaseEvents;

  static BackendInfo describe();

  // 256 threads a block: a multiple of the warp, enough blocks per SM to hide latency,
  // and (at most 255 registers a thread) always launchable whatever the body needs.
  static constexpr uint kBlockSize = 256;

  template <class F>
  static void for_each(uint n, F f) {
    if (n == 0) return;
    for_each_kernel<<<(n + kBlockSize - 1) / kBlockSize, kBlockSize>>>(n, f);
    cuda_check(cudaGetLastError(), "kernel launch");
  }
  // One thread a particle (the CPU runs 16 or 8 particles a call: kernels/lanes.h).
  template <class F>
  static void for_each_lanes(uint n, F f) {
    for_each(n, f);
  }

  // par_nosync: the scan's result stays on the device for the kernels after it (same
  // stream, in order), so the host need not wait; a caller that reads data[n] copies it,
  // and the copy waits. (thrust::device would synchronise, and free its temporary storage
  // with cudaFree, which waits for the whole device.)
  static void exclusive_scan(uint* data, uint n) {
    // n + 1 entries, so that data[n] receives the total.
    thrust::exclusive_scan(thrust::cuda::par_nosync, data, data + n + 1, data);
  }

  // Reductions return their value to the host, so they wait for it whatever the policy;
  // par_nosync only takes their temporary storage from cudaMallocAsync. Thrust (CUB)
  // picks the block size and grid of the reduction kernels.
  template <class F>
  static float reduce_max(uint n, float init, F f) {
    return thrust::transform_reduce(thrust::cuda::par_nosync, thrust::counting_iterator<uint>(0),
                                    thrust::counting_iterator<uint>(n), f, init,
                                    thrust::maximum<float>());
  }

  template <class F>
  static double reduce_sum(uint n, F f) {
    return thrust::transform_reduce(
        thrust::cuda::par_nosync, thrust::counting_iterator<uint>(0),
        thrust::counting_iterator<uint>(n),
        [=] __host__ __device__(uint i) { return double(f(i)); }, 0.0, thrust::plus<double>());
  }

  // Both reductions of the CPU backend's reduce_sum_max (two here, each waits anyway).
  struct SumMax {
    double sum;
    float max;
  };
  template <class F>
  static SumMax reduce_sum_max(uint n, F f) {
    return SumMax{reduce_sum(n, f), reduce_max(n, 0.0f, f)};
  }

  template <class T>
  static void copy_to_host(T* host, const T* buffer, size_t n) {
    if (n) cuda_check(cudaMemcpy(host, buffer, n * sizeof(T), cudaMemcpyDeviceToHost), "copy");
  }
  template <class T>
  static void copy_from_host(T* buffer, const T* host, size_t n) {
    if (n) cuda_check(cudaMemcpy(buffer, host, n * sizeof(T), cudaMemcpyHostToDevice), "copy");
  }
  static void synchronize() { cuda_check(cudaDeviceSynchronize(), "synchronize"); }
};

}  // namespace tp
