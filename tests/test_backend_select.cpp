// Backend choice with injected CUDA failures: the fallbacks work on a machine without a GPU.
#include <gtest/gtest.h>

#include "sim/backend/backend_select.h"
#include "sim/backend/memory.h"
#include "sim/water/simulation.h"

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
  size_t total = 0, free = 0;
  size_t free_on_other = 0;  ///< what device 1 has free (device 0: free)
  bool device_info(int device, CudaDeviceInfo* info, std::string*) override {
    info->name = "Fake GPU";
    info->major = 6;
    info->minor = 1;
    info->memory_bytes = total;
    info->free_bytes = device == 1 ? free_on_other : free;
    return true;
  }
  int current_device() override { return current; }
  bool probe_kernels(int device, std::string* error) override {
    current = device;  // as the real probe's cudaSetDevice
    if (!kernels_ok) *error = "no kernel image is available for execution on the device";
    return kernels_ok;
  }
  bool register_gl_buffer(unsigned, void**, std::string*) override { return false; }
  void unregister_gl_buffer(void*) override {}
  void* map_gl_buffer(void*, size_t*, std::string*) override { return nullptr; }
  void unmap_gl_buffer(void*) override {}
  int gl = -1;             ///< the device OpenGL runs on
  int current = 0;
  int gl_device(std::string* error) override {
    if (gl < 0) *error = "OpenGL is not on an NVIDIA GPU";
    return gl;
  }
  bool use_device(int device, std::string*) override {
    current = device;
    return true;
  }
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
  EXPECT_NE(c.message.find("CUDA 12 toolkit"), std::string::npos) << "older than nvcc 13 builds";
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

// The CUDA memory budget is what the device has free, not its total (a desktop's display
// and other programs hold part of it); the total where the free memory is unknown.
TEST(BackendSelect, TheDeviceBudgetIsItsFreeMemory) {
  FakeRuntime rt;
  rt.total = size_t(8) << 30;
  rt.free = size_t(1) << 30;
  set_cuda_runtime_for_testing(&rt);
  const uint64_t host = available_memory_bytes();
  EXPECT_EQ(memory_budget_bytes(BackendKind::Cuda), std::min<uint64_t>(host, rt.free));
  rt.free = 0;
  EXPECT_EQ(memory_budget_bytes(BackendKind::Cuda), std::min<uint64_t>(host, rt.total));
  // Moved to the GPU that runs OpenGL (device 1): that device's free memory.
  rt.free = size_t(1) << 30;
  rt.free_on_other = size_t(3) << 28;
  rt.current = 1;
  EXPECT_EQ(memory_budget_bytes(BackendKind::Cuda), std::min<uint64_t>(host, rt.free_on_other));
  set_cuda_runtime_for_testing(nullptr);
}

// After the window: the simulation goes to the GPU that runs OpenGL when CUDA can use
// it (the interop needs that), stays where it is otherwise, and says why in one line.
TEST(BackendSelect, TheInteropDeviceIsTheOneRunningOpenGL) {
  FakeRuntime rt;
  std::string note;
  rt.gl = 0;
  EXPECT_EQ(interop_device(rt, 0, &note), 0);
  EXPECT_EQ(note, "") << "nothing to say when OpenGL is on the device in use";
  rt.gl = 1;
  EXPECT_EQ(interop_device(rt, 0, &note), 1);
  EXPECT_NE(note.find("device 1"), std::string::npos) << note;
  EXPECT_NE(note.find("without a copy"), std::string::npos) << note;
  rt.kernels_ok = false;  // that GPU cannot run this build
  EXPECT_EQ(interop_device(rt, 0, &note), 0);
  EXPECT_EQ(rt.current, 0) << "the probe's device change is undone";
  EXPECT_NE(note.find("cannot run this build"), std::string::npos) << note;
  rt.gl = -1;  // OpenGL in software or on another vendor's GPU
  EXPECT_EQ(interop_device(rt, 0, &note), 0);
  EXPECT_NE(note.find("copied through the host"), std::string::npos) << note;
  EXPECT_EQ(note.find('\n'), std::string::npos);
}
