// Backend choice with injected CUDA failures: the fallbacks work on a machine without a GPU.
#include <gtest/gtest.h>

#include "sim/backend_select.h"

using namespace tp;

namespace {

class FakeRuntime : public CudaRuntime {
 public:
  bool built = true;
  int devices = 1;
  std::string count_error;
  bool kernels_ok = true;
  bool compiled() const override { return built; }
  int device_count(std::string* error) override {
    if (!built) *error = "this binary was built without the CUDA backend";
    else if (devices == 0) *error = count_error;
    return built ? devices : 0;
  }
  bool device_info(int, CudaDeviceInfo* info, std::string*) override {
    info->name = "Fake GPU";
    info->major = 6;
    info->minor = 1;
    return true;
  }
  bool probe_kernels(int, std::string* error) override {
    if (!kernels_ok) *error = "no kernel image is available for execution on the device";
    return kernels_ok;
  }
  bool register_gl_buffer(unsigned, void**, std::string*) override { return false; }
  void unregister_gl_buffer(void*) override {}
  void* map_gl_buffer(void*, size_t*, std::string*) override { return nullptr; }
  void unmap_gl_buffer(void*) override {}
};

}  // namespace

TEST(BackendSelect, AutoUsesCudaWhenADeviceAnswers) {
  FakeRuntime rt;
  const BackendChoice c = choose_backend(BackendRequest::Auto, rt);
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.kind, BackendKind::Cuda);
  EXPECT_NE(c.message.find("Fake GPU"), std::string::npos) << c.message;
}

TEST(BackendSelect, NoDriverFallsBackToCpuWithTheReason) {
  FakeRuntime rt;
  rt.devices = 0;
  rt.count_error = "the NVIDIA driver is missing (cudaErrorInsufficientDriver)";
  const BackendChoice c = choose_backend(BackendRequest::Auto, rt);
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.kind, BackendKind::Cpu);
  EXPECT_NE(c.message.find("cudaErrorInsufficientDriver"), std::string::npos) << c.message;
  EXPECT_EQ(c.message.find('\n'), std::string::npos) << "one line";
  const BackendChoice forced = choose_backend(BackendRequest::Cuda, rt);
  EXPECT_FALSE(forced.ok);
  EXPECT_NE(forced.message.find("driver"), std::string::npos) << forced.message;
}

TEST(BackendSelect, NoDeviceFallsBack) {
  FakeRuntime rt;
  rt.devices = 0;
  const BackendChoice c = choose_backend(BackendRequest::Auto, rt);
  EXPECT_EQ(c.kind, BackendKind::Cpu);
  EXPECT_NE(c.message.find("no CUDA-capable device"), std::string::npos) << c.message;
}

TEST(BackendSelect, MissingKernelImageNamesTheArchitectureToBuildFor) {
  FakeRuntime rt;
  rt.kernels_ok = false;
  const BackendChoice c = choose_backend(BackendRequest::Auto, rt);
  EXPECT_EQ(c.kind, BackendKind::Cpu);
  EXPECT_NE(c.message.find("compute capability 6.1"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("TIDEPOOL_CUDA_ARCHITECTURES=61"), std::string::npos) << c.message;
  EXPECT_FALSE(choose_backend(BackendRequest::Cuda, rt).ok);
}

TEST(BackendSelect, NotCompiledInIsExplained) {
  FakeRuntime rt;
  rt.built = false;
  const BackendChoice c = choose_backend(BackendRequest::Auto, rt);
  EXPECT_EQ(c.kind, BackendKind::Cpu);
  EXPECT_NE(c.message.find("without the CUDA backend"), std::string::npos) << c.message;
  EXPECT_FALSE(choose_backend(BackendRequest::Cuda, rt).ok);
  EXPECT_TRUE(choose_backend(BackendRequest::Cpu, rt).ok);
}

TEST(BackendSelect, TheRealRuntimeOnThisMachineNeverCrashes) {
  // Whatever this machine has (no GPU here; a GPU elsewhere), auto gives a usable choice.
  const BackendChoice c = choose_backend(BackendRequest::Auto, cuda_runtime());
  EXPECT_TRUE(c.ok) << c.message;
  EXPECT_FALSE(c.message.empty());
  auto sim = make_simulation(c.kind);
  EXPECT_NE(sim, nullptr);
}
