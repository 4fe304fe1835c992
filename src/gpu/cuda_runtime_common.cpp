#include "gpu/cuda_runtime.h"

namespace tp {

CudaRuntime& real_cuda_runtime();  // cuda_runtime_real.cu, or the stub without CUDA

namespace {
CudaRuntime* g_fake = nullptr;
}

CudaRuntime& cuda_runtime() { return g_fake ? *g_fake : real_cuda_runtime(); }
void set_cuda_runtime_for_testing(CudaRuntime* fake) { g_fake = fake; }

const char* cuda_architectures() {
#ifdef TP_CUDA_ARCHITECTURES
  return TP_CUDA_ARCHITECTURES;
#else
  return "";
#endif
}

}  // namespace tp
