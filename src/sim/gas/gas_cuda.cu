// The CUDA backend's instantiation of the gas simulation (nvcc): the same driver and
// kernels/gas.h bodies as gas_cpu.cpp.
#include <memory>

#include "sim/backend/backend_cuda.cuh"
#include "sim/gas/gas_solver.h"

namespace tp {

template class GasSolver<CudaBackend>;

std::unique_ptr<GasSimulation> make_cuda_gas_simulation() { return std::make_unique<GasSolver<CudaBackend>>(); }

}  // namespace tp
