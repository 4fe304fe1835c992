// The window's platform: GLFW, one OpenGL 3.3 core window and its context (glad), the input
// callbacks and Dear ImGui, torn down in reverse order however the session ends. Ctrl-C,
// kill and a lost display end the session as closing the window does (frame_loop.h's
// finish_running_mode).
#pragma once

#include <string>

#include "app/window/input.h"

struct GLFWwindow;

namespace tp {

// The window's framebuffer size as the window system has it now: GLFW's (which follows the
// window's events, so it may lag a resize by a frame) made no larger than the X server's.
// A read of the default framebuffer at GLFW's size after the window shrank went past the
// end of llvmpipe's back buffer (found by the monkey test).
void window_pixels_now(GLFWwindow* window, int* width, int* height);

// For its lifetime no other X client can change the window (the X server is grabbed), and
// `width` and `height` are made no larger than window_pixels_now() says: a read of the
// default framebuffer within it meets a back buffer of that size. At its end GL has
// finished (the read is done, not queued) and the server is let go. Without Xlib, only
// the size and the finish. A software driver's read raced with a resize from another
// client (xdotool) in the monkey test's hour runs: llvmpipe copied rows of the size read
// before from a back buffer already reallocated smaller (a crash in memcpy, twice).
class WindowSizeHold {
 public:
  WindowSizeHold(GLFWwindow* window, int* width, int* height);
  ~WindowSizeHold();
  WindowSizeHold(const WindowSizeHold&) = delete;
  WindowSizeHold& operator=(const WindowSizeHold&) = delete;

 private:
  bool grabbed_ = false;
};

class AppWindow {
 public:
  AppWindow() = default;
  ~AppWindow();
  AppWindow(const AppWindow&) = delete;
  AppWindow& operator=(const AppWindow&) = delete;

  // Catches the stop signals, opens a `width` x `height` window (0: the default size) with
  // an OpenGL 3.3 core context and loads OpenGL. False after saying why on stderr (the
  // process's exit code is then 2).
  bool open(int width, int height);
  // The OpenGL driver: "RENDERER, VERSION", and how many rasterizer threads of a software
  // driver were made to yield to the simulation (open()).
  std::string gl_description() const;
  // How much a software driver's rasterizer threads' nice value is raised above the app's.
  static constexpr int kRasterizerNiceStep = 10;
  // The input callbacks, then Dear ImGui's (which chain to them). False after saying why.
  bool start_ui();

  GLFWwindow* handle() const { return handle_; }
  InputState& input() { return input_; }

 private:
  bool glfw_ = false;
  GLFWwindow* handle_ = nullptr;
  InputState input_;
  bool imgui_glfw_ = false, imgui_opengl_ = false;
  // Lowers a software driver's rasterizer threads below the simulation's (open()).
  void yield_software_rasterizer();
  int rasterizer_threads_ = 0, rasterizer_nice_ = 0;
};

}  // namespace tp
