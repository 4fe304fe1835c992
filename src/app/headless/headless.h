// Running without a window: --headless (simulate, export, report) and --bench.
#pragma once

#include "app/cli.h"
#include "app/start/setup.h"

namespace tp {

// --headless, or with --bench the benchmark (app/headless/bench.h). Returns the process exit code:
// 0 on success, 2 on a bad request, 1 on a failed write, 130 when interrupted (Ctrl-C).
int run_headless(const Options& options);

// Runs a set-up simulation without a window until --steps or --time (default: one more
// simulated second; with --bench, 300 steps), with --export, --save-state and --report as
// `options` ask. *wall_out is the time spent stepping. Returns the exit code as above;
// 130 after Ctrl-C or SIGTERM, which stop it after the current step.
int run_setup(SimSetup& setup, const Options& options, double* wall_out);

}  // namespace tp
