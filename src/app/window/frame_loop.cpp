#include "app/window/frame_loop.h"

#include <glad/gl.h>
// glad first: GLFW must not pull in the system GL header.
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "app/window/app_window.h"
#include "app/window/window_frame.h"
#include "render/frame_readback.h"
#include "backends/imgui_impl_glfw.h"
#include "backends/imgui_impl_opengl3.h"
#include "imgui.h"
#include "util/stop_signals.h"

namespace tp {

namespace {

// Frame periods while paused with nothing to do (see wait_while_idle).
constexpr double kIdleFrameSeconds = 1.0 / 30.0;  // within kIdleInputSeconds of input
constexpr double kRestFrameSeconds = 1.0 / 4.0;   // after that, and while minimised
constexpr double kIdleInputSeconds = 1.0;

// The mode running and the frames it has drawn, for finish_running_mode.
WindowMode* g_running_mode = nullptr;
const int* g_running_frames = nullptr;

// g_running_mode is the run's only while it runs.
struct RunningMode {
  RunningMode(WindowMode* mode, const int* frames) {
    g_running_mode = mode;
    g_running_frames = frames;
  }
  ~RunningMode() {
    g_running_mode = nullptr;
    g_running_frames = nullptr;
  }
};

}  // namespace

int finish_running_mode(int exit_code, const std::string& stop_reason) {
  if (g_running_mode) return g_running_mode->finish(exit_code, stop_reason, *g_running_frames);
  std::fprintf(stderr, "tidepool: %s; stopped\n", stop_reason.c_str());
  return exit_code;
}

FrameLoop::FrameLoop(GLFWwindow* window, InputState& input, const WindowOptions& options)
    : window_(window), input_(input), options_(options) {}

void FrameLoop::handle_keys(WindowMode& mode, bool* quit) {
  WindowControls& controls = mode.controls();
  for (int key : input_.keys) {
    switch (key) {
      case GLFW_KEY_ESCAPE:
        *quit = true;
        break;
      case GLFW_KEY_SPACE:
        controls.paused = !controls.paused;
        break;
      case GLFW_KEY_S:
        controls.step_requested = true;
        break;
      case GLFW_KEY_R:
        controls.reset_requested = true;
        break;
      case GLFW_KEY_F5:
        controls.reload_shaders_requested = true;
        break;
      case GLFW_KEY_F12:
        controls.screenshot_requested = true;
        break;
      case GLFW_KEY_F9:
        controls.files.video_toggle_requested = true;
        break;
      case GLFW_KEY_TAB:
        controls.panel_hidden = !controls.panel_hidden;
        break;
      default:
        mode.key(key);
        break;
    }
  }
  // Single stepping only makes sense from a paused state; S pauses a running simulation.
  if (controls.step_requested) controls.paused = true;
}

bool FrameLoop::idle(WindowMode& mode) const {
  const WindowControls& controls = mode.controls();
  const FileControls& files = controls.files;
  if (!controls.paused || controls.step_requested || controls.reset_requested ||
      controls.reload_shaders_requested || !files.scene_request.empty() || files.record_toggle_requested ||
      files.preset_save_requested || files.preset_load_requested || files.state_save_requested ||
      files.state_load_requested || files.video_toggle_requested || files.gif_requested)
    return false;
  // A button held (a camera drag, a panel slider) wants every frame.
  for (int button : {GLFW_MOUSE_BUTTON_LEFT, GLFW_MOUSE_BUTTON_RIGHT, GLFW_MOUSE_BUTTON_MIDDLE})
    if (glfwGetMouseButton(window_, button) == GLFW_PRESS) return false;
  return true;
}

void FrameLoop::wait_while_idle(WindowMode& mode, double frame_start) {
  // Paused with nothing to do: rather than render flat out, sleep until the next frame is
  // due, or until a key or a button wants a prompt answer. Frames come at 30 Hz for a
  // second after the last input (the panel follows hovering and typing smoothly), then at
  // 4 Hz (the statistics stay live). Other input (mouse motion, wheel) wakes the wait,
  // which then goes on to the 30 Hz frame time.
  for (;;) {
    const double now = glfwGetTime();
    if (!idle(mode) || !input_.keys.empty() || glfwWindowShouldClose(window_) || stop_signal()) {
      last_input_time_ = now;
      return;
    }
    const double period = now - last_input_time_ < kIdleInputSeconds ? kIdleFrameSeconds : kRestFrameSeconds;
    const double wait = frame_start + period - now;
    if (wait <= 0.0) return;
    glfwWaitEventsTimeout(wait);
    const double woke = glfwGetTime();
    if (woke < frame_start + period - 1e-3) last_input_time_ = woke;  // an event woke it
  }
}

void FrameLoop::draw_panel(int fb_width, int fb_height, double now) {
  ImDrawData* data = ImGui::GetDrawData();
  if (!video_.recording() || !video_.with_panel()) {
    ImGui_ImplOpenGL3_RenderDrawData(data);
    return;
  }
  // The panel's lists, the read, then the foreground list (the marker).
  const ImDrawList* marker = ImGui::GetForegroundDrawList();
  std::vector<ImDrawList*> panel, top;
  for (int i = 0; i < data->CmdListsCount; ++i) (data->CmdLists[i] == marker ? top : panel).push_back(data->CmdLists[i]);
  const auto render = [data](std::vector<ImDrawList*>& lists) {
    ImDrawData part = *data;
    part.CmdLists = lists.data();
    part.CmdListsCount = int(lists.size());
    part.TotalIdxCount = part.TotalVtxCount = 0;
    for (const ImDrawList* list : lists) {
      part.TotalIdxCount += list->IdxBuffer.Size;
      part.TotalVtxCount += list->VtxBuffer.Size;
    }
    ImGui_ImplOpenGL3_RenderDrawData(&part);
  };
  render(panel);
  video_.capture_if_due(now, fb_width, fb_height);
  render(top);
}

int FrameLoop::run(WindowMode& mode) {
  WindowControls& controls = mode.controls();
  OrbitCamera& camera = mode.camera();
  Renderer& renderer = mode.renderer();
  controls.panel_hidden = options_.hide_panel;
  renderer.set_error_check(options_.gl_check);
  // Tests that click the panel's widgets ask where they are (panel_files.h).
  const char* widgets = std::getenv("TIDEPOOL_TEST_WIDGETS");
  controls.widgets.enabled = widgets && *widgets && std::string(widgets) != "0";
  input_.log_buttons = controls.widgets.enabled;
  heap_trimmer_.set_log(controls.widgets.enabled);
  if (controls.widgets.enabled) heap_trimmer_.settle_asked_trims([] { glFinish(); });
  std::unique_ptr<WindowBench> bench;  // --bench-window
  ScriptedDrag drag;                   // --bench-drag
  bool drag_held = false;
  if (options_.bench_window > 0.0) {
    bench = std::make_unique<WindowBench>(options_.bench_window);
    if (options_.bench_drag) drag = mode.bench_drag(options_.bench_window);
  }
  int frames = 0;
  const RunningMode running(&mode, &frames);
  controls.files.video_as_shown = preferred_readback_source() == ReadbackSource::Shown;
  mode.start();
  heap_trimmer_.soon(glfwGetTime());  // (a switch from the other kind of scene freed its mode)
  int exit_code = 0;
  bool panel_gl_errors = false;  // --gl-check saw an error after the panel's drawing
  double last_time = glfwGetTime();
  const double run_start = last_time;
  for (;;) {
    release_deferred_keys(window_);  // (the keys pressed and let go within the last frame)
    glfwPollEvents();
    wait_while_idle(mode, last_time);
    int fb_width = 0, fb_height = 0;
    window_pixels_now(window_, &fb_width, &fb_height);
    if (glfwGetWindowAttrib(window_, GLFW_ICONIFIED) || fb_width <= 0 || fb_height <= 0) {
      // Minimised: nothing to draw. Sleep until something happens rather than spin, and
      // do not count the time away as a frame.
      if (glfwWindowShouldClose(window_) || stop_signal()) break;
      glfwWaitEventsTimeout(kRestFrameSeconds);  // wakes to see a stop signal
      last_time = glfwGetTime();
      input_.begin_frame();
      continue;
    }
    FrameTime frame;
    frame.now = glfwGetTime();
    frame.seconds = frame.now - last_time;
    last_time = frame.now;

    bool quit = glfwWindowShouldClose(window_) || stop_signal();
    if (bench && options_.bench_drag)
      play_scripted_drag(drag, frame.now - run_start, window_, camera, input_, *bench, &drag_held);
    frame.scripted_drag = drag_held;
    handle_keys(mode, &quit);
    apply_camera_input(window_, input_, camera);
    {  // What frees much (a scene, a state or preset, a reset): a trim soon. (Not a resize: 60
      // resizes left the resident size as it was, and the monkey's many made trims frequent.)
      const FileControls& f = controls.files;
      if (!f.scene_request.empty() || f.state_load_requested || f.preset_load_requested ||
          controls.reset_requested || take_request(controls.memory_released))
        heap_trimmer_.soon(frame.now);
    }
    mode.apply_requests();
    reload_shaders_if_asked(renderer, controls);
    // --video from the first frame on; F9 and the panel's button start and stop one. An
    // offline render's video follows the mode's clock (the simulated one) instead of the
    // wall clock, and ends with the replay.
    const bool offline = mode.video_clock() >= 0.0;
    const auto video_now = [&] { return offline ? mode.video_clock() : frame.now; };
    if (!options_.video.empty() && !video_option_started_) {  // (once: not again after a scene switch)
      video_option_started_ = true;
      if (offline) video_.set_offline(options_.video_fps);
      if (offline && (fb_width != options_.width || fb_height != options_.height)) {
        std::fprintf(stderr,
                     "tidepool: --video: the window got %dx%d pixels of the %dx%d asked (a screen smaller than "
                     "that?); render on a screen that large, e.g. xvfb-run -s '-screen 0 %dx%dx24' tidepool ...\n",
                     fb_width, fb_height, options_.width, options_.height, options_.width, options_.height);
        exit_code = 1;
        quit = true;
      } else if (!video_.start(options_.video, renderer.shader_dir(), fb_width, fb_height, video_now(), controls.files) &&
          offline) {
        exit_code = 1;
        quit = true;
      }
    }
    if (take_request(controls.files.video_toggle_requested) && !offline) {
      if (video_.recording()) video_.stop(controls.files);
      else video_.start("", renderer.shader_dir(), fb_width, fb_height, frame.now, controls.files);
    }
    if (take_request(controls.files.gif_requested)) video_.make_gif(controls.files);
    if (!mode.next_scene().empty()) break;  // a scene of the other kind: the caller opens it
    if (quit && offline) break;  // (its video could not start)
    mode.step(frame);
    if (mode.done()) quit = true;

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    close_popups_on_escape(input_);
    PanelExtent panel;  // none while hidden: the scene takes the whole window
    if (!controls.panel_hidden) panel = mode.panel();
    print_widget_changes(controls.widgets);
    const float shift = panel_screen_shift(window_, panel);
    camera.set_screen_shift(shift);
    camera.fit_plane(float(fb_width) / float(fb_height));  // 2D: the plane beside the panel
    video_.draw_marker(video_now());
    ImGui::Render();

    // The button and F12 save the scene without the panel, framed as with the panel
    // collapsed (centred in the window, not beside the panel): drawn once so, saved, then
    // drawn again as the window shows it.
    const auto draw = [&] { mode.draw(camera_view(camera, fb_width, fb_height)); };
    screenshot_if_asked(camera, shift, fb_width, fb_height, controls, draw);
    draw();
    if (!video_.with_panel() && !video_.reads_shown()) video_.capture_if_due(video_now(), fb_width, fb_height);
    draw_panel(fb_width, fb_height, video_now());
    video_.poll(controls.files);
    controls.render_pass_times = renderer.pass_times();
    if (options_.gl_check && gl_errors_after_panel()) panel_gl_errors = true;
    ++frames;
    if (bench) {
      const double t = glfwGetTime() - run_start;
      const BenchFrame drawn = mode.bench_frame();
      if (drawn.force_shown) bench->force_shown(t);
      bench->frame(t, drawn.stats, drawn.serial, drawn.count);
      if (bench->done(t)) quit = true;
    }

    const bool last = quit || (options_.frames > 0 && frames >= options_.frames);
    if (last && !options_.screenshot.empty() && !save_last_frame(options_.screenshot, fb_width, fb_height))
      exit_code = 1;
    glfwSwapBuffers(window_);
    if (video_.recording() && video_.reads_shown()) {  // (the X round trip only while recording)
      // (The window may have shrunk since the frame began: read no more than it has, with
      // the window held at that size until the read is done.)
      int now_width = fb_width, now_height = fb_height;
      const WindowSizeHold hold(window_, &now_width, &now_height);
      video_.capture_if_due(video_now(), now_width, now_height);
    }
    input_.begin_frame();
    heap_trimmer_.tick(frame.now);
    if (last) break;
  }
  // This mode's panel is drawn no more (the other kind of scene draws its own): its widgets
  // gone, or a test would click where a list of the last mode stood.
  controls.widgets.rects.clear();
  print_widget_changes(controls.widgets);
  // The figures of a run that ended here (one that passes to the other kind of scene is
  // measured again there).
  // (Its end waits for the encoder, after the measured run. A switch to a scene of the
  // other kind keeps recording: the next mode draws in the same window.)
  if (mode.next_scene().empty()) {
    video_.close_at_exit(controls.files);
    // --video asked for a file: a run that could not save it did not do what was asked.
    if (video_.failed(options_.video) && exit_code == 0) exit_code = 1;
  }
  if (bench && mode.next_scene().empty()) {
    WindowBenchResult result = bench->result();
    result.video_frames = video_.frames();
    result.video_repeats = video_.dropped();
    mode.describe_bench(result);
    for (const PassTime& t : renderer.pass_times()) result.pass_ms.push_back({t.pass, t.gpu_ms, t.cpu_ms});
    print_window_bench(result, options_.bench_json);
  }
  if (options_.gl_check) exit_code = gl_check_verdict(renderer, panel_gl_errors, exit_code);
  const HeapTrimmer::Figures trimmed = heap_trimmer_.figures();
  if (mode.next_scene().empty() && trimmed.trims > 0)
    std::fprintf(stderr, "tidepool: freed memory given back to the system %d times: %.0f MB (the longest %.1f ms)\n",
                 trimmed.trims, double(trimmed.released_bytes) / 1048576.0, trimmed.longest_ms);
  return mode.finish(exit_code, stop_signal() ? signal_text(stop_signal()) : "", frames);
}

}  // namespace tp
