// What a kind of scene brings to the window's one frame loop (frame_loop.h), as each sample
// of Box2D v3's samples app brings its Step, UpdateGui, Keyboard and MouseDown to the one
// Sample base it derives from (samples/sample.h): its step, its panel, its drawing and its
// own keys. The loop owns the rest, the same for every mode: the keys common to all, the
// camera's drags, the wait while idle, the ImGui frame, screenshots, --bench-window and
// --gl-check, the swap and the call of finish. The water (app/water/water_mode.h) and the
// gas (app/gas/gas_mode.h) are modes; so will the next ones be.
#pragma once

#include <cstdint>
#include <string>

#include "app/window/camera.h"
#include "app/window/panel_common.h"
#include "app/window/window_bench.h"
#include "render/renderer.h"

namespace tp {

// One frame as the loop measured it.
struct FrameTime {
  double now = 0.0;            ///< [s] GLFW time at the frame's start
  double seconds = 0.0;        ///< [s] since the previous frame
  bool scripted_drag = false;  ///< --bench-drag holds its press this frame
};

// What a drawn frame gives --bench-window (WindowBench::frame, force_shown).
struct BenchFrame {
  RunStats stats;             ///< the simulation's figures as the window shows them
  uint64_t serial = 0;        ///< the state drawn: a new one or the same as before
  uint count = 0;             ///< particles (cells for the gas)
  bool force_shown = false;   ///< the drawn state shows the scripted drag's force
};

class WindowMode {
 public:
  virtual ~WindowMode() = default;

  // What the loop reads and drives: the panel's requests, the camera, the renderer.
  virtual WindowControls& controls() = 0;
  virtual OrbitCamera& camera() = 0;
  virtual Renderer& renderer() = 0;

  // Before the first frame, with the GL context current: the GL targets the simulation
  // publishes into, the first state.
  virtual void start() {}
  // A key the loop leaves to the mode (it owns Space, S, R, F5, F12, Tab and Escape).
  virtual void key(int key) { (void)key; }
  // The requests the panel and the keys left (reset, scene, files; the loop reloads the
  // shaders after). A scene of the other kind ends the run: next_scene() names it.
  virtual void apply_requests() = 0;
  // The frame's simulation: input for it (mouse, obstacles), its steps, the state to draw.
  virtual void step(const FrameTime& frame) = 0;
  // The panel and the help line, while the panel shows (an ImGui frame under way). Returns
  // where the panel is, so that the loop frames the scene beside it.
  virtual PanelExtent panel() = 0;
  // The scene as `view` sees it (the renderer's draw with the mode's settings).
  virtual void draw(const CameraView& view) = 0;

  // --bench-drag's path for a run of `seconds`; the figures of the frame just drawn; the
  // names of the result (solver, render mode, backend, quality) and its count.
  virtual ScriptedDrag bench_drag(double seconds) const = 0;
  virtual BenchFrame bench_frame() const = 0;
  virtual void describe_bench(WindowBenchResult& result) const = 0;

  // Offline rendering (a replay rendered to a video, docs/recording.md): the time of the
  // frame being drawn on the clock the video follows (the simulated one), or a negative
  // value for the wall clock (the window's own recordings); and whether there is nothing
  // more to draw (the end of the replay: the loop quits after this frame).
  virtual double video_clock() const { return -1.0; }
  virtual bool done() const { return false; }

  // The scene of the other kind chosen in the scene list, which this mode cannot run:
  // the caller starts it after the loop returns. "" when the session simply ended.
  virtual const std::string& next_scene() const = 0;
  // Ends the session after `frames` drawn frames: stops what runs (a recording: every
  // frame written is a whole file) and prints the closing lines; with a `stop_reason` (a
  // signal, the display gone) the last line says the run stopped early and why. Makes no GL
  // or window call, so that it also serves when the display has gone away. Returns the
  // exit code, `exit_code` or that of a stop.
  virtual int finish(int exit_code, const std::string& stop_reason, int frames) = 0;
};

}  // namespace tp
