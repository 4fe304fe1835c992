#include "sim/backend/memory_need.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "gpu/cuda_runtime.h"

namespace tp {

namespace {

// Bytes per fluid particle. The particle arrays (src/sim/fluid_state.h): position,
// velocity, acceleration, position and pressure term, velocity and inverse density,
// predicted, aux, spare, and the step start's position and velocity (10 x 16 B) and id,
// pressure, density, scratch, spare id, spare float, best pressure, the step start's id
// (8 x 4 B).
constexpr double kParticleArrays = 10 * 16 + 8 * 4;
// Arrays sized by the live count, which grow by a quarter when they must: the grid's cell,
// rank and order (3 x 4 B), the fluid and boundary neighbour lists at their first size
// (48 + 1 and 40 + 1 slots of 4 B, a count each), the vector search's coordinates
// (3 x 4 B), the diffuse spawner's normal and count (16 + 4 B).
constexpr double kPerLiveParticle = 1.25 * (3 * 4 + (49 * 4 + 4) + (41 * 4 + 4) + 3 * 4 + 20);
// Per boundary sample (NeighborLists::samples): its place in the order and its list of
// fluid particles at the first size (24 + 1 slots, a count), grown by a quarter. Only the
// samples next to fluid are listed, but on a GPU how many there are stays on the device
// (no wait for it), so the lists are laid out for every sample (the CPU's for the listed
// ones: the bound holds for both).
constexpr double kPerListedSample = 1.25 * (4 + 25 * 4 + 4);
// Copies that live for a moment: a reset's initial state and its host copies (2 x 16 + 16
// + 4 B, plus the lattice's candidates, 16 B), or a snapshot for a PLY frame or a state
// file (id, position, velocity, density, pressure, order: 48 B) with the frame's 28 B rows.
constexpr double kTransient = 80;
// Per boundary sample: sample, spare, velocity (3 x 16 B), pressure, the grid's cell, rank
// and order, the active flag and its scan (6 x 4 B), the initial state's copy (16 B), the
// walls' coordinates for the vector search (3 x 4 B), and an obstacle sample's body
// coordinates, world position and owner (2 x 16 + 4 B).
constexpr double kPerBoundarySample = 3 * 16 + 6 * 4 + 16 + 3 * 4 + 36;
// Per diffuse particle: position, velocity and the compaction's two targets (4 x 16 B),
// a flag grown by a quarter, the CUDA path's staging copy (16 B) and a snapshot's copy.
constexpr double kPerDiffuse = 4 * 16 + 5 + 16 + 32;

// A number from a file that holds one ("max" when there is no limit: 0).
uint64_t read_number(const char* path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max") return 0;
  try {
    return std::stoull(word);
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

uint64_t estimate_memory_bytes(uint64_t fluid, uint64_t boundary, uint64_t cells, uint64_t diffuse,
                               bool growing) {
  // Emitters grow the particle arrays by half again when they run out, so the last growth
  // can overshoot the limit by up to a half.
  const double arrays = (growing ? 1.5 : 1.0) * kParticleArrays;
  const double bytes = double(fluid) * (arrays + kPerLiveParticle + kTransient) +
                       double(boundary) * kPerBoundarySample + double(cells) * 2 * 4 +
                       double(boundary) * kPerListedSample +
                       double(diffuse) * kPerDiffuse;
  return uint64_t(std::min(bytes, 1e19));
}

uint64_t available_memory_bytes() {
  uint64_t available = 0;
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:") {
      available = kib * 1024;
      break;
    }
    meminfo.ignore(256, '\n');
  }
  if (available == 0)
    available = uint64_t(sysconf(_SC_AVPHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  // A container's limit (cgroup v2, else v1) when it leaves less than that.
  uint64_t limit = read_number("/sys/fs/cgroup/memory.max");
  uint64_t used = read_number("/sys/fs/cgroup/memory.current");
  if (limit == 0) {
    limit = read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    used = read_number("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  }
  if (limit > 0 && limit < (uint64_t(1) << 60))
    available = std::min(available, limit > used ? limit - used : 0);
  if (const char* env = std::getenv("TIDEPOOL_MEMORY_MB"); env && *env) {
    const double mb = std::atof(env);
    if (mb > 0) available = std::min(available, uint64_t(mb * 1e6));
  }
  return available;
}

uint64_t memory_budget_bytes(BackendKind backend) {
  const uint64_t host = available_memory_bytes();
  if (backend != BackendKind::Cuda) return host;
  CudaDeviceInfo info;
  std::string error;
  // The device the simulation runs on: the first, or the one OpenGL runs on when the
  // window moved it there for the interop (use_device).
  CudaRuntime& rt = cuda_runtime();
  if (!rt.device_info(rt.current_device(), &info, &error)) return host;
  // What is free now: a desktop's display and other programs hold part of the total.
  const size_t device = info.free_bytes > 0 ? info.free_bytes : info.memory_bytes;
  return device > 0 ? std::min(host, uint64_t(device)) : host;
}

double grid_cells(Vec3 lo, Vec3 hi, float s) {
  // Cells of h = 2 spacings over the tank and a border of boundary samples on each side.
  const Vec3 e = hi - lo;
  return (e.x / (2.0 * s) + 4) * (e.y / (2.0 * s) + 4) * (e.z / (2.0 * s) + 4);
}

uint64_t diffuse_cap_for(const SimParams& params, BackendKind backend) {
  if (params.diffuse_cap > 0) return uint64_t(params.diffuse_cap);
  return backend == BackendKind::Cuda ? 2000000u : 50000u;
}

std::string keep_diffuse_cap_in_memory(SimParams& params, int previous_setting, BackendKind backend,
                                       uint64_t budget) {
  SimParams previous = params;
  previous.diffuse_cap = previous_setting;
  const uint64_t from = diffuse_cap_for(previous, backend), to = diffuse_cap_for(params, backend);
  if (to <= from) return "";
  try {
    require_memory(double(to - from) * kPerDiffuse, budget ? budget : memory_budget_bytes(backend),
                   "diffuse_cap " + count_text(double(to)) + " (spray, foam and bubble particles)",
                   "kept " + count_text(double(from)));
  } catch (const SceneError& e) {
    params.diffuse_cap = previous_setting;
    return e.what();
  }
  return "";
}

void require_neighbor_list_memory(uint64_t n, uint64_t slots, bool device, const char* whose) {
  // 4 B a slot, and the quarter more that a growing buffer keeps.
  const double need = 1.25 * double(n) * double(slots) * 4.0;
  require_memory(need, memory_budget_bytes(device ? BackendKind::Cuda : BackendKind::Cpu),
                 "the neighbour lists of " + count_text(double(n)) + " " + whose + ", with room for " +
                     count_text(double(slots)) +
                     " neighbours each (the water is packed far denser than at rest)",
                 "the simulation cannot go on; use a smaller time step or fewer particles");
}

std::string count_text(double count) {
  std::string digits = std::to_string(uint64_t(std::min(std::max(count, 0.0), 1e19)));
  for (int k = int(digits.size()) - 3; k > 0; k -= 3) digits.insert(size_t(k), ",");
  return digits;
}

std::string megabytes_text(double bytes) {
  return count_text(std::max(1.0, std::ceil(bytes / 1e6))) + " MB";
}

void require_memory(double need, uint64_t available, const std::string& what,
                    const std::string& advice) {
  const double have = double(available ? available : available_memory_bytes());
  if (have > 0 && need > 0.8 * have)
    throw SceneError(what + " would need " + megabytes_text(need) + " of memory, but only " +
                     megabytes_text(have) + " is free; " + advice);
}

}  // namespace tp
