#include "util/heap_trim.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

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
