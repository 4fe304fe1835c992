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
// to 232 MB; with 8 MB and the video's frames given back, 167 to 185.) Elsewhere than
// glibc it does nothing.
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

#include <cstddef>

namespace tp {

// The process's resident size, from /proc/self/statm; 0 where that cannot be read.
size_t resident_bytes();

// Fixes glibc malloc's thresholds as above (before the program starts threads); a user's
// GLIBC_TUNABLES for malloc wins. Elsewhere than glibc it does nothing. Returns whether it
// set them.
bool fix_malloc_thresholds();

class HeapTrimmer {
 public:
  explicit HeapTrimmer(double period_seconds = 2.0, size_t slack_bytes = size_t(8) << 20)
      : period_(period_seconds), slack_(slack_bytes) {}
  // Once a frame, with the wall clock in seconds.
  void tick(double now);
  // Something that frees much happened at `now`: trim `delay` seconds later (a later call
  // puts it off again: a burst of events trims once, at its end).
  void soon(double now, double delay = 1.0) { pending_ = now + delay; }

  int trims() const { return trims_; }
  double longest_ms() const { return longest_ms_; }  ///< the longest trim so far
  size_t released_bytes() const { return released_; }  ///< the resident size the trims gave back

 private:
  double period_, next_ = -1.0, pending_ = -1.0;
  void trim(size_t resident);
  size_t slack_, baseline_ = 0;
  int trims_ = 0;
  double longest_ms_ = 0.0;
  size_t released_ = 0;
};

}  // namespace tp
