// The window's one frame loop, for every kind of scene: each frame it polls the input,
// waits while there is nothing to do, takes the keys common to all modes (Space pause, S
// step, R reset, F5 shaders, F9 video, F12 screenshot, Tab panel, Escape quit) and the camera's
// drags, lets the mode (window_mode.h) carry out its requests and step, opens the ImGui
// frame for the mode's panel, frames the scene beside it, saves screenshots, draws,
// records video (video_recording.h), measures --bench-window, checks --gl-check, swaps; at the end it reports the benchmark
// and the GL check and lets the mode finish. Adding a mode never means copying it.
#pragma once

#include <memory>
#include <string>

#include "app/window/input.h"
#include "app/window/video_recording.h"
#include "util/heap_trim.h"
#include "app/window/window_bench.h"
#include "app/window/window_mode.h"
#include "app/window/window_options.h"

struct GLFWwindow;

namespace tp {

class FrameLoop {
 public:
  // An open window with a current GL context and ImGui initialised (app_window.h).
  FrameLoop(GLFWwindow* window, InputState& input, const WindowOptions& options);

  // Runs `mode` until the window is closed, Escape, --frames, the end of --bench-window, a
  // stop signal (Ctrl-C, SIGTERM), or a scene of another kind (mode.next_scene()). Returns
  // the exit code: mode.finish's, 1 when --screenshot could not be saved or --gl-check saw
  // an error. Each run counts its frames and measures its benchmark afresh.
  int run(WindowMode& mode);

 private:
  // Paused with nothing to do: sleeps until the next frame is due or input wants a prompt
  // answer (see frame_loop.cpp).
  void wait_while_idle(WindowMode& mode, double frame_start);
  bool idle(WindowMode& mode) const;
  void handle_keys(WindowMode& mode, bool* quit);
  // The panel's drawing; with a video that shows the panel, the frame is read between the
  // panel and the recording's marker (video_recording.h).
  void draw_panel(int fb_width, int fb_height, double now);

  GLFWwindow* window_;
  InputState& input_;
  const WindowOptions& options_;
  double last_input_time_ = 0.0;  ///< [s] GLFW time of the last input or busy frame
  VideoRecording video_;          ///< F9, the panel's Record video, --video
  bool video_option_started_ = false;  ///< --video has started its recording
  HeapTrimmer heap_trimmer_{2.0, size_t(8) << 20, true};  ///< freed memory back to the system, on a thread of its own (util/heap_trim.h)
};

// Ends the running mode's session from outside its loop, when the display has gone away
// (app_window.cpp's Xlib handler): mode.finish with the frames drawn so far; without a
// running mode, says the run stopped. Returns the exit code.
int finish_running_mode(int exit_code, const std::string& stop_reason);

}  // namespace tp
