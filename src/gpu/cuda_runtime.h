// The one seam through which Tidepool reaches the CUDA runtime for anything that can fail
// on a user's machine: finding a device, checking that this binary has code for it, and
// sharing GL buffers (interop). Plain C++, no CUDA headers, so the CPU-only build and the
// tests compile it; tests replace the runtime with a fake that injects failures.
#pragma once

#include <cstddef>
#include <string>

namespace tp {

struct CudaDeviceInfo {
  std::string name;
  int major = 0, minor = 0;  ///< compute capability
  size_t memory_bytes = 0;
  /// what the device has free now (a desktop's display and other programs hold some of
  /// it); 0 = unknown
  size_t free_bytes = 0;
};

class CudaRuntime {
 public:
  virtual ~CudaRuntime() = default;
  // Whether this binary has the CUDA backend at all.
  virtual bool compiled() const = 0;
  // Number of usable devices; on failure 0 and a reason ("CUDA driver is missing or too
  // old (cudaErrorInsufficientDriver)").
  virtual int device_count(std::string* error) = 0;
  virtual bool device_info(int device, CudaDeviceInfo* info, std::string* error) = 0;
  // Runs a trivial kernel on the device: fails with cudaErrorNoKernelImageForDevice when the
  // binary holds neither code nor PTX that the device can run.
  virtual bool probe_kernels(int device, std::string* error) = 0;
  // CUDA-GL interop on a GL buffer object. A handle is opaque; map gives a device pointer.
  virtual bool register_gl_buffer(unsigned gl_buffer, void** handle, std::string* error) = 0;
  virtual void unregister_gl_buffer(void* handle) = 0;
  virtual void* map_gl_buffer(void* handle, size_t* bytes, std::string* error) = 0;
  virtual void unmap_gl_buffer(void* handle) = 0;
  // The CUDA device that runs the current OpenGL context (cudaGLGetDevices: needs that
  // context current), or -1 with a reason (OpenGL on another vendor's GPU, in software).
  virtual int gl_device(std::string* error) {
    *error = "not asked";
    return -1;
  }
  // The device this thread's CUDA work runs on (cudaGetDevice): 0 unless use_device moved it.
  virtual int current_device() { return 0; }
  // Makes `device` the one this thread's CUDA work runs on (cudaSetDevice).
  virtual bool use_device(int device, std::string* error) {
    (void)device;
    *error = "not available";
    return false;
  }
};

// The runtime in use: the real one (or, without CUDA compiled in, one that says so),
// unless a test has installed a fake.
CudaRuntime& cuda_runtime();
// Installs `fake` (not owned) for tests; nullptr restores the real runtime.
void set_cuda_runtime_for_testing(CudaRuntime* fake);

// The CUDA architectures compiled into this binary, as CMake listed them ("75-real;120").
const char* cuda_architectures();

}  // namespace tp
