// The emulated device's instantiation of the gas simulation (g++, tests only): the CUDA
// backend's own code (src/sim/backend/backend_cuda.cuh) over the host shim of the runtime
// (src/gpu/cuda_emulated.h). See tests/test_emulated_device.cpp.
#define TP_CUDA_EMULATED 1

#include <memory>

#include "sim/backend/backend_cuda.cuh"
#include "sim/gas/gas_solver.h"

namespace tp {

template class GasSolver<CudaBackend>;

std::unique_ptr<GasSimulation> make_emulated_cuda_gas_simulation() {
  return std::make_unique<GasSolver<CudaBackend>>();
}

}  // namespace tp
