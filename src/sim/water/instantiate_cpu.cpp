// The CPU backend's instantiation of the solver driver (g++, OpenMP), and make_simulation.
#include <omp.h>

#include <memory>

#include "sim/backend/backend_cpu.h"
#include "sim/water/solvers.h"

namespace tp {

BackendInfo CpuBackend::describe() {
  // Short: the panel's Device line must stay one line (a wrapped line pushed the panel's
  // last rows below an 800-pixel window's edge).
#if TP_LANE_WIDTH
  const std::string lanes = lanes_enabled() ? std::string(", ") + kLaneIsa : "";
#else
  const std::string lanes;
#endif
  const int threads = omp_get_max_threads();
  return BackendInfo{BackendKind::Cpu, "CPU (OpenMP, " + std::to_string(threads) +
                                           (threads == 1 ? " thread" : " threads") + lanes + ")"};
}

template class SimulationImpl<CpuBackend>;
#define TP_INSTANTIATE_SOLVER(type, name, label) template struct type<CpuBackend>;
TP_SOLVERS(TP_INSTANTIATE_SOLVER)
#undef TP_INSTANTIATE_SOLVER

bool cpu_lanes() { return CpuBackend::lanes_enabled(); }
void set_cpu_lanes(bool on) { CpuBackend::set_lanes(on); }

std::unique_ptr<Simulation> make_cpu_simulation() {
  return std::make_unique<SimulationImpl<CpuBackend>>();
}

#ifdef TP_HAVE_CUDA
std::unique_ptr<Simulation> make_cuda_simulation();  // instantiate_cuda.cu
#endif

std::unique_ptr<Simulation> make_simulation(BackendKind kind) {
  if (kind == BackendKind::Cpu) return make_cpu_simulation();
#ifdef TP_HAVE_CUDA
  return make_cuda_simulation();
#else
  throw_no_cuda_backend();
#endif
}

}  // namespace tp
