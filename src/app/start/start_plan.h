// The start plan: how a run starts (backend, scene, quality, the parameter layers, the
// particle count or grid, a state to continue), built from the command line in one place
// (start_plan in src/app/mode_options.h) and taken by every mode: the water's and the
// gas's window, headless runs and the benchmarks. It holds what was asked; setup.h turns it
// into a backend and a running simulation (reading the files, probing the device).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/scene/quality.h"

namespace tp {

// KEY=VALUE pairs in the order given (--set, a scene's params, a preset's).
using ParamSets = std::vector<std::pair<std::string, std::string>>;

// The parameter layers a water run lays over the parameter table's defaults, in this order
// (docs/command-line.md, "The order of the parameters"); each names values and leaves the
// rest as the layers below set them, so the last word wins:
//   1. the parameter table's defaults;
//   2. the quality's preset for the solver that will run (sim/scene/quality.h);
//   3. the scene file's params;
//   4. the --preset file;
//   5. --solver;
//   6. each --set in order.
// The solver that runs is the one these layers name last, else PBF at the realtime quality
// (the defaults' WCSPH at accurate); a scene switch in the window keeps the running one
// (only --set may name another). start_params (setup.h) applies them, once.
struct ParamLayers {
  std::string preset_file;  ///< --preset FILE, "" none; read once by make_setup (SimSetup::preset)
  std::string solver;       ///< --solver NAME, "" none
  ParamSets sets;           ///< --set KEY=VALUE, in order
};

struct StartPlan {
  std::string scene = "dam_break";  ///< name in assets/scenes, or a .json path
  std::string backend = "auto";     ///< auto | cpu | cuda
  /// The backend is the CPU because a replay is exact there, not because --backend said so
  /// (the backend line says which).
  bool replay_on_cpu = false;
  int threads = 0;                  ///< CPU threads (--threads); 0 = all cores
  bool window = true;               ///< the window's start; false for --headless and --bench
  Quality quality = Quality::Realtime;  ///< --quality, else realtime in the window, accurate headless
  ParamLayers layers;
  uint64_t particles = 0;  ///< --particles; 0 = the scene's own spacing (or the CPU's budget)
  double spacing = 0.0;    ///< [m] --spacing; 0 = the scene's (or --particles')
  int cells = 0;           ///< gas scenes: cells along the longest side; 0 = the scene's
  std::string load_state;  ///< --load-state FILE: continue a saved simulation
  std::string replay;      ///< --replay SESSION in the window: the session's start, replayed
  /// The window's --steps-per-frame: that many steps each frame, lockstep (no clock, no
  /// measured particle count); 0 follows the clock.
  int steps_per_frame = 0;
  /// The options given that only water scenes take (--particles, --solver, ...), in the
  /// order a gas scene refuses them (gas_refusal).
  std::vector<std::string> water_options;
};

// The sentence refusing the first water-only option given (plan.water_options) for the gas
// scene plan.scene, "" when there is none.
std::string gas_refusal(const StartPlan& plan);

}  // namespace tp
