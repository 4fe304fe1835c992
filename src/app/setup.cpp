#include "app/setup.h"

#include <omp.h>

#include "app/paths.h"
#include "sim/backend_select.h"
#include "sim/params.h"

namespace tp {

void apply_overrides(const Options& options, SimParams& params) {
  for (const auto& [key, value] : options.sets) {
    std::string error;
    if (!set_param_from_text(params, key, value, &error)) throw SetupError("--set " + error);
  }
}

SimSetup make_setup(const Options& options) {
  if (options.threads > 0) omp_set_num_threads(options.threads);
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
  if (options.solver != "wcsph")
    throw SetupError("--solver must be wcsph (the only solver in this version), not '" +
                     options.solver + "'");
  setup.spacing = setup.scene.spacing;
  reset_particles(setup, options.particles);
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
