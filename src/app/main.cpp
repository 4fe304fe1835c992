// tidepool: the command-line entry point. Parses options, then runs the window, the
// headless simulation or the benchmark.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "app/cli.h"
#include "app/headless_app.h"
#include "app/window_app.h"
#include "util/heap_trim.h"
#include "sim/water/simulation.h"

namespace {

// The window shares the cores with the GL driver (llvmpipe renders on the CPU) and the
// rest of the desktop. OpenMP's default busy-waiting at the end of each parallel region
// then costs a scheduler time slice per region, and a step that takes 13 ms alone takes
// 150. Passive waiting avoids that; libgomp reads the policy from the environment when it
// loads, before main, so the window re-executes itself once with it set. A user's own
// OMP_WAIT_POLICY is respected; headless runs and benchmarks keep the faster default.
void prefer_passive_openmp_waits(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv);  // returns only on failure: then run as we are
}

int run(int argc, char** argv) {
  tp::Options options;
  std::string error;
  if (!tp::parse_command_line(argc, argv, &options, &error)) {
    // The mistake and where to look, not the whole usage: 100 lines of it scrolled the one
    // line that matters off a terminal.
    std::fprintf(stderr, "tidepool: %s\nRun 'tidepool --help' for the options.\n", error.c_str());
    return 2;
  }
  if (options.help) {
    std::fputs(tp::usage_text().c_str(), stdout);
    return 0;
  }
  if (options.version) {
    std::string backends;
    for (const std::string& b : tp::compiled_backends()) backends += (backends.empty() ? "" : ", ") + b;
    std::printf("tidepool %s\nbackends: %s\n", TIDEPOOL_VERSION, backends.c_str());
    return 0;
  }
  if (options.headless || options.bench) return tp::run_headless(options);
  prefer_passive_openmp_waits(argv);
  // An interactive run of hours, whose threads and scenes come and go: malloc's thresholds
  // held where they start, so that freed memory goes back (util/heap_trim.h).
  tp::fix_malloc_thresholds();
  return tp::run_window(options);
}

}  // namespace

int main(int argc, char** argv) {
  // Errors the program expects are values with their own messages; this catches what is
  // left (a CUDA error mid-run, memory exhausted) so that it is a sentence, not an abort.
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tidepool: error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "tidepool: error: an unknown exception stopped the program\n");
  }
  return 1;
}
