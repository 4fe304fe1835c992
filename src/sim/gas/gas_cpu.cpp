// The CPU backend's instantiation of the gas simulation (g++, OpenMP).
#include <memory>

#include "sim/backend/backend_cpu.h"
#include "sim/gas/gas_solver.h"

namespace tp {

template class GasSolver<CpuBackend>;

std::unique_ptr<GasSimulation> make_cpu_gas_simulation() { return std::make_unique<GasSolver<CpuBackend>>(); }

}  // namespace tp
