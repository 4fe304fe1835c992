// On a machine with an NVIDIA GPU (label gpu): every shipped scene on every solver, the
// real CUDA backend beside the CPU backend, the same checks as the emulated device's
// (tests/backend_comparison.h). Skipped with the reason without a usable GPU.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "backend_comparison.h"
#include "sim/backend/backend_select.h"

namespace tp {
namespace {

// Device memory for the publish targets: the real runtime's.
struct RealMemory {
  static void* allocate(size_t bytes) {
    void* p = nullptr;
    return cudaMalloc(&p, bytes) == cudaSuccess ? p : nullptr;
  }
  static void release(void* p) {
    if (p) cudaFree(p);
  }
  static void copy_to_host(void* host, const void* device, size_t bytes) {
    EXPECT_EQ(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  }
};

class GpuScene : public testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(GpuScene, MatchesTheCpuBackend) {
  const BackendChoice choice = choose_backend(BackendRequest::Cuda, cuda_runtime());
  if (!choice.ok) GTEST_SKIP() << "no usable CUDA device here: " << choice.message;
  const auto& [name, solver] = GetParam();
  test::compare_with_cpu<RealMemory>(
      name, solver, [] { return make_simulation(BackendKind::Cuda); }, /*real_device=*/true);
}

INSTANTIATE_TEST_SUITE_P(Scenes, GpuScene, testing::ValuesIn(test::every_scene_and_solver()),
                         test::scene_solver_name);

// The window's asynchronous step on the real device: the runner's thread (not the one that
// made the simulation) steps it and publishes to the host (backend_comparison.h).
TEST(Gpu, TheRunnersThreadStepsTheDevice) {
  const BackendChoice choice = choose_backend(BackendRequest::Cuda, cuda_runtime());
  if (!choice.ok) GTEST_SKIP() << "no usable CUDA device here: " << choice.message;
  test::check_runner_thread(make_simulation(BackendKind::Cuda));
}

// The gas on the real device against the CPU backend (the emulated device's test, on a GPU).
TEST(GpuGas, MatchesTheCpuBackend) {
  const BackendChoice choice = choose_backend(BackendRequest::Cuda, cuda_runtime());
  if (!choice.ok) GTEST_SKIP() << "no usable CUDA device here: " << choice.message;
  test::compare_gas_with_cpu<RealMemory>([] { return make_gas_simulation(BackendKind::Cuda); });
}

}  // namespace
}  // namespace tp
