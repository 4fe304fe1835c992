// Lowering threads' priority by name (src/util/thread_priority.h): the window lets a software
// OpenGL driver's rasterizer threads ("llvmpipe-0", ...) yield to the simulation with it.
#include <gtest/gtest.h>

#include <algorithm>

#include "util/thread_priority.h"

#ifdef __linux__
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace tp;

namespace {

// A thread named `name` that reports its id and waits until told to end.
struct NamedThread {
  std::atomic<long> tid{0};
  std::atomic<bool> done{false};
  std::thread thread;
  explicit NamedThread(const char* name) {
    thread = std::thread([this, name] {
      pthread_setname_np(pthread_self(), name);
      tid = long(syscall(SYS_gettid));
      while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    while (tid == 0) std::this_thread::yield();
  }
  ~NamedThread() {
    done = true;
    thread.join();
  }
  int nice() const { return getpriority(PRIO_PROCESS, id_t(tid.load())); }
};

}  // namespace

TEST(ThreadPriority, OnlyTheThreadsOfTheNameAreLoweredAndOnlyOnce) {
  const int self = getpriority(PRIO_PROCESS, 0);
  if (self >= 16) GTEST_SKIP() << "the test runs at nice " << self << ": no room to lower threads by 3";
  NamedThread a("tp-yield-0"), b("tp-yield-1"), other("tp-keep");
  const int other0 = other.nice();
  const LoweredThreads first = lower_threads_named("tp-yield", 3);
  EXPECT_EQ(first.threads, 2);
  EXPECT_EQ(first.nice, self + 3);
  EXPECT_EQ(a.nice(), self + 3);
  EXPECT_EQ(b.nice(), self + 3);
  EXPECT_EQ(other.nice(), other0) << "a thread of another name keeps its priority";
  EXPECT_EQ(getpriority(PRIO_PROCESS, 0), self) << "and so does the calling thread";
  // Again, with a thread that came since: it is lowered, the others stay where they are.
  NamedThread c("tp-yield-2");
  const LoweredThreads again = lower_threads_named("tp-yield", 3);
  EXPECT_EQ(again.threads, 3);
  EXPECT_EQ(a.nice(), self + 3) << "not lowered twice";
  EXPECT_EQ(c.nice(), self + 3);
  // Never past 19.
  EXPECT_EQ(lower_threads_named("tp-yield-0", 40).nice, 19);
  EXPECT_EQ(a.nice(), 19);
  EXPECT_EQ(lower_threads_named("no-such-thread", 1).threads, 0);
}
#endif
