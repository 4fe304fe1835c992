#include "app/window/app_window.h"

#include <glad/gl.h>
// glad first: GLFW must not pull in the system GL header.
#include <GLFW/glfw3.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "app/window/frame_loop.h"
#include "backends/imgui_impl_glfw.h"
#include "backends/imgui_impl_opengl3.h"
#include "imgui.h"
#include "util/stop_signals.h"
#include "util/thread_priority.h"
#ifdef TP_HAVE_XLIB
// Last: Xlib's macros (None, Bool, Status, ...) stay out of the headers above.
#include <X11/Xlib.h>
// GLFW's X11 access (glfw3native.h's, declared here: that header also wants Xrandr's).
extern "C" Display* glfwGetX11Display(void);
extern "C" Window glfwGetX11Window(GLFWwindow* window);
#endif

namespace tp {

void window_pixels_now(GLFWwindow* window, int* width, int* height) {
  glfwGetFramebufferSize(window, width, height);
#ifdef TP_HAVE_XLIB
  Display* display = glfwGetX11Display();
  const Window x_window = glfwGetX11Window(window);
  if (!display || !x_window) return;
  Window root = 0;
  int x = 0, y = 0;
  unsigned int w = 0, h = 0, border = 0, depth = 0;
  if (!XGetGeometry(display, x_window, &root, &x, &y, &w, &h, &border, &depth)) return;
  *width = std::min(*width, int(w));
  *height = std::min(*height, int(h));
#endif
}

WindowSizeHold::WindowSizeHold(GLFWwindow* window, int* width, int* height) {
#ifdef TP_HAVE_XLIB
  if (Display* display = glfwGetX11Display()) {
    XGrabServer(display);
    grabbed_ = true;
  }
#endif
  int now_width = *width, now_height = *height;
  window_pixels_now(window, &now_width, &now_height);
  *width = std::min(*width, now_width);
  *height = std::min(*height, now_height);
}

WindowSizeHold::~WindowSizeHold() {
  glFinish();
#ifdef TP_HAVE_XLIB
  if (grabbed_) {
    Display* display = glfwGetX11Display();
    XUngrabServer(display);
    XFlush(display);
  }
#endif
}

namespace {

std::string g_glfw_error;  // GLFW reports errors through a callback; keep the last one

void on_glfw_error(int code, const char* description) {
  g_glfw_error = std::string(description ? description : "unknown error") + " (GLFW error " +
                 std::to_string(code) + ")";
}

#ifdef TP_HAVE_XLIB
// Xlib calls this when the connection to the X server breaks (the server quit or was
// killed). Its default prints a cryptic line and exits there and then. Here the session
// ends the way a stop signal ends it: the recording stopped with every frame a whole file
// (frames are written between frames, never during an X call), the closing lines, and a
// last line that names the cause. It must not return (Xlib would exit), and nothing that
// needs the display (GLFW's or GL's teardown) can run any more: hence _exit.
int on_display_lost(Display* display) {
  const std::string reason = std::string("the display ") + DisplayString(display) + " went away";
  const int code = finish_running_mode(1, reason);
  std::fflush(nullptr);
  _exit(code);
}
#endif

const char* gl_string(GLenum name) {
  const GLubyte* text = glGetString(name);
  return text ? reinterpret_cast<const char*>(text) : "unknown";
}

}  // namespace

AppWindow::~AppWindow() {
  if (imgui_opengl_) ImGui_ImplOpenGL3_Shutdown();
  if (imgui_glfw_) ImGui_ImplGlfw_Shutdown();
  if (ImGui::GetCurrentContext()) ImGui::DestroyContext();
  if (handle_) glfwDestroyWindow(handle_);
  if (glfw_) glfwTerminate();
}

bool AppWindow::open(int width, int height) {
  catch_stop_signals();  // Ctrl-C and kill end the session as closing the window does
#ifdef TP_HAVE_XLIB
  XSetIOErrorHandler(on_display_lost);
#endif
  glfwSetErrorCallback(on_glfw_error);
  glfw_ = glfwInit() == GLFW_TRUE;
  if (!glfw_) {
    std::fprintf(stderr,
                 "tidepool: cannot open a window (no display?): %s. Use --headless to run "
                 "without one.\n",
                 g_glfw_error.c_str());
    return false;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
  glfwWindowHint(GLFW_DEPTH_BITS, 24);
  handle_ = glfwCreateWindow(width > 0 ? width : 1280, height > 0 ? height : 800, "Tidepool", nullptr, nullptr);
  if (!handle_) {
    std::fprintf(stderr,
                 "tidepool: cannot create an OpenGL 3.3 core window: %s. Update the graphics "
                 "driver, or use --headless.\n",
                 g_glfw_error.c_str());
    return false;
  }
  glfwMakeContextCurrent(handle_);
  if (!gladLoadGL(glfwGetProcAddress)) {
    std::fprintf(stderr, "tidepool: cannot load the OpenGL functions of this driver.\n");
    return false;
  }
  glfwSwapInterval(1);
  yield_software_rasterizer();
  return true;
}

// Mesa's software driver rasterizes on threads of its own ("llvmpipe-0", ...), made with
// the context, which render as fast as they can. On 2 cores they took the cores from the
// simulation's thread: its step ran 1.1 to 1.4 times longer than with them yielding (the
// default dam break 9.5 ms against 7.3; docs/benchmarks.md), while drawing only 2 to 20 %
// more frames a second. They yield to it; the picture takes what the water leaves. Each names itself
// when it first runs, which on busy cores may come a little after the context: they are
// looked for until as many as Mesa makes have their names (LP_NUM_THREADS, else one per
// core up to 16, none on one core), for at most half a second.
void AppWindow::yield_software_rasterizer() {
  if (std::string(gl_string(GL_RENDERER)).find("llvmpipe") == std::string::npos) return;
  const char* set = std::getenv("LP_NUM_THREADS");
  const unsigned cores = std::thread::hardware_concurrency();
  const int expected = set && *set ? std::atoi(set) : cores > 1 ? int(std::min(cores, 16u)) : 0;
  if (expected <= 0) return;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  for (;;) {
    const LoweredThreads lowered = lower_threads_named("llvmpipe", kRasterizerNiceStep);
    rasterizer_threads_ = lowered.threads;
    rasterizer_nice_ = lowered.nice;
    if (rasterizer_threads_ >= expected || std::chrono::steady_clock::now() > deadline) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::string AppWindow::gl_description() const {
  std::string text = std::string(gl_string(GL_RENDERER)) + ", " + gl_string(GL_VERSION);
  if (rasterizer_threads_ > 0)
    text += " (its " + std::to_string(rasterizer_threads_) + " rasterizer thread" +
            (rasterizer_threads_ == 1 ? "" : "s") + " at nice " + std::to_string(rasterizer_nice_) +
            ", below the simulation's)";
  return text;
}

bool AppWindow::start_ui() {
  // Our callbacks first: ImGui's GLFW backend then installs its own and chains to ours.
  install_input_callbacks(handle_, &input_);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini left in the user's directory
  // A drag that starts on the panel's body must not carry the panel along.
  ImGui::GetIO().ConfigWindowsMoveFromTitleBarOnly = true;
  ImGui::StyleColorsDark();
  imgui_glfw_ = ImGui_ImplGlfw_InitForOpenGL(handle_, true);
  if (imgui_glfw_) defer_quick_key_releases(handle_);
  imgui_opengl_ = ImGui_ImplOpenGL3_Init("#version 330");
  if (!imgui_glfw_ || !imgui_opengl_) {
    std::fprintf(stderr, "tidepool: cannot start the user interface (Dear ImGui).\n");
    return false;
  }
  return true;
}

}  // namespace tp
