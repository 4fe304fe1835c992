// Running the tidepool binary from a test: command line in, exit code and output back.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
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

// An empty directory testing::TempDir() + `name`, made afresh.
inline std::string fresh_temp_dir(const std::string& name) {
  const std::string dir = testing::TempDir() + name;
  run_command("rm -rf '" + dir + "' && mkdir -p '" + dir + "'");
  return dir;
}

// A prefix that makes a command obey file permissions even when the tests run as root
// (who writes anywhere): setpriv without CAP_DAC_OVERRIDE; "" for other users. Returns
// false when running as root without setpriv (util-linux).
inline bool permission_obeying_launcher(std::string* launcher) {
  *launcher = "";
  if (geteuid() != 0) return true;
  *launcher = "setpriv --bounding-set -dac_override ";
  return run_command(*launcher + "true").exit_code == 0;
}

// A whole file's bytes ("" when it cannot be read).
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace tp::test
