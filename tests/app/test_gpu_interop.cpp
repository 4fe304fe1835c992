// CUDA-GL interop on a real device (label `gpu`): the CUDA backend publishes its particles
// into the renderer's ParticleBuffer in a hidden GLFW window, through GlPublishTarget and the
// real CUDA runtime (wrapped to count its calls), and the GL buffer is read back and checked
// against the simulation's snapshot. With NVIDIA's OpenGL the device path must be taken
// (register once, map and unmap once per frame, no fallback line); with any other OpenGL
// (Mesa under Xvfb, a remote display) CUDA refuses and the host fallback must be taken, with
// exactly one line on stderr. Either way the published particles must be right.
// Without a display the context comes from EGL (egl_context.h: NVIDIA's device where the
// driver has EGL, as on the lent GPU machines, which have no X); skips with one line when
// there is no CUDA device or no OpenGL context either way (`xvfb-run -a` gives Mesa's GLX,
// which exercises the fallback).
#include <glad/gl.h>
// glad first: GLFW must not pull in the system GL header.
#include <GLFW/glfw3.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "../sim_helpers.h"
#include "egl_context.h"
#include "app/window/gl_publish_target.h"
#include "gpu/cuda_runtime.h"
#include "render/gas_field.h"
#include "render/mesh_buffer.h"
#include "render/particle_buffer.h"
#include "sim/backend/backend_select.h"
#include "sim/gas/gas_sim.h"

using namespace tp;

namespace {

// The real runtime, with the interop calls counted (successful ones separately).
class CountingRuntime final : public CudaRuntime {
 public:
  explicit CountingRuntime(CudaRuntime& inner) : inner_(inner) {}

  struct Counts {
    int registers = 0, registered = 0, unregisters = 0, maps = 0, mapped = 0, unmaps = 0;
    bool operator==(const Counts& o) const {
      return registers == o.registers && registered == o.registered &&
             unregisters == o.unregisters && maps == o.maps && mapped == o.mapped &&
             unmaps == o.unmaps;
    }
  };
  Counts counts;

  bool compiled() const override { return inner_.compiled(); }
  int device_count(std::string* error) override { return inner_.device_count(error); }
  bool device_info(int device, CudaDeviceInfo* info, std::string* error) override {
    return inner_.device_info(device, info, error);
  }
  bool probe_kernels(int device, std::string* error) override {
    return inner_.probe_kernels(device, error);
  }
  bool register_gl_buffer(unsigned gl_buffer, void** handle, std::string* error) override {
    ++counts.registers;
    const bool ok = inner_.register_gl_buffer(gl_buffer, handle, error);
    if (ok) ++counts.registered;
    return ok;
  }
  void unregister_gl_buffer(void* handle) override {
    ++counts.unregisters;
    inner_.unregister_gl_buffer(handle);
  }
  void* map_gl_buffer(void* handle, size_t* bytes, std::string* error) override {
    ++counts.maps;
    void* pointer = inner_.map_gl_buffer(handle, bytes, error);
    if (pointer) ++counts.mapped;
    return pointer;
  }
  void unmap_gl_buffer(void* handle) override {
    ++counts.unmaps;
    inner_.unmap_gl_buffer(handle);
  }

 private:
  CudaRuntime& inner_;
};

std::ostream& operator<<(std::ostream& out, const CountingRuntime::Counts& c) {
  return out << "{register " << c.registers << " (ok " << c.registered << "), unregister "
             << c.unregisters << ", map " << c.maps << " (ok " << c.mapped << "), unmap "
             << c.unmaps << "}";
}

std::string g_glfw_error;  // the last error GLFW reported through its callback

void on_glfw_error(int code, const char* description) {
  g_glfw_error = std::string(description ? description : "unknown error") + " (GLFW error " +
                 std::to_string(code) + ")";
}

// A hidden window with a current OpenGL 3.3 core context and glad loaded, as the app makes
// it, or without a display EGL's context; error() says why neither. Destroyed last, so the
// context outlives every GL object.
class HiddenGlContext {
 public:
  HiddenGlContext() {
    glfwSetErrorCallback(on_glfw_error);
    glfw_ = glfwInit() == GLFW_TRUE;
    if (!glfw_) {
      egl_ = std::make_unique<EglContext>();
      if (egl_->ok()) {
        ok_ = true;
        std::cout << "no display (" << g_glfw_error << "): OpenGL through EGL, " << egl_->source() << "\n";
      } else {
        error_ = "glfwInit failed: " + g_glfw_error + "; EGL: " + egl_->error();
      }
      return;
    }
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    window_ = glfwCreateWindow(64, 64, "tidepool gpu interop test", nullptr, nullptr);
    if (!window_) {
      error_ = "cannot create an OpenGL 3.3 core window: " + g_glfw_error;
      return;
    }
    glfwMakeContextCurrent(window_);
    if (!gladLoadGL(glfwGetProcAddress)) {
      error_ = "cannot load the OpenGL functions";
      return;
    }
    ok_ = true;
  }
  ~HiddenGlContext() {
    if (window_) glfwDestroyWindow(window_);
    if (glfw_) glfwTerminate();
  }
  HiddenGlContext(const HiddenGlContext&) = delete;
  HiddenGlContext& operator=(const HiddenGlContext&) = delete;

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }

 private:
  bool glfw_ = false, ok_ = false;
  GLFWwindow* window_ = nullptr;
  std::unique_ptr<EglContext> egl_;
  std::string error_;
};

std::string gl_string(GLenum name) {
  const GLubyte* text = glGetString(name);
  return text ? reinterpret_cast<const char*>(text) : "unknown";
}

std::vector<Vec4> read_back(GLuint buffer, size_t count) {
  std::vector<Vec4> out(count);
  if (count == 0) return out;
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  glGetBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(count * sizeof(Vec4)), out.data());
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  return out;
}

int occurrences(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// The published buffer holds the particles in the solver's storage (cell) order, the
// snapshot in id order, and the buffer carries no ids: match each published particle to the
// unused snapshot particle nearest to it (a grid of `cell`-sized buckets; particles are a
// spacing apart, far more than the tolerance, so the match is unambiguous). Checks the
// position within `tolerance` and the w lane against the snapshot's speed. Returns "" when
// every particle matches, else the first few mismatches.
std::string compare_with_snapshot(const std::vector<Vec4>& published, const Snapshot& snapshot,
                                  float tolerance) {
  std::ostringstream out;
  if (published.size() != snapshot.position.size())
    out << published.size() << " particles published, " << snapshot.position.size()
        << " in the snapshot; ";
  const float cell = 1e-3f;
  using Key = std::array<long, 3>;
  auto key = [&](Vec3 p, int dx, int dy, int dz) {
    return Key{long(std::floor(p.x / cell)) + dx, long(std::floor(p.y / cell)) + dy,
               long(std::floor(p.z / cell)) + dz};
  };
  std::map<Key, std::vector<size_t>> buckets;
  for (size_t i = 0; i < snapshot.position.size(); ++i)
    buckets[key(xyz(snapshot.position[i]), 0, 0, 0)].push_back(i);
  std::vector<bool> used(snapshot.position.size(), false);
  int bad = 0;
  for (size_t k = 0; k < published.size() && bad < 5; ++k) {
    const Vec3 p = xyz(published[k]);
    size_t best = used.size();
    float best_distance = INFINITY;
    for (int dx = -1; dx <= 1; ++dx)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz) {
          const auto found = buckets.find(key(p, dx, dy, dz));
          if (found == buckets.end()) continue;
          for (size_t i : found->second) {
            const float d = length(p - xyz(snapshot.position[i]));
            if (!used[i] && d < best_distance) best = i, best_distance = d;
          }
        }
    if (best == used.size() || best_distance > tolerance) {
      out << "published particle " << k << " at (" << p.x << ", " << p.y << ", " << p.z
          << ") has no snapshot particle within " << tolerance << " m; ";
      ++bad;
      continue;
    }
    used[best] = true;
    const float speed = length(xyz(snapshot.velocity[best]));
    if (!(std::fabs(published[k].w - speed) <= 1e-5f * (1.0f + speed))) {
      out << "published particle " << k << " (id " << best << ") has w = " << published[k].w
          << ", its speed is " << speed << " m/s; ";
      ++bad;
    }
  }
  return out.str();
}

}  // namespace

TEST(Gpu, InteropPublishesIntoTheGlBufferOrFallsBackOnce) {
  std::string no_device;
  if (cuda_runtime().device_count(&no_device) <= 0)
    GTEST_SKIP() << "no CUDA device (" << no_device << "): skipped";
  const BackendChoice choice = choose_backend(BackendRequest::Cuda, cuda_runtime());
  if (!choice.ok) GTEST_SKIP() << "no usable CUDA device (" << choice.message << "): skipped";
  HiddenGlContext gl;
  if (!gl.ok())
    GTEST_SKIP() << "no OpenGL context (" << gl.error() << "): skipped";
  const std::string vendor = gl_string(GL_VENDOR), renderer = gl_string(GL_RENDERER);
  // CUDA shares buffers with NVIDIA's own OpenGL driver only; Mesa (llvmpipe under Xvfb,
  // nouveau) and remote displays are refused.
  const bool nvidia_gl = vendor.find("NVIDIA") != std::string::npos;
  std::cout << choice.message << "; OpenGL: " << vendor << ", " << renderer << "; expecting "
            << (nvidia_gl ? "the device path (interop)" : "the host fallback") << "\n";

  const float s = 0.02f;
  const Scene scene = test::box_scene(Vec3{0, 0, 0}, Vec3{0.6f, 0.5f, 0.2f}, Vec3{0, 0, 0},
                                      Vec3{0.2f, 0.3f, 0.2f}, s);
  auto sim = make_simulation(BackendKind::Cuda);
  apply_scene_params(scene, sim->params());
  sim->reset(build_initial_state(scene, s));
  const size_t n = sim->particle_count();
  ASSERT_GT(n, 0u);

  constexpr int kFrames = 4, kStepsPerFrame = 5;
  CountingRuntime runtime(cuda_runtime());
  CountingRuntime::Counts after_first_frame, before_teardown;
  std::vector<size_t> drawn;
  std::vector<std::vector<Vec4>> published;
  std::vector<Snapshot> snapshots;
  std::string err;
  ParticleBuffer buffer;
  GlParticleBuffer gl_buffer(buffer);
  // No assertion may leave this block early: stderr is captured throughout.
  testing::internal::CaptureStderr();
  {
    GlPublishTarget target(gl_buffer, BackendKind::Cuda, runtime);
    for (int frame = 0; frame < kFrames; ++frame) {
      for (int i = 0; i < kStepsPerFrame; ++i) sim->step();
      sim->publish(target, ColorField::Speed);
      if (frame == 0) after_first_frame = runtime.counts;
      drawn.push_back(buffer.count());
      published.push_back(read_back(buffer.vbo(), buffer.count()));
      snapshots.push_back(sim->snapshot());
    }
    before_teardown = runtime.counts;
  }
  err = testing::internal::GetCapturedStderr();
  const GLenum gl_error = glGetError();
  const CountingRuntime::Counts& end = runtime.counts;
  if (!err.empty()) std::cout << "stderr: " << err;
  std::cout << "CUDA interop calls: " << end << "\n";

  // The particles reach the GL buffer on either path.
  EXPECT_EQ(gl_error, GLenum(GL_NO_ERROR));
  for (int frame = 0; frame < kFrames; ++frame) {
    SCOPED_TRACE(testing::Message() << "frame " << frame);
    EXPECT_EQ(drawn[frame], n) << "the buffer draws every particle";
    EXPECT_EQ(compare_with_snapshot(published[frame], snapshots[frame], 1e-6f), "");
  }

  const int fallback_lines = occurrences(err, "CUDA-GL interop unavailable");
  if (nvidia_gl) {
    EXPECT_EQ(fallback_lines, 0) << "NVIDIA's OpenGL, yet CUDA refused interop: " << err;
    EXPECT_EQ(before_teardown.registers, 1) << "registered once, not per frame: " << end;
    EXPECT_EQ(before_teardown.registered, 1) << end;
    EXPECT_EQ(before_teardown.maps, kFrames) << "mapped once per frame: " << end;
    EXPECT_EQ(before_teardown.mapped, kFrames) << end;
    EXPECT_EQ(before_teardown.unmaps, kFrames) << "unmapped once per frame: " << end;
    EXPECT_EQ(before_teardown.unregisters, 0) << "the registration is kept: " << end;
    EXPECT_EQ(end.unregisters, 1) << "the target unregisters the buffer when destroyed";
    EXPECT_EQ(end.unmaps, kFrames) << "nothing was left mapped";
  } else {
    EXPECT_EQ(fallback_lines, 1) << "OpenGL is " << vendor
                                 << ", not NVIDIA's: CUDA should refuse interop and the "
                                 << "fallback say so once; stderr: " << err;
    EXPECT_EQ(end.registers, 1) << "registration is tried once: " << end;
    EXPECT_LE(end.maps, 1) << "a refused map is not retried: " << end;
    EXPECT_EQ(end.unmaps, 0) << "nothing was mapped through CUDA: " << end;
    EXPECT_EQ(before_teardown, after_first_frame)
        << "after the first frame the fallback never asks CUDA again: " << after_first_frame
        << " then " << before_teardown;
    EXPECT_EQ(end.unregisters, end.registered) << "nothing is left registered: " << end;
  }
}

// The mesh mode on CUDA: the mesh built and kept on the device, written into the
// MeshBuffer's two GL buffers through the interop (NVIDIA's OpenGL) or uploaded through the
// host with one line (any other), and read back equal to the host download.
TEST(Gpu, MeshInteropWritesTheGlBuffersOrFallsBackOnce) {
  std::string no_device;
  if (cuda_runtime().device_count(&no_device) <= 0)
    GTEST_SKIP() << "no CUDA device (" << no_device << "): skipped";
  const BackendChoice choice = choose_backend(BackendRequest::Cuda, cuda_runtime());
  if (!choice.ok) GTEST_SKIP() << "no usable CUDA device (" << choice.message << "): skipped";
  HiddenGlContext gl;
  if (!gl.ok())
    GTEST_SKIP() << "no OpenGL context (" << gl.error() << "): skipped";
  const bool nvidia_gl = gl_string(GL_VENDOR).find("NVIDIA") != std::string::npos;

  const float s = 0.02f;
  const Scene scene = test::box_scene(Vec3{0, 0, 0}, Vec3{0.6f, 0.5f, 0.2f}, Vec3{0, 0, 0},
                                      Vec3{0.2f, 0.3f, 0.2f}, s);
  auto sim = make_simulation(BackendKind::Cuda);
  apply_scene_params(scene, sim->params());
  sim->reset(build_initial_state(scene, s));
  CountingRuntime runtime(cuda_runtime());
  MeshBuffer mesh;
  GlMeshBuffers buffers(mesh);
  std::vector<TriangleMesh> expected;
  std::vector<std::vector<Vec4>> vertices;
  std::vector<std::vector<uint32_t>> indices;
  testing::internal::CaptureStderr();
  {
    GlMeshTarget target(buffers, BackendKind::Cuda, runtime);
    for (int frame = 0; frame < 3; ++frame) {
      for (int i = 0; i < 10; ++i) sim->step();
      expected.emplace_back();
      sim->build_mesh(MeshSettings{}, &expected.back());
      sim->build_mesh(MeshSettings{}, nullptr);
      sim->publish_mesh(target);
      vertices.push_back(read_back(mesh.vertex_buffer(), 2 * mesh.vertex_count()));
      std::vector<uint32_t> idx(3 * mesh.triangle_count());
      glBindBuffer(GL_ARRAY_BUFFER, mesh.index_buffer());
      if (!idx.empty())
        glGetBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(idx.size() * sizeof(uint32_t)), idx.data());
      glBindBuffer(GL_ARRAY_BUFFER, 0);
      indices.push_back(idx);
    }
  }
  const std::string err = testing::internal::GetCapturedStderr();
  std::cout << "CUDA interop calls: " << runtime.counts << "\n";
  EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
  for (size_t f = 0; f < expected.size(); ++f) {
    SCOPED_TRACE(testing::Message() << "frame " << f);
    const TriangleMesh& m = expected[f];
    ASSERT_GT(m.triangle_count(), 100u);
    EXPECT_EQ(indices[f], m.index);
    ASSERT_EQ(vertices[f].size(), 2 * m.position.size());
    float most = 0.0f;
    for (size_t i = 0; i < m.position.size(); ++i)
      most = std::max({most, length(xyz(vertices[f][i]) - m.position[i]),
                       length(xyz(vertices[f][m.position.size() + i]) - m.normal[i])});
    EXPECT_EQ(most, 0.0f);
  }
  if (nvidia_gl) {
    EXPECT_EQ(occurrences(err, "CUDA-GL interop unavailable"), 0) << err;
    EXPECT_EQ(runtime.counts.registered, 2) << "both buffers registered once: " << runtime.counts;
    EXPECT_EQ(runtime.counts.mapped, 6) << runtime.counts;
  } else {
    EXPECT_EQ(occurrences(err, "copying the mesh through the host"), 1) << err;
  }
}

// The gas on CUDA: each drawn state's texels written into the GasField's pixel buffer
// through the interop (NVIDIA's OpenGL) or copied through the host with one line (any
// other), and the 3D texture read back equal to what the same device publishes to the host.
TEST(Gpu, GasInteropWritesTheTextureOrFallsBackOnce) {
  std::string no_device;
  if (cuda_runtime().device_count(&no_device) <= 0)
    GTEST_SKIP() << "no CUDA device (" << no_device << "): skipped";
  const BackendChoice choice = choose_backend(BackendRequest::Cuda, cuda_runtime());
  if (!choice.ok) GTEST_SKIP() << "no usable CUDA device (" << choice.message << "): skipped";
  HiddenGlContext gl;
  if (!gl.ok())
    GTEST_SKIP() << "no OpenGL context (" << gl.error() << "): skipped";
  const bool nvidia_gl = gl_string(GL_VENDOR).find("NVIDIA") != std::string::npos;

  GasSetup setup;
  setup.grid.n = Int3{20, 28, 16};
  setup.grid.dx = 0.05f;
  setup.grid.open = 1u << 3;
  GasSource src;
  src.center = Vec3{0.5f, 0.2f, 0.4f};
  src.radius = 0.15f;
  src.density = 3.0f;
  src.temperature = 10.0f;
  src.velocity = Vec3{0.0f, 1.0f, 0.0f};
  src.pull = 5.0f;
  setup.sources.push_back(src);
  auto gas = make_gas_simulation(BackendKind::Cuda);
  gas->reset(setup);
  const GasGrid& g = gas->setup().grid;
  const size_t cells = g.cells();

  // The host path of the same publish: what the texture must hold.
  struct HostTarget final : PublishTarget {
    std::vector<Vec4> values;
    Vec4* map_host(size_t count) override {
      values.resize(count);
      return values.data();
    }
    void unmap() override {}
  } host;
  CountingRuntime runtime(cuda_runtime());
  GasField field;
  field.set_grid(glm::vec3(0.0f), glm::vec3(g.n.x, g.n.y, g.n.z) * g.dx, glm::ivec3(g.n.x, g.n.y, g.n.z));
  GlGasBuffer buffer(field);
  testing::internal::CaptureStderr();
  {
    GlPublishTarget target(buffer, BackendKind::Cuda, runtime, "the gas");
    for (int frame = 0; frame < 3; ++frame) {
      SCOPED_TRACE(testing::Message() << "frame " << frame);
      for (int i = 0; i < 5; ++i) gas->step();
      GasShade shade;
      shade.view = frame == 2 ? kGasViewVorticity : kGasViewSmoke;
      gas->publish(shade, host);
      gas->publish(shade, target);
      ASSERT_TRUE(field.ready());
      std::vector<Vec4> texels(cells);
      glBindTexture(GL_TEXTURE_3D, field.texture());
      glGetTexImage(GL_TEXTURE_3D, 0, GL_RGBA, GL_FLOAT, texels.data());
      glBindTexture(GL_TEXTURE_3D, 0);
      ASSERT_EQ(host.values.size(), cells);
      size_t differing = 0;
      for (size_t c = 0; c < cells; ++c)
        differing += (texels[c].x != host.values[c].x || texels[c].y != host.values[c].y ||
                      texels[c].z != host.values[c].z || texels[c].w != host.values[c].w);
      EXPECT_EQ(differing, 0u);
    }
  }
  const std::string err = testing::internal::GetCapturedStderr();
  std::cout << "CUDA interop calls: " << runtime.counts << "\n";
  EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
  if (nvidia_gl) {
    EXPECT_EQ(occurrences(err, "CUDA-GL interop unavailable"), 0) << err;
    EXPECT_EQ(runtime.counts.registered, 1) << "the pixel buffer registered once: " << runtime.counts;
    EXPECT_EQ(runtime.counts.mapped, 3) << runtime.counts;
  } else {
    EXPECT_EQ(occurrences(err, "copying the gas through the host"), 1) << err;
  }
}
