// The CPU backend's instantiation of the gas simulation (g++, OpenMP), and make_gas_simulation.
#include <memory>

#include "sim/backend/backend_cpu.h"
#include "sim/gas/gas_solver.h"

namespace tp {

template class GasSolver<CpuBackend>;

std::unique_ptr<GasSimulation> make_cpu_gas_simulation() { return std::make_unique<GasSolver<CpuBackend>>(); }

#ifdef TP_HAVE_CUDA
std::unique_ptr<GasSimulation> make_cuda_gas_simulation();  // gas_cuda.cu
#endif

std::unique_ptr<GasSimulation> make_gas_simulation(BackendKind kind) {
  if (kind == BackendKind::Cpu) return make_cpu_gas_simulation();
#ifdef TP_HAVE_CUDA
  return make_cuda_gas_simulation();
#else
  throw_no_cuda_backend();
#endif
}

}  // namespace tp
