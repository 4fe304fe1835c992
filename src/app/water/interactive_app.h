// One interactive session: the frame loop over an open window with a current GL context
// and ImGui initialised. Owns the renderer, camera, input and panel state.
#pragma once

#include <memory>
#include <string>

#include "app/window/camera.h"
#include "sim/io/frame_recorder.h"
#include "app/window/frame_stats.h"
#include "app/window/input.h"
#include "app/water/mouse_tool.h"
#include "app/window/obstacle_picking.h"
#include "app/water/panel.h"
#include "app/water/water_view_options.h"
#include "app/start/setup.h"
#include "app/window/window_bench.h"
#include "app/window/window_options.h"
#include "render/renderer.h"
#include "sim/runner/sim_runner.h"

struct GLFWwindow;

namespace tp {

class InteractiveApp {
 public:
  // Throws RenderError when the shaders cannot be loaded.
  InteractiveApp(GLFWwindow* window, InputState& input, SimSetup& setup, const StartPlan& plan,
                 const WindowOptions& window_options, const WaterViewOptions& view);

  int run();  ///< the frame loop; returns the exit code
  // The gas scene chosen in the scene list, which this window cannot run: run_window starts
  // it after run() returns. "" when the session simply ended.
  const std::string& next_scene() const { return next_scene_; }
  // Ends the session: stops a recording (every frame written is a whole file) and prints
  // the closing lines; with a `stop_reason` (a signal, the display gone) the last line says
  // the run stopped early and why. Makes no GL or window call, so it also serves when the
  // display has gone away. Returns the exit code, `exit_code` or that of a stop.
  int finish(int exit_code, const std::string& stop_reason);

 private:
  double last_simulated_seconds_ = 0.0;  ///< simulated time advanced by the last frame
  double previous_simulated_time_ = 0.0;
  bool idle() const;  ///< paused, nothing requested, no button held: the loop may sleep
  void wait_while_idle(double frame_start);  ///< sleeps while idle() and no frame is due
  void handle_keys(bool* quit);
  void select_solver_by_key(int key);  ///< 1, 2, 3: a solver; other keys: nothing
  void apply_requests();
  void reset();
  // The panel's scene list or file field: switches scene (camera included), or leaves the
  // running one as it is and shows why not.
  void load_scene(const std::string& name_or_path);
  // Counts, particle size, tank and dimension after a reset or a switch (inside with_sim).
  void after_new_particles(Simulation& sim);
  // The scene's camera, square-on to the plane in 2D (a new scene, a loaded state).
  void reset_camera();
  // 2D: the mesh mode does not apply (marching cubes over one layer of particles): the
  // surface instead, said once.
  void fall_back_from_mesh();
  // Runs fn(simulation) between two steps (the simulation thread parked, when there is
  // one), with this frame's parameters handed over first and taken back after (a load
  // changes them). Exceptions pass through.
  template <class F>
  void with_sim(F&& fn);
  // The simulation on its own thread (the CPU backend, following the clock) or inline in
  // the frame (CUDA, --steps-per-frame, while recording): starts or stops the thread.
  void update_threading();
  bool want_thread() const;
  // Applies the quality's preset when the solver or the quality (panel) has changed.
  void follow_quality();
  // The latest state into the renderer's buffers (a copy on the CPU path; on the CUDA
  // path the simulation publishes straight into them).
  // The mesh mode: tells the simulation whether (and how) to build meshes, publishing at
  // once when that changed; uploads a state's new mesh and says what it cost.
  void request_mesh();
  // The window's GL targets, made in run() with the GL context (the interop's on CUDA).
  struct GlTargets {
    PublishTarget& particles;
    PublishTarget& diffuse;
    PublishTarget& splats;
    MeshTarget& mesh;
  };
  void upload_mesh(const PublishedState& state, const GlTargets& targets);
  void upload_state(const PublishedState& state, const GlTargets& targets);
  // The grid overlay (Debug views): the occupied cells of the state's particles into the
  // renderer while it is on (the CPU path, whose positions are on the host), none when off.
  void update_grid_overlay(const PublishedState& state);
  // The Record toggle: starts or stops writing PLY frames; stop_recording says `why` in the
  // panel when the app stops it (a reset).
  void toggle_recording();
  void stop_recording(const std::string& why);
  void record_frame_if_due();
  void step_once();  ///< one step, then a frame to the recording if one is due
  // While recording, sim.advance's loop run here, so that a frame can follow any step.
  void advance_recording(double seconds, double budget_ms);
  void save_preset();
  void load_preset();
  void save_state();
  void load_state();
  void simulate(double frame_seconds);
  void simulate_inline(Simulation& sim, double frame_seconds);  ///< the frame's own steps
  MouseForce mouse_force(double frame_seconds);
  // Ctrl + left drag: moves the grabbed obstacle (sim->move_obstacle) and sets which one
  // is highlighted.
  void drag_obstacles();
  Marker marker() const;
  // Shift + left click: the particle under the cursor becomes the inspected one (its id
  // printed); while one is, its values and neighbours are refreshed five times a second
  // from a snapshot and highlighted.
  void inspect_particles(double now);
  // --bench-window: the scripted drag's cursor for this frame (run time `t`), and the
  // figures at the end.
  void script_drag(double t);
  void report_window_bench();

  GLFWwindow* window_;
  SimRunner runner_;         ///< steps the simulation (its thread, or inline)
  SimParams params_{};       ///< the window's parameters: the panel edits them
  BackendKind backend_kind_;
  std::string device_;       ///< the backend's description, read once
  const PublishedState* state_ = nullptr;  ///< the latest state, this frame
  uint64_t drawn_serial_ = 0;              ///< the state in the renderer's buffers
  // The mesh mode: what was asked of the simulation, and the state whose mesh is drawn.
  bool mesh_requested_ = false, splats_requested_ = false;
  MeshSettings mesh_asked_;
  uint64_t mesh_serial_ = 0, splats_serial_ = 0;
  uint64_t press_serial_ = 0;              ///< --bench-drag: the press's input serial
  Quality quality_applied_ = Quality::Realtime;  ///< the quality params_ were set to
  int quality_solver_ = -1;                      ///< for this solver
  InputState& input_;
  SimSetup& setup_;
  const StartPlan& plan_;
  const WindowOptions& options_;
  Renderer renderer_;
  OrbitCamera camera_;
  MouseTool mouse_;
  ObstacleDrag obstacle_drag_;
  int highlighted_obstacle_ = -1;  ///< drawn highlighted this frame, -1 none
  ParticleInspector inspector_;
  // The grid overlay: the simulation's grid (read at each reset), the cells counted for the
  // state of serial grid_serial_ (0: none counted), and the count per cell they reuse.
  GridGeometry grid_geometry_;
  GridOccupancy grid_cells_;
  uint64_t grid_serial_ = 0;
  std::vector<uint32_t> grid_scratch_;
  FrameStats frame_stats_;
  AppControls controls_;
  RenderSettings render_;
  int last_reset_count_ = 0;  ///< particle count after the last reset
  int frames_drawn_ = 0;
  bool panel_gl_errors_ = false;  ///< --gl-check saw an error after the panel's drawing
  double last_input_time_ = 0.0;  ///< [s] GLFW time of the last input or busy frame
  FrameRecorder recorder_;        ///< the panel's Record
  double record_debt_ = 0.0;      ///< [s] simulated time owed to the clock while recording
  std::unique_ptr<WindowBench> bench_;  ///< --bench-window
  ScriptedDrag drag_;                   ///< --bench-drag
  bool drag_held_ = false;
  // The simulation's dimension (2: in the plane z = plane_z_), set by after_new_particles.
  int dimensions_ = 3;
  float plane_z_ = 0.0f;
  bool mesh_fallback_said_ = false;
  std::string next_scene_;  ///< a gas scene to switch to (see next_scene)
};

template <class F>
void InteractiveApp::with_sim(F&& fn) {
  runner_.exclusive([&](Simulation& sim) {
    sim.params() = params_;  // this frame's edits, not yet handed over
    try {
      fn(sim);
    } catch (...) {
      params_ = sim.params();
      throw;
    }
    params_ = sim.params();
  });
}

}  // namespace tp
