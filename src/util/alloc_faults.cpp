#include "util/alloc_faults.h"

#include <atomic>

namespace tp::alloc_faults {

namespace {
std::atomic<long> g_left{-1};  // successes left before the failure; -1 disarmed
}

void fail_after(long successes) { g_left.store(successes < 0 ? -1 : successes); }
void disarm() { g_left.store(-1); }

bool should_fail() {
  long left = g_left.load(std::memory_order_relaxed);
  while (left >= 0)
    if (g_left.compare_exchange_weak(left, left - 1)) return left == 0;  // 0 -> -1: once
  return false;
}

}  // namespace tp::alloc_faults
