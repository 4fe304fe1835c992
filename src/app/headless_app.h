// Running without a window: --headless and --bench, water or gas, as the scenes say.
#pragma once

#include "app/cli.h"

namespace tp {

// --headless, or with --bench the benchmark (app/headless/bench.h), for water scenes or
// gas scenes (app/headless/gas_headless.h). Returns the process exit code: 0 on success, 2
// on a bad request, 1 on a failed write, 130 when interrupted (Ctrl-C).
int run_headless(const Options& options);

}  // namespace tp
