// Lowering threads' priority by name (src/util/thread_priority.h): the window lets a software
// OpenGL driver's rasterizer threads ("llvmpipe-0", ...) yield to the simulation with it.
#include <gtest/gtest.h>

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "util/thread_priority.h"

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

TEST(ThreadPriority, OnlyTheThreadsOfTheNameAreLowered) {
#ifndef __linux__
  GTEST_SKIP() << "thread names and per-thread nice values are Linux's";
#endif
  NamedThread a("tp-yield-0"), b("tp-yield-1"), other("tp-keep");
  const int a0 = a.nice(), b0 = b.nice(), other0 = other.nice(), self0 = getpriority(PRIO_PROCESS, 0);
  EXPECT_EQ(lower_threads_named("tp-yield", 3), 2);
  EXPECT_EQ(a.nice(), std::min(a0 + 3, 19));
  EXPECT_EQ(b.nice(), std::min(b0 + 3, 19));
  EXPECT_EQ(other.nice(), other0) << "a thread of another name keeps its priority";
  EXPECT_EQ(getpriority(PRIO_PROCESS, 0), self0) << "and so does the calling thread";
  // At 19 a thread cannot go lower: it is not counted.
  lower_threads_named("tp-yield-0", 30);
  EXPECT_EQ(a.nice(), 19);
  EXPECT_EQ(lower_threads_named("tp-yield-0", 1), 0);
  EXPECT_EQ(lower_threads_named("no-such-thread", 1), 0);
}
