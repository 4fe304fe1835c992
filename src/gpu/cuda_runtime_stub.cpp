// The runtime of a binary built without the CUDA backend (CUDA=OFF, or no nvcc found).
#include "gpu/cuda_runtime.h"

namespace tp {

namespace {
const char* kNotBuilt =
    "this binary was built without the CUDA backend; install the CUDA toolkit (nvcc) and "
    "rebuild with -DTIDEPOOL_CUDA=ON";

class StubRuntime final : public CudaRuntime {
 public:
  bool compiled() const override { return false; }
  int device_count(std::string* error) override {
    *error = kNotBuilt;
    return 0;
  }
  bool device_info(int, CudaDeviceInfo*, std::string* error) override {
    *error = kNotBuilt;
    return false;
  }
  bool probe_kernels(int, std::string* error) override {
    *error = kNotBuilt;
    return false;
  }
  bool register_gl_buffer(unsigned, void**, std::string* error) override {
    *error = kNotBuilt;
    return false;
  }
  void unregister_gl_buffer(void*) override {}
  void* map_gl_buffer(void*, size_t*, std::string* error) override {
    *error = kNotBuilt;
    return nullptr;
  }
  void unmap_gl_buffer(void*) override {}
};
}  // namespace

CudaRuntime& real_cuda_runtime() {
  static StubRuntime runtime;
  return runtime;
}

}  // namespace tp
