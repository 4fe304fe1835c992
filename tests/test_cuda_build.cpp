// The CUDA backend as built: the binary holds the device code and PTX of every entry of the
// configured architecture list (read from the ELF's .nv_fatbin section, as cuobjdump would,
// since the toolkit on our machines ships no cuobjdump), and those entries run on the GPUs
// the list promises (the rule of cuda_arch_coverage.h); and, on a machine with a GPU, the
// binary has code for it and the CUDA backend runs the same kernels as the CPU backend to
// the same result. The default list is checked on its own in test_cuda_arch_coverage.cpp:
// this build may be configured with fewer (CI: "75-real").
#include <elf.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_arch_coverage.h"
#include "gpu/cuda_runtime.h"
#include "sim/backend/backend_select.h"
#include "sim_helpers.h"

using namespace tp;

namespace {

struct FatbinEntry {
  int kind;  // 1 = PTX, 2 = device code (ELF)
  int arch;  // e.g. 75
  bool operator<(const FatbinEntry& o) const { return kind != o.kind ? kind < o.kind : arch < o.arch; }
};

std::vector<char> read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  return std::vector<char>(text.begin(), text.end());
}

// Lists the entries of every fat binary container in the ELF file's .nv_fatbin section.
// Container: 16-byte header {u32 magic 0xBA55ED50, u16 version 1, u16 header size 16,
// u64 payload size}; entries follow back to back: {u16 kind, u16, u32 header size,
// u64 payload size, ..., u32 arch at offset 28}, each followed by its payload.
std::set<FatbinEntry> fatbin_entries(const std::vector<char>& elf) {
  std::set<FatbinEntry> out;
  if (elf.size() < sizeof(Elf64_Ehdr)) return out;
  Elf64_Ehdr eh;
  std::memcpy(&eh, elf.data(), sizeof eh);
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  for (int i = 0; i < eh.e_shnum; ++i)
    std::memcpy(&sections[i], elf.data() + eh.e_shoff + size_t(i) * eh.e_shentsize, sizeof(Elf64_Shdr));
  const Elf64_Shdr& names = sections[eh.e_shstrndx];
  for (const Elf64_Shdr& sh : sections) {
    if (std::strcmp(elf.data() + names.sh_offset + sh.sh_name, ".nv_fatbin") != 0) continue;
    size_t at = sh.sh_offset;
    const size_t end = sh.sh_offset + sh.sh_size;
    while (at + 16 <= end) {
      uint32_t magic;
      std::memcpy(&magic, elf.data() + at, 4);
      if (magic != 0xBA55ED50u) {
        at += 8;  // containers are 8-byte aligned; skip padding
        continue;
      }
      uint16_t header_size;
      uint64_t payload;
      std::memcpy(&header_size, elf.data() + at + 6, 2);
      std::memcpy(&payload, elf.data() + at + 8, 8);
      size_t entry = at + header_size;
      const size_t container_end = at + header_size + payload;
      while (entry + 32 <= container_end) {
        uint16_t kind;
        uint32_t entry_size, arch;
        uint64_t data_size;
        std::memcpy(&kind, elf.data() + entry, 2);
        std::memcpy(&entry_size, elf.data() + entry + 4, 4);
        std::memcpy(&data_size, elf.data() + entry + 8, 8);
        std::memcpy(&arch, elf.data() + entry + 28, 4);
        if (entry_size == 0) break;
        out.insert(FatbinEntry{kind == 1 ? 1 : 2, int(arch)});
        entry += entry_size + data_size;
      }
      at = container_end;
    }
  }
  return out;
}

// The fat binary's entries in the coverage rule's terms.
std::vector<cuda_arch::CodeEntry> code_entries(const std::set<FatbinEntry>& fatbin) {
  std::vector<cuda_arch::CodeEntry> out;
  for (const FatbinEntry& e : fatbin) out.push_back(cuda_arch::CodeEntry{e.arch, e.kind == 1, false});
  return out;
}

std::vector<cuda_arch::CodeEntry> this_binarys_entries() {
  return code_entries(fatbin_entries(read_file("/proc/self/exe")));
}

}  // namespace

// The configured list (cuda_architectures(): what CMake compiled, "native" resolved to the
// GPU's own list), not the default: CI configures "75-real" to save time.
TEST(CudaBuild, BinaryHoldsEveryConfiguredEntryAndRunsWhereTheListSays) {
  const std::vector<cuda_arch::CodeEntry> found = this_binarys_entries();
  ASSERT_FALSE(found.empty()) << "no .nv_fatbin section: the CUDA backend was not linked in";
  const std::string configured = cuda_architectures(), default_list = TP_DEFAULT_CUDA_ARCHITECTURES;
  ASSERT_FALSE(configured.empty());
  const std::vector<int> archs =
      cuda_arch::architectures_to_check(cuda_arch::parse_arch_numbers(TP_NVCC_ARCHITECTURES));
  std::string names;
  for (const cuda_arch::CodeEntry& e : found) names += " " + e.name();
  std::cout << "configured list (this build): " << configured << "\n"
            << "default list (CMakeLists.txt): " << default_list
            << (configured == default_list ? " (the same)" : " (not this build's)") << "\n"
            << "fatbin entries:" << names << "\n"
            << "where this binary runs, from its fatbin entries:\n"
            << cuda_arch::coverage_table(found, archs);

  std::vector<cuda_arch::CodeEntry> listed;
  std::string error;
  ASSERT_TRUE(cuda_arch::parse_cmake_list(configured, &listed, &error))
      << "the configured list '" << configured << "': " << error;
  for (const cuda_arch::CodeEntry& e : listed)
    EXPECT_TRUE(std::count(found.begin(), found.end(), e)) << "the list names " << e.name()
                                                           << " but the binary lacks it";
  // Wherever the list says the build runs, the binary's own entries run too (device code
  // where the list promises device code).
  std::string left_out;
  for (int gpu : archs) {
    const cuda_arch::Coverage promised = cuda_arch::coverage(listed, gpu);
    const cuda_arch::Coverage actual = cuda_arch::coverage(found, gpu);
    if (!promised.covered()) left_out += " sm_" + std::to_string(gpu);
    if (promised.how == cuda_arch::How::Native)
      EXPECT_EQ(actual.how, cuda_arch::How::Native) << "sm_" << gpu << ": " << actual.describe();
    else if (promised.how == cuda_arch::How::Ptx)
      EXPECT_TRUE(actual.covered()) << "sm_" << gpu << ": " << actual.describe();
  }
  if (configured == default_list) {
    // A default build: the binary itself runs on every architecture.
    EXPECT_EQ(left_out, "") << "the default build has no code for these";
  } else if (!left_out.empty()) {
    std::cout << "this build (not the default list) falls back to the CPU on:" << left_out
              << "; the default list runs on all (CudaArchCoverage.DefaultList*)\n";
  }
}

// On a machine with a GPU: the coverage rule and the driver agree about this GPU (the
// binary holds code for it, and a kernel runs).
TEST(Gpu, TheBinaryHasCodeForThisGpu) {
  std::string error;
  CudaDeviceInfo device;
  if (cuda_runtime().device_count(&error) <= 0 || !cuda_runtime().device_info(0, &device, &error))
    GTEST_SKIP() << "no CUDA device here: " << error;
  const int gpu = device.major * 10 + device.minor;
  const cuda_arch::Coverage c = cuda_arch::coverage(this_binarys_entries(), gpu);
  std::cout << device.name << " (sm_" << gpu << ") runs " << c.describe() << "\n";
  EXPECT_TRUE(c.covered()) << "configured list: " << cuda_architectures();
  EXPECT_TRUE(cuda_runtime().probe_kernels(0, &error)) << error;
}

TEST(Gpu, CudaBackendMatchesTheCpuBackend) {
  const BackendChoice choice = choose_backend(BackendRequest::Cuda, cuda_runtime());
  if (!choice.ok) GTEST_SKIP() << "no usable CUDA device here: " << choice.message;
  const float s = 0.02f;
  const Scene scene = test::box_scene(Vec3{0, 0, 0}, Vec3{0.6f, 0.5f, 0.2f}, Vec3{0, 0, 0},
                                      Vec3{0.2f, 0.3f, 0.2f}, s);
  auto run = [&](BackendKind kind, int steps) {
    auto sim = make_simulation(kind);
    sim->params().dt_min = sim->params().dt_max = 0.0004f;
    sim->reset(build_initial_state(scene, s));
    for (int i = 0; i < steps; ++i) sim->step();
    return sim;
  };
  // Early on the states agree closely (only rounding differs: FMA, reduction order).
  const Snapshot cpu = run(BackendKind::Cpu, 20)->snapshot(), gpu = run(BackendKind::Cuda, 20)->snapshot();
  ASSERT_EQ(cpu.position.size(), gpu.position.size());
  double worst = 0.0;
  for (size_t i = 0; i < cpu.position.size(); ++i)
    worst = std::max(worst, double(length(xyz(cpu.position[i]) - xyz(gpu.position[i]))));
  EXPECT_LT(worst, 1e-3 * s) << "largest CPU/GPU position difference after 20 steps: " << worst << " m";
  // Over a dam break the flows diverge in detail but not in their statistics.
  auto a = run(BackendKind::Cpu, 300), b = run(BackendKind::Cuda, 300);
  const RunStats sa = a->stats(), sb = b->stats();
  EXPECT_NEAR(sb.density_error_mean, sa.density_error_mean, 0.25 * sa.density_error_mean + 1e-4);
  EXPECT_NEAR(sb.max_speed, sa.max_speed, 0.1 * sa.max_speed);
  EXPECT_EQ(test::check(*b).outside, 0u);
}

// Phase times on the device come from CUDA events read after the step (no wait per
// phase): every phase the CPU backend reports is there, with a positive, finite time.
TEST(Gpu, PhaseTimesFromEventsMatchTheCpuPhases) {
  const BackendChoice choice = choose_backend(BackendRequest::Cuda, cuda_runtime());
  if (!choice.ok) GTEST_SKIP() << "no usable CUDA device here: " << choice.message;
  const float s = 0.02f;
  const Scene scene = test::box_scene(Vec3{0, 0, 0}, Vec3{0.6f, 0.5f, 0.2f}, Vec3{0, 0, 0},
                                      Vec3{0.2f, 0.3f, 0.2f}, s);
  for (SolverKind solver : {SolverKind::Wcsph, SolverKind::Pcisph, SolverKind::Pbf, SolverKind::Dfsph}) {
    auto phases = [&](BackendKind kind) {
      auto sim = make_simulation(kind);
      sim->params().solver = int(solver);
      sim->reset(build_initial_state(scene, s));
      for (int i = 0; i < 100; ++i) sim->step();  // more phases than one collection holds
      return sim->stats().phases;
    };
    const std::vector<PhaseTime> cpu = phases(BackendKind::Cpu), gpu = phases(BackendKind::Cuda);
    std::set<std::string> cpu_names, gpu_names;
    for (const PhaseTime& p : cpu) cpu_names.insert(p.name);
    for (const PhaseTime& p : gpu) {
      gpu_names.insert(p.name);
      EXPECT_TRUE(p.total_ms > 0.0 && std::isfinite(p.total_ms)) << p.name << ": " << p.total_ms;
    }
    EXPECT_EQ(gpu_names, cpu_names) << "solver " << int(solver);
  }
}
