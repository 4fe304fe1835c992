#include "sim/backend/memory.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include "gpu/cuda_runtime.h"

namespace tp {

namespace {

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
