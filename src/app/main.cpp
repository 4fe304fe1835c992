// tidepool: the command-line entry point. Parses options, then runs the window, the
// headless simulation or the benchmark.
#include <cstdio>
#include <string>

#include "app/cli.h"
#include "app/headless.h"
#include "app/window_app.h"
#include "sim/simulation.h"

int main(int argc, char** argv) {
  tp::Options options;
  std::string error;
  if (!tp::parse_command_line(argc, argv, &options, &error)) {
    std::fprintf(stderr, "tidepool: %s\n\n%s", error.c_str(), tp::usage_text().c_str());
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
  return tp::run_window(options);
}
