// Turning the command line into a running simulation: backend choice, scene, particle
// count, parameter overrides. Shared by the window and the headless runner.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "app/cli.h"
#include "sim/scene.h"
#include "sim/simulation.h"

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
};

// Throws SetupError with a sentence for the user.
SimSetup make_setup(const Options& options);

// Rebuilds the particles of `setup.scene` (the Reset button), with about `particles`
// particles (0 = the current spacing). Parameters are kept. Throws SetupError (the old
// state is untouched then).
void reset_particles(SimSetup& setup, uint64_t particles);

// Applies --set overrides after the scene's; throws SetupError naming the key.
void apply_overrides(const Options& options, SimParams& params);

}  // namespace tp
