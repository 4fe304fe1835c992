// The CUDA backend: kernels launched over the same per-particle bodies as the CPU backend,
// Thrust (CCCL, from the toolkit) for scans and reductions. Compiled by nvcc only.
//
// Everything runs in order on the default stream. The host waits for the device only
// where it needs a value back. The waits of one step, counted on the emulated device
// (EmulatedDevice.StepStructure; docs/cuda.md):
//   time step     1: speed, acceleration (WCSPH: density ratio; PCISPH: the water's depth
//                 and top pressure, reduced beside them) and, in the same copy, the step
//                 record (SimulationImpl::StepRecord): the lists' overflow, the last
//                 step's non-finite particles, its density error. That step is judged
//                 there, and undone and retaken when it failed (src/sim/water/step_guard.h).
//   PCISPH loop   1 per iteration: mean and max predicted compression in one reduction
//   scenes        outflows: the survivor count (1 copy, every step); emitters: 1 copy per
//                 layer laid; obstacles and bodies moved: none (their poses go up by
//                 upload(), staged, asynchronous; the bodies' force sums come back in the
//                 step record);
//                 diffuse particles (every 2.5 ms simulated): 2 copies, 3 counts (and a
//                 grid build after a PBF step)
//   per frame     publish(): 1 (cudaDeviceSynchronize before the GL unmap, or the copy);
//                 stats(): the record (1), the mean list lengths (2) and a wait for the
//                 last phase's end event, to read the phase times
// In all: WCSPH 1, PCISPH 1 + 1 per iteration, PBF 1 (before issue 22: 6, 9 + 1 per
// iteration and 5; before that 9, 13 + 2 per iteration and 7, with separate reductions;
// before issue 7: 14, 15 + 2 x iterations and 13, with a cudaDeviceSynchronize after
// every phase and Thrust's blocking scan in every grid build).
// Not waits: the scan (par_nosync), the reductions into device memory (reduce_to: CUB,
// temporaries stream-ordered), the listed boundary samples' count (left on the device:
// the launches over them take every sample and skip the unlisted), phase timing (CUDA
// events, read after the step: CudaPhaseEvents below), kernel launches. Each reduction
// back to the host is one stream sync and one small copy; Thrust's temporaries come from
// cudaMallocAsync (par_nosync), not cudaMalloc/cudaFree, whose cudaFree would wait for
// the whole device, from a pool told to keep its memory (keep_temporaries()).
#pragma once

#if defined(TP_CUDA_EMULATED)
// The emulated device (tests): this same backend compiled by g++ against a host shim of
// the runtime (src/gpu/cuda_emulated.h), its launches run as host loops one particle at a
// time and Thrust on its CPP system. Its own inline namespace keeps its instantiations
// apart from the real backend's in one binary.
#include <thrust/system/cpp/execution_policy.h>

#include "gpu/cuda_emulated.h"
#define TP_CUDA_NAMESPACE emulated_device
#else
#include <cuda_runtime.h>
#include <cub/device/device_reduce.cuh>
#include <thrust/system/cuda/execution_policy.h>
#define TP_CUDA_NAMESPACE cuda_device
#endif
#include <thrust/execution_policy.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/system_error.h>
#include <thrust/transform_reduce.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common.h"
#include "sim/backend/backend_kind.h"

namespace tp {
inline namespace TP_CUDA_NAMESPACE {

#if defined(TP_CUDA_EMULATED)
using DeviceAccess = emulated_cuda::DeviceAccess;
// Thrust's algorithms run on the host, inside the device's access scope.
inline auto device_policy() { return thrust::cpp::par; }
#else
// On a real device the host touches no device memory: nothing to open.
struct DeviceAccess {};
// par_nosync: a scan's result stays on the device for the kernels after it (same stream,
// in order), so the host need not wait; thrust::device would synchronise, and free its
// temporaries with cudaFree, which waits for the whole device. Its temporaries come from
// the device's default memory pool (cudaMallocAsync), which keep_temporaries() tells to
// keep what it has mapped.
inline auto device_policy() { return thrust::cuda::par_nosync; }
#endif

// The phase the simulation is in (SimulationImpl::phase sets it), for error messages.
inline const char*& current_cuda_phase() {
  static const char* phase = nullptr;
  return phase;
}

// TIDEPOOL_CUDA_SYNC=1: wait for the device after every launch, scan and reduction, so
// that a fault is reported by the kernel that made it, with its phase (slow: for bug
// reports, docs/gpu.md).
inline bool& cuda_sync_flag() {
  static bool on = [] {
    const char* v = std::getenv("TIDEPOOL_CUDA_SYNC");
    return v && *v && std::string(v) != "0";
  }();
  return on;
}
inline bool cuda_sync_each_launch() { return cuda_sync_flag(); }
inline void set_cuda_sync_for_testing(bool on) { cuda_sync_flag() = on; }

// "in phase 'constraints'" or "" outside the phases.
inline std::string cuda_phase_words() {
  const char* phase = current_cuda_phase();
  return phase ? std::string(" in phase '") + phase + "'" : std::string();
}

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("CUDA: ") + what + cuda_phase_words() + ": " +
                             cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")");
}

// The name of a kernel body's type, from the compiler's signature of this function
// ("... [with F = tp::PbfSolver<...>::project(...)::<lambda(tp::uint)>]"): it names the
// function the kernel's lambda is written in.
template <class F>
std::string kernel_name() {
  const std::string s = __PRETTY_FUNCTION__;
  const size_t at = s.find("F = ");
  if (at == std::string::npos) return s;
  const size_t end = s.find_first_of(";]", at);
  return s.substr(at + 4, end == std::string::npos ? std::string::npos : end - at - 4);
}

// After a launch: a launch error now, or with TIDEPOOL_CUDA_SYNC a fault of the kernel
// itself, named.
template <class F>
void check_launch() {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess && cuda_sync_each_launch()) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) return;
  const std::string error = std::string(cudaGetErrorString(e)) + " (" + cudaGetErrorName(e) + ")";
  if (cuda_sync_each_launch())
    throw std::runtime_error("CUDA: kernel " + kernel_name<F>() + cuda_phase_words() +
                             " failed: " + error);
  // Launches are asynchronous: the fault may be this kernel's or an earlier one's.
  throw std::runtime_error("CUDA: " + error + ", seen at the launch of kernel " +
                           kernel_name<F>() + cuda_phase_words() +
                           " (the fault may be an earlier kernel's: run with "
                           "TIDEPOOL_CUDA_SYNC=1 to name the one that made it)");
}

// A Thrust call (scan, reduction): its errors say the phase, and where the fault was made
// earlier by a kernel, how to find which.
template <class F>
auto thrust_call(const char* what, F&& f) {
  try {
    [[maybe_unused]] DeviceAccess access;
    auto result = f();
    if (cuda_sync_each_launch()) cuda_check(cudaDeviceSynchronize(), what);
    return result;
  } catch (const thrust::system_error& e) {
    throw std::runtime_error(std::string("CUDA: ") + what + cuda_phase_words() + ": " +
                             e.what() +
                             (cuda_sync_each_launch()
                                  ? ""
                                  : " (a kernel before it may have faulted: run with "
                                    "TIDEPOOL_CUDA_SYNC=1 to name it)"));
  }
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

  // The new allocation is made before the old one is freed: when it fails the buffer is
  // as it was (and the exception says so), never empty with a size.
  void resize(size_t n) {
    if (n == size_) return;
    T* fresh = nullptr;
    if (n) {
      const cudaError_t e = cudaMalloc(&fresh, n * sizeof(T));
      if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();  // an allocation failure is not sticky: clear it
        throw std::runtime_error("CUDA: out of device memory for " + std::to_string(n * sizeof(T)) +
                                 " bytes (" + cudaGetErrorName(e) + ")");
      }
      cuda_check(e, "allocate");  // anything else (a lost context) says what it is
    }
    release();
    data_ = fresh;
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

#if !defined(TP_CUDA_EMULATED)
template <class F>
__global__ void for_each_kernel(uint n, F f) {
  const uint i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}
#endif

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
    if (e == cudaErrorNotReady) {
      // An answer, not an error; some runtime versions leave it as the last error, where
      // the next launch check would report it as a failed launch.
      if (cudaPeekAtLastError() == cudaErrorNotReady) cudaGetLastError();
      return false;
    }
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

  // The device's name, asked once per device (cudaGetDeviceProperties takes milliseconds,
  // and the panel asks every frame).
  static BackendInfo describe() {
    int device = 0;
    cudaGetDevice(&device);
    static int described = -1;
    static std::string name;
    if (device != described) {
      cudaDeviceProp prop{};
      if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
        name = prop.name;
        described = device;
      } else {
        cudaGetLastError();
        name = "device " + std::to_string(device);
      }
    }
#if defined(TP_CUDA_EMULATED)
    return BackendInfo{BackendKind::Cuda, "CUDA (emulated): " + name};
#else
    return BackendInfo{BackendKind::Cuda, "CUDA: " + name};
#endif
  }

  // The phase now running, for the messages of a failure (SimulationImpl::phase).
  static void set_phase(const char* name) { current_cuda_phase() = name; }

  // 256 threads a block: a multiple of the warp, enough blocks per SM to hide latency,
  // and (at most 255 registers a thread) always launchable whatever the body needs.
  static constexpr uint kBlockSize = 256;

  template <class F>
  static void for_each(uint n, F f) {
    if (n == 0) return;
#if defined(TP_CUDA_EMULATED)
    {
      DeviceAccess access;
      emulated_cuda::launch_begun();
      for (uint i = 0; i < n; ++i) f(i);
    }
#else
    for_each_kernel<<<(n + kBlockSize - 1) / kBlockSize, kBlockSize>>>(n, f);
#endif
    check_launch<F>();
  }

  // A few large items (the CPU schedules them one by one): a thread each here.
  template <class F>
  static void for_each_coarse(uint n, F f) {
    for_each(n, f);
  }
  // One thread a particle (the CPU runs 16 or 8 particles a call: kernels/lanes.h).
  template <class F>
  static void for_each_lanes(uint n, F f) {
    for_each(n, f);
  }

  static void exclusive_scan(uint* data, uint n) {
    keep_temporaries();
    // n + 1 entries, so that data[n] receives the total. The scan also reads data[n] (its
    // sum would go to an entry n + 1 that is not there), which no caller writes: a zero,
    // so that it reads no uninitialised memory (compute-sanitizer's initcheck on the H200,
    // 2026-12-04: 110 to 220 such reads in 8 steps, every solver).
    for_each(1, [=] TP_HD(uint) { data[n] = 0u; });
    thrust_call("scan", [&] {
      thrust::exclusive_scan(device_policy(), data, data + n + 1, data);
      return 0;
    });
  }

  // Every reduction: transform(i) over [0, n) combined by op from init, its value back to
  // the host, so it waits whatever the policy (counted on the emulated device). Thrust (CUB) picks the block size
  // and grid of the reduction kernels. The maxima skip NaN as the CPU's do
  // (MaxSkippingNaN).
  template <class T, class G, class Op>
  static T reduce(const char* what, uint n, G transform, T init, Op op) {
    keep_temporaries();
#if defined(TP_CUDA_EMULATED)
    emulated_cuda::host_waited();
#endif
    return thrust_call(what, [&] {
      return thrust::transform_reduce(device_policy(), thrust::counting_iterator<uint>(0),
                                      thrust::counting_iterator<uint>(n), transform, init, op);
    });
  }

  // A reduction whose result stays on the device, at `out`, for a later read: no wait
  // (CUB's reduction, its temporaries stream-ordered from the kept pool). On the emulated
  // device, a host loop counted as a launch.
  template <class T, class G, class Op>
  static void reduce_to(const char* what, uint n, G transform, T init, Op op, T* out) {
#if defined(TP_CUDA_EMULATED)
    {
      DeviceAccess access;
      emulated_cuda::launch_begun();
      T r = init;
      for (uint i = 0; i < n; ++i) r = op(r, transform(i));
      *out = r;
    }
#else
    if (n == 0) {
      for_each(1, [=] TP_HD(uint) { *out = init; });
      return;
    }
    keep_temporaries();
    const auto in = thrust::make_transform_iterator(thrust::counting_iterator<uint>(0), transform);
    size_t bytes = 0;
    cuda_check(cub::DeviceReduce::Reduce(nullptr, bytes, in, out, int(n), op, init, cudaStream_t(0)), what);
    void* temp = nullptr;
    cuda_check(cudaMallocAsync(&temp, bytes, cudaStream_t(0)), what);
    const cudaError_t e = cub::DeviceReduce::Reduce(temp, bytes, in, out, int(n), op, init, cudaStream_t(0));
    cudaFreeAsync(temp, cudaStream_t(0));
    cuda_check(e, what);
    if (cuda_sync_each_launch()) cuda_check(cudaDeviceSynchronize(), what);
#endif
  }

  template <class F>
  static float reduce_max(uint n, float init, F f) {
    return reduce("reduction (max)", n, f, init, MaxSkippingNaN());
  }

  template <class F>
  static double reduce_sum(uint n, F f) {
    return reduce("reduction (sum)", n, [=] TP_HD(uint i) { return double(f(i)); }, 0.0,
                  thrust::plus<double>());
  }

  // The three maxima of f(i) (a Max3) in one reduction: one wait, not three.
  template <class F>
  static Max3 reduce_max3(uint n, F f) {
    return reduce("reduction (3 maxima)", n, f, Max3{0.0f, 0.0f, 0.0f}, Max3SkippingNaN());
  }

  template <class F>
  static void reduce_max3_to(uint n, F f, Max3* out) {
    reduce_to("reduction (3 maxima, kept)", n, f, Max3{0.0f, 0.0f, 0.0f}, Max3SkippingNaN(), out);
  }

  // The CPU backend's reduce_sum_max as one reduction of (sum, max) pairs: one wait.
  struct SumMax {
    double sum;
    float max;
    // The 4 bytes after max, a member so that every copy writes them: as padding they were
    // never written, and the result's copy to the host read them (initcheck on the H200).
    float unused = 0.0f;
  };
  struct SumMaxCombine {
    TP_HD SumMax operator()(const SumMax& x, const SumMax& y) const {
      return SumMax{x.sum + y.sum, MaxSkippingNaN()(x.max, y.max)};
    }
  };
  template <class F>
  static SumMax reduce_sum_max(uint n, F f) {
    return reduce(
        "reduction (sum and max)", n,
        [=] TP_HD(uint i) {
          const float v = f(i);
          return SumMax{double(v), v};
        },
        SumMax{0.0, 0.0f}, SumMaxCombine());
  }

  template <class F>
  static void reduce_sum_max_to(uint n, F f, SumMax* out) {
    reduce_to(
        "reduction (sum and max, kept)", n,
        [=] TP_HD(uint i) {
          const float v = f(i);
          return SumMax{double(v), v};
        },
        SumMax{0.0, 0.0f}, SumMaxCombine(), out);
  }

  // Thrust's temporaries come from the device's default memory pool (cudaMallocAsync),
  // which by default gives its memory back to the system at every synchronisation, so
  // that each of a step's scans and reductions maps fresh memory: told once to keep it.
  static void keep_temporaries() {
#if !defined(TP_CUDA_EMULATED)
    // Once per device (the simulation may move to the one that runs OpenGL).
    static bool kept[64] = {};
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= 64) {
      cudaGetLastError();
      return;
    }
    if (kept[device]) return;
    kept[device] = true;
    cudaMemPool_t pool = nullptr;
    uint64_t keep = UINT64_MAX;
    if (cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess ||
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess)
      cudaGetLastError();  // not fatal: the temporaries are mapped each time instead
#endif
  }

  template <class T>
  static void copy_to_host(T* host, const T* buffer, size_t n) {
    if (!n) return;
    cuda_check(cudaMemcpy(host, buffer, n * sizeof(T), cudaMemcpyDeviceToHost), "copy");
    staging().drained();  // the stream has run everything before the copy
  }
  template <class T>
  static void copy_from_host(T* buffer, const T* host, size_t n) {
    if (!n) return;
    cuda_check(cudaMemcpy(buffer, host, n * sizeof(T), cudaMemcpyHostToDevice), "copy");
    staging().drained();  // from pageable memory the stream is synchronised before the copy
  }
  // A copy to the device that the host does not wait for: `host` goes into page-locked
  // staging memory at once (so it may be reused), and from there to the device in stream
  // order (cudaMemcpyAsync). A copy from pageable memory would wait for the stream. The
  // staging is reused after the next wait (copy_to_host, synchronize), which every step
  // has; when it is full, or cannot be had, the copy is the waiting one.
  template <class T>
  static void upload(T* buffer, const T* host, size_t n) {
    if (!n) return;
    const size_t bytes = n * sizeof(T);
    void* staged = staging().take(bytes);
    if (!staged) return copy_from_host(buffer, host, n);
    std::memcpy(staged, host, bytes);
    cuda_check(cudaMemcpyAsync(buffer, staged, bytes, cudaMemcpyHostToDevice, 0), "copy");
  }
  static void synchronize() {
    cuda_check(cudaDeviceSynchronize(), "synchronize");
    staging().drained();
  }

 private:
  // upload()'s page-locked memory, one per host thread (a thread's waits drain its own
  // copies whether its default stream is the legacy or a per-thread one).
  class Staging {
   public:
    ~Staging() {
      if (base_) cudaFreeHost(base_);  // (at exit the runtime may be gone: ignored)
    }
    // Room for `bytes` until the next wait, or nullptr.
    void* take(size_t bytes) {
      if (!base_ && !failed_) {
        void* p = nullptr;
        if (cudaHostAlloc(&p, kBytes, cudaHostAllocPortable) == cudaSuccess) {
          base_ = static_cast<char*>(p);
        } else {
          failed_ = true;  // no page-locked memory: every upload waits
          cudaGetLastError();
        }
      }
      const size_t at = (used_ + 255) & ~size_t(255);
      if (!base_ || at + bytes > kBytes) return nullptr;
      used_ = at + bytes;
      return base_ + at;
    }
    void drained() { used_ = 0; }

   private:
    static constexpr size_t kBytes = size_t(1) << 20;
    char* base_ = nullptr;
    size_t used_ = 0;
    bool failed_ = false;
  };
  static Staging& staging() {
    static thread_local Staging s;
    return s;
  }

 public:
};

}  // inline namespace TP_CUDA_NAMESPACE
}  // namespace tp
