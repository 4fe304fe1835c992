#include "app/window_app.h"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "app/gas/gas_mode.h"
#include "app/mode_options.h"
#include "app/start/setup.h"
#include "app/water/water_mode.h"
#include "app/window/app_window.h"
#include "app/window/frame_loop.h"
#include "app/window/virtual_display.h"
#include "render/gl_program.h"
#include "sim/backend/backend_select.h"
#include "util/atomic_file.h"
#include "util/paths.h"

namespace tp {

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
  // Found out now, not when the run ends (an offline render's minutes later), whether its
  // files can be written there.
  for (const auto& [option, path] : {std::pair<const char*, const std::string&>{"--video", options.video},
                                     {"--screenshot", options.screenshot}}) {
    std::string error;
    if (!path.empty() && !check_writable(path, &error)) {
      std::fprintf(stderr, "tidepool: %s: %s\n", option, error.c_str());
      return 2;
    }
  }
  StartPlan plan = start_plan(options);
  // Water or gas: the scene says (an unreadable one is make_setup's to report).
  bool gas = false, found = false;
  Scene gas_scene;
  try {
    gas_scene = find_scene(plan.scene, scene_dir());
    gas = gas_scene.is_gas;
    found = true;
  } catch (const SceneError&) {
  }
  // No display to open a window on: said now, before the start measures this machine's
  // particle count for a window it cannot open. Only for a water scene that was found: a
  // bad scene, a gas scene's refusals and a replay's unreadable session are said first, as
  // before (a replay takes its count from the session; rendered offline it makes a display).
  if (!has_display() && options.replay.empty() && found && !gas) {
    std::fprintf(stderr,
                 "tidepool: cannot open a window: there is no display (DISPLAY is not set). Use "
                 "--headless to run without one.\n");
    return 2;
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

  // An offline render (a replay to a video) on a machine without a display draws on one
  // of its own, ended with the run (after the window, declared before it).
  VirtualDisplay virtual_display;
  if (!options.replay.empty() && !options.video.empty() && !has_display()) {
    std::string display_error;
    if (!virtual_display.start(window_opts.width, window_opts.height, &display_error)) {
      std::fprintf(stderr, "tidepool: cannot render %s: %s\n", options.video.c_str(), display_error.c_str());
      return 2;
    }
    std::printf("tidepool: no display: rendering on a virtual one (Xvfb %s, %dx%d)\n", virtual_display.name().c_str(),
                window_opts.width, window_opts.height);
    std::fflush(stdout);
  }
  AppWindow window;
  if (!window.open(window_opts.width, window_opts.height)) return 2;
  std::printf("tidepool: %s; OpenGL: %s\n", gas ? gas_session.backend_message.c_str() : setup.backend_message.c_str(),
              window.gl_description().c_str());
  std::fflush(stdout);
  if (!gas && setup.sim->backend().kind == BackendKind::Cuda) move_to_gl_device(setup);
  if (!window.start_ui()) return 2;

  // One window and one frame loop for the whole session; the scene list may pass from water
  // to gas and back: each kind is a mode of the loop, and a switch to the other kind ends
  // one mode and starts the other.
  FrameLoop loop(window.handle(), window.input(), window_opts);
  Options current = options;
  std::string switch_error;  // why the last switch to the other kind was refused, for the panel
  for (;;) {
    std::string next;
    int code = 0;
    try {
      if (gas) {
        GasMode mode(window.handle(), window.input(), gas_session, plan);
        mode.controls().files.scene_error = switch_error;
        code = loop.run(mode);
        next = mode.next_scene();
      } else {
        WaterMode mode(window.handle(), window.input(), setup, plan, view);
        mode.controls().files.scene_error = switch_error;
        code = loop.run(mode);
        next = mode.next_scene();
      }
    } catch (const RenderError& e) {
      std::fprintf(stderr, "tidepool: %s\n", e.what());
      return 2;
    }
    if (next.empty()) return code;
    // The other kind's scene, with this session's backend choice and window options; the
    // first scene's --set and grid or particle options do not carry over.
    const Options before = current;
    const StartPlan plan_before = plan;
    current.scene = next;
    current.sets.clear();
    current.cells = 0;
    current.given.clear();
    current.replay.clear();  // (a replay's scene list switched to another scene)
    plan = start_plan(current);
    try {
      const Scene scene = find_scene(next, scene_dir());
      if (scene.is_gas) {
        gas_session = make_gas_session(plan, scene);
        setup = SimSetup{};
      } else {
        SimSetup made = make_setup(plan);
        if (made.sim->backend().kind == BackendKind::Cuda) move_to_gl_device(made);
        setup = std::move(made);
        gas_session = GasSession{};
      }
      gas = scene.is_gas;
      std::fprintf(stderr, "tidepool: scene %s\n", scene.name.c_str());
      switch_error.clear();
    } catch (const std::exception& e) {
      // The running scene goes on as it was (its session is untouched until the other is
      // made), with the reason in the panel: a scene the list offers that this machine
      // cannot hold (its memory, its grid) ended the window with exit code 1 before.
      switch_error = "cannot switch to '" + next + "': " + e.what();
      std::fprintf(stderr, "tidepool: %s; %s goes on\n", switch_error.c_str(), before.scene.c_str());
      current = before;
      plan = plan_before;
      continue;
    }
  }
}

}  // namespace tp
