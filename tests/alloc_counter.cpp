#include "alloc_counter.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<long long> g_blocks{0}, g_bytes{0}, g_peak{0};

void* allocate(size_t size) {
  void* p = std::malloc(size ? size : 1);
  if (!p) return nullptr;
  const long long bytes = (long long)malloc_usable_size(p);
  g_blocks.fetch_add(1, std::memory_order_relaxed);
  const long long now = g_bytes.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  long long peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return p;
}

void release(void* p) {
  if (!p) return;
  g_blocks.fetch_sub(1, std::memory_order_relaxed);
  g_bytes.fetch_sub((long long)malloc_usable_size(p), std::memory_order_relaxed);
  std::free(p);
}

}  // namespace

namespace tp::test {

long long live_blocks() { return g_blocks.load(); }
long long live_bytes() { return g_bytes.load(); }
long long peak_bytes() { return g_peak.load(); }
void reset_peak_bytes() { g_peak.store(g_bytes.load()); }

}  // namespace tp::test

// (GCC sees malloc and free inside replaced operators new and delete as a mismatch.)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void* operator new(size_t size) {
  if (void* p = allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) { return ::operator new(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void* operator new[](size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, size_t) noexcept { release(p); }
void operator delete[](void* p, size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
