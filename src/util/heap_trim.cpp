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

HeapTrimmer::HeapTrimmer(double period_seconds, size_t slack_bytes, bool background)
    : period_(period_seconds), slack_(slack_bytes) {
#if defined(__GLIBC__)
  if (background) worker_ = std::thread([this] { run_worker(); });
#else
  (void)background;
#endif
}

HeapTrimmer::~HeapTrimmer() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  worker_.join();
}

void HeapTrimmer::run_worker() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || job_ != 0; });
    if (stop_) return;
    const size_t resident = job_;
    job_ = 0;
    lock.unlock();
    trim(resident);
    lock.lock();
    busy_ = false;
    idle_.notify_all();
  }
}

void HeapTrimmer::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return !busy_; });
}

HeapTrimmer::Figures HeapTrimmer::figures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return figures_;
}

void HeapTrimmer::tick(double now) {
  const bool asked = pending_ >= 0.0 && now >= pending_;
  if (now < next_ && !asked) return;
  next_ = now + period_;
  if (asked) pending_ = -1.0;  // (asked once, whether or not the size can be read)
  std::unique_lock<std::mutex> lock(mutex_);
  ticks_on_ = std::this_thread::get_id();
  if (busy_) {  // (a trim is running: it sets the baseline)
    if (asked && settle_) pending_ = now;  // (the settled one comes at the next frame)
    return;
  }
  const size_t resident = resident_bytes();
  if (resident == 0) return;
  // (Growth that is memory in use trims once for each slack it grows: bounded.)
  const bool due = asked || (baseline_ != 0 && resident >= baseline_ && resident >= baseline_ + slack_);
  if (!due) {
    if (baseline_ == 0 || resident < baseline_) baseline_ = resident;
    return;
  }
  if (asked && settle_) {
    lock.unlock();
    settle_();
    trim(resident_bytes(), true);
    return;
  }
  if (worker_.joinable()) {
    busy_ = true;
    job_ = resident;
    lock.unlock();
    wake_.notify_one();
    return;
  }
  lock.unlock();
  trim(resident);
}

void HeapTrimmer::trim(size_t resident, bool settled) {
#if defined(__GLIBC__)
  const auto start = std::chrono::steady_clock::now();
  malloc_trim(0);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const size_t after = resident_bytes();
  if (log_) {
#if __GLIBC_PREREQ(2, 33)
    const struct mallinfo2 m = mallinfo2();  // (every arena's sums)
#else
    const struct mallinfo m = mallinfo();  // (int fields: wrong beyond 2 GB)
#endif
    std::fprintf(stderr,
                 "tidepool: trimmed%s: %.1f MB resident (%.1f before); malloc: %.1f MB in use in its arenas, "
                 "%.1f MB in mapped blocks, %.1f MB held free\n",
                 settled ? " (settled)" : "", double(after) / 1048576.0, double(resident) / 1048576.0,
                 double(m.uordblks) / 1048576.0, double(m.hblkhd) / 1048576.0, double(m.fordblks) / 1048576.0);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++figures_.trims;
  figures_.last_elsewhere = std::this_thread::get_id() != ticks_on_;
  if (ms > figures_.longest_ms) figures_.longest_ms = ms;
  if (after < resident) figures_.released_bytes += resident - after;
  baseline_ = after > 0 ? after : resident;
#else
  (void)settled;
  std::lock_guard<std::mutex> lock(mutex_);
  baseline_ = resident;
#endif
}

}  // namespace tp
