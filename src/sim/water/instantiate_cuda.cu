// The CUDA backend's instantiation of the solver driver (nvcc): the same template code
// and kernel bodies as instantiate_cpu.cpp.
#include <memory>

#include "sim/backend/backend_cuda.cuh"
#include "sim/water/solvers.h"

namespace tp {

template class SimulationImpl<CudaBackend>;
#define TP_INSTANTIATE_SOLVER(type, name, label) template struct type<CudaBackend>;
TP_SOLVERS(TP_INSTANTIATE_SOLVER)
#undef TP_INSTANTIATE_SOLVER

std::unique_ptr<Simulation> make_cuda_simulation() {
  return std::make_unique<SimulationImpl<CudaBackend>>();
}

}  // namespace tp
