#include "app/water/interactive_app.h"

#include <glad/gl.h>
// glad first: GLFW must not pull in the system GL header.
#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <system_error>

#include "app/window/gl_publish_target.h"
#include "util/paths.h"
#include "sim/scene/preset.h"
#include "app/window/screenshot_file.h"
#include "util/stop_signals.h"
#include "app/window/window_frame.h"
#include "util/atomic_file.h"
#include "backends/imgui_impl_glfw.h"
#include "backends/imgui_impl_opengl3.h"
#include "imgui.h"
#include "render/screenshot.h"
#include "sim/water/memory_need.h"
#include "sim/water/params.h"

namespace tp {

namespace {

constexpr double kMaxFrameSeconds = 1.0 / 30.0;  // longer frames run in slow motion
constexpr double kSimulationBudgetMs = 25.0;     // keeps the window responsive
constexpr double kSingleStepSeconds = 1.0 / 60.0;
// Frame periods while paused with nothing to do (see wait_while_idle).
constexpr double kIdleFrameSeconds = 1.0 / 30.0;  // within kIdleInputSeconds of input
constexpr double kRestFrameSeconds = 1.0 / 4.0;   // after that
constexpr double kIdleInputSeconds = 1.0;

glm::vec3 to_glm(const Vec3& v) { return glm::vec3(v.x, v.y, v.z); }

}  // namespace

InteractiveApp::InteractiveApp(GLFWwindow* window, InputState& input, SimSetup& setup, const StartPlan& plan,
                               const WindowOptions& options, const WaterViewOptions& view)
    : window_(window),
      runner_(*setup.sim),
      input_(input),
      setup_(setup),
      plan_(plan),
      options_(options),
      renderer_(shader_dir(), data_dir() + "/assets/textures/sky.png"),
      camera_(setup.scene.camera) {
  renderer_.set_tank(to_glm(setup_.sim->tank_lo()), to_glm(setup_.sim->tank_hi()));
  grid_geometry_ = setup_.sim->grid_geometry();
  dimensions_ = setup_.sim->dimensions();
  plane_z_ = setup_.sim->tank_lo().z;
  reset_camera();
  params_ = setup_.sim->params();
  backend_kind_ = setup_.sim->backend().kind;
  device_ = setup_.sim->backend().description;
  controls_.quality = plan.quality;
  controls_.lockstep = plan.steps_per_frame > 0;
  quality_applied_ = controls_.quality;
  quality_solver_ = params_.solver;  // start_params applied it (and --set after it)
  render_.color_mode = view.color;
  render_.mode = view.render;
  render_.grid_overlay = view.grid_overlay;
  render_.two_d = dimensions_ == 2;
  render_.surface.auto_scale = view.surface_scale_auto;
  render_.surface.fixed_scale = view.surface_scale;
  render_.surface.anisotropic = view.surface_anisotropic;
  renderer_.set_error_check(options.gl_check);
  controls_.panel_hidden = options.hide_panel;
  controls_.mesh = view.mesh;
  render_.color_range = default_color_range(view.color, pressure_scale(params_, setup_.scene));
  render_.particle_radius = 0.5f * setup_.spacing;
  last_reset_count_ = int(setup_.sim->particle_count());
  controls_.particle_target = last_reset_count_;
  controls_.start_params = setup_.sim->params();
  FileControls& files = controls_.files;
  files.scene_dir = scene_dir();
  files.scene_names = list_scenes(files.scene_dir, SceneKind::Any);
  files.gas_scene_names = list_scenes(files.scene_dir, SceneKind::Gas);
  files.record_dir = default_export_dir(std::time(nullptr));
  files.record_fps = float(view.record_fps);
  if (options.bench_window > 0.0) {
    bench_ = std::make_unique<WindowBench>(options.bench_window);
    if (options.bench_drag)
      drag_ = default_drag(setup_.sim->tank_lo(), setup_.sim->tank_hi(), options.bench_window);
  }
  const char* widgets = std::getenv("TIDEPOOL_TEST_WIDGETS");
  controls_.widgets.enabled = widgets && *widgets && std::string(widgets) != "0";
}

void InteractiveApp::handle_keys(bool* quit) {
  for (int key : input_.keys) {
    switch (key) {
      case GLFW_KEY_ESCAPE:
        *quit = true;
        break;
      case GLFW_KEY_SPACE:
        controls_.paused = !controls_.paused;
        break;
      case GLFW_KEY_S:
        controls_.step_requested = true;
        break;
      case GLFW_KEY_R:
        controls_.reset_requested = true;
        break;
      case GLFW_KEY_F5:
        controls_.reload_shaders_requested = true;
        break;
      case GLFW_KEY_F12:
        controls_.screenshot_requested = true;
        break;
      case GLFW_KEY_TAB:
        controls_.panel_hidden = !controls_.panel_hidden;
        break;
      default:
        select_solver_by_key(key);
        break;
    }
  }
  // Single stepping only makes sense from a paused state; S pauses a running simulation.
  if (controls_.step_requested) controls_.paused = true;
}

void InteractiveApp::select_solver_by_key(int key) {
  // 1, 2, 3 (or the keypad's) pick the solvers in kernels/solver_list.h order: WCSPH,
  // PCISPH, PBF. Only the parameter changes: the solvers share the particle state, so the
  // next step continues the same water with the other method, no reset.
  int digit = -1;
  if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9) digit = key - GLFW_KEY_1;
  if (key >= GLFW_KEY_KP_1 && key <= GLFW_KEY_KP_9) digit = key - GLFW_KEY_KP_1;
  if (digit >= 0 && digit < int(solver_names().size())) params_.solver = digit;
}


void InteractiveApp::follow_quality() {
  if (params_.solver == quality_solver_ && controls_.quality == quality_applied_ &&
      !controls_.quality_chosen)
    return;
  controls_.quality_chosen = false;
  // The solver or the quality changed: that solver's settings at that quality (the water
  // stays as it is; only the step and iteration settings change).
  apply_quality(params_, controls_.quality, backend_kind_, dimensions_);
  quality_solver_ = params_.solver;
  quality_applied_ = controls_.quality;
}

bool InteractiveApp::want_thread() const {
  // CUDA keeps its steps and the interop on this thread (the asynchronous CUDA path is
  // issue 22's); --steps-per-frame is lockstep by definition; a recording takes its frames
  // between steps on this thread.
  return backend_kind_ == BackendKind::Cpu && plan_.steps_per_frame == 0 && !recorder_.active();
}

void InteractiveApp::update_threading() {
  if (want_thread() == runner_.threaded()) return;
  if (want_thread())
    runner_.start(window_sim_threads(plan_));
  else
    runner_.stop();
  device_ = runner_.backend_description();  // the panel's Device line: the steps' threads
}

void InteractiveApp::reset() {
  // An unchanged count keeps the current spacing exactly rather than re-deriving it.
  const int target = controls_.particle_target;
  const uint64_t particles = target == last_reset_count_ ? 0 : uint64_t(std::max(target, 1));
  try {
    with_sim([&](Simulation& sim) {
      reset_particles(setup_, particles);
      after_new_particles(sim);
    });
    controls_.reset_error.clear();
  } catch (const SetupError& e) {
    controls_.reset_error = e.what();
    return;
  }
  stop_recording("the scene was reset");
}

void InteractiveApp::after_new_particles(Simulation& sim) {
  last_reset_count_ = controls_.particle_target = int(sim.particle_count());
  render_.particle_radius = 0.5f * setup_.spacing;
  // The tank's max faces snap to whole spacings, so they move with the particle count.
  renderer_.set_tank(to_glm(sim.tank_lo()), to_glm(sim.tank_hi()));
  grid_geometry_ = sim.grid_geometry();
  grid_serial_ = 0;  // counted again in the new grid
  dimensions_ = sim.dimensions();
  plane_z_ = sim.tank_lo().z;
  render_.two_d = dimensions_ == 2;
}

void InteractiveApp::reset_camera() {
  camera_ = OrbitCamera(setup_.scene.camera);
  if (dimensions_ == 2)
    camera_.set_plane(plane_z_, to_glm(setup_.sim->tank_lo()), to_glm(setup_.sim->tank_hi()));
}

void InteractiveApp::fall_back_from_mesh() {
  if (dimensions_ != 2 || render_.mode != RenderMode::Mesh) return;
  render_.mode = RenderMode::Surface;
  if (!mesh_fallback_said_)
    std::fprintf(stderr, "tidepool: the mesh render mode does not apply in 2D; drawing the surface\n");
  mesh_fallback_said_ = true;
}

void InteractiveApp::load_scene(const std::string& name_or_path) {
  // A gas scene: this window's loop ends and the gas's starts (run_window).
  try {
    if (find_scene(name_or_path, scene_dir()).is_gas) {
      next_scene_ = name_or_path;
      return;
    }
  } catch (const SceneError&) {
    // switch_scene below says what is wrong with it
  }
  const glm::vec2 old_default_range =
      default_color_range(render_.color_mode, pressure_scale(params_, setup_.scene));
  try {
    with_sim([&](Simulation& sim) {
      switch_scene(setup_, plan_, name_or_path, controls_.quality);
      after_new_particles(sim);
    });
  } catch (const SetupError& e) {
    // The running scene is untouched: say why in the panel and on stderr, and go on.
    controls_.files.scene_error = e.what();
    std::fprintf(stderr, "tidepool: %s\n", e.what());
    return;
  }
  controls_.files.scene_error.clear();
  stop_recording("the scene changed");
  reset_camera();
  // What "Restore start values" goes back to is now the new scene's start.
  controls_.start_params = params_;
  controls_.param_notes.clear();
  controls_.reset_error.clear();
  // A colour range the user never changed follows the scene (the pressure range depends on
  // its depth); one they set stays.
  if (render_.color_range == old_default_range)
    render_.color_range =
        default_color_range(render_.color_mode, pressure_scale(params_, setup_.scene));
  std::fprintf(stderr, "tidepool: scene %s (%s): %d particles, spacing %.4f m\n",
               scene_label(setup_.scene, controls_.files).c_str(), full_path(setup_.scene.source).c_str(),
               last_reset_count_, setup_.spacing);
}

void InteractiveApp::apply_requests() {
  if (controls_.reset_requested) reset();
  controls_.reset_requested = false;
  FileControls& files = controls_.files;
  if (!files.scene_request.empty()) load_scene(files.scene_request);
  files.scene_request.clear();
  if (files.record_toggle_requested) toggle_recording();
  files.record_toggle_requested = false;
  if (files.preset_save_requested) save_preset();
  files.preset_save_requested = false;
  if (files.preset_load_requested) load_preset();
  files.preset_load_requested = false;
  if (files.state_save_requested) save_state();
  files.state_save_requested = false;
  if (files.state_load_requested) load_state();
  files.state_load_requested = false;
  reload_shaders_if_asked(renderer_, controls_);
}

MouseForce InteractiveApp::mouse_force(double frame_seconds) {
  glm::vec3 origin, direction;
  tp::cursor_ray(window_, input_, camera_, &origin, &direction);
  // The first fluid point under the cursor: in the latest published state when it holds
  // the particles (the CPU path), else in the simulation itself (inline CUDA: no thread).
  const PublishedState& state = *state_;
  MouseTool::Pick pick;
  if (dimensions_ == 2)
    // 2D: the cursor's point in the plane, on the water or not, so that the force acts
    // exactly under the cursor (and a drag grabs there).
    pick = [this](const Ray& ray) -> std::optional<Vec3> {
      glm::vec3 hit;
      if (!ray_plane_z(to_glm(ray.origin), to_glm(ray.direction), plane_z_, &hit)) return std::nullopt;
      return Vec3{hit.x, hit.y, hit.z};
    };
  else if (!state.particles.empty())
    pick = [&](const Ray& ray) { return pick_points(state.particles, setup_.spacing, ray); };
  else
    pick = [&](const Ray& ray) {
      return runner_.exclusive([&](Simulation& sim) { return sim.pick(ray); });
    };
  // A drag begun with ctrl is the obstacles' (see drag_obstacles), even on empty space.
  // Shift + left click is the inspector's (inspect_particles): no force either.
  return mouse_.update(pick, params_.mouse_mode, input_.left && !input_.left_ctrl && !input_.left_shift, origin,
                       direction, camera_.eye(), camera_.forward(), frame_seconds);
}

void InteractiveApp::inspect_particles(double now) {
  const bool pick = input_.left_pressed && input_.left_shift;
  if (!pick && (!inspector_.active || now - inspector_.refreshed_at < 0.2)) return;
  glm::vec3 origin, direction;
  tp::cursor_ray(window_, input_, camera_, &origin, &direction);
  const float spacing = setup_.spacing, h = 2.0f * spacing;
  const Vec3 o{origin.x, origin.y, origin.z}, d{direction.x, direction.y, direction.z};
  const Snapshot snap = runner_.exclusive([](Simulation& sim) { return sim.snapshot(); });
  const size_t n = snap.position.size();
  size_t at = n;
  if (pick) {
    // The nearest particle along the ray among those within a spacing of it.
    float best = INFINITY;
    for (size_t i = 0; i < n; ++i) {
      const Vec3 p = xyz(snap.position[i]) - o;
      const float t = dot(p, d);
      if (t <= 0.0f || t >= best || length2(p - d * t) > spacing * spacing) continue;
      best = t, at = i;
    }
    if (at == n) return;  // nothing under the cursor: keep what was inspected
    inspector_.active = true;
    inspector_.just_picked = true;
    inspector_.id = snap.id[at];
    const Vec3 x = xyz(snap.position[at]);
    std::printf("tidepool: inspecting particle %u at %.4f %.4f %.4f m\n", inspector_.id, x.x, x.y, x.z);
    std::fflush(stdout);
  } else {
    for (size_t i = 0; i < n && at == n; ++i)
      if (snap.id[i] == inspector_.id) at = i;
    if (at == n) {  // taken by an outflow, or a reset
      inspector_.active = false;
      return;
    }
  }
  ParticleInspector& in = inspector_;
  in.position = xyz(snap.position[at]);
  in.velocity = xyz(snap.velocity[at]);
  in.density = snap.density[at];
  in.pressure = snap.pressure[at];
  in.density_error = 100.0f * std::max(in.density / params_.rest_density - 1.0f, 0.0f);
  in.neighbour_positions.clear();
  for (size_t j = 0; j < n; ++j)
    if (j != at && length2(xyz(snap.position[j]) - in.position) < h * h)
      in.neighbour_positions.push_back(snap.position[j]);
  in.neighbours = int(in.neighbour_positions.size());
  in.refreshed_at = now;
}

void InteractiveApp::drag_obstacles() {
  const std::vector<ObstacleShape>& shapes = state_->obstacles;
  glm::vec3 origin, direction;
  tp::cursor_ray(window_, input_, camera_, &origin, &direction);
  const bool ctrl = glfwGetKey(window_, GLFW_KEY_LEFT_CONTROL) == GLFW_PRESS ||
                    glfwGetKey(window_, GLFW_KEY_RIGHT_CONTROL) == GLFW_PRESS;
  // ImGui's io.WantCaptureMouse (from the last NewFrame): the cursor is over the panel, so
  // the scene does not react to it. Presses there never reach InputState at all.
  const bool over_scene = !ImGui::GetIO().WantCaptureMouse;
  const bool other_drag = (input_.left && !input_.left_ctrl) || input_.right || input_.middle;
  const ObstacleDrag::Frame frame = obstacle_drag_.update(
      shapes, input_.left && input_.left_ctrl, ctrl && over_scene && !other_drag, origin, direction,
      camera_.eye(), camera_.forward());
  if (frame.move) {
    glm::vec3 c = frame.move->center;
    if (dimensions_ == 2) c.z = plane_z_;  // (the drag plane is the simulation's, seen square-on)
    runner_.move_obstacle(frame.move->index, Vec3{c.x, c.y, c.z});
  }
  highlighted_obstacle_ = frame.highlighted;
}

void InteractiveApp::simulate(double frame_seconds) {
  if (runner_.threaded()) {
    // The thread follows the clock; a single step (S) is a frame's worth of time.
    runner_.set_paused(controls_.paused);
    if (controls_.paused && controls_.step_requested) runner_.request_advance(kSingleStepSeconds);
    controls_.step_requested = false;
    return;
  }
  runner_.step_inline([&](Simulation& sim) { simulate_inline(sim, frame_seconds); },
                      backend_kind_ == BackendKind::Cpu);
}

void InteractiveApp::simulate_inline(Simulation& sim, double frame_seconds) {
  const bool fixed = plan_.steps_per_frame > 0;
  // While recording, the steps are taken here one by one so that every frame time is seen.
  const auto advance = [&](double seconds) {
    if (recorder_.active())
      advance_recording(seconds, kSimulationBudgetMs);
    else
      sim.advance(seconds, kSimulationBudgetMs);
  };
  if (!controls_.paused) {
    if (fixed) {
      for (int k = 0; k < plan_.steps_per_frame; ++k) step_once();
    } else {
      advance(std::min(frame_seconds, kMaxFrameSeconds));
    }
  } else if (controls_.step_requested) {
    if (fixed)
      step_once();
    else
      advance(kSingleStepSeconds);
  }
  controls_.step_requested = false;
}

Marker InteractiveApp::marker() const {
  Marker m;
  m.visible = mouse_.active();
  if (!m.visible) return m;
  const SimParams& p = params_;
  m.position = mouse_.point();
  // Small next to the force's reach, but never smaller than a particle.
  m.radius = std::max(0.2f * p.mouse_radius, setup_.spacing);
  const glm::vec3 colors[] = {{1.0f, 0.55f, 0.2f}, {0.3f, 1.0f, 0.5f}, {1.0f, 0.9f, 0.3f}};
  m.color = colors[std::clamp(p.mouse_mode, 0, 2)];
  return m;
}

bool InteractiveApp::idle() const {
  const FileControls& files = controls_.files;
  if (!controls_.paused || controls_.step_requested || controls_.reset_requested ||
      controls_.reload_shaders_requested || !files.scene_request.empty() ||
      files.record_toggle_requested || files.preset_save_requested ||
      files.preset_load_requested || files.state_save_requested || files.state_load_requested)
    return false;
  // A button held (a camera drag, a panel slider) wants every frame.
  for (int button : {GLFW_MOUSE_BUTTON_LEFT, GLFW_MOUSE_BUTTON_RIGHT, GLFW_MOUSE_BUTTON_MIDDLE})
    if (glfwGetMouseButton(window_, button) == GLFW_PRESS) return false;
  return true;
}

void InteractiveApp::wait_while_idle(double frame_start) {
  // Paused with nothing to do: rather than render flat out, sleep until the next frame is
  // due, or until a key or a button wants a prompt answer. Frames come at 30 Hz for a
  // second after the last input (the panel follows hovering and typing smoothly), then at
  // 4 Hz (the statistics stay live). Other input (mouse motion, wheel) wakes the wait,
  // which then goes on to the 30 Hz frame time.
  for (;;) {
    const double now = glfwGetTime();
    if (!idle() || !input_.keys.empty() || glfwWindowShouldClose(window_) || stop_signal()) {
      last_input_time_ = now;
      return;
    }
    const double period =
        now - last_input_time_ < kIdleInputSeconds ? kIdleFrameSeconds : kRestFrameSeconds;
    const double wait = frame_start + period - now;
    if (wait <= 0.0) return;
    glfwWaitEventsTimeout(wait);
    const double woke = glfwGetTime();
    if (woke < frame_start + period - 1e-3) last_input_time_ = woke;  // an event woke it
  }
}

void InteractiveApp::script_drag(double t) {
  if (bench_ && options_.bench_drag) play_scripted_drag(drag_, t, window_, camera_, input_, *bench_, &drag_held_);
}

void InteractiveApp::report_window_bench() {
  WindowBenchResult r = bench_->result();
  r.solver = solver_name(params_.solver);
  r.render = render_.mode == RenderMode::Mesh      ? "mesh"
             : render_.mode == RenderMode::Spheres ? "spheres"
             : render_.surface.anisotropic         ? "surface"
                                                   : "surface (spheres)";
  r.backend = device_;
  r.quality = quality_name(controls_.quality);
  for (const PassTime& t : renderer_.pass_times()) r.pass_ms.push_back({t.pass, t.gpu_ms, t.cpu_ms});
  print_window_bench(r, options_.bench_json);
}

void InteractiveApp::request_mesh() {
  const bool on = render_.mode == RenderMode::Mesh;
  // The surface mode's ellipsoid splats: the same kernels, always anisotropic.
  const bool splats = render_.mode == RenderMode::Surface && render_.surface.anisotropic;
  const MeshSettings& m = controls_.mesh;
  const bool changed = on != mesh_requested_ || m.cell != mesh_asked_.cell || m.iso != mesh_asked_.iso ||
                       m.anisotropic != mesh_asked_.anisotropic;
  const bool splats_changed = splats != splats_requested_;
  runner_.set_mesh(on, m);
  runner_.set_splats(splats);
  if (!changed && !splats_changed) return;
  mesh_requested_ = on;
  mesh_asked_ = m;
  splats_requested_ = splats;
  if (!on) {
    renderer_.mesh().clear();  // not drawn again from an old state when switched back
    controls_.mesh_status.clear();
  }
  if (!splats) renderer_.splats().set_count(0);  // spheres again, at once
  // Published now with a mesh or splats, so that a paused simulation shows them too.
  if ((on && changed) || (splats && splats_changed)) runner_.exclusive([](Simulation&) {});
}

void InteractiveApp::upload_mesh(const PublishedState& state, const GlTargets& targets) {
  if (!state.splats_error.empty() && splats_requested_ && renderer_.splats().count() > 0) {
    // Spheres rather than ellipsoids of an older state; said once.
    std::fprintf(stderr, "tidepool: anisotropic particles: %s; drawing spheres\n", state.splats_error.c_str());
    renderer_.splats().set_count(0);
  }
  if (state.has_splats && state.serial != splats_serial_ && splats_requested_) {
    splats_serial_ = state.serial;
    if (state.particle_count == 0) {
      renderer_.splats().set_count(0);  // (nothing to map: no stale ellipsoids either)
    } else if (state.splats_on_device) {  // (inline on CUDA) straight from the device, interop or not
      runner_.exclusive([&](Simulation& sim) { sim.publish_splats(targets.splats); });
    } else if (Vec4* out = targets.splats.map_host(state.splats.size())) {
      std::copy(state.splats.begin(), state.splats.end(), out);
      targets.splats.unmap();
    }
  }
  if (!state.mesh_error.empty()) {
    controls_.mesh_status = "No mesh: " + state.mesh_error;
    controls_.mesh_failed = true;
  }
  if (!state.has_mesh || state.serial == mesh_serial_ || render_.mode != RenderMode::Mesh) return;
  mesh_serial_ = state.serial;
  if (state.mesh_on_device)
    runner_.exclusive([&](Simulation& sim) { sim.publish_mesh(targets.mesh); });
  else
    targets.mesh.upload(state.mesh);
  char text[96];
  std::snprintf(text, sizeof(text), "%zu triangles in %.1f ms", renderer_.mesh().triangle_count(),
                state.mesh_times.total());
  controls_.mesh_status = text;
  controls_.mesh_failed = false;
}

void InteractiveApp::upload_state(const PublishedState& state, const GlTargets& targets) {
  upload_mesh(state, targets);
  if (state.particles.empty() && state.particle_count > 0) {
    // Inline on CUDA: the simulation writes into the GL buffers itself (interop), this
    // thread being the only one that steps it.
    runner_.exclusive([&](Simulation& sim) {
      sim.publish(targets.particles, color_field_for(render_.color_mode));
      if (params_.diffuse) sim.publish_diffuse(targets.diffuse);
    });
    if (!params_.diffuse) renderer_.diffuse_particles().set_count(0);
    return;
  }
  if (state.serial == drawn_serial_) return;  // nothing new: the buffers hold it already
  drawn_serial_ = state.serial;
  const auto copy = [](PublishTarget& to, const std::vector<Vec4>& from) {
    if (Vec4* out = to.map_host(from.size())) {
      std::copy(from.begin(), from.end(), out);
      to.unmap();
    }
  };
  copy(targets.particles, state.particles);
  if (state.params.diffuse)
    copy(targets.diffuse, state.diffuse);
  else
    renderer_.diffuse_particles().set_count(0);  // switched off: none drawn
}

void InteractiveApp::update_grid_overlay(const PublishedState& state) {
  if (!render_.grid_overlay || state.particles.empty()) {
    if (grid_serial_ != 0) renderer_.set_grid_overlay({});
    grid_serial_ = 0;
    return;
  }
  if (state.serial == grid_serial_) return;  // drawn already
  count_grid_cells(state.particles, grid_geometry_, kGridOverlayMaxCells, &grid_scratch_, &grid_cells_);
  grid_serial_ = state.serial;
  GridOverlayDraw draw;
  draw.cells = grid_cells_.cells;
  draw.cell = grid_geometry_.cell;
  draw.plane = dimensions_ == 2;
  draw.full = float(full_cell_count(dimensions_));
  // The edges at the water's surface lie between the top particles' spheres (the cells'
  // faces are half-way between lattice layers): pulled forward to show on them.
  draw.pull = 0.6f * setup_.spacing;
  renderer_.set_grid_overlay(std::move(draw));
}

int InteractiveApp::run() {
  // Declared after the renderer's buffer and destroyed before it: the target unregisters
  // the buffer from CUDA (interop) while it and the GL context still exist.
  GlParticleBuffer particles(renderer_.particles());
  GlPublishTarget target(particles, backend_kind_, cuda_runtime());
  // Spray, foam and bubbles, into their own buffer the same way (interop on CUDA).
  GlParticleBuffer diffuse_particles(renderer_.diffuse_particles());
  GlPublishTarget diffuse_target(diffuse_particles, backend_kind_, cuda_runtime());
  // The surface mode's ellipsoid splats and the mesh mode's triangles, the same way.
  GlParticleBuffer splat_buffer(renderer_.splats());
  GlPublishTarget splat_target(splat_buffer, backend_kind_, cuda_runtime());
  GlMeshBuffers mesh_buffers(renderer_.mesh());
  GlMeshTarget mesh_target(mesh_buffers, backend_kind_, cuda_runtime());
  const GlTargets targets{target, diffuse_target, splat_target, mesh_target};
  // The state as it starts, then the thread (when this backend and mode want one).
  runner_.step_inline([](Simulation&) {}, backend_kind_ == BackendKind::Cpu);
  update_threading();
  int exit_code = 0;
  double last_time = glfwGetTime();
  const double run_start = last_time;
  for (;;) {
    glfwPollEvents();
    wait_while_idle(last_time);
    int fb_width = 0, fb_height = 0;
    glfwGetFramebufferSize(window_, &fb_width, &fb_height);
    if (glfwGetWindowAttrib(window_, GLFW_ICONIFIED) || fb_width <= 0 || fb_height <= 0) {
      // Minimised: nothing to draw. Sleep until something happens rather than spin, and
      // do not count the time away as a frame.
      if (glfwWindowShouldClose(window_) || stop_signal()) break;
      glfwWaitEventsTimeout(kRestFrameSeconds);  // wakes to see a stop signal
      last_time = glfwGetTime();
      input_.begin_frame();
      continue;
    }
    const double now = glfwGetTime();
    const double frame_seconds = now - last_time;
    last_time = now;

    bool quit = glfwWindowShouldClose(window_) || stop_signal();
    script_drag(now - run_start);
    handle_keys(&quit);
    apply_camera_input(window_, input_, camera_);
    apply_requests();
    fall_back_from_mesh();
    if (!next_scene_.empty()) break;  // a gas scene: run_window opens it
    update_threading();

    // Input for the simulation's next step, from the latest state (picking, obstacles).
    state_ = &runner_.latest();
    drag_obstacles();
    inspect_particles(now);
    const uint64_t mouse_serial = runner_.set_mouse(mouse_force(last_simulated_seconds_));
    if (drag_held_ && mouse_.active() && press_serial_ == 0) press_serial_ = mouse_serial;
    follow_quality();
    runner_.set_params(params_);
    runner_.set_color_field(color_field_for(render_.color_mode));
    request_mesh();
    simulate(frame_seconds);

    // The newest completed state: what this frame draws.
    const PublishedState& state = runner_.latest();
    state_ = &state;
    controls_.obstacles = !state.obstacles.empty();
    renderer_.set_obstacles(obstacle_draws(state.obstacles, highlighted_obstacle_));
    if (inspector_.active) {
      std::vector<Vec4> points{make_vec4(inspector_.position, 0.0f)};
      points.insert(points.end(), inspector_.neighbour_positions.begin(), inspector_.neighbour_positions.end());
      renderer_.set_highlight(std::move(points), 0.35f * setup_.spacing);
    } else {
      renderer_.set_highlight({}, 0.0f);
    }
    const RunStats& stats = state.stats;
    last_simulated_seconds_ = std::max(stats.simulated_time - previous_simulated_time_, 0.0);
    previous_simulated_time_ = stats.simulated_time;
    frame_stats_.add(now, stats);
    upload_state(state, targets);
    update_grid_overlay(state);

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    PanelExtent panel;  // none while hidden: the scene takes the whole window
    if (!controls_.panel_hidden) {
      PanelSim sim{setup_, params_, state.particle_count, state.boundary_count, backend_kind_,
                   device_, &state.particles, &inspector_, dimensions_,
                   grid_serial_ != 0 ? &grid_cells_ : nullptr};
      panel = draw_panel(sim, stats, frame_stats_, render_, controls_);
      draw_help_overlay(controls_, params_, dimensions_);
    }
    print_widget_changes(controls_.widgets);
    const float shift = panel_screen_shift(window_, panel);
    camera_.set_screen_shift(shift);
    camera_.fit_plane(float(fb_width) / float(fb_height));  // 2D: the tank beside the panel
    ImGui::Render();

    // The button and F12 save the scene without the panel, framed as with the panel
    // collapsed (centred in the window, not beside the panel): drawn once so, saved, then
    // drawn again as the window shows it.
    const auto draw = [&] { renderer_.draw(camera_view(camera_, fb_width, fb_height), render_, marker()); };
    screenshot_if_asked(camera_, shift, fb_width, fb_height, controls_, draw);
    draw();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    controls_.render_pass_times = renderer_.pass_times();
    controls_.surface_scale = renderer_.surface_scale();
    if (options_.gl_check && gl_errors_after_panel()) panel_gl_errors_ = true;
    ++frames_drawn_;
    if (bench_) {
      const double t = glfwGetTime() - run_start;
      if (press_serial_ != 0 && state.mouse_serial >= press_serial_) bench_->force_shown(t);
      bench_->frame(t, stats, state.serial, state.particle_count);
      if (bench_->done(t)) quit = true;
    }

    const bool last = quit || (options_.frames > 0 && frames_drawn_ >= options_.frames);
    if (last && !options_.screenshot.empty() && !save_last_frame(options_.screenshot, fb_width, fb_height))
      exit_code = 1;
    glfwSwapBuffers(window_);
    input_.begin_frame();
    if (last) break;
  }
  if (bench_) report_window_bench();
  if (options_.gl_check) exit_code = gl_check_verdict(renderer_, panel_gl_errors_, exit_code);
  return finish(exit_code, stop_signal() ? signal_text(stop_signal()) : "");
}

int InteractiveApp::finish(int exit_code, const std::string& stop_reason) {
  runner_.stop();  // the simulation is this thread's again
  stop_recording(stop_reason);
  // One line for scripts driving the window (did the drag move the water?).
  const RunStats stats = setup_.sim->stats();
  // GPU and CPU time per render pass (recent means), for comparing modes and sizes.
  print_pass_times(renderer_.pass_times());
  // Where the obstacles ended up (after any ctrl + left drags).
  const std::vector<ObstacleShape> obstacles = setup_.sim->obstacles();
  for (size_t i = 0; i < obstacles.size(); ++i) {
    const ObstacleShape& o = obstacles[i];
    std::printf("tidepool: obstacle %zu (%s) at %.4f %.4f %.4f m\n", i,
                o.kind == int(ShapeKind::Sphere) ? "sphere" : "box", o.center.x, o.center.y,
                o.center.z);
  }
  std::printf("tidepool: %d frames, %llu steps, %.4g s simulated, max speed %.3g m/s\n",
              frames_drawn_, static_cast<unsigned long long>(stats.steps), stats.simulated_time,
              stats.max_speed);
  if (stop_reason.empty()) return exit_code;
  std::fflush(stdout);  // the last line, on standard error, comes last
  const std::string frames = recorder_.frames() == 0 ? ""
                             : "; " + std::to_string(recorder_.frames()) +
                                   " complete frames in " + full_path(recorder_.dir());
  std::fprintf(stderr, "%s\n",
               stopped_line(stats.simulated_time, stats.steps, stop_reason, frames).c_str());
  std::fflush(stderr);
  return exit_code ? exit_code : 130;
}

}  // namespace tp
