// The CUDA backend's instantiation of the solvers' phases (nvcc), apart from the driver's
// (instantiate_cuda.cu) so that both compile at once.
#include "sim/backend/backend_cuda.cuh"
#include "sim/water/solvers.h"

namespace tp {

#define TP_INSTANTIATE_SOLVER(type, name, label) template struct type<CudaBackend>;
TP_SOLVERS(TP_INSTANTIATE_SOLVER)
#undef TP_INSTANTIATE_SOLVER

}  // namespace tp
