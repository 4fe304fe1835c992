// Publishing particles into the GL buffer, without GL or a GPU: a fake CUDA runtime and a
// fake GL buffer drive CUDA-GL interop through every path (refused, accepted, growing) and
// check that the CPU backend never touches the CUDA runtime.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../sim_helpers.h"
#include "app/gl_publish_target.h"
#include "app/interop_publisher.h"

using namespace tp;

namespace {

constexpr unsigned kGlName = 7;

// A GL buffer in host memory that records what the publisher does with it.
class FakeBuffer : public PublishBuffer {
 public:
  std::vector<Vec4> store;
  size_t drawn = 0;  ///< particles the renderer would draw
  int reserves = 0, host_maps = 0, host_unmaps = 0;
  bool host_mapped = false;
  size_t host_pending = 0;

  unsigned gl_name() const override { return kGlName; }
  size_t capacity() const override { return store.size(); }
  void reserve(size_t count) override {
    ++reserves;
    if (count > store.size()) store.resize(count);
  }
  Vec4* map_host(size_t count) override {
    ++host_maps;
    if (count == 0) return nullptr;
    reserve(count);
    host_mapped = true;
    host_pending = count;
    return store.data();
  }
  void unmap_host() override {
    ++host_unmaps;
    host_mapped = false;
    drawn = host_pending;
  }
  void set_count(size_t count) override { drawn = count; }
};

// A CUDA runtime whose interop can be refused at registration or at mapping. A mapping
// reports the size of the store as it was when the buffer was registered, as CUDA does.
class FakeRuntime : public CudaRuntime {
 public:
  explicit FakeRuntime(const FakeBuffer* buffer = nullptr) : buffer_(buffer) {}
  bool accept_register = true;
  bool accept_map = true;
  std::string register_error = "operation not supported (cudaErrorNotSupported)";
  std::string map_error = "unknown error (cudaErrorUnknown)";
  int registers = 0, unregisters = 0, maps = 0, unmaps = 0, others = 0;
  std::vector<unsigned> registered_names;
  int live_registrations = 0;
  bool mapped = false;
  Vec4 device_memory[1];  ///< stands for device memory; the tests only compare the address

  int calls() const { return registers + unregisters + maps + unmaps + others; }
  void* device_pointer() { return device_memory; }

  bool compiled() const override { return true; }
  int device_count(std::string*) override { return ++others, 1; }
  bool device_info(int, CudaDeviceInfo*, std::string*) override { return ++others, true; }
  bool probe_kernels(int, std::string*) override { return ++others, true; }
  bool register_gl_buffer(unsigned gl_buffer, void** handle, std::string* error) override {
    ++registers;
    if (!accept_register) {
      *error = register_error;
      return false;
    }
    registered_names.push_back(gl_buffer);
    registered_bytes_ = buffer_ ? buffer_->capacity() * sizeof(Vec4) : 0;
    ++live_registrations;
    *handle = &handle_;
    return true;
  }
  void unregister_gl_buffer(void* handle) override {
    ++unregisters;
    EXPECT_EQ(handle, &handle_);
    EXPECT_FALSE(mapped) << "unregistered while mapped";
    --live_registrations;
  }
  void* map_gl_buffer(void* handle, size_t* bytes, std::string* error) override {
    ++maps;
    EXPECT_EQ(handle, &handle_);
    EXPECT_EQ(live_registrations, 1) << "mapped without a registration";
    if (!accept_map) {
      *error = map_error;
      return nullptr;
    }
    mapped = true;
    *bytes = registered_bytes_;
    return device_memory;
  }
  void unmap_gl_buffer(void* handle) override {
    ++unmaps;
    EXPECT_EQ(handle, &handle_);
    EXPECT_TRUE(mapped) << "unmapped without a map";
    mapped = false;
  }

 private:
  const FakeBuffer* buffer_;
  size_t registered_bytes_ = 0;
  int handle_ = 0;
};

int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// One frame of the CUDA backend's publish(): the device path when map_device gives a
// pointer, else one copy through the host (as SimulationImpl<CudaBackend>::publish does).
enum class Path { Device, Host, None };
Path publish_frame(PublishTarget& target, size_t n) {
  if (target.map_device(n)) {
    target.unmap();
    return Path::Device;
  }
  Vec4* out = target.map_host(n);
  if (!out) return Path::None;
  for (size_t i = 0; i < n; ++i) out[i] = make_vec4(make_vec3(float(i), 0, 0), 0);
  target.unmap();
  return Path::Host;
}

}  // namespace

TEST(Interop, RefusedRegistrationFallsBackToTheHostWithOneLineAndNoRetry) {
  FakeBuffer buffer;
  FakeRuntime runtime(&buffer);
  runtime.accept_register = false;
  testing::internal::CaptureStderr();
  {
    GlPublishTarget target(buffer, BackendKind::Cuda, runtime);
    for (int frame = 0; frame < 5; ++frame) {
      SCOPED_TRACE(testing::Message() << "frame " << frame);
      EXPECT_EQ(target.map_device(1000), nullptr);
      ASSERT_EQ(publish_frame(target, 1000), Path::Host);
      EXPECT_EQ(buffer.drawn, 1000u) << "the host copy is drawn";
    }
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(runtime.registers, 1) << "registration is not retried every frame";
  EXPECT_EQ(runtime.maps, 0);
  EXPECT_EQ(runtime.unregisters, 0) << "nothing was registered";
  EXPECT_EQ(occurrences(err, "CUDA-GL interop unavailable"), 1) << err;
  EXPECT_EQ(err,
            "tidepool: CUDA-GL interop unavailable (operation not supported "
            "(cudaErrorNotSupported)); copying particles through the host each frame\n");
  EXPECT_EQ(buffer.host_maps, 5);
  EXPECT_EQ(buffer.host_unmaps, 5);
}

TEST(Interop, RefusedMapFallsBackOnceAndUnregisters) {
  FakeBuffer buffer;
  FakeRuntime runtime(&buffer);
  runtime.accept_map = false;
  testing::internal::CaptureStderr();
  GlPublishTarget target(buffer, BackendKind::Cuda, runtime);
  for (int frame = 0; frame < 4; ++frame) EXPECT_EQ(publish_frame(target, 500), Path::Host);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(runtime.registers, 1);
  EXPECT_EQ(runtime.maps, 1) << "a failed map is not retried";
  EXPECT_EQ(runtime.live_registrations, 0)
      << "given up: unregistered so that the host path may reallocate the store";
  EXPECT_EQ(occurrences(err, "CUDA-GL interop unavailable (unknown error (cudaErrorUnknown))"), 1)
      << err;
  EXPECT_EQ(occurrences(err, "\n"), 1) << err;
  EXPECT_EQ(buffer.drawn, 500u);
}

TEST(Interop, AcceptedWritesOnTheDeviceAndReRegistersWhenTheBufferGrows) {
  FakeBuffer buffer;
  FakeRuntime runtime(&buffer);
  testing::internal::CaptureStderr();
  {
    GlPublishTarget target(buffer, BackendKind::Cuda, runtime);
    EXPECT_EQ(runtime.calls(), 0) << "nothing happens before the first publish";

    EXPECT_EQ(target.map_device(1000), runtime.device_pointer());
    EXPECT_GE(buffer.capacity(), 1000u) << "made large enough before registering";
    EXPECT_EQ(runtime.registered_names, std::vector<unsigned>{kGlName});
    EXPECT_TRUE(runtime.mapped);
    target.unmap();
    EXPECT_FALSE(runtime.mapped);
    EXPECT_EQ(runtime.unmaps, 1);
    EXPECT_EQ(buffer.drawn, 1000u) << "the renderer draws what the device wrote";

    // Same count, and fewer: the registration is kept.
    EXPECT_EQ(publish_frame(target, 1000), Path::Device);
    EXPECT_EQ(publish_frame(target, 800), Path::Device);
    EXPECT_EQ(buffer.drawn, 800u);
    EXPECT_EQ(runtime.registers, 1);
    EXPECT_EQ(runtime.maps, 3);
    EXPECT_EQ(runtime.unmaps, 3);

    // More particles than the store holds: unregister, grow, register again.
    EXPECT_EQ(publish_frame(target, 5000), Path::Device);
    EXPECT_GE(buffer.capacity(), 5000u);
    EXPECT_EQ(runtime.unregisters, 1);
    EXPECT_EQ(runtime.registers, 2);
    EXPECT_EQ(runtime.live_registrations, 1);
    EXPECT_EQ(buffer.drawn, 5000u);
    EXPECT_EQ(buffer.host_maps, 0) << "no host copy";
  }
  EXPECT_EQ(runtime.live_registrations, 0) << "the target unregisters when it goes";
  EXPECT_EQ(runtime.unregisters, 2);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << "interop works: nothing to say";
}

TEST(Interop, MappedBufferSmallerThanNeededFallsBack) {
  // The runtime reports the store's size at registration; a registration made before the
  // store was grown (a bug) must not let the solver write past its end.
  FakeBuffer buffer;
  FakeRuntime runtime;  // reports 0 bytes mapped
  testing::internal::CaptureStderr();
  GlPublishTarget target(buffer, BackendKind::Cuda, runtime);
  EXPECT_EQ(publish_frame(target, 10), Path::Host);
  EXPECT_EQ(publish_frame(target, 10), Path::Host);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(err, "CUDA-GL interop unavailable"), 1) << err;
  EXPECT_FALSE(runtime.mapped);
  EXPECT_EQ(runtime.live_registrations, 0);
}

TEST(Interop, ZeroParticlesNeedNoInterop) {
  FakeBuffer buffer;
  FakeRuntime runtime(&buffer);
  GlPublishTarget target(buffer, BackendKind::Cuda, runtime);
  EXPECT_EQ(target.map_device(0), nullptr);
  EXPECT_EQ(runtime.calls(), 0);
  EXPECT_EQ(publish_frame(target, 3), Path::Device) << "a later publish still tries interop";
}

TEST(Interop, CpuBackendNeverTouchesTheCudaRuntime) {
  FakeBuffer buffer;
  FakeRuntime runtime(&buffer);
  testing::internal::CaptureStderr();
  {
    GlPublishTarget target(buffer, BackendKind::Cpu, runtime);
    for (int frame = 0; frame < 3; ++frame) {
      EXPECT_EQ(target.map_device(100), nullptr);
      EXPECT_EQ(publish_frame(target, 100), Path::Host);
    }
    // A real CPU simulation's publish() through the same target.
    auto sim = test::cpu_sim(test::box_scene({0, 0, 0}, {0.4f, 0.4f, 0.4f}, {0, 0, 0},
                                             {0.2f, 0.2f, 0.2f}, 0.05f),
                             0.05f);
    ASSERT_GT(sim->particle_count(), 0u);
    sim->publish(target, ColorField::Speed);
    EXPECT_EQ(buffer.drawn, sim->particle_count());
    EXPECT_FALSE(buffer.host_mapped) << "publish unmapped the buffer";
  }
  EXPECT_EQ(runtime.calls(), 0) << "the CPU backend called the CUDA runtime";
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}
