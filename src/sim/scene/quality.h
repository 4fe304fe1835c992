// Quality: the time step and iteration settings each solver runs at, as named presets.
//
//   realtime  keeps the wall clock at interactive particle counts: PBF with three
//             constraint iterations and steps of up to a 60 Hz frame (as the FleX demo
//             runs it), PCISPH with steps of up to a frame, WCSPH as accurate (its steps
//             are bounded by its speed of sound, not by a setting). Spray and foam are
//             off on the CPU, where they cost more than the water itself.
//   accurate  each solver's paper-grade settings: the parameter table's defaults, which
//             every physics validation test runs (tests/sim_helpers.h applies this preset
//             by name). It may run slower than real time.
//
// A preset sets only the keys it lists; everything else (viscosity, gravity, the mouse,
// ...) stays as the user or the scene set it. The window applies the preset of its quality
// at start and again when the solver or the quality changes; --set still wins at start.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernels/sim_params.h"
#include "sim/water/simulation.h"

namespace tp {

enum class Quality { Realtime = 0, Accurate = 1 };

const char* quality_name(Quality quality);  ///< "realtime", "accurate"
bool parse_quality(const std::string& name, Quality* quality);

// The solver the realtime quality starts when none is chosen (the window's default):
// PBF, the cheapest for the fidelity it keeps (docs/realtime.md, "Fidelity").
int realtime_solver();

struct QualityPreset {
  std::string name;  ///< "realtime-pbf", "accurate-wcsph", ...
  std::vector<std::pair<std::string, double>> values;  ///< parameter table key, value
};

// The named preset of `quality` for `solver` (SolverKind) on `backend`.
// In 2D (dimensions 2) real time keeps PBF and PCISPH to smaller steps (see quality.cpp).
QualityPreset quality_preset(Quality quality, int solver, BackendKind backend, int dimensions = 3);

// How far the realtime preset of `solver` is from the accurate water, as measured on the
// default dam break at 8,000 particles (bench/realtime_fidelity.cpp; docs/realtime.md,
// "Fidelity"): the RMS deviations of the surge front and of the water's height at the left
// wall from the same solver's accurate run, and the density errors, all fractions.
// measured is false where no figures were taken (2D).
struct QualityFidelity {
  bool measured = false;
  double front = 0.0, height = 0.0, mean_error = 0.0, max_error = 0.0;
};
QualityFidelity realtime_fidelity(int solver, int dimensions = 3);

// Applies quality_preset(quality, params.solver, backend) to `params`.
void apply_quality(SimParams& params, Quality quality, BackendKind backend, int dimensions = 3);

// Whether `params` hold every value of that preset (the panel marks a quality whose
// settings the user has since edited). With `water_only`, the spray's keys (diffuse,
// diffuse_interval) are left out: they change what rides on the water, not the water
// (the panel's fidelity line).
bool matches_quality(const SimParams& params, Quality quality, BackendKind backend, int dimensions = 3,
                     bool water_only = false);

}  // namespace tp
