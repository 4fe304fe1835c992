// Watching the app's window from outside, through the X server: the window tests use it to
// wait for frames rather than for guessed wall-clock times, so they hold on a loaded machine
// where the frame rate can drop tenfold. Xlib stays in x11_frames.cpp (its macros, such as
// None and Bool, clash with other headers).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tp::test {

struct WindowRect {
  int x = 0, y = 0, width = 0, height = 0;  ///< window coordinates
};

class FrameWatcher {
 public:
  // Opens $DISPLAY and watches `area` of the window with this X id (as xdotool prints it).
  FrameWatcher(unsigned long window, WindowRect area);
  ~FrameWatcher();
  FrameWatcher(const FrameWatcher&) = delete;
  FrameWatcher& operator=(const FrameWatcher&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // Polls the watched area until its content has changed `changes` times (each change is at
  // least one new frame), or the timeout passes, or the window goes away. Returns the
  // number of changes seen.
  int wait_changes(int changes, double timeout_seconds);

  // The window's pixels in `area` as 0x00RRGGBB, row by row (empty on failure).
  std::vector<uint32_t> grab(WindowRect area);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  WindowRect area_;
  std::string error_;
};

}  // namespace tp::test
