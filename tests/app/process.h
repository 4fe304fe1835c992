// Running the tidepool binary from a test: command line in, exit code and output back.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace tp::test {

struct ProcessResult {
  int exit_code = -1;
  std::string output;  ///< standard output and standard error, interleaved
};

// Runs `command` through the shell with stderr folded into stdout.
inline ProcessResult run_command(const std::string& command) {
  ProcessResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline std::string tidepool() { return TIDEPOOL_BINARY; }

}  // namespace tp::test
