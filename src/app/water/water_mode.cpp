#include "app/water/water_mode.h"

#include <glad/gl.h>
// glad first: GLFW must not pull in the system GL header.
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>

#include "app/window/gl_publish_target.h"
#include "app/window/window_frame.h"
#include "sim/io/particle_io.h"
#include "sim/water/body_edits.h"
#include "sim/water/params.h"
#include "util/paths.h"
#include "util/stop_signals.h"

namespace tp {

namespace {

constexpr double kMaxFrameSeconds = 1.0 / 30.0;  // longer frames run in slow motion
constexpr double kSimulationBudgetMs = 25.0;     // keeps the window responsive
constexpr double kSingleStepSeconds = 1.0 / 60.0;

glm::vec3 to_glm(const Vec3& v) { return glm::vec3(v.x, v.y, v.z); }

}  // namespace

// The particles', the spray's, the surface mode's ellipsoid splats' and the mesh mode's GL
// buffers, each with the target the simulation publishes into (interop on CUDA).
struct WaterMode::GlTargets {
  GlParticleBuffer particle_buffer, diffuse_buffer, splat_buffer;
  GlMeshBuffers mesh_buffers;
  GlPublishTarget particles, diffuse, splats;
  GlMeshTarget mesh;

  GlTargets(Renderer& renderer, BackendKind backend)
      : particle_buffer(renderer.particles()),
        diffuse_buffer(renderer.diffuse_particles()),
        splat_buffer(renderer.splats()),
        mesh_buffers(renderer.mesh()),
        particles(particle_buffer, backend, cuda_runtime()),
        diffuse(diffuse_buffer, backend, cuda_runtime()),
        splats(splat_buffer, backend, cuda_runtime()),
        mesh(mesh_buffers, backend, cuda_runtime()) {}
};

WaterMode::WaterMode(GLFWwindow* window, InputState& input, SimSetup& setup, const StartPlan& plan,
                     const WaterViewOptions& view)
    : window_(window),
      runner_(*setup.sim),
      input_(input),
      setup_(setup),
      plan_(plan),
      renderer_(shader_dir(), data_dir() + "/assets/textures/sky.png"),
      camera_(setup.scene.camera) {
  renderer_.set_tank(to_glm(setup_.sim->tank_lo()), to_glm(setup_.sim->tank_hi()));
  grid_geometry_ = setup_.sim->grid_geometry();
  dimensions_ = setup_.sim->dimensions();
  plane_z_ = setup_.sim->tank_lo().z;
  reset_camera();
  params_ = setup_.sim->params();
  backend_kind_ = setup_.sim->backend().kind;
  if (const char* inline_steps = std::getenv("TIDEPOOL_CUDA_INLINE"))
    cuda_inline_ = *inline_steps != '\0' && std::string(inline_steps) != "0";
  device_ = setup_.sim->backend().description;
  controls_.quality = plan.quality;
  controls_.lockstep = plan.steps_per_frame > 0;
  quality_applied_ = controls_.quality;
  quality_solver_ = params_.solver;  // start_params applied it (and --set after it)
  render_.color_mode = view.color;
  if (view.color == ColorMode::Pressure && params_.solver == int(SolverKind::Pbf))
    std::fprintf(stderr, "tidepool: --color pressure: PBF has no pressure (it moves positions to the constraint), "
                         "so its particles show one flat colour; --color density or density_error show its "
                         "compression, and the other solvers (keys 1, 2, 4) have a pressure\n");
  render_.mode = view.render;
  render_.grid_overlay = view.grid_overlay;
  render_.two_d = dimensions_ == 2;
  render_.surface.auto_scale = view.surface_scale_auto;
  render_.surface.fixed_scale = view.surface_scale;
  render_.surface.anisotropic = view.surface_anisotropic;
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
  files.sessions = true;
  files.record_dir = default_export_dir(std::time(nullptr));
  files.record_fps = float(view.record_fps);
  if (setup_.session) replay_.open(setup_.session, plan.replay, view.replay_offline_fps);
  render_given_ = view.render_given;
  color_given_ = view.color_given;
}

WaterMode::~WaterMode() = default;

void WaterMode::start() {
  targets_ = std::make_unique<GlTargets>(renderer_, backend_kind_);
  if (replay_.active()) {
    runner_.exclusive([&](Simulation& sim) { replay_.begin(sim); });
    // The Device line with the threads the replay steps on (the session's, set by begin on
    // this thread), not the count the window started with.
    device_ = runner_.backend_description();
    if (replay_.offline()) controls_.panel_hidden = true;  // (the view alone, as the video shows it)
  }
  // The state as it starts, then the thread (when this backend and mode want one).
  runner_.step_inline([](Simulation&) {}, backend_kind_ == BackendKind::Cpu);
  update_threading();
}

void WaterMode::key(int key) {
  // 1 to 4 (or the keypad's) pick the solvers in kernels/solver_list.h order: WCSPH,
  // PCISPH, PBF, DFSPH. Only the parameter changes: the solvers share the particle state, so the
  // next step continues the same water with the other method, no reset.
  int digit = -1;
  if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9) digit = key - GLFW_KEY_1;
  if (key >= GLFW_KEY_KP_1 && key <= GLFW_KEY_KP_9) digit = key - GLFW_KEY_KP_1;
  if (digit >= 0 && digit < int(solver_names().size())) {
    if (replay_.active())
      std::fprintf(stderr, "tidepool: replaying: the solver is the session's (Continue from here to switch)\n");
    else
      params_.solver = digit;
  }
  if (key == GLFW_KEY_F8) controls_.files.session_toggle_requested = true;
  // V: the next way to draw the water (spheres, surface, mesh; no mesh in 2D).
  if (key == GLFW_KEY_V) {
    int next = (int(render_.mode) + 1) % kRenderModeCount;
    if (dimensions_ == 2 && RenderMode(next) == RenderMode::Mesh) next = (next + 1) % kRenderModeCount;
    render_.mode = RenderMode(next);
  }
}


void WaterMode::follow_quality() {
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

bool WaterMode::want_thread() const {
  // On both backends a frame never waits for a step (CUDA: the runner's thread copies each
  // state's particles to the host, and the interop serves the inline cases below);
  // --steps-per-frame is lockstep by definition; a recording takes its frames between
  // steps on this thread; a replay plays the session's steps at the frame's pace.
  // TIDEPOOL_CUDA_INLINE=1 keeps CUDA's steps on this thread (with the interop), as before.
  if (backend_kind_ == BackendKind::Cuda && cuda_inline_) return false;
  return plan_.steps_per_frame == 0 && !recording_.active() && !replay_.active();
}

void WaterMode::update_threading() {
  if (want_thread() == runner_.threaded()) return;
  if (want_thread())
    runner_.start(window_sim_threads(plan_));
  else
    runner_.stop();
  device_ = runner_.backend_description();  // the panel's Device line: the steps' threads
}

void WaterMode::reset() {
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
  recording_.stop(controls_.files, "the scene was reset");
}

void WaterMode::after_new_particles(Simulation& sim) {
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

void WaterMode::reset_camera() {
  camera_ = OrbitCamera(setup_.scene.camera);
  if (dimensions_ == 2)
    camera_.set_plane(plane_z_, to_glm(setup_.sim->tank_lo()), to_glm(setup_.sim->tank_hi()));
}

void WaterMode::fall_back_from_mesh() {
  if (dimensions_ != 2 || render_.mode != RenderMode::Mesh) return;
  render_.mode = RenderMode::Surface;
  if (!mesh_fallback_said_)
    std::fprintf(stderr, "tidepool: the mesh render mode does not apply in 2D; drawing the surface\n");
  mesh_fallback_said_ = true;
}

void WaterMode::load_scene(const std::string& name_or_path) {
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
  recording_.stop(controls_.files, "the scene changed");
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

MouseForce WaterMode::mouse_force(double frame_seconds) {
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

void WaterMode::inspect_particles(double now) {
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
    // The particle whose sphere (half a spacing across each way, as drawn) the ray meets
    // first. (The nearest centre along the ray among those within a spacing of it, as
    // before, tied between a particle and its neighbour on the same layer, and drift chose.)
    const float r2 = 0.25f * spacing * spacing;
    float best = INFINITY;
    for (size_t i = 0; i < n; ++i) {
      const Vec3 p = xyz(snap.position[i]) - o;
      const float t = dot(p, d), off2 = length2(p - d * t);
      if (t <= 0.0f || off2 > r2) continue;
      const float hit = t - std::sqrt(r2 - off2);
      if (hit < best) best = hit, at = i;
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

void WaterMode::drag_obstacles() {
  // The bodies first: a press on one grabs it, unless an obstacle is in front of it (or
  // is being dragged); elsewhere the drag is the obstacles' as it always was.
  glm::vec3 origin, direction;
  tp::cursor_ray(window_, input_, camera_, &origin, &direction);
  float obstacle_distance = INFINITY;
  if (const std::optional<ObstacleHit> hit = pick_obstacle(origin, direction, state_->obstacles))
    obstacle_distance = hit->distance;
  const bool free = !obstacle_drag_.dragging();
  const BodyDrag::Frame body = body_drag_.update(
      state_->bodies, free && input_.left && input_.left_ctrl, free && ctrl_hover(window_, input_), origin, direction,
      camera_.eye(), camera_.forward(), obstacle_distance);
  // 2D: the grab's target stays in the simulation's plane (seen square-on), and so does
  // the point held (the ray meets the body's front face; a body turns only about z there,
  // so its own z is the world's).
  const auto in_plane = [&](Vec3 p) { return dimensions_ == 2 ? Vec3{p.x, p.y, plane_z_} : p; };
  if (body.release) runner_.release_body();
  if (body.grab) {
    Vec3 local = body.grab->local;
    if (dimensions_ == 2) local.z = 0.0f;
    runner_.grab_body(body.grab->index, local, in_plane(body.grab->target));
  }
  if (body.move) runner_.move_grab(in_plane(*body.move));
  highlighted_body_ = body.highlighted;

  const ObstacleDrag::Frame frame = drag_obstacle(window_, input_, camera_, obstacle_drag_, state_->obstacles,
                                                  !body_drag_.dragging() && body.highlighted < 0);
  if (frame.move) {
    glm::vec3 c = frame.move->center;
    if (dimensions_ == 2) c.z = plane_z_;  // (the drag plane is the simulation's, seen square-on)
    runner_.move_obstacle(frame.move->index, Vec3{c.x, c.y, c.z});
  }
  highlighted_obstacle_ = frame.highlighted;
}

void WaterMode::simulate(double frame_seconds) {
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

void WaterMode::simulate_inline(Simulation& sim, double frame_seconds) {
  const bool fixed = plan_.steps_per_frame > 0;
  // While recording, the steps are taken here one by one so that every frame time is seen.
  const auto advance = [&](double seconds) {
    if (recording_.active())
      recording_.advance(sim, controls_.files, seconds, kSimulationBudgetMs);
    else
      sim.advance(seconds, kSimulationBudgetMs);
  };
  if (!controls_.paused) {
    if (fixed) {
      for (int k = 0; k < plan_.steps_per_frame; ++k) recording_.step_once(sim, controls_.files);
    } else {
      advance(std::min(frame_seconds, kMaxFrameSeconds));
    }
  } else if (controls_.step_requested) {
    if (fixed)
      recording_.step_once(sim, controls_.files);
    else
      advance(kSingleStepSeconds);
  }
  controls_.step_requested = false;
}

Marker WaterMode::marker() const {
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

ScriptedDrag WaterMode::bench_drag(double seconds) const {
  return default_drag(setup_.sim->tank_lo(), setup_.sim->tank_hi(), seconds);
}

BenchFrame WaterMode::bench_frame() const {
  const PublishedState& state = *state_;
  return BenchFrame{state.stats, state.serial, state.particle_count,
                    press_serial_ != 0 && state.mouse_serial >= press_serial_};
}

void WaterMode::describe_bench(WindowBenchResult& r) const {
  r.solver = solver_name(params_.solver);
  r.render = render_.mode == RenderMode::Mesh      ? "mesh"
             : render_.mode == RenderMode::Spheres ? "spheres"
             : render_.surface.anisotropic         ? "surface"
                                                   : "surface (spheres)";
  r.backend = device_;
  r.quality = quality_name(controls_.quality);
}

void WaterMode::request_mesh() {
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

void WaterMode::upload_mesh(const PublishedState& state) {
  GlTargets& targets = *targets_;
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

void WaterMode::upload_state(const PublishedState& state) {
  GlTargets& targets = *targets_;
  upload_mesh(state);
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

void WaterMode::update_grid_overlay(const PublishedState& state) {
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

void WaterMode::step(const FrameTime& frame) {
  fall_back_from_mesh();
  if (int(render_.mode) != said_render_mode_) {  // (at the start, then each change: V or the panel)
    std::fprintf(stderr, "tidepool: drawing as %s\n", render_mode_name(render_.mode));
    // The surface's targets and the mesh go when the spheres come back (Renderer::draw,
    // SimRunner::publish).
    if (said_render_mode_ >= 0 && render_.mode == RenderMode::Spheres) controls_.memory_released = true;
    said_render_mode_ = int(render_.mode);
  }
  update_threading();
  // Input for the simulation's next step, from the state on the screen (picking,
  // obstacles): what the mouse points at. (Not a take: the runner times its copies by the
  // frame's one take below.)
  state_ = &runner_.shown();
  inspect_particles(frame.now);
  if (replay_.active()) {
    // The session's inputs only: none of the window's reach the simulation.
    runner_.set_color_field(color_field_for(render_.color_mode));
    request_mesh();
    runner_.step_inline([&](Simulation& sim) { replay_.play(sim, frame.seconds, controls_); },
                        backend_kind_ == BackendKind::Cpu);
  } else {
    drag_obstacles();
    const uint64_t mouse_serial = runner_.set_mouse(mouse_force(last_simulated_seconds_));
    if (frame.scripted_drag && mouse_.active() && press_serial_ == 0) press_serial_ = mouse_serial;
    follow_quality();
    runner_.set_params(params_);
    runner_.set_color_field(color_field_for(render_.color_mode));
    request_mesh();
    simulate(frame.seconds);
  }

  // The newest completed state: what this frame draws.
  const PublishedState& state = runner_.latest();
  state_ = &state;
  if (state.stats.guard_note != said_guard_note_) {  // the NaN guard's sentence, on the terminal too
    said_guard_note_ = state.stats.guard_note;
    if (!said_guard_note_.empty()) std::fprintf(stderr, "tidepool: the NaN guard: %s\n", said_guard_note_.c_str());
  }
  if (replay_.active()) {
    params_ = state.params;  // (the panel shows the session's; its edits do not stay)
    replay_.set_time(state.stats.simulated_time);
    SessionView view;
    if (replay_.take_view(&view)) {
      camera_.set_pose(CameraPose{glm::vec3(view.target.x, view.target.y, view.target.z), view.distance, view.yaw,
                                  view.pitch});
      if (!render_given_) render_.mode = RenderMode(std::clamp(view.render_mode, 0, kRenderModeCount - 1));
      const ColorMode color = ColorMode(std::clamp(view.color_mode, 0, kColorModeCount - 1));
      if (!color_given_ && color != render_.color_mode) {
        render_.color_mode = color;
        render_.color_range = default_color_range(color, pressure_scale(params_, setup_.scene));
      }
    }
  } else if (session_.recording()) {
    const CameraPose pose = camera_.pose();
    session_.set_view(SessionView{Vec3{pose.target.x, pose.target.y, pose.target.z}, pose.distance, pose.yaw,
                                  pose.pitch, int32_t(render_.mode), int32_t(render_.color_mode)});
  }
  controls_.obstacles = !state.obstacles.empty();
  controls_.bodies = !state.bodies.empty();
  renderer_.set_obstacles(obstacle_draws(state.obstacles, highlighted_obstacle_));
  renderer_.set_bodies(body_draws(state.bodies, highlighted_body_));
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
  frame_stats_.add(frame.now, stats);
  upload_state(state);
  update_grid_overlay(state);
}

PanelExtent WaterMode::panel() {
  const PublishedState& state = *state_;
  controls_.surface_scale = renderer_.surface_scale();  // as the last frame drew it
  PanelSim sim{setup_, params_, state.particle_count, state.boundary_count, backend_kind_,
               device_, &state.particles, &inspector_, dimensions_,
               grid_serial_ != 0 ? &grid_cells_ : nullptr, &state.bodies, state.grabbed_body};
  const PanelExtent extent = draw_panel(sim, state.stats, frame_stats_, render_, controls_);
  draw_help_overlay(controls_, params_, dimensions_);
  replay_.draw_bar(controls_, extent.right);
  if (controls_.bodies_panel.request.kind != BodyRequest::None) edit_bodies(controls_.bodies_panel.request);
  return extent;
}

void WaterMode::edit_bodies(const BodyRequest& r) {
  BodyPanel& panel = controls_.bodies_panel;
  if (replay_.active()) {
    panel.status = "Replaying: Continue from here (the replay bar) before editing the bodies.";
    panel.status_is_note = true;
    return;
  }
  BodySpec body = r.body;
  if (r.kind == BodyRequest::LoadMesh) {
    // As given (from where Tidepool was started), else under the assets' folder or the one
    // above it ("assets/meshes/duck.obj" from an installed copy too).
    std::error_code ec;
    const std::string file = std::filesystem::exists(r.mesh_file, ec)
                                 ? r.mesh_file
                                 : find_beside(r.mesh_file, std::filesystem::path(scene_dir()).parent_path().string());
    std::string error;
    body.shape = int(BodyShapeKind::Mesh);
    body.mesh = load_body_mesh(file, r.mesh_scale, &error);
    if (!body.mesh) {
      panel.status = error;
      panel.status_is_note = false;
      std::fprintf(stderr, "tidepool: %s\n", error.c_str());
      return;
    }
    body.kinematic = r.kinematic;
    body.density = r.density;
  }
  std::string note;
  if (r.kind == BodyRequest::Add) {
    // The water resolves nothing under two spacings: a body too small for this count grows
    // to 2.2 spacings across its smallest side, and the panel says so.
    const float smallest = body_smallest_side(body, dimensions_), least = 2.2f * setup_.spacing;
    if (smallest < least) {
      const float k = least / smallest;
      body.radius *= k;
      body.half_height *= k;
      body.half_extent = body.half_extent * k;
      char text[160];
      std::snprintf(text, sizeof(text), "Made %.0f%% larger: at this particle count the water resolves nothing under %.3f m.",
                    100.0 * (k - 1.0), double(2.0f * setup_.spacing));
      note = text;
    }
  }
  if (r.kind == BodyRequest::Add || r.kind == BodyRequest::LoadMesh) {
    if (body.mesh) body.pose.orientation = body.mesh->principal_to_file;  // upright, as in its file
    const glm::vec3 t = camera_.target();
    body.pose.position = new_body_place(body, state_->bodies, Vec3{t.x, t.y, t.z}, setup_.scene.tank_lo,
                                        setup_.scene.tank_hi, dimensions_, plane_z_);
  }
  std::vector<BodySpec> now;  // the bodies after the edit
  panel.status = runner_.exclusive_edit([&](Simulation& sim) {
    const std::string why = r.kind == BodyRequest::Density ? set_body_density(sim, r.index, r.density)
                            : r.kind == BodyRequest::Remove ? remove_body(sim, r.index)
                                                            : add_body(sim, body);
    now = sim.bodies();
    return why;
  });
  panel.status_is_note = false;
  if (!panel.status.empty()) {
    std::fprintf(stderr, "tidepool: %s\n", panel.status.c_str());
    return;
  }
  panel.status = note;
  panel.status_is_note = !note.empty();
  controls_.bodies = true;
  if (r.kind == BodyRequest::Density)
    std::fprintf(stderr, "tidepool: body %d density %.0f kg/m^3\n", r.index, double(r.density));
  else if (r.kind == BodyRequest::Remove)
    std::fprintf(stderr, "tidepool: body %d removed (%zu left)\n", r.index, now.size());
  else if (!now.empty())
    std::fprintf(stderr, "tidepool: body %zu added (%s%s) at %.3f %.3f %.3f m\n", now.size() - 1, shape_name(now.back()),
                 now.back().mesh ? (" " + now.back().mesh->name).c_str() : "", now.back().pose.position.x,
                 now.back().pose.position.y, now.back().pose.position.z);
}

void WaterMode::draw(const CameraView& view) { renderer_.draw(view, render_, marker()); }

void WaterMode::take_over(const char* why) {
  if (!replay_.active()) return;
  const uint64_t step = replay_.step(), total = replay_.total_steps();
  runner_.exclusive([&](Simulation& sim) {
    // (The recording's hands let go: a body it held at the step shown would stay held.)
    const bool held = replay_.stop(sim);
    params_ = sim.params();
    std::fprintf(stderr,
                 "tidepool: %s: the replay ends at step %llu of %llu (the simulation's step %llu, t = %.3f s); live "
                 "from here%s\n",
                 why, static_cast<unsigned long long>(step), static_cast<unsigned long long>(total),
                 static_cast<unsigned long long>(sim.stats_as_stepped().steps), sim.simulated_time(),
                 held ? ", the body the recording held let go" : "");
  });
  quality_solver_ = params_.solver;  // (the session's settings stay: no quality preset over them)
  quality_applied_ = controls_.quality;
  controls_.quality_chosen = false;
}

int WaterMode::finish(int exit_code, const std::string& stop_reason, int frames) {
  runner_.stop();  // the simulation is this thread's again
  if (replay_.finish_line(setup_.sim->simulated_time()) != 0 && exit_code == 0) exit_code = 1;
  recording_.stop(controls_.files, stop_reason);
  if (session_.recording()) toggle_session();  // its end mark: complete up to the last step
  // One line for scripts driving the window (did the drag move the water?).
  const RunStats stats = setup_.sim->stats();
  // GPU and CPU time per render pass (recent means), for comparing modes and sizes.
  print_pass_times(renderer_.pass_times());
  // Where the obstacles ended up (after any ctrl + left drags).
  print_obstacle_positions(setup_.sim->obstacles());
  print_body_positions(setup_.sim->bodies());
  // What must never happen, whatever was done in the window (the monkey test reads it).
  const ParticleCheck check = check_particles(setup_.sim->snapshot(), setup_.sim->tank_lo(), setup_.sim->tank_hi());
  std::printf("tidepool: particles at exit: %llu outside the tank, %llu not finite; the NaN guard threw away %llu "
              "particle states\n",
              static_cast<unsigned long long>(check.outside), static_cast<unsigned long long>(check.nonfinite),
              static_cast<unsigned long long>(stats.nonfinite_resets));
  // (Still replaying, the count includes the steps before the session's start, which the
  // replay's lines do not count: said, so that the two agree. Once taken over, a reset or
  // a load may have started the count again: the take-over line gave both counts.)
  char before[96] = "";
  if (replay_.active())
    std::snprintf(before, sizeof before, " (%llu of them before the session's start)",
                  static_cast<unsigned long long>(replay_.steps_before()));
  std::printf("tidepool: %d frames, %llu steps%s, %.4g s simulated, max speed %.3g m/s\n",
              frames, static_cast<unsigned long long>(stats.steps), before, stats.simulated_time,
              stats.max_speed);
  if (stop_reason.empty()) return exit_code;
  std::fflush(stdout);  // the last line, on standard error, comes last
  const std::string recorded = recording_.closing_words();
  std::fprintf(stderr, "%s\n",
               stopped_line(stats.simulated_time, stats.steps, stop_reason, recorded).c_str());
  std::fflush(stderr);
  return exit_code ? exit_code : 130;
}

}  // namespace tp
