// The CUDA backend's instantiation of the solver driver (nvcc): the same template code
// and kernel bodies as instantiate_cpu.cpp. The solvers are instantiated in
// instantiate_cuda_solvers.cu, so that the two halves compile on two cores at once (nvcc
// took 3.7 minutes for the whole on one).
#include <memory>

#include "sim/backend/backend_cuda.cuh"
#include "sim/water/solvers.h"

namespace tp {

#define TP_EXTERN_SOLVER(type, name, label) extern template struct type<CudaBackend>;
TP_SOLVERS(TP_EXTERN_SOLVER)
#undef TP_EXTERN_SOLVER
template class SimulationImpl<CudaBackend>;

std::unique_ptr<Simulation> make_cuda_simulation() {
  return std::make_unique<SimulationImpl<CudaBackend>>();
}

}  // namespace tp
