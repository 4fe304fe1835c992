#include "app/gas/gas_mode.h"

#include <glad/gl.h>
// glad first: GLFW must not pull in the system GL header.
#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "app/start/setup.h"
#include "app/window/gl_publish_target.h"
#include "app/window/window_frame.h"
#include "sim/gas/gas_params.h"
#include "sim/io/gas_state.h"
#include "sim/scene/gas_scene.h"
#include "util/paths.h"
#include "util/stop_signals.h"

namespace tp {

namespace {

constexpr double kSimulationBudgetMs = 30.0;  // a frame's steps stop here: the window stays responsive
constexpr double kMaxFrameSeconds = 0.25;     // a longer frame (a stall) is not made up
constexpr float kMaxMouseSpeed = 5.0f;        // [m/s] the source's velocity at most
constexpr float kMousePull = 30.0f;           // [1/s] how fast the gas takes the cursor's velocity

glm::vec3 to_glm(const Vec3& v) { return glm::vec3(v.x, v.y, v.z); }
Vec3 to_vec3(const glm::vec3& v) { return Vec3{v.x, v.y, v.z}; }

bool same_shade(const GasShade& a, const GasShade& b) {
  return a.view == b.view && a.sun.x == b.sun.x && a.sun.y == b.sun.y && a.sun.z == b.sun.z &&
         a.sun_light == b.sun_light && a.ambient == b.ambient && a.extinction == b.extinction &&
         a.view_range == b.view_range;
}

// A 3D grid the window's CPU backend steps in real time beside the renderer (which on a
// machine without a GPU shares the same cores): about 8,000 cells per core. The plume's
// 32x48x32 (49,152 cells) steps in 29 ms in the window on 2 cores (0.6x real time); at
// 22x33x22 (15,972) in 12.5 ms (1.0x at 43 frames/s): docs/benchmarks.md.
constexpr double kWindowCpuCellsPerCore = 8000.0;

// The cells along the longest side the window starts a scene with: --cells; else on the
// CPU backend a 3D scene's own grid scaled down to the cells above when it has more (the
// panel's Grid cells and Reset go back up); else the scene's own (0). `note` says why.
int start_cells(const StartPlan& plan, const Scene& scene, BackendKind backend, std::string* note) {
  if (plan.cells > 0) return plan.cells;
  if (backend != BackendKind::Cpu || scene.gas.dimensions != 3) return 0;
  const GasGrid g = gas_setup(scene).grid;
  const double cores = std::max(1u, std::thread::hardware_concurrency());
  const double most = kWindowCpuCellsPerCore * cores;
  if (double(g.cells()) <= most) return 0;
  const int longest = std::max(g.n.x, std::max(g.n.y, g.n.z));
  const int cells = std::max(8, int(std::floor(double(longest) * std::cbrt(most / double(g.cells())))));
  *note = "the gas grid starts at " + std::to_string(cells) + " cells along the tank's longest side instead of " +
          std::to_string(longest) + " to keep real time on the CPU (--cells N, or Grid cells and Reset, to choose)";
  return cells;
}

// Cells along the longest side of a grid (what the panel's slider shows).
int longest_side(const GasGrid& g) { return std::max(g.n.x, std::max(g.n.y, g.n.z)); }

}  // namespace

GasSession make_gas_session(const StartPlan& plan, const Scene& scene) {
  const std::string refusal = gas_refusal(plan);
  if (!refusal.empty()) throw SetupError(refusal);
  const BackendChoice choice = start_backend(plan);
  GasSession session;
  session.backend = choice.kind;
  session.backend_message = choice.message;
  session.scene = scene;
  try {
    session.gas = make_gas_simulation(choice.kind);
    std::string note;
    start_gas(*session.gas, scene, start_cells(plan, scene, choice.kind, &note), plan.layers.sets, choice.kind);
    if (!note.empty()) std::printf("tidepool: %s\n", note.c_str());
  } catch (const std::exception& e) {
    throw SetupError(e.what());
  }
  return session;
}

// The gas's 3D texture's pixel buffer and the target the gas publishes into.
struct GasMode::GlTarget {
  GlGasBuffer field;
  GlPublishTarget target;
  GlTarget(Renderer& renderer, BackendKind backend)
      : field(renderer.gas()), target(field, backend, cuda_runtime(), "the gas") {}
};

GasMode::GasMode(GLFWwindow* window, InputState& input, GasSession& session, const StartPlan& plan)
    : window_(window),
      input_(input),
      session_(session),
      plan_(plan),
      renderer_(shader_dir(), data_dir() + "/assets/textures/sky.png"),
      camera_(session.scene.camera) {
  device_ = session_.backend_message;
  controls_.start_params = session_.gas->params();
  FileControls& files = controls_.common.files;
  files.scene_dir = scene_dir();
  files.scene_names = list_scenes(files.scene_dir, SceneKind::Any);
  files.gas_scene_names = list_scenes(files.scene_dir, SceneKind::Gas);
  files.state_path = "tidepool-gas.tpgas";
  if (session_.gas->setup().grid.n.z == 1) controls_.mouse.color = glm::vec3(0.2f, 0.8f, 0.4f);
  after_new_grid(session_.gas->stats().simulated_time);
}

GasMode::~GasMode() = default;

void GasMode::start() {
  target_ = std::make_unique<GlTarget>(renderer_, session_.backend);
  const GasGrid& start = session_.gas->setup().grid;
  std::printf("tidepool: gas %dx%dx%d cells of %.4g m (%s)\n", start.n.x, start.n.y, start.n.z, double(start.dx),
              start.n.z == 1 ? "2D" : "3D");
  std::fflush(stdout);
}

void GasMode::after_new_grid(double time_before) {
  // The clock the panel's rates read runs on across a reset or a load (which restart or
  // move the simulation's own), so that no rate comes out negative.
  clock_offset_ += time_before - session_.gas->stats().simulated_time;
  republish_ = true;  // drawn at once, paused or not
  debt_ = 0.0;
  const GasGrid& g = session_.gas->setup().grid;
  const glm::vec3 lo = to_glm(g.lo);
  glm::vec3 hi = lo + glm::vec3(g.n.x, g.n.y, g.n.z) * g.dx;
  glm::vec3 tank_lo = lo, tank_hi = hi;
  if (g.n.z == 1) {  // the plane in the middle of the scene's tank, which the walls show
    tank_lo.z = session_.scene.tank_lo.z;
    tank_hi.z = session_.scene.tank_hi.z;
  }
  renderer_.set_tank(tank_lo, tank_hi);
  renderer_.gas().set_grid(tank_lo, tank_hi, glm::ivec3(g.n.x, g.n.y, g.n.z));
  // 2D as the water's 2D is seen: square-on at the grid's plane, no orbit (both drags pan),
  // the tank fitted beside the panel; a right drag turned the ink box's plane edge-on. A
  // camera already square-on keeps the user's pan and zoom across a reset; a 3D grid after
  // a 2D one gets its scene's camera back.
  if (g.n.z == 1 && !camera_.two_d())
    camera_.set_plane(lo.z + 0.5f * g.dx, tank_lo, tank_hi);
  else if (g.n.z != 1 && camera_.two_d())
    camera_ = OrbitCamera(session_.scene.camera);
  controls_.running_cells = longest_side(g);
  controls_.cells = controls_.running_cells;
}

void GasMode::key(int key) {
  if (key == GLFW_KEY_V) controls_.shade.view = (controls_.shade.view + 1) % kGasViews;
  if (key == GLFW_KEY_F8) {  // sessions are the water's: say so rather than nothing
    FileControls& files = controls_.common.files;
    files.session_status = "F8: sessions record the water's scenes; the gas is not recorded (docs/recording.md)";
    std::fprintf(stderr, "tidepool: %s\n", files.session_status.c_str());
  }
}

void GasMode::reset() {
  GasSimulation& gas = *session_.gas;
  const GasParams kept = gas.params();
  const double time_before = gas.stats().simulated_time;
  // A grid that would freeze the window is refused, the running one kept (growing only: a
  // smaller grid is the way out of a slow one, whatever the estimate says).
  const double ms = estimated_step_ms(session_.scene, controls_.cells, gas.setup().grid, frame_stats_.ms_per_step());
  if (controls_.cells > controls_.running_cells && ms > kWindowLongestStepMs) {
    const int most =
        most_cells_within(session_.scene, kWindowLongestStepMs, gas.setup().grid, frame_stats_.ms_per_step());
    controls_.common.reset_error = "a grid of " + std::to_string(controls_.cells) + " cells would take about " +
                                   std::to_string(int(ms)) + " ms a step here and the window would stop answering: " +
                                   "at most " + std::to_string(most) + " in the window (--cells " +
                                   std::to_string(controls_.cells) + " starts it anyway)";
    std::fprintf(stderr, "tidepool: reset refused: %s\n", controls_.common.reset_error.c_str());
    controls_.cells = controls_.running_cells;
    return;
  }
  try {
    start_gas(gas, session_.scene, controls_.cells, {}, session_.backend);
  } catch (const std::exception& e) {
    controls_.common.reset_error = e.what();
    std::fprintf(stderr, "tidepool: %s\n", e.what());
    return;
  }
  gas.params() = kept;  // Reset keeps what the panel set, as the water's does
  controls_.common.reset_error.clear();
  after_new_grid(time_before);
  const GasGrid& g = gas.setup().grid;
  std::fprintf(stderr, "tidepool: reset: %dx%dx%d cells of %.4g m\n", g.n.x, g.n.y, g.n.z, double(g.dx));
}

void GasMode::load_scene(const std::string& name_or_path) {
  FileControls& files = controls_.common.files;
  Scene scene;
  try {
    scene = find_scene(name_or_path, scene_dir());
  } catch (const SceneError& e) {
    files.scene_error = e.what();
    std::fprintf(stderr, "tidepool: %s\n", e.what());
    return;
  }
  if (!scene.is_gas) {  // water: this mode ends and the water's starts (run_window)
    next_scene_ = name_or_path;
    return;
  }
  const double time_before = session_.gas->stats().simulated_time;
  try {
    start_gas(*session_.gas, scene, 0, {}, session_.backend);
  } catch (const std::exception& e) {
    files.scene_error = e.what();
    std::fprintf(stderr, "tidepool: %s\n", e.what());
    return;
  }
  files.scene_error.clear();
  session_.scene = scene;
  camera_ = OrbitCamera(scene.camera);
  controls_.start_params = session_.gas->params();
  controls_.param_notes.clear();
  controls_.common.reset_error.clear();
  after_new_grid(time_before);
  const GasGrid& g = session_.gas->setup().grid;
  std::fprintf(stderr, "tidepool: scene %s: %dx%dx%d cells of %.4g m\n", scene.name.c_str(), g.n.x, g.n.y, g.n.z,
               double(g.dx));
}

void GasMode::save_state() {
  FileControls& files = controls_.common.files;
  std::string error;
  const std::string path = full_path(files.state_path);
  files.state_failed = !save_gas_state(path, *session_.gas, session_.scene.source, &error);
  files.state_note = files.state_failed ? error : "Saved " + path;
  if (files.state_failed)
    std::fprintf(stderr, "tidepool: %s\n", error.c_str());
  else
    std::fprintf(stderr, "tidepool: saved state %s\n", path.c_str());
}

void GasMode::load_state() {
  FileControls& files = controls_.common.files;
  std::string error, scene_source;
  const std::string path = full_path(files.state_path);
  const double time_before = session_.gas->stats().simulated_time;
  if (!load_gas_state(path, *session_.gas, &scene_source, &error)) {
    files.state_failed = true;
    files.state_note = error;
    std::fprintf(stderr, "tidepool: %s\n", error.c_str());
    return;
  }
  // The scene it names becomes the current one (its Reset, its camera) when it can be read.
  try {
    Scene scene = find_scene(scene_source, scene_dir());
    if (scene.is_gas) {
      if (scene.source != session_.scene.source) camera_ = OrbitCamera(scene.camera);
      session_.scene = scene;
    }
  } catch (const SceneError&) {
  }
  files.state_failed = false;
  files.state_note = "Loaded " + path;
  std::fprintf(stderr, "tidepool: loaded state %s\n", path.c_str());
  after_new_grid(time_before);
}

void GasMode::apply_requests() {
  FileControls& files = controls_.common.files;
  if (take_request(controls_.common.reset_requested)) reset();
  if (const std::string scene = take_request(files.scene_request); !scene.empty()) load_scene(scene);
  if (take_request(files.state_save_requested)) save_state();
  if (take_request(files.state_load_requested)) load_state();
}

void GasMode::update_mouse(double frame_seconds) {
  const bool held = input_.left && !input_.left_ctrl;
  if (!held) {
    mouse_active_ = false;
    mouse_velocity_ = glm::vec3(0.0f);
    return;
  }
  // The cursor's point on the plane through the grid's centre facing the camera (in 2D
  // the grid's own plane), so that the source stays where the smoke is.
  const GasGrid& g = session_.gas->setup().grid;
  const glm::vec3 lo = to_glm(g.lo), hi = lo + glm::vec3(g.n.x, g.n.y, g.n.z) * g.dx;
  const glm::vec3 center = 0.5f * (lo + hi);
  const glm::vec3 normal = g.n.z == 1 ? glm::vec3(0.0f, 0.0f, 1.0f) : camera_.forward();
  glm::vec3 origin, direction;
  tp::cursor_ray(window_, input_, camera_, &origin, &direction);
  const float facing = glm::dot(direction, normal);
  if (std::fabs(facing) < 1e-4f) return;  // along the plane: keep the last point
  const float t = glm::dot(center - origin, normal) / facing;
  if (!(t > 0.0f)) return;
  const glm::vec3 point = glm::clamp(origin + t * direction, lo, hi);
  if (mouse_active_ && frame_seconds > 1e-4) {
    glm::vec3 v = (point - mouse_point_) / float(frame_seconds);
    const float speed = glm::length(v);
    if (speed > kMaxMouseSpeed) v *= kMaxMouseSpeed / speed;
    mouse_velocity_ = 0.5f * (mouse_velocity_ + v);  // smooths the frames' jitter
  }
  mouse_point_ = point;
  mouse_active_ = true;
}

void GasMode::drag_obstacles() {
  const ObstacleDrag::Frame frame =
      drag_obstacle(window_, input_, camera_, obstacle_drag_, session_.gas->setup().obstacles);
  if (frame.move) session_.gas->move_obstacle(frame.move->index, to_vec3(frame.move->center));
  highlighted_obstacle_ = frame.highlighted;
}

bool GasMode::simulate(double frame_seconds) {
  GasSimulation& gas = *session_.gas;
  std::vector<GasSource> sources = gas.setup().sources;  // the scene's
  if (mouse_active_) {
    const GasMouse& m = controls_.mouse;
    GasSource s;
    s.center = to_vec3(mouse_point_);
    s.radius = m.radius;
    s.density = m.mode == int(GasMouseMode::Push) ? m.amount : 0.0f;
    s.color = to_vec3(m.color);
    s.velocity = to_vec3(mouse_velocity_ * m.strength);
    s.pull = kMousePull;
    sources.push_back(s);
  }
  gas.set_sources(sources);
  WindowControls& c = controls_.common;
  int steps = 0;
  const auto step = [&] {
    gas.step();
    ++steps;
    ++serial_;
    for (const GasPhaseTime& p : gas.stats().phases) {
      auto it = std::find_if(phase_totals_.begin(), phase_totals_.end(), [&](const auto& e) { return e.first == p.name; });
      if (it == phase_totals_.end())
        phase_totals_.emplace_back(p.name, p.ms);
      else
        it->second += p.ms;
    }
  };
  if (c.paused) {
    if (c.step_requested) step();
    c.step_requested = false;
    return steps > 0;
  }
  if (plan_.steps_per_frame > 0) {  // lockstep: no clock, the same run every time
    for (int k = 0; k < plan_.steps_per_frame; ++k) step();
    return true;
  }
  // Steps until the simulated time has caught up with the clock, within the budget; what
  // the budget leaves owed is forgiven beyond one longest step (slow motion, not a spiral).
  debt_ += std::min(frame_seconds, kMaxFrameSeconds);
  const auto start = std::chrono::steady_clock::now();
  while (debt_ > 0.0) {
    step();
    debt_ -= gas.stats().dt;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (ms > kSimulationBudgetMs) break;
  }
  const double most = gas.params().dt_max;
  debt_ = std::clamp(debt_, -most, most);
  return steps > 0;
}

Marker GasMode::marker() const {
  Marker m;
  m.visible = mouse_active_;
  m.position = mouse_point_;
  m.radius = 0.25f * controls_.mouse.radius;
  m.color = controls_.mouse.mode == int(GasMouseMode::Push) ? glm::vec3(1.0f, 0.55f, 0.2f) : glm::vec3(1.0f, 0.9f, 0.3f);
  return m;
}

RunStats GasMode::run_stats() const {
  const GasStats st = session_.gas->stats();
  RunStats r;
  r.steps = serial_;
  r.simulated_time = clock_offset_ + st.simulated_time;
  r.last_dt = st.dt;
  r.max_speed = st.max_speed;
  for (const auto& [name, ms] : phase_totals_) r.phases.push_back(PhaseTime{name, ms});
  return r;
}

ScriptedDrag GasMode::bench_drag(double seconds) const {
  const GasGrid& g = session_.gas->setup().grid;
  const Vec3 hi = g.lo + Vec3{float(g.n.x), float(g.n.y), float(g.n.z)} * g.dx;
  return default_drag(g.lo, hi, seconds);
}

BenchFrame GasMode::bench_frame() const {
  return BenchFrame{run_stats(), serial_, session_.gas->setup().grid.cells(), scripted_drag_ && mouse_active_};
}

void GasMode::describe_bench(WindowBenchResult& r) const {
  const GasGrid& g = session_.gas->setup().grid;
  char grid[96];
  std::snprintf(grid, sizeof(grid), "gas %dx%dx%d", g.n.x, g.n.y, g.n.z);
  r.solver = grid;
  r.render = g.n.z == 1 ? "plane" : "volume";
  r.backend = device_;
  r.quality = "-";
  r.particles = g.cells();
}

void GasMode::step(const FrameTime& frame) {
  scripted_drag_ = frame.scripted_drag;
  changed_ |= republish_;
  republish_ = false;
  drag_obstacles();
  update_mouse(frame.seconds);
  changed_ |= simulate(frame.seconds);
  // A reset, a load or a new grid re-publishes too (after_new_grid cleared the texture).
  changed_ |= !renderer_.gas().ready();
  if (controls_.auto_range && controls_.shade.view != kGasViewSmoke)
    controls_.shade.view_range =
        auto_view_range(controls_.shade.view, session_.gas->stats().max_speed, session_.gas->setup().grid.dx);
  if (changed_ || !same_shade(published_shade_, controls_.shade)) {
    session_.gas->publish(controls_.shade, target_->target);
    published_shade_ = controls_.shade;
    changed_ = false;
  }
  renderer_.set_obstacles(obstacle_draws(session_.gas->setup().obstacles, highlighted_obstacle_));
  frame_stats_.add(frame.now, run_stats());
}

PanelExtent GasMode::panel() {
  const GasStats gas_stats = session_.gas->stats();
  GasPanelSim sim{session_.scene, session_.gas->params(), gas_stats, session_.gas->setup().grid, session_.backend,
                  device_};
  const PanelExtent extent = draw_gas_panel(sim, frame_stats_, render_, controls_);
  draw_gas_help(controls_, !session_.gas->setup().obstacles.empty(), session_.gas->setup().grid.n.z == 1);
  return extent;
}

void GasMode::draw(const CameraView& view) { renderer_.draw(view, render_, marker()); }

int GasMode::finish(int exit_code, const std::string& stop_reason, int frames) {
  print_pass_times(renderer_.pass_times());
  print_obstacle_positions(session_.gas->setup().obstacles);
  const GasStats st = session_.gas->stats();
  // The gas's own clock and steps (since its last reset or load, as the water's line says).
  std::printf("tidepool: %d frames, %llu steps, %.4g s simulated, max speed %.3g m/s, smoke %.4g\n", frames,
              static_cast<unsigned long long>(st.steps), st.simulated_time, double(st.max_speed), st.smoke_mass);
  std::fflush(stdout);
  if (stop_reason.empty()) return exit_code;
  std::fprintf(stderr, "%s\n", stopped_line(st.simulated_time, st.steps, stop_reason, "").c_str());
  return exit_code ? exit_code : 130;
}

}  // namespace tp
