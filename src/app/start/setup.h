// Turning the start plan (start_plan.h) into a running water simulation: backend choice,
// scene, particle count, the parameter layers. Shared by the window and the headless runs.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "app/start/start_plan.h"
#include "sim/scene/preset.h"
#include "sim/backend/backend_select.h"
#include "sim/scene/quality.h"
#include "sim/scene/scene.h"
#include "sim/session/session_file.h"
#include "sim/water/simulation.h"

namespace tp {

// A problem with the user's request (bad scene, unusable backend, bad --set): the app
// prints the message and exits with code 2.
class SetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SimSetup {
  std::unique_ptr<Simulation> sim;
  Scene scene;
  std::string backend_message;  ///< "backend: CPU (auto: ...)" — shown in the log and panel
  float spacing = 0.0f;         ///< the particle spacing in use
  std::optional<Preset> preset;  ///< --preset, read once at start (applied to every scene)
  /// How the particle count was chosen when it was measured for real time ("" = the rule).
  std::string count_note;
  /// --replay SESSION in the window: the session read, its start already in `sim`.
  std::shared_ptr<const SessionContents> session;
};

// OpenMP threads for the window's simulation thread: --threads, else all cores but one,
// which the window and the GL driver need (llvmpipe renders on the CPU).
int window_sim_threads(const StartPlan& plan);

// The backend the plan asks for (and --threads applied). Throws SetupError.
BackendChoice start_backend(const StartPlan& plan);

// Throws SetupError with a sentence for the user.
SimSetup make_setup(const StartPlan& plan);

// --replay SESSION in the window: reads the session into setup.session, restores its start
// and takes its scene (for the camera) when it is a shipped one. Throws SetupError.
void start_replay(SimSetup& setup, const std::string& path);

// The parameters a scene starts with: the parameter layers (start_plan.h, in their order)
// over the quality's preset for the solver that will run, with `preset` the --preset file
// read (may be null). The solver is `solver` when >= 0 (a scene switch keeps the running
// one), else the one the layers name last, else PBF at the realtime quality (the defaults'
// WCSPH at accurate). Throws SetupError naming the file or option and the key.
SimParams start_params(const Scene& scene, const ParamLayers& layers, const Preset* preset,
                       BackendKind backend, Quality quality, int solver = -1);

// The fluid particle count a scene starts with on this backend: --particles when given;
// else 0 (the scene's own spacing), except on the CPU backend where a scene with more
// than 4000 particles per thread (2D: 2250) is scaled down to that many. 0 with --spacing.
uint64_t start_particle_count(const Scene& scene, const StartPlan& plan, BackendKind backend);
// The particle spacing a scene starts with on this backend: --spacing when given, else
// the one for start_particle_count, else the scene's own.
float start_spacing(const Scene& scene, const StartPlan& plan, BackendKind backend);

// Replaces the running scene with another (the panel's scene list and scene file field):
// new particles and the scene's start parameters (start_params) with the solver kept as
// it is. `name_or_path` as for --scene. Everything is read and built before the running
// scene is touched: on a SetupError (a bad file, too many particles) it runs on unchanged.
// `quality`: the window's current one (else the plan's).
void switch_scene(SimSetup& setup, const StartPlan& plan, const std::string& name_or_path,
                  std::optional<Quality> quality = std::nullopt);

// Rebuilds the particles of `setup.scene` (the Reset button), with about `particles`
// particles (0 = the current spacing). Parameters are kept. Throws SetupError (the old
// state is untouched then).
void reset_particles(SimSetup& setup, uint64_t particles);

// Replaces the running simulation with a state file's (src/sim/io/state_file.h); the scene it
// names becomes the current one when it is a shipped scene (its camera, Reset), else the
// current scene stays for those. Throws SetupError naming the file; nothing changes then.
void load_state(SimSetup& setup, const std::string& path);
// Saves the running simulation to `path`, naming its scene the way load_state finds it
// again: a shipped scene by name, any other by its file's path. Returns false with a
// sentence.
bool save_state(SimSetup& setup, const std::string& path, std::string* error);

// Applies the --set values `sets` in order; throws SetupError naming the key.
void apply_overrides(const ParamSets& sets, SimParams& params);

}  // namespace tp
