// The water's window: a mode of the window's frame loop (app/window/frame_loop.h) over an
// open window with a current GL context and ImGui initialised. The particle simulation
// steps on its own thread or in the frame (sim/runner); each frame the mode hands it the
// mouse's force, the obstacles' moves and the panel's parameters, and draws the newest
// state it published. Owns the renderer, the camera and the panel's state.
#pragma once

#include <memory>
#include <string>

#include "app/start/setup.h"
#include "app/water/body_tool.h"
#include "app/water/mouse_tool.h"
#include "app/water/panel.h"
#include "app/water/water_recording.h"
#include "app/water/water_replay.h"
#include "app/water/water_view_options.h"
#include "app/window/camera.h"
#include "app/window/frame_stats.h"
#include "app/window/input.h"
#include "app/window/obstacle_picking.h"
#include "app/window/window_mode.h"
#include "render/renderer.h"
#include "sim/runner/sim_runner.h"
#include "sim/session/session_recorder.h"

struct GLFWwindow;

namespace tp {

class WaterMode final : public WindowMode {
 public:
  // Throws RenderError when the shaders cannot be loaded.
  WaterMode(GLFWwindow* window, InputState& input, SimSetup& setup, const StartPlan& plan,
            const WaterViewOptions& view);
  ~WaterMode() override;

  WindowControls& controls() override { return controls_; }
  OrbitCamera& camera() override { return camera_; }
  Renderer& renderer() override { return renderer_; }
  void start() override;
  void key(int key) override;  ///< 1, 2, 3: a solver
  void apply_requests() override;
  void step(const FrameTime& frame) override;
  PanelExtent panel() override;
  void draw(const CameraView& view) override;
  ScriptedDrag bench_drag(double seconds) const override;
  BenchFrame bench_frame() const override;
  void describe_bench(WindowBenchResult& result) const override;
  // A gas scene chosen in the scene list.
  const std::string& next_scene() const override { return next_scene_; }
  // --replay with --video: the replay rendered offline (water_replay.h).
  double video_clock() const override { return replay_.video_clock(); }
  bool done() const override { return replay_.done(); }
  int finish(int exit_code, const std::string& stop_reason, int frames) override;

 private:
  double last_simulated_seconds_ = 0.0;  ///< simulated time advanced by the last frame
  double previous_simulated_time_ = 0.0;
  void reset();
  // The panel's scene list or file field: switches scene (camera included), or leaves the
  // running one as it is and shows why not.
  void load_scene(const std::string& name_or_path);
  // Counts, particle size, tank and dimension after a reset or a switch (inside with_sim).
  void after_new_particles(Simulation& sim);
  // The scene's camera, square-on to the plane in 2D (a new scene, a loaded state).
  void reset_camera();
  // The Bodies section's request: a density, a removal, a body added or a mesh loaded.
  void edit_bodies(const BodyRequest& request);
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
  // The mesh mode: tells the simulation whether (and how) to build meshes, publishing at
  // once when that changed; uploads a state's new mesh and says what it cost.
  void request_mesh();
  void upload_mesh(const PublishedState& state);
  // The latest state into the renderer's buffers (a copy on the CPU path; on the CUDA
  // path the simulation publishes straight into them).
  void upload_state(const PublishedState& state);
  // The grid overlay (Debug views): the occupied cells of the state's particles into the
  // renderer while it is on (the CPU path, whose positions are on the host), none when off.
  void update_grid_overlay(const PublishedState& state);
  // The panel's files (water_files.cpp): presets and state files.
  void save_preset();
  void load_preset();
  void save_state();
  void load_state();
  void simulate(double frame_seconds);
  void simulate_inline(Simulation& sim, double frame_seconds);  ///< the frame's own steps
  MouseForce mouse_force(double frame_seconds);
  // Ctrl + left drag: grabs the body under the cursor (runner_.grab_body, move_grab,
  // release_body), or else moves the grabbed obstacle (runner_.move_obstacle), and sets
  // which one is highlighted.
  void drag_obstacles();
  Marker marker() const;
  // Shift + left click: the particle under the cursor becomes the inspected one (its id
  // printed); while one is, its values and neighbours are refreshed five times a second
  // from a snapshot and highlighted.
  void inspect_particles(double now);

  GLFWwindow* window_;
  SimRunner runner_;         ///< steps the simulation (its thread, or inline)
  SimParams params_{};       ///< the window's parameters: the panel edits them
  BackendKind backend_kind_;
  bool cuda_inline_ = false;  ///< TIDEPOOL_CUDA_INLINE=1: CUDA's steps on this thread (want_thread)
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
  Renderer renderer_;
  // The GL targets the simulation publishes into (made in start(); the interop's on CUDA):
  // after the renderer, whose buffers they wrap, so that they go first and unregister the
  // buffers from CUDA while the buffers and the GL context still exist.
  struct GlTargets;
  std::unique_ptr<GlTargets> targets_;
  OrbitCamera camera_;
  MouseTool mouse_;
  ObstacleDrag obstacle_drag_;
  int highlighted_obstacle_ = -1;  ///< drawn highlighted this frame, -1 none
  BodyDrag body_drag_;
  int highlighted_body_ = -1;      ///< drawn highlighted this frame, -1 none
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
  WaterRecording recording_;  ///< the panel's Record
  SessionRecorder session_;   ///< F8 and the panel's Record session (sim/session)
  void toggle_session();
  WaterReplay replay_;        ///< --replay SESSION: the session played back (water_replay.h)
  bool render_given_ = false, color_given_ = false;  ///< --render, --color: kept over a replay's view
  // Ends the replay (Continue from here, or an edit that needs the simulation live): the
  // window takes the simulation on from the state shown. `why` for the terminal.
  void take_over(const char* why);
  // The simulation's dimension (2: in the plane z = plane_z_), set by after_new_particles.
  int dimensions_ = 3;
  float plane_z_ = 0.0f;
  bool mesh_fallback_said_ = false;
  std::string next_scene_;  ///< a gas scene to switch to (see next_scene)
  std::string said_guard_note_;  ///< the NaN guard's latest sentence, printed once
  int said_render_mode_ = -1;  ///< the draw mode last said on stderr (-1: none yet)
};

template <class F>
void WaterMode::with_sim(F&& fn) {
  runner_.exclusive_edit([&](Simulation& sim) {
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
