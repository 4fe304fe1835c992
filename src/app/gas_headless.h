// Gas scenes without a window: --headless (steps, --report JSON with the divergence after
// projection, the pressure solver's iterations and residual, the smoke's mass and ms per
// phase; --export DIR writes VTK images) and --bench (steps per second and ms per phase for
// each scene and --cells).
#pragma once

#include <vector>

#include "app/cli.h"
#include "sim/scene.h"

namespace tp {

int run_gas_headless(const Options& options, const Scene& scene);
int run_gas_bench(const Options& options, const std::vector<Scene>& scenes);

}  // namespace tp
