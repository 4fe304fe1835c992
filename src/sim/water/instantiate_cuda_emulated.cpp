// The emulated device's instantiation of the solver driver (g++, tests only): the CUDA
// backend's own code (src/sim/backend/backend_cuda.cuh) over the host shim of the runtime
// (src/gpu/cuda_emulated.h). See tests/test_emulated_device.cpp.
#define TP_CUDA_EMULATED 1

#include <memory>

#include "sim/backend/backend_cuda.cuh"
#include "sim/water/solvers.h"

namespace tp {

template class SimulationImpl<CudaBackend>;
#define TP_INSTANTIATE_SOLVER(type, name, label) template struct type<CudaBackend>;
TP_SOLVERS(TP_INSTANTIATE_SOLVER)
#undef TP_INSTANTIATE_SOLVER

std::unique_ptr<Simulation> make_emulated_cuda_simulation() {
  return std::make_unique<SimulationImpl<CudaBackend>>();
}

}  // namespace tp
