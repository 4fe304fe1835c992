#include "app/window_app.h"

#include <glad/gl.h>
// glad first: GLFW must not pull in the system GL header.
#include <GLFW/glfw3.h>

#include <unistd.h>

#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>

#include "app/gas/gas_app.h"
#include "app/mode_options.h"
#include "app/window/input.h"
#include "app/water/interactive_app.h"
#include "util/paths.h"
#include "app/start/setup.h"
#include "util/stop_signals.h"
#include "backends/imgui_impl_glfw.h"
#include "backends/imgui_impl_opengl3.h"
#include "imgui.h"
#include "render/gl_program.h"
#include "sim/backend/backend_select.h"
#ifdef TP_HAVE_XLIB
// Last: Xlib's macros (None, Bool, Status, ...) stay out of the headers above.
#include <X11/Xlib.h>
#endif

namespace tp {

namespace {

std::string g_glfw_error;  // GLFW reports errors through a callback; keep the last one

void on_glfw_error(int code, const char* description) {
  g_glfw_error = std::string(description ? description : "unknown error") + " (GLFW error " +
                 std::to_string(code) + ")";
}

// GLFW, the window and ImGui, torn down in reverse order whichever way run_window leaves.
struct GlfwLibrary {
  bool ok = false;
  GlfwLibrary() {
    glfwSetErrorCallback(on_glfw_error);
    ok = glfwInit() == GLFW_TRUE;
  }
  ~GlfwLibrary() {
    if (ok) glfwTerminate();
  }
};

struct Window {
  GLFWwindow* handle = nullptr;
  ~Window() {
    if (handle) glfwDestroyWindow(handle);
  }
};

struct ImGuiSession {
  bool glfw = false, opengl = false;
  ~ImGuiSession() {
    if (opengl) ImGui_ImplOpenGL3_Shutdown();
    if (glfw) ImGui_ImplGlfw_Shutdown();
    if (ImGui::GetCurrentContext()) ImGui::DestroyContext();
  }
};

// The session running (water or gas), to finish if the display goes away.
std::function<int(int, const std::string&)> g_finish;

#ifdef TP_HAVE_XLIB
// Xlib calls this when the connection to the X server breaks (the server quit or was
// killed). Its default prints a cryptic line and exits there and then. Here the session
// ends the way a stop signal ends it: the recording stopped with every frame a whole file
// (frames are written between frames, never during an X call), the closing lines, and a
// last line that names the cause. It must not return (Xlib would exit), and nothing that
// needs the display (GLFW's or GL's teardown) can run any more: hence _exit.
int on_display_lost(Display* display) {
  const std::string reason =
      std::string("the display ") + DisplayString(display) + " went away";
  int code = 1;
  if (g_finish)
    code = g_finish(1, reason);
  else
    std::fprintf(stderr, "tidepool: %s; stopped\n", reason.c_str());
  std::fflush(nullptr);
  _exit(code);
}
#endif

const char* gl_string(GLenum name) {
  const GLubyte* text = glGetString(name);
  return text ? reinterpret_cast<const char*>(text) : "unknown";
}

}  // namespace

namespace {

// On CUDA, once the OpenGL context exists: simulate on the GPU that runs OpenGL (a
// hybrid laptop, a machine with two GPUs), so that the interop reaches its buffers. The
// simulation started on device 0 moves there whole (capture and restore).
void move_to_gl_device(SimSetup& setup) {
  std::string note;
  const int device = interop_device(cuda_runtime(), 0, &note);
  if (!note.empty()) std::printf("tidepool: %s\n", note.c_str());
  if (device == 0) return;
  try {
    const SimState state = setup.sim->capture();
    std::string error;
    if (!cuda_runtime().use_device(device, &error)) throw std::runtime_error(error);
    auto moved = make_simulation(BackendKind::Cuda);
    moved->restore(state);
    setup.sim = std::move(moved);
  } catch (const std::exception& e) {
    std::string ignored;
    cuda_runtime().use_device(0, &ignored);
    std::printf("tidepool: staying on CUDA device 0 (%s)\n", e.what());
  }
  std::fflush(stdout);
}

}  // namespace

int run_window(const Options& options) {
  WaterViewOptions view;
  std::string view_error;
  if (!water_view_options(options, &view, &view_error)) {
    std::fprintf(stderr, "tidepool: %s\n", view_error.c_str());
    return 2;
  }
  const WindowOptions window_opts = window_options(options);
  StartPlan plan = start_plan(options);
  // Water or gas: the scene says (an unreadable one is make_setup's to report).
  bool gas = false;
  Scene gas_scene;
  try {
    gas_scene = find_scene(options.scene, scene_dir());
    gas = gas_scene.is_gas;
  } catch (const SceneError&) {
  }
  SimSetup setup;
  GasSession gas_session;
  try {
    if (gas)
      gas_session = make_gas_session(plan, gas_scene);
    else
      setup = make_setup(plan);
  } catch (const SetupError& e) {
    std::fprintf(stderr, "tidepool: %s\n", e.what());
    return 2;
  }

  catch_stop_signals();  // Ctrl-C and kill end the session as closing the window does
#ifdef TP_HAVE_XLIB
  XSetIOErrorHandler(on_display_lost);
#endif
  GlfwLibrary glfw;
  if (!glfw.ok) {
    std::fprintf(stderr,
                 "tidepool: cannot open a window (no display?): %s. Use --headless to run "
                 "without one.\n",
                 g_glfw_error.c_str());
    return 2;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
  glfwWindowHint(GLFW_DEPTH_BITS, 24);
  Window window;
  window.handle =
      glfwCreateWindow(window_opts.width > 0 ? window_opts.width : 1280,
                       window_opts.height > 0 ? window_opts.height : 800, "Tidepool", nullptr, nullptr);
  if (!window.handle) {
    std::fprintf(stderr,
                 "tidepool: cannot create an OpenGL 3.3 core window: %s. Update the graphics "
                 "driver, or use --headless.\n",
                 g_glfw_error.c_str());
    return 2;
  }
  glfwMakeContextCurrent(window.handle);
  if (!gladLoadGL(glfwGetProcAddress)) {
    std::fprintf(stderr, "tidepool: cannot load the OpenGL functions of this driver.\n");
    return 2;
  }
  glfwSwapInterval(1);
  std::printf("tidepool: %s; OpenGL: %s, %s\n",
              gas ? gas_session.backend_message.c_str() : setup.backend_message.c_str(), gl_string(GL_RENDERER),
              gl_string(GL_VERSION));
  std::fflush(stdout);
  if (!gas && setup.sim->backend().kind == BackendKind::Cuda) move_to_gl_device(setup);

  // Our callbacks first: ImGui's GLFW backend then installs its own and chains to ours.
  InputState input;
  install_input_callbacks(window.handle, &input);
  ImGuiSession imgui;
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini left in the user's directory
  // A drag that starts on the panel's body must not carry the panel along.
  ImGui::GetIO().ConfigWindowsMoveFromTitleBarOnly = true;
  ImGui::StyleColorsDark();
  imgui.glfw = ImGui_ImplGlfw_InitForOpenGL(window.handle, true);
  imgui.opengl = ImGui_ImplOpenGL3_Init("#version 330");
  if (!imgui.glfw || !imgui.opengl) {
    std::fprintf(stderr, "tidepool: cannot start the user interface (Dear ImGui).\n");
    return 2;
  }

  // One window for the whole session; the scene list may pass from water to gas and back:
  // each kind has its app, and a switch to the other kind ends one and starts the other.
  Options current = options;
  for (;;) {
    std::string next;
    int code = 0;
    try {
      struct Running {  // g_finish is the session's only while it runs
        ~Running() { g_finish = nullptr; }
      } running;
      if (gas) {
        GasApp app(window.handle, input, gas_session, plan, window_opts);
        g_finish = [&app](int c, const std::string& why) { return app.finish(c, why); };
        code = app.run();
        next = app.next_scene();
      } else {
        InteractiveApp app(window.handle, input, setup, plan, window_opts, view);
        g_finish = [&app](int c, const std::string& why) { return app.finish(c, why); };
        code = app.run();
        next = app.next_scene();
      }
    } catch (const RenderError& e) {
      std::fprintf(stderr, "tidepool: %s\n", e.what());
      return 2;
    }
    if (next.empty()) return code;
    // The other kind's scene, with this session's backend choice and window options; the
    // first scene's --set and grid or particle options do not carry over.
    current.scene = next;
    current.sets.clear();
    current.cells = 0;
    current.given.clear();
    plan = start_plan(current);
    try {
      const Scene scene = find_scene(next, scene_dir());
      gas = scene.is_gas;
      if (gas) {
        gas_session = make_gas_session(plan, scene);
        setup = SimSetup{};
      } else {
        setup = make_setup(plan);
        gas_session = GasSession{};
        if (setup.sim->backend().kind == BackendKind::Cuda) move_to_gl_device(setup);
      }
      std::fprintf(stderr, "tidepool: scene %s\n", scene.name.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tidepool: cannot switch to '%s': %s\n", next.c_str(), e.what());
      return 1;
    }
  }
}

}  // namespace tp
