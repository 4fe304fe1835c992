#include "app/start/setup.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "util/paths.h"
#include "app/start/realtime_count.h"
#include "sim/backend/backend_select.h"
#include "sim/water/memory_need.h"
#include "sim/water/params.h"
#include "sim/io/state_file.h"

namespace tp {

namespace {
constexpr double kDefaultParticlesPerCpuThread = 4000.0;
// 2D: measured, the 2D dam break kept real time in the window at 4,489 particles on 2
// cores (0.99x; 6,400: 0.87x; 20,000: 0.12x): its steps shrink with the spacing faster.
constexpr double kDefaultParticlesPerCpuThread2D = 2250.0;
}  // namespace

int window_sim_threads(const StartPlan& plan) {
  const int all = omp_get_max_threads();  // --threads (capped at the cores) or all cores
  if (plan.threads > 0) return all;
  return std::max(1, all - 1);
}

// The window at the realtime quality, with no size asked for: the count measured for real
// time on this machine (realtime_count.h), never fewer than the rule's. Else 0 (the rule).
static uint64_t measured_start_count(const Scene& scene, const StartPlan& plan,
                                     const SimParams& params, BackendKind backend,
                                     std::string* note, std::optional<Quality> quality = {}) {
  note->clear();
  if (!plan.window || (quality ? *quality : plan.quality) != Quality::Realtime ||
      plan.particles > 0 || plan.spacing > 0.0 || !plan.load_state.empty() || !plan.replay.empty() ||
      plan.steps_per_frame > 0)  // lockstep runs repeat exactly: no measured count
    return 0;
  const RealtimeCount count =
      choose_realtime_count(scene, params, backend,
                            backend == BackendKind::Cpu ? window_sim_threads(plan) : 0,
                            start_particle_count(scene, plan, backend));
  *note = count.note;
  if (!note->empty()) std::fprintf(stderr, "tidepool: %s\n", note->c_str());
  return count.particles;
}

void apply_overrides(const ParamSets& sets, SimParams& params) {
  for (const auto& [key, value] : sets) {
    std::string error;
    if (!set_param_from_text(params, key, value, &error)) throw SetupError("--set " + error);
  }
  // Each value was in range; what remains are conflicts between them (dt_min > dt_max).
  SimParams checked = params;
  const std::vector<std::string> notes = clamp_params(checked);
  if (!notes.empty()) throw SetupError("--set " + notes.front().substr(0, notes.front().find(';')));
}

BackendChoice start_backend(const StartPlan& plan) {
  if (plan.threads > 0) {
    const int cores = omp_get_num_procs();
    if (plan.threads > cores)
      std::fprintf(stderr, "tidepool: --threads %d is more than the %d cores here; using %d\n",
                   plan.threads, cores, cores);
    omp_set_num_threads(std::min(plan.threads, cores));
  }
  BackendRequest request;
  if (!parse_backend_request(plan.backend, &request))
    throw SetupError("--backend must be auto, cpu or cuda, not '" + plan.backend + "'");
  BackendChoice choice = choose_backend(request, cuda_runtime());
  if (!choice.ok) throw SetupError(choice.message);
  if (plan.replay_on_cpu && choice.kind == BackendKind::Cpu)
    choice.describe("CPU (a replay runs on the CPU, where it repeats the session exactly; "
                    "--backend cuda replays it on the GPU)");
  return choice;
}

// The particle window's scenes; a gas scene is refused with what to do instead.
Scene find_water_scene(const std::string& name_or_path) {
  Scene scene;
  try {
    scene = find_scene(name_or_path, scene_dir());
  } catch (const SceneError& e) {
    throw SetupError(e.what());
  }
  if (scene.is_gas)
    throw SetupError("'" + scene.name + "' is a gas scene, not water: open it in the window with --scene " +
                     scene.name + ", or run it with --headless or --bench");
  return scene;
}

namespace {

// Far more particles than `asked` because the bodies need a finer spacing: said, not
// silent (--particles 10 in a scene of small boxes).
void say_body_spacing(const SimSetup& setup, uint64_t asked) {
  if (asked == 0 || setup.spacing != body_spacing_limit(setup.scene) || setup.sim->particle_count() <= asked) return;
  std::fprintf(stderr,
               "tidepool: %llu particles, not the %llu asked: the scene's bodies need a spacing of at most %.4f m "
               "(two across the smallest body)\n",
               static_cast<unsigned long long>(setup.sim->particle_count()), static_cast<unsigned long long>(asked),
               double(setup.spacing));
}

}  // namespace

SimSetup make_setup(const StartPlan& plan) {
  const BackendChoice choice = start_backend(plan);
  SimSetup setup;
  setup.backend_message = choice.message;
  setup.scene = find_water_scene(plan.scene);
  if (!plan.layers.preset_file.empty()) {
    try {
      setup.preset = load_preset_file(plan.layers.preset_file);
    } catch (const PresetError& e) {
      throw SetupError(e.what());
    }
  }
  const SimParams params = start_params(setup.scene, plan.layers, setup.preset ? &*setup.preset : nullptr,
                                        choice.kind, plan.quality);
  try {
    setup.sim = make_simulation(choice.kind);
  } catch (const std::exception& e) {
    throw SetupError(std::string("cannot start the simulation: ") + e.what());
  }
  setup.sim->params() = params;
  setup.spacing = start_spacing(setup.scene, plan, choice.kind);
  if (const uint64_t count = measured_start_count(setup.scene, plan, params, choice.kind, &setup.count_note))
    setup.spacing = spacing_for_count(setup.scene, count);
  reset_particles(setup, 0);
  say_body_spacing(setup, plan.particles);
  if (!plan.load_state.empty()) {
    // The saved run's parameters, then --solver and --set as given.
    load_state(setup, plan.load_state);
    SimParams& loaded = setup.sim->params();
    if (!plan.layers.solver.empty()) parse_solver(plan.layers.solver, &loaded.solver);
    apply_overrides(plan.layers.sets, loaded);
  }
  if (!plan.replay.empty()) start_replay(setup, plan.replay);
  return setup;
}

namespace {

// Layers 3 to 5 (start_plan.h): the scene's params, the --preset file, --solver. Throws
// SetupError.
void apply_layers(const Scene& scene, const ParamLayers& layers, const Preset* preset, SimParams& params) {
  try {
    apply_scene_params(scene, params);
  } catch (const SceneError& e) {
    throw SetupError(e.what());
  }
  if (preset) {
    try {
      apply_preset(*preset, params);
    } catch (const PresetError& e) {
      throw SetupError(e.what());
    }
  }
  if (!layers.solver.empty() && !parse_solver(layers.solver, &params.solver))
    throw SetupError("--solver must be one of " + solver_names_list() + ", not '" + layers.solver + "'");
}

// The solver the layers name last, -1 when none names one. Read, not applied: it picks the
// quality's preset under them. A value that is no solver is left for the layers to refuse
// where they apply it (the errors do not depend on what lies under them: every value is
// checked against its own range, and the one conflict between values, dt_min above
// dt_max, arises only between values the layers name).
int named_solver(const Scene& scene, const ParamLayers& layers, const Preset* preset) {
  int solver = -1;
  const auto read = [&solver](const ParamSets& values) {
    for (const auto& [key, value] : values) {
      SimParams probe = default_params();
      std::string ignored;
      if (key == "solver" && set_param_from_text(probe, key, value, &ignored)) solver = probe.solver;
    }
  };
  read(scene.params);
  if (preset) read(preset->params);
  if (!layers.solver.empty()) parse_solver(layers.solver, &solver);
  read(layers.sets);
  return solver;
}

}  // namespace

SimParams start_params(const Scene& scene, const ParamLayers& layers, const Preset* preset, BackendKind backend,
                       Quality quality, int solver) {
  // Which solver runs decides the quality's preset, so it is found first: the caller's,
  // else the layers', else PBF at the realtime quality when none of them chose one (a
  // preset file is a choice: its solver, or the defaults').
  if (solver < 0) {
    bool chosen = !layers.solver.empty() || preset;
    for (const auto& [key, value] : scene.params) chosen |= key == "solver";
    for (const auto& [key, value] : layers.sets) chosen |= key == "solver";
    const int named = named_solver(scene, layers, preset);
    solver = quality == Quality::Realtime && !chosen ? realtime_solver()
             : named >= 0                            ? named
                                                     : default_params().solver;
  }
  // The layers in their order, once: the defaults, the quality's preset for that solver,
  // the scene, a preset file and --solver; the solver chosen above (a scene switch keeps
  // the running one over the new scene's); then --set, which may still name another.
  SimParams params = default_params();
  params.solver = solver;
  apply_quality(params, quality, backend, scene.dimensions);
  apply_layers(scene, layers, preset, params);
  params.solver = solver;
  apply_overrides(layers.sets, params);
  return params;
}

float start_spacing(const Scene& scene, const StartPlan& plan, BackendKind backend) {
  if (plan.spacing > 0.0) return float(plan.spacing);
  const uint64_t particles = start_particle_count(scene, plan, backend);
  return particles ? spacing_for_count(scene, particles) : scene.spacing;
}

uint64_t start_particle_count(const Scene& scene, const StartPlan& plan, BackendKind backend) {
  if (plan.spacing > 0.0) return 0;
  if (plan.particles > 0 || backend != BackendKind::Cpu) return plan.particles;
  // A scene's spacing is written for a GPU-class machine; on the CPU the default is
  // sized to the cores so that the water moves at a watchable pace (--particles wins).
  const double scene_count = particles_at_own_spacing(scene);
  const double budget =
      (scene.dimensions == 2 ? kDefaultParticlesPerCpuThread2D : kDefaultParticlesPerCpuThread) * omp_get_max_threads();
  return scene_count > budget ? uint64_t(budget) : 0;
}

void switch_scene(SimSetup& setup, const StartPlan& plan, const std::string& name_or_path,
                  std::optional<Quality> quality) {
  const Scene scene = find_water_scene(name_or_path);
  Simulation& sim = *setup.sim;
  // The running solver is the user's choice, not the scene's; so is the quality.
  SimParams params = start_params(scene, plan.layers, setup.preset ? &*setup.preset : nullptr, sim.backend().kind,
                                  quality ? *quality : plan.quality, sim.params().solver);
  float spacing = start_spacing(scene, plan, sim.backend().kind);
  std::string count_note;
  if (const uint64_t count = measured_start_count(scene, plan, params, sim.backend().kind, &count_note, quality))
    spacing = spacing_for_count(scene, count);
  InitialState state;
  try {
    state = build_initial_state(scene, spacing, memory_budget_bytes(sim.backend().kind),
                                diffuse_cap_for(params, sim.backend().kind));
  } catch (const std::exception& e) {
    throw SetupError(e.what());
  }
  // The reset reads the parameters (the particle mass follows the rest density).
  const SimParams old = sim.params();
  sim.params() = params;
  try {
    sim.reset(state);
  } catch (const std::exception& e) {
    sim.params() = old;
    throw SetupError(e.what());
  }
  setup.scene = std::move(scene);
  setup.spacing = spacing;
  setup.count_note = count_note;
  say_body_spacing(setup, plan.particles);
}

void load_state(SimSetup& setup, const std::string& path) {
  std::string scene_name, error;
  if (!load_state_file(*setup.sim, path, &scene_name, &error)) throw SetupError(error);
  setup.spacing = setup.sim->spacing();
  if (scene_name.empty()) return;
  try {
    setup.scene = find_scene(scene_name, scene_dir());
  } catch (const SceneError&) {
    // Not a shipped scene (a file elsewhere): keep the current one for the camera and Reset.
  }
}

void start_replay(SimSetup& setup, const std::string& path) {
  auto session = std::make_shared<SessionContents>();
  int threads = 0;
  std::string scene_name, state_bytes, ignored;
  try {
    *session = read_session(path);
    if (!session_read_start(session->records.front().payload, &threads, nullptr, &scene_name, &state_bytes))
      throw std::runtime_error(path + ": the session's start record is damaged");
    setup.sim->restore(decode_state(state_bytes, path, &ignored));
  } catch (const std::exception& e) {
    throw SetupError(e.what());
  }
  setup.session = std::move(session);
  setup.spacing = setup.sim->spacing();
  if (scene_name.empty()) return;
  try {
    setup.scene = find_scene(scene_name, scene_dir());
  } catch (const SceneError&) {
    // Not a shipped scene: the current one frames the camera.
  }
}

bool save_state(SimSetup& setup, const std::string& path, std::string* error) {
  const std::string dir = scene_dir() + "/";
  std::string scene = setup.scene.source;
  if (scene.compare(0, dir.size(), dir) == 0 && scene.size() > 5 &&
      scene.find('/', dir.size()) == std::string::npos)
    scene = scene.substr(dir.size(), scene.size() - dir.size() - 5);  // "name.json" -> "name"
  return save_state_file(*setup.sim, scene, path, error);
}

void reset_particles(SimSetup& setup, uint64_t particles) {
  const float spacing = particles ? spacing_for_count(setup.scene, particles) : setup.spacing;
  try {
    Simulation& sim = *setup.sim;
    sim.reset(build_initial_state(setup.scene, spacing, memory_budget_bytes(sim.backend().kind),
                                  diffuse_cap_for(sim.params(), sim.backend().kind)));
  } catch (const std::exception& e) {
    throw SetupError(e.what());
  }
  setup.spacing = spacing;
  say_body_spacing(setup, particles);
}

}  // namespace tp
