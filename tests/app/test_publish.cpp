// Publishing particles into the GL buffer, without GL or a GPU: a fake CUDA runtime and a
// fake GL buffer drive CUDA-GL interop through every path (refused, accepted, growing) and
// check that the CPU backend never touches the CUDA runtime; the mesh's two buffers the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "../sim_helpers.h"
#include "app/window/gl_publish_target.h"
#include "app/window/interop_publisher.h"

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

// The mesh's two GL buffers (vertices, triangles) behind GlMeshTarget, with a runtime that
// keeps a registration per buffer.
namespace {

struct FakeStore final : InteropBuffer {
  FakeStore(unsigned name, size_t bytes) : name(name), bytes(bytes) {}
  unsigned name;
  size_t bytes, store = 0, drawn = 0;
  int reserves = 0;
  unsigned gl_name() const override { return name; }
  size_t capacity() const override { return store; }
  void reserve(size_t count) override { ++reserves, store = std::max(store, count); }
  void set_count(size_t count) override { drawn = count; }
  size_t element_bytes() const override { return bytes; }
};

struct FakeMeshBuffers final : MeshPublishBuffers {
  FakeStore vertex{11, 32}, triangle{12, 12};
  int uploads = 0;
  size_t uploaded_triangles = 0;
  InteropBuffer& vertices() override { return vertex; }
  InteropBuffer& triangles() override { return triangle; }
  void upload(const TriangleMesh& mesh) override { ++uploads, uploaded_triangles = mesh.triangle_count(); }
};

class TwoBufferRuntime final : public CudaRuntime {
 public:
  explicit TwoBufferRuntime(FakeMeshBuffers& buffers) : buffers_(buffers) {}
  unsigned refuse_register = 0, refuse_map = 0;  ///< the GL name refused, or 0
  std::map<unsigned, int> registered, mapped;    ///< live, by GL name
  int registers = 0, unregisters = 0, maps = 0, calls_other = 0;
  char memory[2][16];

  bool compiled() const override { return true; }
  int device_count(std::string*) override { return ++calls_other, 1; }
  bool device_info(int, CudaDeviceInfo*, std::string*) override { return ++calls_other, true; }
  bool probe_kernels(int, std::string*) override { return ++calls_other, true; }
  bool register_gl_buffer(unsigned name, void** handle, std::string* error) override {
    ++registers;
    if (name == refuse_register) return *error = "not supported", false;
    EXPECT_EQ(registered[name], 0) << "registered twice";
    registered[name] = 1;
    bytes_[name] = store(name).capacity() * store(name).element_bytes();
    *handle = &names_[name == 11 ? 0 : 1];
    return true;
  }
  void unregister_gl_buffer(void* handle) override {
    ++unregisters;
    const unsigned name = name_of(handle);
    EXPECT_EQ(mapped[name], 0) << "unregistered while mapped";
    registered[name] = 0;
  }
  void* map_gl_buffer(void* handle, size_t* bytes, std::string* error) override {
    ++maps;
    const unsigned name = name_of(handle);
    EXPECT_EQ(registered[name], 1);
    if (name == refuse_map) return *error = "map refused", nullptr;
    mapped[name] = 1;
    *bytes = bytes_[name];
    return memory[name == 11 ? 0 : 1];
  }
  void unmap_gl_buffer(void* handle) override {
    const unsigned name = name_of(handle);
    EXPECT_EQ(mapped[name], 1) << "unmapped without a map";
    mapped[name] = 0;
  }
  int live() { return registered[11] + registered[12]; }

 private:
  FakeStore& store(unsigned name) { return name == 11 ? buffers_.vertex : buffers_.triangle; }
  unsigned name_of(void* handle) { return handle == &names_[0] ? 11u : 12u; }
  FakeMeshBuffers& buffers_;
  std::map<unsigned, size_t> bytes_;
  int names_[2] = {0, 0};
};

TriangleMesh tetrahedron() {
  TriangleMesh m;
  m.position = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  m.normal = m.position;
  m.index = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
  return m;
}

}  // namespace

TEST(MeshInterop, BothBuffersMappedOnTheDeviceAndRegisteredAgainWhenTheyGrow) {
  FakeMeshBuffers buffers;
  TwoBufferRuntime runtime(buffers);
  testing::internal::CaptureStderr();
  {
    GlMeshTarget target(buffers, BackendKind::Cuda, runtime);
    Vec4* v = nullptr;
    uint32_t* t = nullptr;
    ASSERT_TRUE(target.map_device(1000, 1900, &v, &t));
    EXPECT_EQ(static_cast<void*>(v), runtime.memory[0]);
    EXPECT_EQ(static_cast<void*>(t), runtime.memory[1]);
    EXPECT_GE(buffers.vertex.capacity(), 1000u);
    EXPECT_GE(buffers.triangle.capacity(), 1900u);
    target.unmap();
    EXPECT_EQ(buffers.vertex.drawn, 1000u);
    EXPECT_EQ(buffers.triangle.drawn, 1900u) << "the renderer draws what the device wrote";
    EXPECT_EQ(runtime.live(), 2);
    // A smaller mesh keeps the registrations; a larger one registers the grown store.
    ASSERT_TRUE(target.map_device(900, 1800, &v, &t));
    target.unmap();
    EXPECT_EQ(runtime.registers, 2);
    ASSERT_TRUE(target.map_device(4000, 1800, &v, &t));
    target.unmap();
    EXPECT_EQ(runtime.registers, 3);
    EXPECT_EQ(runtime.unregisters, 1);
    EXPECT_GE(buffers.vertex.capacity(), 4000u);
    EXPECT_EQ(buffers.uploads, 0) << "no host copy";
    EXPECT_FALSE(target.interop_unavailable());
  }
  EXPECT_EQ(runtime.live(), 0) << "the target unregisters both when it goes";
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(MeshInterop, EitherBufferRefusedFallsBackToTheHostWithOneLine) {
  for (const bool index_buffer : {false, true}) {
    for (const bool at_map : {false, true}) {
      SCOPED_TRACE(testing::Message() << (index_buffer ? "index buffer" : "vertex buffer")
                                      << (at_map ? " refused at map" : " refused at registration"));
      FakeMeshBuffers buffers;
      TwoBufferRuntime runtime(buffers);
      const unsigned refused = index_buffer ? 12u : 11u;
      (at_map ? runtime.refuse_map : runtime.refuse_register) = refused;
      testing::internal::CaptureStderr();
      {
        GlMeshTarget target(buffers, BackendKind::Cuda, runtime);
        for (int frame = 0; frame < 3; ++frame) {
          Vec4* v = nullptr;
          uint32_t* t = nullptr;
          EXPECT_FALSE(target.map_device(1000, 1900, &v, &t));
          target.upload(tetrahedron());
        }
        EXPECT_TRUE(target.interop_unavailable());
        EXPECT_EQ(runtime.live(), 0) << "the other buffer is not left registered";
        EXPECT_EQ(runtime.mapped[11] + runtime.mapped[12], 0) << "nor mapped";
        EXPECT_EQ(buffers.uploads, 3);
        EXPECT_EQ(buffers.uploaded_triangles, 4u);
      }
      const std::string err = testing::internal::GetCapturedStderr();
      EXPECT_EQ(occurrences(err, "\n"), 1) << err;
      EXPECT_EQ(occurrences(err, "copying the mesh through the host"), 1) << err;
      EXPECT_LE(runtime.registers, 2) << "not retried each frame";
    }
  }
}

TEST(MeshInterop, CpuBackendAndEmptyMeshesNeverTouchTheCudaRuntime) {
  FakeMeshBuffers buffers;
  TwoBufferRuntime runtime(buffers);
  Vec4* v = nullptr;
  uint32_t* t = nullptr;
  {
    GlMeshTarget cuda(buffers, BackendKind::Cuda, runtime);
    EXPECT_FALSE(cuda.map_device(0, 0, &v, &t)) << "nothing to map";
    GlMeshTarget cpu(buffers, BackendKind::Cpu, runtime);
    EXPECT_FALSE(cpu.map_device(1000, 1900, &v, &t));
    // A real CPU simulation's mesh through the target: the host path.
    auto sim = test::cpu_sim(test::box_scene({0, 0, 0}, {0.4f, 0.4f, 0.4f}, {0, 0, 0},
                                             {0.2f, 0.2f, 0.2f}, 0.05f),
                             0.05f);
    TriangleMesh m;
    sim->build_mesh(MeshSettings{}, &m);
    ASSERT_GT(m.triangle_count(), 0u);
    sim->publish_mesh(cpu);
    EXPECT_EQ(buffers.uploads, 1);
    EXPECT_EQ(buffers.uploaded_triangles, m.triangle_count());
  }
  EXPECT_EQ(runtime.registers + runtime.maps + runtime.calls_other, 0);
}
