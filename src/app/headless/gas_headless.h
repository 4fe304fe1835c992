// Gas scenes without a window: --headless (steps, --report JSON with the divergence after
// projection, the pressure solver's iterations and residual, the smoke's mass and ms per
// phase; --export DIR writes VTK images) and --bench (steps per second and ms per phase for
// each scene and --cells).
#pragma once

#include <string>
#include <vector>

#include "app/headless/bench.h"
#include "app/headless/headless.h"
#include "app/start/start_plan.h"
#include "sim/scene/scene.h"

namespace tp {

// --headless on `scene`, a gas scene: the backend, --cells and --set of `plan`, run as
// `run` says. Returns the exit code as run_setup's (headless.h).
int run_gas_headless(const StartPlan& plan, const Scene& scene, const HeadlessOptions& run);
// --bench on gas scenes: each scene at each of bench.cells, --steps steps after 10 to warm up.
int run_gas_bench(const StartPlan& plan, const std::vector<Scene>& scenes, const BenchOptions& bench,
                  const HeadlessOptions& run);

}  // namespace tp
