// From the parsed command line (cli.h) to what each mode takes: the start plan
// (app/start/start_plan.h), the window's options and the water view's, a headless run's
// and a benchmark's. Below the top of src/app nothing reads Options: this is where it is
// turned into what the modes take.
#pragma once

#include <string>
#include <vector>

#include "app/cli.h"
#include "app/headless/bench.h"
#include "app/headless/headless.h"
#include "app/start/start_plan.h"
#include "app/water/water_view_options.h"
#include "app/window/window_options.h"

namespace tp {

// The start: scene, backend and threads, the quality (--quality, else realtime in the
// window, which keeps the clock, and accurate headless, which has no clock to keep), the
// parameter layers, the particle count or grid, a state to continue, and the water-only
// options given (which a gas scene refuses).
StartPlan start_plan(const Options& options);

WindowOptions window_options(const Options& options);

// --color and --render as the water's window takes them, and its other view options;
// false with a one-line message in *error for a mode that has no name.
bool water_view_options(const Options& options, WaterViewOptions* view, std::string* error);

HeadlessOptions headless_options(const Options& options);

// The configurations of a --bench command line, scene outermost, then solver, particle
// count (or spacing), backend and threads. Options without a list count as one item.
std::vector<BenchConfig> bench_matrix(const Options& options);

BenchOptions bench_options(const Options& options);

}  // namespace tp
