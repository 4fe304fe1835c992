// Giving freed heap memory back to the system. glibc's malloc keeps what the program frees
// in its arenas for reuse, and returns it to the system only from the top of the main
// arena; the window's threads (the step's, the encoder's, the GL driver's) allocate from
// arenas of their own, so after a few scene switches, quality changes and window resizes
// the resident size holds the largest of each and does not come down. Under the monkey
// (tests/app/test_window_monkey.cpp) with a heap profiler: the memory in use stayed at 80
// to 130 MB for 10 minutes, and back at 78 MB at the end, while the resident size went
// from 230 to 326 MB. malloc_trim releases the free pages of every arena.
//
// HeapTrimmer does that when it is worth it: a second after an event that frees much (a
// scene switched or loaded, a reset: soon()), and otherwise when the resident size, looked
// at every 2 s, has grown by more than 8 MB since the last trim (or the start). A steady
// window trims rarely (20 s of the dam break: twice as spheres, once as the surface, about
// 2 ms each); under the monkey's churn of modes, sizes and scenes about every 3 s, the
// longest 37 ms. (It was 24 MB every 3 s: the monkey's checkpoints, the same seed, held 193
// to 232 MB; with 8 MB and the video's frames given back, 167 to 185.) The window's trims
// run on a thread of the trimmer's own (2026-12-02; before, in the frame loop, the hour's
// longest held a frame 122 ms). Elsewhere than glibc it does nothing.
//
// malloc_trim cannot shrink the top of a thread's arena (only free chunks inside it), and
// glibc raises its thresholds as the program frees large blocks (the mmap threshold up to
// 32 MB, the trim threshold to twice that), after which a thread's arena gives nothing
// back by itself either: under the monkey, two arenas whose threads had freed everything
// (2 kB in use) kept 10 to 12 MB resident each, and the main arena held 181 MB from the
// system for 102 MB in use. fix_malloc_thresholds() (the window calls it first thing)
// holds the thresholds where they start: blocks of a megabyte or more are mapped and given
// back when freed, an arena's free top beyond 8 MB is given back at the next large free,
// and the window's threads share two arenas instead of one each.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>

namespace tp {

// The process's resident size, from /proc/self/statm; 0 where that cannot be read.
size_t resident_bytes();

// Fixes glibc malloc's thresholds as above (before the program starts threads); a user's
// GLIBC_TUNABLES for malloc wins. Elsewhere than glibc it does nothing. Returns whether it
// set them.
bool fix_malloc_thresholds();

class HeapTrimmer {
 public:
  // `background`: the trims run on a thread of the trimmer's own, so that tick() never
  // waits for one (the window's: a trim holds the frame for 2 ms when steady, but under the
  // monkey's churn up to 37 ms, and 122 ms beside a build). A malloc on another thread that
  // needs the arena being trimmed still waits for that arena's part of it.
  explicit HeapTrimmer(double period_seconds = 2.0, size_t slack_bytes = size_t(8) << 20, bool background = false);
  ~HeapTrimmer();
  HeapTrimmer(const HeapTrimmer&) = delete;
  HeapTrimmer& operator=(const HeapTrimmer&) = delete;
  // Once a frame, with the wall clock in seconds. While a background trim runs it only
  // keeps the clock: the next look comes a period later.
  void tick(double now);
  // Something that frees much happened at `now`: trim `delay` seconds later (a later call
  // puts it off again: a burst of events trims once, at its end).
  void soon(double now, double delay = 1.0) { pending_ = now + delay; }
  // Until no trim is running (at once without the background thread).
  void wait_idle();

  struct Figures {
    int trims = 0;
    double longest_ms = 0.0;  ///< the longest trim so far
    size_t released_bytes = 0;  ///< the resident size the trims gave back
    bool last_elsewhere = false;  ///< whether the last trim ran on another thread than tick's
  };
  Figures figures() const;  ///< (one read, consistent while the worker trims)
  // After each trim, one line on standard error: the resident size and malloc's own
  // account of it (in use in its arenas, in mapped blocks, held free), which says whether a
  // growth is memory in use or memory malloc keeps (the monkey's checkpoints read it).
  void set_log(bool on) { log_ = on; }
  // The trims asked for with soon() run on tick's thread after `settle` (the window's:
  // glFinish), and their line says "settled": the resident size with no frame in flight.
  // A software GL driver holds a frame's binned triangles while it draws (llvmpipe: 9 to
  // 23 MB at the same view, by when it was read), so only a reading taken with none in
  // flight compares one moment with another (the monkey's checkpoints).
  void settle_asked_trims(std::function<void()> settle) { settle_ = std::move(settle); }

 private:
  void trim(size_t resident, bool settled = false);  // the trim itself and its figures (on either thread)
  void run_worker();
  double period_, next_ = -1.0, pending_ = -1.0;
  const size_t slack_;
  mutable std::mutex mutex_;  // what follows, shared with the worker
  std::condition_variable wake_, idle_;
  size_t baseline_ = 0, job_ = 0;  // job_: the resident size a due trim was asked at (0: none)
  bool busy_ = false, stop_ = false;
  std::atomic<bool> log_{false};  // (set on tick's thread, read by the worker's trims)
  Figures figures_;
  std::function<void()> settle_;  // (tick's thread only)
  std::thread::id ticks_on_{};
  std::thread worker_;  // (last: started once the rest is)
};

}  // namespace tp
