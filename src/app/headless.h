// Running without a window: --headless (simulate, export, report) and --bench.
#pragma once

#include "app/cli.h"

namespace tp {

// Returns the process exit code: 0 on success, 2 on a bad request, 1 on a failed write.
int run_headless(const Options& options);

}  // namespace tp
