// The emulated device's runtime (see cuda_emulated.h). Single device, one in-order stream:
// every launch has finished when it returns, so events are ready at once unless a test
// says otherwise.
#include "gpu/cuda_emulated.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <vector>

#include "util/alloc_faults.h"

#if defined(__SANITIZE_ADDRESS__)
#define TP_EMULATED_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TP_EMULATED_ASAN 1
#endif
#endif
#ifdef TP_EMULATED_ASAN
#include <sanitizer/asan_interface.h>
#define TP_POISON(p, n) __asan_poison_memory_region((p), (n))
#define TP_UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define TP_POISON(p, n) ((void)(p), (void)(n))
#define TP_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace tp {
inline namespace emulated_device {

struct EmulatedEvent {
  std::chrono::steady_clock::time_point time{};
  bool recorded = false;
};

namespace emulated_cuda {

namespace {

constexpr size_t kAlignment = 256;  // as cudaMalloc's
constexpr size_t kDefaultMemory = size_t(16) << 30;

struct Device {
  std::recursive_mutex mutex;
  std::map<const char*, size_t> allocations;  // start -> bytes
  std::map<const char*, size_t> pinned;       // page-locked host memory: start -> bytes
  int access_depth = 0;
  cudaError_t last_error = cudaSuccess;
  cudaError_t sticky_error = cudaSuccess;  // a fault: the context is lost
  Counters counters;
  size_t total_memory = kDefaultMemory;
  long fault_countdown = -1;
  int not_ready = 0;
  // Copies from page-locked memory the stream may not have reached yet: the source and
  // its bytes when the copy was issued (stream_reached checks them).
  struct InFlight {
    const char* source;
    std::vector<char> bytes;
  };
  std::vector<InFlight> in_flight;
};

Device& device() {
  static Device d;
  return d;
}

// The host waited for the stream: every copy issued before has run. A source written to
// since its copy was issued is a bug that the emulation's copy at issue would hide.
void stream_reached(Device& d) {
  for (const Device::InFlight& c : d.in_flight) {
    if (std::memcmp(c.source, c.bytes.data(), c.bytes.size()) == 0) continue;
    ++d.counters.staging_overwritten;
    std::fprintf(stderr, "emulated device: %zu bytes of page-locked memory were written before the stream "
                 "reached their cudaMemcpyAsync\n", c.bytes.size());
  }
  d.in_flight.clear();
}

void poison_all(Device& d) {
  for (const auto& [start, bytes] : d.allocations) TP_POISON(start, bytes);
}
void unpoison_all(Device& d) {
  for (const auto& [start, bytes] : d.allocations) TP_UNPOISON(start, bytes);
}

// The call's result as the runtime reports it: a lost context answers every call with
// its fault, and errors are remembered for cudaGetLastError.
cudaError_t report(cudaError_t e) {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (d.sticky_error != cudaSuccess) e = d.sticky_error;
  if (e != cudaSuccess) d.last_error = e;
  return e;
}

bool find(Device& d, const void* pointer, size_t bytes) {
  const char* p = static_cast<const char*>(pointer);
  auto it = d.allocations.upper_bound(p);
  if (it == d.allocations.begin()) return false;
  --it;
  return p >= it->first && p + bytes <= it->first + it->second;
}

}  // namespace

DeviceAccess::DeviceAccess() {
  Device& d = device();
  d.mutex.lock();
  if (d.access_depth++ == 0) unpoison_all(d);
}

DeviceAccess::~DeviceAccess() {
  Device& d = device();
  if (--d.access_depth == 0) poison_all(d);
  d.mutex.unlock();
}

void launch_begun() {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  ++d.counters.launches;
  if (d.fault_countdown >= 0 && d.fault_countdown-- == 0) d.sticky_error = cudaErrorIllegalAddress;
}

void host_waited() {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  ++d.counters.host_waits;
  stream_reached(d);
}

Counters counters() {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  return d.counters;
}

void reset_counters() {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  const size_t in_use = d.counters.bytes_in_use;
  d.counters = Counters{};
  d.counters.bytes_in_use = d.counters.peak_bytes = in_use;
  d.in_flight.clear();  // (copies issued before are not this count's)
}

void set_device_memory(size_t total_bytes) {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  d.total_memory = total_bytes;
}

void fault_at_launch(long launches) {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  d.fault_countdown = launches;
}

void events_not_ready(int times) {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  d.not_ready = times;
}

void reset_faults() {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  d.total_memory = kDefaultMemory;
  d.fault_countdown = -1;
  d.not_ready = 0;
  d.sticky_error = d.last_error = cudaSuccess;  // a new context
  alloc_faults::disarm();
}

bool is_device_memory(const void* pointer, size_t bytes) {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  return find(d, pointer, bytes);
}

}  // namespace emulated_cuda

using emulated_cuda::Device;
using emulated_cuda::device;
using emulated_cuda::kAlignment;
using emulated_cuda::report;

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    default: return cudaGetErrorName(error);
  }
}

cudaError_t cudaGetLastError() {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  const cudaError_t e = d.sticky_error != cudaSuccess ? d.sticky_error : d.last_error;
  d.last_error = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError() {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  return d.sticky_error != cudaSuccess ? d.sticky_error : d.last_error;
}

cudaError_t cudaMalloc(void** pointer, size_t bytes) {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  *pointer = nullptr;
  if (d.sticky_error != cudaSuccess) return report(cudaSuccess);
  if (bytes == 0) return cudaSuccess;
  if (tp::alloc_faults::should_fail() || d.counters.bytes_in_use + bytes > d.total_memory)
    return report(cudaErrorMemoryAllocation);
  const size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  char* p = static_cast<char*>(std::aligned_alloc(kAlignment, rounded));
  if (!p) return report(cudaErrorMemoryAllocation);
  std::memset(p, 0xFF, rounded);  // garbage, as a real allocation holds
  d.allocations[p] = bytes;
  // The rounding's tail is never the buffer's: poisoned for good (DeviceAccess lifts
  // [p, p + bytes) only), so a kernel writing past its buffer is caught.
  TP_POISON(p + bytes, rounded - bytes);
  if (d.access_depth == 0) TP_POISON(p, bytes);
  ++d.counters.allocations;
  d.counters.bytes_in_use += bytes;
  if (d.counters.bytes_in_use > d.counters.peak_bytes) d.counters.peak_bytes = d.counters.bytes_in_use;
  *pointer = p;
  return cudaSuccess;
}

cudaError_t cudaFree(void* pointer) {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (!pointer) return cudaSuccess;
  auto it = d.allocations.find(static_cast<const char*>(pointer));
  if (it == d.allocations.end()) return report(cudaErrorInvalidDevicePointer);
  TP_UNPOISON(pointer, (it->second + kAlignment - 1) / kAlignment * kAlignment);
  d.counters.bytes_in_use -= it->second;
  d.allocations.erase(it);
  ++d.counters.frees;
  std::free(pointer);
  return cudaSuccess;  // (a real cudaFree also waits for the device)
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (d.sticky_error != cudaSuccess) return report(cudaSuccess);
  const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  if ((src_device && !emulated_cuda::find(d, src, bytes)) ||
      (dst_device && !emulated_cuda::find(d, dst, bytes)) ||
      (!src_device && emulated_cuda::find(d, src, 1)) ||
      (!dst_device && emulated_cuda::find(d, dst, 1)))
    return report(cudaErrorInvalidValue);  // a pointer on the wrong side
  stream_reached(d);  // (either way, a copy with pageable memory waits for the stream)
  if (kind == cudaMemcpyDeviceToHost) {
    ++d.counters.copies_to_host;
    ++d.counters.host_waits;
  }
  // From pageable memory (all of Tidepool's), a copy to the device also waits for the
  // work before it: a host wait too.
  if (kind == cudaMemcpyHostToDevice) {
    ++d.counters.copies_to_device;
    ++d.counters.host_waits;
  }
  emulated_cuda::DeviceAccess access;
  std::memcpy(dst, src, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t) {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  const void* host = kind == cudaMemcpyHostToDevice ? src : kind == cudaMemcpyDeviceToHost ? dst : nullptr;
  bool pinned = false;
  if (host) {
    auto it = d.pinned.upper_bound(static_cast<const char*>(host));
    pinned = it != d.pinned.begin() && static_cast<const char*>(host) + bytes <= std::prev(it)->first + std::prev(it)->second;
  }
  if (!host || !pinned) return cudaMemcpy(dst, src, bytes, kind);  // staged: waits as cudaMemcpy does
  if (d.sticky_error != cudaSuccess) return report(cudaSuccess);
  const bool src_device = kind == cudaMemcpyDeviceToHost;
  if ((src_device && !emulated_cuda::find(d, src, bytes)) || (!src_device && !emulated_cuda::find(d, dst, bytes)))
    return report(cudaErrorInvalidValue);
  ++d.counters.async_copies;
  if (src_device)
    ++d.counters.copies_to_host;
  else
    ++d.counters.copies_to_device;
  if (!src_device) {  // (a copy to the host is not checked: its reads cannot be seen)
    const char* source = static_cast<const char*>(src);
    d.in_flight.push_back(Device::InFlight{source, std::vector<char>(source, source + bytes)});
  }
  emulated_cuda::DeviceAccess access;  // the emulated stream has run all before it: copy now
  std::memcpy(dst, src, bytes);
  return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** pointer, size_t bytes, unsigned) {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  *pointer = bytes ? std::malloc(bytes) : nullptr;
  if (!*pointer) return report(cudaErrorMemoryAllocation);
  d.pinned[static_cast<const char*>(*pointer)] = bytes;
  return report(cudaSuccess);
}

cudaError_t cudaFreeHost(void* pointer) {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (!pointer) return cudaSuccess;
  auto it = d.pinned.find(static_cast<const char*>(pointer));
  if (it == d.pinned.end()) return report(cudaErrorInvalidValue);
  stream_reached(d);  // (cudaFreeHost waits for the device)
  d.pinned.erase(it);
  std::free(pointer);
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  *total_bytes = d.total_memory;
  *free_bytes = d.total_memory - std::min(d.total_memory, d.counters.bytes_in_use);
  return report(cudaSuccess);
}

cudaError_t cudaDeviceSynchronize() {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  ++d.counters.host_waits;
  stream_reached(d);
  return report(cudaSuccess);
}

cudaError_t cudaGetDevice(int* device_index) {
  *device_index = 0;
  return report(cudaSuccess);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device_index) {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  ++d.counters.property_queries;
  if (device_index != 0) return report(cudaErrorInvalidValue);
  *prop = cudaDeviceProp{};
  std::strcpy(prop->name, "Emulated device");
  prop->totalGlobalMem = d.total_memory;
  prop->major = 8;
  prop->minor = 6;
  prop->multiProcessorCount = 1;
  return report(cudaSuccess);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned) {
  *event = new EmulatedEvent;
  return report(cudaSuccess);
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  if (!event) return report(cudaErrorInvalidResourceHandle);
  event->time = std::chrono::steady_clock::now();
  event->recorded = true;
  return report(cudaSuccess);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  ++d.counters.host_waits;
  if (!event) return report(cudaErrorInvalidResourceHandle);
  stream_reached(d);  // (the events are recorded at the stream's end: all before has run)
  return report(cudaSuccess);
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  Device& d = device();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (!event) return report(cudaErrorInvalidResourceHandle);
  if (d.sticky_error == cudaSuccess && d.not_ready > 0) {
    --d.not_ready;
    d.last_error = cudaErrorNotReady;  // as some runtime versions leave it
    return cudaErrorNotReady;
  }
  stream_reached(d);
  return report(cudaSuccess);
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t stop) {
  if (!start || !stop || !start->recorded || !stop->recorded)
    return report(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(stop->time - start->time).count();
  return report(cudaSuccess);
}

}  // inline namespace emulated_device
}  // namespace tp
