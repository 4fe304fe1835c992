// Gas scenes without a window: --headless (steps, --report JSON with the divergence after
// projection, the pressure solver's iterations and residual, the smoke's mass and ms per
// phase; --export DIR writes VTK images) and --bench (steps per second and ms per phase for
// each scene and --cells).
#pragma once

#include <string>
#include <vector>

#include "app/cli.h"
#include "sim/scene/scene.h"

namespace tp {

// The sentence refusing the first option given that only water scenes take (--particles,
// --solver, ...), "" when there is none.
std::string water_option_refusal(const Options& options);

int run_gas_headless(const Options& options, const Scene& scene);
int run_gas_bench(const Options& options, const std::vector<Scene>& scenes);

}  // namespace tp
