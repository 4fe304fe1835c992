// Freed memory back to the system (src/util/heap_trim.h): what a thread of its own
// allocated and freed stays resident until HeapTrimmer trims, which it does a second after
// it is told of an event, or once the resident size has grown past its slack, and not
// before.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "util/heap_trim.h"

using namespace tp;

namespace {

constexpr size_t kMB = size_t(1) << 20;

// 256 MB in 32 kB blocks (below malloc's mmap threshold: from the thread's arena), written,
// then freed but the last, which keeps the arena's top in use.
void churn_in_a_thread() {
  std::thread worker([] {
    std::vector<char*> blocks;
    for (int i = 0; i < 8192; ++i) {
      char* b = new char[32 << 10];
      for (int k = 0; k < (32 << 10); k += 4096) b[k] = char(i);
      blocks.push_back(b);
    }
    for (size_t i = 0; i + 1 < blocks.size(); ++i) delete[] blocks[i];
    static char* kept = nullptr;
    kept = blocks.back();
    (void)kept;
  });
  worker.join();
}

bool testable() {
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
  return false;
#endif
#endif
#if !defined(__GLIBC__) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return false;  // (the sanitizers' allocators keep freed memory, and ignore malloc_trim)
#else
  return true;
#endif
}

}  // namespace

TEST(HeapTrim, MemoryAThreadFreedGoesBackOnceTheResidentSizeGrewPastTheSlack) {
  if (!testable()) GTEST_SKIP() << "glibc's malloc only, without a sanitizer";
  const size_t before = resident_bytes();
  ASSERT_GT(before, 0u) << "/proc/self/statm";
  HeapTrimmer trimmer(0.0, 64 * kMB);
  trimmer.tick(0.0);  // the baseline
  churn_in_a_thread();
  const size_t held = resident_bytes();
  ASSERT_GT(held, before + 128 * kMB) << "malloc gave the freed blocks back by itself: nothing to test here";
  trimmer.tick(1.0);
  EXPECT_EQ(trimmer.trims(), 1);
  const size_t after = resident_bytes();
  EXPECT_LT(after, held - 128 * kMB) << "the trim released less than half of the 256 MB freed";
  EXPECT_GT(trimmer.released_bytes(), 128 * kMB);
  // Steady: no trim while the resident size stays within the slack.
  trimmer.tick(2.0);
  trimmer.tick(3.0);
  EXPECT_EQ(trimmer.trims(), 1);
}

TEST(HeapTrim, ASecondAfterItIsToldOfAnEventItTrimsWhateverTheSlack) {
  if (!testable()) GTEST_SKIP() << "glibc's malloc only, without a sanitizer";
  HeapTrimmer trimmer(100.0, 64 * kMB);  // (looks at the resident size only at 0 and 100 s)
  const size_t before = resident_bytes();
  trimmer.tick(0.0);
  churn_in_a_thread();
  const size_t held = resident_bytes();
  ASSERT_GT(held, before + 128 * kMB) << "malloc gave the freed blocks back by itself: nothing to test here";
  trimmer.tick(5.0);
  EXPECT_EQ(trimmer.trims(), 0) << "not due yet";
  trimmer.soon(5.0);
  trimmer.soon(5.5);  // put off again (a resize that goes on)
  trimmer.tick(6.2);
  EXPECT_EQ(trimmer.trims(), 0) << "a second after the last event, not the first";
  trimmer.tick(6.6);
  EXPECT_EQ(trimmer.trims(), 1);
  EXPECT_LT(resident_bytes(), held - 128 * kMB);
  trimmer.tick(20.0);
  EXPECT_EQ(trimmer.trims(), 1) << "once";
}
