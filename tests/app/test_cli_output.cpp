// Output is never half-written: a headless export stopped by Ctrl-C or SIGTERM, a disk
// that fills up (the writer's fault-injection seam, TIDEPOOL_TEST_DISK_FULL_AFTER) and a
// directory that cannot be written leave only complete files and say so in one line.
#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "process.h"

using namespace tp::test;

namespace {

std::string temp_dir(const std::string& name) { return fresh_temp_dir("tidepool_output_" + name); }

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

// `output` holds `line` as a whole line.
void expect_line(const std::string& output, const std::string& line) {
  EXPECT_NE(("\n" + output).find("\n" + line + "\n"), std::string::npos)
      << "no line '" << line << "' in:\n"
      << output;
}

// The last line says that the run stopped and `why`, and that `frames` frames in `dir`
// are complete.
void expect_stopped(const std::string& output, const std::string& why, int frames,
                    const std::string& dir) {
  const size_t end = output.find_last_not_of('\n');
  const size_t start = end == std::string::npos ? 0 : output.rfind('\n', end) + 1;
  const std::string last = end == std::string::npos ? "" : output.substr(start, end + 1 - start);
  EXPECT_EQ(last.rfind("tidepool: stopped at t = ", 0), 0u) << output;
  EXPECT_NE(last.find(" (" + why), std::string::npos) << last;
  EXPECT_NE(last.find("; " + std::to_string(frames) + " complete frames in " + dir +
                      "; every file written is complete"),
            std::string::npos)
      << last;
}

// Every file in `dir` is a complete frame, frame_00000.ply to frame_<n-1>.ply and nothing
// else (no temporary file); returns n.
int expect_only_complete_frames(const std::string& dir) {
  const std::vector<std::string> names = files_in(dir);
  for (const std::string& name : names) {
    EXPECT_TRUE(name.rfind("frame_", 0) == 0 && name.size() == 15 &&
                name.compare(11, 4, ".ply") == 0)
        << "left in the export directory: " << name;
  }
  for (size_t k = 0; k < names.size(); ++k) {
    char name[32];
    std::snprintf(name, sizeof(name), "frame_%05zu.ply", k);
    const std::string ply = read_file(dir + "/" + name);
    const size_t end = ply.find("end_header\n");
    const size_t count_at = ply.find("element vertex ");
    EXPECT_TRUE(end != std::string::npos && count_at != std::string::npos)
        << name << " missing or cut";
    if (end == std::string::npos || count_at == std::string::npos) continue;
    const uint64_t particles = std::stoull(ply.substr(count_at + 15));
    EXPECT_EQ(ply.size(), end + 11 + particles * 28) << name << " is not complete";
  }
  return int(names.size());
}

// Starts `command` (a shell command line that execs the program, its output to `log`);
// returns the process id.
pid_t start(const std::string& command, const std::string& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string line = "exec " + command + " > '" + log + "' 2>&1";
    execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

int exit_code_of(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

// A real headless export, stopped by each signal while it writes frames: exit code 130,
// only whole frames in the directory, a complete report and state, and a last line that
// says it stopped, why, and how many frames are there.
TEST(CliOutput, StoppingAnExportBySignalLeavesOnlyCompleteFilesAndSaysSo) {
  for (int signal : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(strsignal(signal));
    const std::string dir = temp_dir(std::string("signal_") + std::to_string(signal));
    const std::string frames = dir + "/frames", log = dir + "/log";
    // Many frames, one every step or two, so that the signal is likely to land mid-write.
    const pid_t pid =
        start(tidepool() +
                  " --headless --scene pool --particles 4000 --time 1000 "
                  "--export-fps 1000 --export " +
                  frames + " --report " + dir + "/report.json --save-state " + dir + "/run.tpstate",
              log);
    ASSERT_GT(pid, 0);
    // Until a few frames are out (the bound only stops a test whose program hangs).
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    while (!exists(frames + "/frame_00004.ply") && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_TRUE(exists(frames + "/frame_00004.ply")) << read_file(log);
    ASSERT_EQ(kill(pid, signal), 0);
    EXPECT_EQ(exit_code_of(pid), 130);
    const std::string output = read_file(log);
    const int written = expect_only_complete_frames(frames);
    EXPECT_GE(written, 5);
    expect_stopped(output, signal == SIGTERM ? "SIGTERM)" : "Ctrl-C (SIGINT))", written, frames);
    EXPECT_NO_THROW(nlohmann::json::parse(read_file(dir + "/report.json")));
    EXPECT_EQ(read_file(dir + "/run.tpstate").rfind("TIDEPOOL STATE 1\n", 0), 0u);
    for (const std::string& name : files_in(dir))
      EXPECT_EQ(name.find(".part"), std::string::npos) << name;
  }
}

// The disk fills up in the middle of the third frame: a one-line error naming the file and
// the reason, exit code 1, the two frames before it whole, nothing of the third.
TEST(CliOutput, AFullDiskDuringAnExportIsAClearErrorAndLeavesOnlyCompleteFrames) {
  const std::string dir = temp_dir("full_disk");
  const std::string frames = dir + "/frames";
  // One frame of the pool at 2,000 particles is about 56 kB.
  const ProcessResult r = run_command(
      "TIDEPOOL_TEST_DISK_FULL_AFTER=140000 " + tidepool() +
      " --headless --scene pool --particles 2000 --time 0.5 --export-fps 20 --export " + frames);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  expect_line(r.output, "tidepool: --export: cannot write '" + frames +
                            "/frame_00002.ply': No space left on device");
  EXPECT_EQ(expect_only_complete_frames(frames), 2);
  expect_stopped(r.output, "the export failed: cannot write", 2, frames);
}

// The report and the state at the end of a run: refused whole, the error on one line.
TEST(CliOutput, AFullDiskAtTheEndLeavesNoReportOrStateFile) {
  const std::string dir = temp_dir("full_disk_end");
  const ProcessResult r =
      run_command("TIDEPOOL_TEST_DISK_FULL_AFTER=100 " + tidepool() +
                  " --headless --scene pool --particles 1000 --steps 3 --report " + dir +
                  "/report.json --save-state " + dir + "/run.tpstate");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  expect_line(r.output, "tidepool: --save-state: cannot write '" + dir +
                            "/run.tpstate': No space left on device");
  expect_line(r.output, "tidepool: --report: cannot write '" + dir +
                            "/report.json': No space left on device");
  EXPECT_EQ(files_in(dir), std::vector<std::string>{}) << "a partial or temporary file is left";
}

// A directory that cannot be written is refused before the run, with exit code 2.
TEST(CliOutput, AnExportDirectoryThatCannotBeWrittenIsRefusedBeforeTheRun) {
  const std::string dir = temp_dir("unwritable");
  // A path through a regular file.
  run_command("touch '" + dir + "/file'");
  ProcessResult r = run_command(tidepool() +
                                " --headless --scene pool --particles 1000 "
                                "--steps 3 --export " +
                                dir + "/file/frames");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  expect_line(r.output, "tidepool: --export: cannot create directory '" + dir +
                            "/file/frames': Not a directory");
  // A directory without write permission.
  const std::string read_only = dir + "/read_only";
  run_command("mkdir '" + read_only + "' && chmod 0555 '" + read_only + "'");
  std::string launcher;
  if (!permission_obeying_launcher(&launcher))
    GTEST_SKIP() << "running as root without setpriv (util-linux): cannot make a directory "
                    "read-only for the program";
  ASSERT_NE(run_command(launcher + "touch '" + read_only + "/probe'").exit_code, 0)
      << "the directory is writable: this test could not see a failure";
  r = run_command(launcher + tidepool() +
                  " --headless --scene pool --particles 1000 --steps 3 "
                  "--export " +
                  read_only);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  expect_line(r.output, "tidepool: --export: cannot write '" + read_only +
                            "/frame_00000.ply': Permission denied");
  EXPECT_EQ(files_in(read_only), std::vector<std::string>{});
}
