// The window for a gas scene (smoke, ink): a mode of the window's frame loop
// (app/window/frame_loop.h), as WaterMode is for water. The gas steps in the
// frame on the window's thread (the CPU backend's cores or the GPU), as many steps as keep
// it on the clock within a budget; each drawn state is published into the renderer's 3D
// texture (through the CUDA-GL interop on the GPU path). The mouse adds smoke and stirs
// it; ctrl + left drag moves obstacles; pause, step, reset (with a new grid), screenshots,
// the scene list and state files work as in the water's window.
#pragma once

#include <memory>
#include <string>

#include "app/gas/gas_panel.h"
#include "app/start/start_plan.h"
#include "app/window/camera.h"
#include "app/window/frame_stats.h"
#include "app/window/input.h"
#include "app/window/obstacle_picking.h"
#include "app/window/window_mode.h"
#include "render/renderer.h"
#include "sim/gas/gas_sim.h"
#include "sim/scene/scene.h"

struct GLFWwindow;

namespace tp {

// A gas scene ready for the window: the simulation, the scene, the backend's message.
struct GasSession {
  std::unique_ptr<GasSimulation> gas;
  Scene scene;
  BackendKind backend = BackendKind::Cpu;
  std::string backend_message;
};

// Makes the session of `scene`, the plan's (a gas scene), with the plan's backend, --cells
// and --set: throws SetupError with a sentence (water-only options, a bad grid, not enough
// memory).
GasSession make_gas_session(const StartPlan& plan, const Scene& scene);

class GasMode final : public WindowMode {
 public:
  // Throws RenderError when the shaders cannot be loaded.
  GasMode(GLFWwindow* window, InputState& input, GasSession& session, const StartPlan& plan);
  ~GasMode() override;

  WindowControls& controls() override { return controls_.common; }
  OrbitCamera& camera() override { return camera_; }
  Renderer& renderer() override { return renderer_; }
  void start() override;
  void key(int key) override;  ///< V: the next view
  void apply_requests() override;
  void step(const FrameTime& frame) override;
  PanelExtent panel() override;
  void draw(const CameraView& view) override;
  ScriptedDrag bench_drag(double seconds) const override;  ///< through the tank, half-way through
  BenchFrame bench_frame() const override;
  void describe_bench(WindowBenchResult& result) const override;
  // A water scene chosen in the scene list.
  const std::string& next_scene() const override { return next_scene_; }
  int finish(int exit_code, const std::string& stop_reason, int frames) override;

 private:
  void reset();
  void load_scene(const std::string& name_or_path);
  // After the gas was replaced (a reset, a scene, a state; the start): the renderer's box
  // and grid, the panel's cells, a drawing at once, and the panel's clock carried over
  // from `time_before` (the simulated time before the change).
  void after_new_grid(double time_before);
  void save_state();
  void load_state();
  // Steps toward the clock (or one step when asked while paused), the mouse's source and
  // the obstacle moves applied first. Returns true when the gas changed.
  bool simulate(double frame_seconds);
  void update_mouse(double frame_seconds);
  void drag_obstacles();
  Marker marker() const;
  RunStats run_stats() const;  ///< the gas's figures as FrameStats and WindowBench read them

  GLFWwindow* window_;
  InputState& input_;
  GasSession& session_;
  const StartPlan& plan_;
  Renderer renderer_;
  // The 3D texture's pixel buffer and the target the gas publishes into (made in start();
  // the interop's on CUDA): after the renderer, so that it goes first and unregisters the
  // buffer from CUDA while the buffer and the GL context still exist.
  struct GlTarget;
  std::unique_ptr<GlTarget> target_;
  OrbitCamera camera_;
  GasControls controls_;
  RenderSettings render_;
  FrameStats frame_stats_;
  ObstacleDrag obstacle_drag_;
  int highlighted_obstacle_ = -1;
  std::string device_;
  std::string next_scene_;
  // The mouse's source: active while the left button drags (no ctrl), at the cursor's
  // point on the plane through the tank facing the camera (the grid's plane in 2D).
  bool mouse_active_ = false;
  glm::vec3 mouse_point_{0.0f}, mouse_velocity_{0.0f};
  double debt_ = 0.0;  ///< [s] simulated time owed to the clock
  double clock_offset_ = 0.0;  ///< [s] added to the gas's clock for the panel's rates
  bool republish_ = true;      ///< the gas changed outside a step: draw it anew
  bool changed_ = true;        ///< the texture is behind the gas: publish before drawing
  GasShade published_shade_;   ///< the look the texture was published with
  std::vector<std::pair<std::string, double>> phase_totals_;  ///< ms summed since start
  uint64_t serial_ = 0;    ///< states made (each step one)
  bool scripted_drag_ = false;  ///< --bench-drag holds its press this frame
};

}  // namespace tp
