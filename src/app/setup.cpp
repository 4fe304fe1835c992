#include "app/setup.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/paths.h"
#include "sim/backend_select.h"
#include "sim/params.h"

namespace tp {

namespace {
constexpr double kDefaultParticlesPerCpuThread = 4000.0;
}  // namespace

void apply_overrides(const Options& options, SimParams& params) {
  for (const auto& [key, value] : options.sets) {
    std::string error;
    if (!set_param_from_text(params, key, value, &error)) throw SetupError("--set " + error);
  }
  // Each value was in range; what remains are conflicts between them (dt_min > dt_max).
  SimParams checked = params;
  const std::vector<std::string> notes = clamp_params(checked);
  if (!notes.empty()) throw SetupError("--set " + notes.front().substr(0, notes.front().find(';')));
}

SimSetup make_setup(const Options& options) {
  if (options.threads > 0) {
    const int cores = omp_get_num_procs();
    if (options.threads > cores)
      std::fprintf(stderr, "tidepool: --threads %d is more than the %d cores here; using %d\n",
                   options.threads, cores, cores);
    omp_set_num_threads(std::min(options.threads, cores));
  }
  BackendRequest request;
  if (!parse_backend_request(options.backend, &request))
    throw SetupError("--backend must be auto, cpu or cuda, not '" + options.backend + "'");
  const BackendChoice choice = choose_backend(request, cuda_runtime());
  if (!choice.ok) throw SetupError(choice.message);

  SimSetup setup;
  setup.backend_message = choice.message;
  try {
    setup.scene = find_scene(options.scene, scene_dir());
  } catch (const SceneError& e) {
    throw SetupError(e.what());
  }
  try {
    setup.sim = make_simulation(choice.kind);
  } catch (const std::exception& e) {
    throw SetupError(std::string("cannot start the simulation: ") + e.what());
  }
  SimParams& params = setup.sim->params();
  try {
    apply_scene_params(setup.scene, params);
  } catch (const SceneError& e) {
    throw SetupError(e.what());
  }
  apply_overrides(options, params);
  if (!parse_solver(options.solver, &params.solver))
    throw SetupError("--solver must be one of " + solver_names_list() + ", not '" +
                     options.solver + "'");
  setup.spacing = setup.scene.spacing;
  uint64_t particles = options.particles;
  if (particles == 0 && choice.kind == BackendKind::Cpu) {
    // A scene's spacing is written for a GPU-class machine; on the CPU the default is
    // sized to the cores so that the water moves at a watchable pace (--particles wins).
    const double scene_count = fluid_volume(setup.scene) / std::pow(double(setup.scene.spacing), 3);
    const double budget = kDefaultParticlesPerCpuThread * omp_get_max_threads();
    if (scene_count > budget) particles = uint64_t(budget);
  }
  reset_particles(setup, particles);
  return setup;
}

void reset_particles(SimSetup& setup, uint64_t particles) {
  const float spacing = particles ? spacing_for_count(setup.scene, particles) : setup.spacing;
  try {
    setup.sim->reset(build_initial_state(setup.scene, spacing));
  } catch (const std::exception& e) {
    throw SetupError(e.what());
  }
  setup.spacing = spacing;
}

}  // namespace tp
