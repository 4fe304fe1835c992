// A display of its own for an offline render on a machine without one (a server, a
// cluster node, a container): an X server in memory (Xvfb) started for the run and ended
// with it. GLFW 3.3, Debian's, opens windows only on a display, and the offline render
// draws with the window's own passes so that its frames are the window's
// (docs/recording.md), so it needs one; starting it here makes
// `tidepool --replay S --video V` work on such a machine as it does on a desktop.
#pragma once

#include <string>

namespace tp {

// Whether this process names a display to open windows on (DISPLAY: Debian's GLFW is
// built for X11, which a Wayland desktop serves through XWayland and its DISPLAY).
bool has_display();

class VirtualDisplay {
 public:
  VirtualDisplay() = default;
  VirtualDisplay(const VirtualDisplay&) = delete;
  VirtualDisplay& operator=(const VirtualDisplay&) = delete;
  ~VirtualDisplay() { stop(); }

  // Starts `server` (Xvfb, found on PATH) with one screen of width x height at 24 bits and
  // sets DISPLAY to it, waiting at most `timeout_s` for it to accept clients. False, with
  // a sentence in *error (what to install, or why it did not start), otherwise.
  bool start(int width, int height, std::string* error, const std::string& server = "Xvfb",
             double timeout_s = 20.0);
  // Ends the server (SIGTERM, then waits for it) and puts DISPLAY back as it was.
  void stop();
  bool running() const { return pid_ > 0; }
  const std::string& name() const { return name_; }  ///< ":N"

 private:
  int pid_ = -1;
  std::string name_;
  bool had_display_ = false;
  std::string old_display_;
};

}  // namespace tp
