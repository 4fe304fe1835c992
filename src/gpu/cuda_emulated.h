// The emulated device: the subset of the CUDA runtime API that the CUDA backend
// (src/sim/backend/backend_cuda.cuh) calls, implemented on the host, so that g++ can compile the
// real CudaBackend and the tests can run it (src/sim/water/instantiate_cuda_emulated.cpp,
// tests/test_emulated_device.cpp). Not a second backend: the backend's own code runs, with
// its launches as host loops one particle at a time and Thrust on its CPP system.
//
// What makes it a device rather than host memory in disguise:
//  - cudaMalloc fills what it returns with garbage (0xFF bytes: NaN floats, huge counts),
//    as a real cudaMalloc's memory holds whatever was there: a kernel that reads before
//    writing shows it.
//  - Under AddressSanitizer every device allocation is poisoned except while the backend
//    works on it (DeviceAccess: its launches, scans, reductions and copies), so any host
//    read or write of device memory elsewhere fails the run with a report.
//  - Errors behave as the runtime's do: cudaGetLastError returns and clears the last one,
//    a fault (injected by a test) is sticky and every later call returns it.
// Tests also count what the backend does (launches, host waits, allocations) and inject
// failures: an allocation that fails, a launch that faults, an event not ready yet.
#pragma once

#include <cstddef>
#include <cstdint>

// What the runtime's headers would provide, in the namespace of the emulated backend
// (sim/backend/backend_cuda.cuh): its unqualified calls find these, and the toolkit's own
// declarations (which Thrust's headers may bring in) stay apart, as does the real runtime
// in a binary that links both. TP_HD (kernels/common.h) is empty under g++.
namespace tp {
inline namespace emulated_device {

using cudaStream_t = void*;

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchFailure = 719,
};

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
};

#ifndef cudaEventDefault  // a macro in the toolkit's driver_types.h
#define cudaEventDefault 0x00
#endif

struct EmulatedEvent;
using cudaEvent_t = EmulatedEvent*;

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  int major, minor;
  int multiProcessorCount;
};

const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
cudaError_t cudaMalloc(void** pointer, size_t bytes);
template <class T>
cudaError_t cudaMalloc(T** pointer, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(pointer), bytes);
}
cudaError_t cudaFree(void* pointer);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
// Stream-ordered: from page-locked host memory (cudaHostAlloc) the host does not wait;
// from pageable memory the runtime stages the copy and waits, as cudaMemcpy does.
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = nullptr);
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
cudaError_t cudaHostAlloc(void** pointer, size_t bytes, unsigned flags);
cudaError_t cudaFreeHost(void* pointer);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t stop);

namespace emulated_cuda {

// While one is alive the device's memory may be touched by the host: the backend's
// launches, scans, reductions and copies. Nested scopes are fine.
class DeviceAccess {
 public:
  DeviceAccess();
  ~DeviceAccess();
  DeviceAccess(const DeviceAccess&) = delete;
  DeviceAccess& operator=(const DeviceAccess&) = delete;
};

// A kernel launch (the backend's for_each): counted, and where a test asked for it the
// device faults here (cudaErrorIllegalAddress, sticky, seen at the next wait).
void launch_begun();
// The host waits for a value from the device (a reduction's result): counted.
void host_waited();

// What the backend has done since reset_counters().
struct Counters {
  uint64_t launches = 0;
  uint64_t allocations = 0;      ///< cudaMalloc calls that succeeded
  uint64_t frees = 0;
  uint64_t host_waits = 0;       ///< cudaDeviceSynchronize, cudaEventSynchronize, and
                                 ///< copies either way (cudaMemcpy from or to pageable
                                 ///< host memory waits for the stream)
  uint64_t copies_to_host = 0;
  uint64_t copies_to_device = 0;
  uint64_t async_copies = 0;     ///< cudaMemcpyAsync from page-locked memory: no wait
  /// Page-locked sources of cudaMemcpyAsync written to before the host next waited for
  /// the stream: a real device may copy them at any time until then, so it could read
  /// the new bytes (the emulated copy ran at once, with the old ones).
  uint64_t staging_overwritten = 0;
  uint64_t property_queries = 0; ///< cudaGetDeviceProperties
  size_t bytes_in_use = 0;       ///< device memory allocated now
  size_t peak_bytes = 0;
};
Counters counters();
void reset_counters();

// Failure injection (tests). All reset by reset_faults().
// (An allocation that fails: util/alloc_faults.h, shared with the CPU backend's buffers.)
// The device has this many bytes in all (cudaMemGetInfo, and cudaMalloc fails beyond it).
void set_device_memory(size_t total_bytes);
// The launch after `launches` more launches faults with cudaErrorIllegalAddress.
void fault_at_launch(long launches);
// cudaEventQuery answers cudaErrorNotReady `times` times (and, as some runtime versions
// do, leaves it as the last error).
void events_not_ready(int times);
void reset_faults();

// The device allocation that holds [pointer, pointer + bytes), if any (tests).
bool is_device_memory(const void* pointer, size_t bytes = 1);

}  // namespace emulated_cuda
}  // inline namespace emulated_device
}  // namespace tp
