// The real CUDA runtime behind the seam (compiled by nvcc when the CUDA backend is built).
#include <cuda_runtime_api.h>
#include <cuda_gl_interop.h>

#include <string>

#include "gpu/cuda_runtime.h"

namespace tp {

namespace {

__global__ void probe_kernel(int* out) { *out = 42; }

std::string describe(cudaError_t e) {
  std::string s = std::string(cudaGetErrorString(e)) + " (" + cudaGetErrorName(e) + ")";
  if (e == cudaErrorInsufficientDriver)
    s = "the NVIDIA driver is missing or older than this CUDA runtime (" + s + ")";
  else if (e == cudaErrorNoDevice)
    s = "no CUDA-capable device was found (" + s + ")";
  else if (e == cudaErrorStubLibrary)
    s = "only the CUDA stub library is installed, not a driver (" + s + ")";
  return s;
}

class RealRuntime final : public CudaRuntime {
 public:
  bool compiled() const override { return true; }

  int device_count(std::string* error) override {
    int count = 0;  // left untouched by the runtime when it fails
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
      cudaGetLastError();  // clear the sticky error
      *error = describe(e);
      return 0;
    }
    if (count == 0) *error = "no CUDA-capable device was found";
    return count;
  }

  bool device_info(int device, CudaDeviceInfo* info, std::string* error) override {
    cudaDeviceProp prop{};
    const cudaError_t e = cudaGetDeviceProperties(&prop, device);
    if (e != cudaSuccess) {
      *error = describe(e);
      return false;
    }
    info->name = prop.name;
    info->major = prop.major;
    info->minor = prop.minor;
    info->memory_bytes = prop.totalGlobalMem;
    // Free memory is the current device's: ask it there, and put the current one back.
    int current = 0;
    size_t free_bytes = 0, total = 0;
    if (cudaGetDevice(&current) == cudaSuccess && cudaSetDevice(device) == cudaSuccess &&
        cudaMemGetInfo(&free_bytes, &total) == cudaSuccess)
      info->free_bytes = free_bytes;
    else
      cudaGetLastError();  // unknown: the total bounds the budget instead
    cudaSetDevice(current);
    return true;
  }

  int current_device() override {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return device;
  }

  bool probe_kernels(int device, std::string* error) override {
    cudaError_t e = cudaSetDevice(device);
    int* out = nullptr;
    if (e == cudaSuccess) e = cudaMalloc(&out, sizeof(int));
    if (e == cudaSuccess) {
      probe_kernel<<<1, 1>>>(out);
      e = cudaGetLastError();
      if (e == cudaSuccess) e = cudaDeviceSynchronize();
    }
    if (out) cudaFree(out);
    if (e != cudaSuccess) {
      *error = describe(e);
      return false;
    }
    return true;
  }

  bool register_gl_buffer(unsigned gl_buffer, void** handle, std::string* error) override {
    cudaGraphicsResource* resource = nullptr;
    const cudaError_t e = cudaGraphicsGLRegisterBuffer(&resource, gl_buffer,
                                                       cudaGraphicsRegisterFlagsWriteDiscard);
    if (e != cudaSuccess) {
      cudaGetLastError();
      *error = describe(e);
      return false;
    }
    *handle = resource;
    return true;
  }

  void unregister_gl_buffer(void* handle) override {
    if (handle) cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource*>(handle));
  }

  void* map_gl_buffer(void* handle, size_t* bytes, std::string* error) override {
    auto* resource = static_cast<cudaGraphicsResource*>(handle);
    cudaError_t e = cudaGraphicsMapResources(1, &resource);
    if (e != cudaSuccess) {
      cudaGetLastError();
      *error = describe(e);
      return nullptr;
    }
    void* pointer = nullptr;
    e = cudaGraphicsResourceGetMappedPointer(&pointer, bytes, resource);
    if (e != cudaSuccess) {
      cudaGetLastError();
      cudaGraphicsUnmapResources(1, &resource);  // mapped above: give it back to GL
      *error = describe(e);
      return nullptr;
    }
    return pointer;
  }

  int gl_device(std::string* error) override {
    unsigned count = 0;
    int devices[4] = {-1, -1, -1, -1};
    const cudaError_t e = cudaGLGetDevices(&count, devices, 4, cudaGLDeviceListAll);
    if (e != cudaSuccess || count == 0) {
      cudaGetLastError();
      *error = e != cudaSuccess ? describe(e) : "OpenGL does not run on a CUDA device";
      return -1;
    }
    return devices[0];
  }

  bool use_device(int device, std::string* error) override {
    const cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess) {
      cudaGetLastError();
      *error = describe(e);
      return false;
    }
    return true;
  }

  void unmap_gl_buffer(void* handle) override {
    auto* resource = static_cast<cudaGraphicsResource*>(handle);
    cudaGraphicsUnmapResources(1, &resource);
  }
};

}  // namespace

CudaRuntime& real_cuda_runtime() {
  static RealRuntime runtime;
  return runtime;
}

}  // namespace tp
