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
  // The OpenGL driver: "RENDERER, VERSION".
  std::string gl_description() const;
  // The input callbacks, then Dear ImGui's (which chain to them). False after saying why.
  bool start_ui();

  GLFWwindow* handle() const { return handle_; }
  InputState& input() { return input_; }

 private:
  bool glfw_ = false;
  GLFWwindow* handle_ = nullptr;
  InputState input_;
  bool imgui_glfw_ = false, imgui_opengl_ = false;
};

}  // namespace tp
