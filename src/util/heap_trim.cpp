#include "util/heap_trim.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tp {

size_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  const int read = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return read == 2 ? size_t(resident) * size_t(sysconf(_SC_PAGESIZE)) : 0;
}

bool fix_malloc_thresholds() {
#if defined(__GLIBC__)
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables && std::strstr(tunables, "glibc.malloc.")) return false;  // the user's choice
  // Any one of these also stops glibc's dynamic raising of the mmap and trim thresholds.
  bool set = mallopt(M_MMAP_THRESHOLD, 1 << 20) == 1;
  set = mallopt(M_TRIM_THRESHOLD, 8 << 20) == 1 && set;
  set = mallopt(M_ARENA_MAX, 2) == 1 && set;
  return set;
#else
  return false;
#endif
}

void HeapTrimmer::tick(double now) {
  const bool asked = pending_ >= 0.0 && now >= pending_;
  if (now < next_ && !asked) return;
  next_ = now + period_;
  if (asked) pending_ = -1.0;  // (asked once, whether or not the size can be read)
  const size_t resident = resident_bytes();
  if (resident == 0) return;
  if (asked) {
    trim(resident);
    return;
  }
  if (baseline_ == 0 || resident < baseline_) {
    baseline_ = resident;
    return;
  }
  // (Growth that is memory in use trims once for each slack it grows: bounded.)
  if (resident >= baseline_ + slack_) trim(resident);
}

void HeapTrimmer::trim(size_t resident) {
#if defined(__GLIBC__)
  const auto start = std::chrono::steady_clock::now();
  malloc_trim(0);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const size_t after = resident_bytes();
  ++trims_;
  if (ms > longest_ms_) longest_ms_ = ms;
  if (after < resident) released_ += resident - after;
  baseline_ = after > 0 ? after : resident;
#else
  baseline_ = resident;
#endif
}

}  // namespace tp
