// The CUDA backend's instantiation of the solver driver (nvcc): the same template code
// and kernel bodies as instantiate_cpu.cpp.
#include <memory>

#include "sim/backend_cuda.cuh"
#include "sim/wcsph.h"

namespace tp {

BackendInfo CudaBackend::describe() {
  int device = 0;
  cudaGetDevice(&device);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, device);
  return BackendInfo{BackendKind::Cuda, std::string("CUDA: ") + prop.name};
}

template class SimulationImpl<CudaBackend>;
template struct Wcsph<CudaBackend>;

std::unique_ptr<Simulation> make_cuda_simulation() {
  return std::make_unique<SimulationImpl<CudaBackend>>();
}

}  // namespace tp
