// The command line as a user meets it: headless runs, reports, exports, errors.
#include <gtest/gtest.h>

#include <dirent.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "process.h"

using namespace tp::test;

namespace {

std::string temp_dir(const std::string& name) {
  const std::string dir = testing::TempDir() + "tidepool_" + name;
  run_command("rm -rf '" + dir + "' && mkdir -p '" + dir + "'");
  return dir;
}

}  // namespace

TEST(Cli, HeadlessRunsWithoutADisplayAndReports) {
  const ProcessResult r = run_command("env -u DISPLAY " + tidepool() +
                                      " --headless --scene pool --particles 3000 --steps 30 --report -");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const size_t brace = r.output.find('{');
  ASSERT_NE(brace, std::string::npos) << r.output;
  const auto j = nlohmann::json::parse(r.output.substr(brace, r.output.rfind('}') - brace + 1));
  EXPECT_EQ(j["steps"].get<int>(), 30);
  EXPECT_EQ(j["outside_tank"].get<int>(), 0);
  EXPECT_EQ(j["nan_count"].get<int>(), 0);
  EXPECT_NEAR(j["particles"].get<double>(), 3000.0, 600.0);
  EXPECT_TRUE(j["ms_per_phase"].contains("grid"));
  EXPECT_TRUE(j["ms_per_phase"].contains("forces"));
  EXPECT_NE(r.output.find("backend: CPU"), std::string::npos) << "says which backend and why";
}

// The iterative solvers from the command line: the report names the solver that ran and
// its figures are numbers (nlohmann writes a NaN as null, so is_number() catches one).
TEST(Cli, HeadlessIterativeSolversReportTheirName) {
  for (const char* solver : {"pcisph", "pbf"}) {
    SCOPED_TRACE(solver);
    const std::string args = std::string(" --solver ") + solver +
                             " --headless --scene dam_break --particles 2000 --steps 40 --report -";
    const ProcessResult r = run_command(tidepool() + args);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const size_t brace = r.output.find('{');
    ASSERT_NE(brace, std::string::npos) << r.output;
    const auto j = nlohmann::json::parse(r.output.substr(brace, r.output.rfind('}') - brace + 1));
    EXPECT_EQ(j["solver"].get<std::string>(), solver);
    EXPECT_EQ(j["steps"].get<int>(), 40);
    EXPECT_EQ(j["nan_count"].get<int>(), 0);
    EXPECT_EQ(j["outside_tank"].get<int>(), 0);
    for (const char* key :
         {"density_error_mean", "density_error_max", "max_speed", "simulated_time_s"}) {
      ASSERT_TRUE(j[key].is_number()) << key << " is " << j[key].dump();
      EXPECT_TRUE(std::isfinite(j[key].get<double>())) << key;
    }
    EXPECT_GE(j["density_error_mean"].get<double>(), 0.0);
    EXPECT_GT(j["simulated_time_s"].get<double>(), 0.0);
  }
}

TEST(Cli, TimeAndStepsStopWhereAsked) {
  const std::string report = temp_dir("time") + "/r.json";
  const ProcessResult r = run_command(tidepool() + " --headless --scene pool --particles 2000 --time 0.05 --report " + report);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(report);
  const auto j = nlohmann::json::parse(in);
  EXPECT_GE(j["simulated_time_s"].get<double>(), 0.05);
  EXPECT_LT(j["simulated_time_s"].get<double>(), 0.06);
}

TEST(Cli, ExportWritesPlyFramesInIdOrder) {
  const std::string dir = temp_dir("export");
  const ProcessResult r = run_command(tidepool() + " --headless --scene pool --particles 2000 --time 0.1 "
                                      "--export " + dir + " --export-fps 50");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  int frames = 0, partial = 0;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string f = e->d_name;
      if (f.rfind("frame_", 0) == 0 && f.size() > 4 && f.substr(f.size() - 4) == ".ply") ++frames;
      if (f.find(".part") != std::string::npos) ++partial;
    }
    closedir(d);
  }
  EXPECT_EQ(frames, 6) << "t = 0, 0.02, ..., 0.1";
  EXPECT_EQ(partial, 0);
  std::ifstream in(dir + "/frame_00005.ply", std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string bytes = buf.str();
  const size_t end = bytes.find("end_header\n");
  ASSERT_NE(end, std::string::npos);
  const size_t rows = (bytes.size() - end - 11) / 28;
  EXPECT_GT(rows, 1000u);
  for (size_t i = 0; i < rows; ++i) {
    uint32_t id;
    std::memcpy(&id, bytes.data() + end + 11 + i * 28, 4);
    ASSERT_EQ(id, i) << "row " << i;
  }
}

TEST(Cli, BenchPrintsFigures) {
  const ProcessResult r = run_command(tidepool() + " --bench --scene pool --particles 2000 --steps 20");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("particles"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("steps/s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("forces"), std::string::npos) << r.output;
}

TEST(Cli, BenchOfAnIterativeSolverPrintsItsIterations) {
  for (const char* solver : {"pcisph", "pbf"}) {
    const std::string args =
        std::string(" --bench --scene pool --particles 2000 --steps 10 --solver ") + solver;
    const ProcessResult r = run_command(tidepool() + args);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(std::string("solver ") + solver), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("solver iterations: mean"), std::string::npos) << r.output;
  }
  // WCSPH does not iterate: no such line.
  const ProcessResult r =
      run_command(tidepool() + " --bench --scene pool --particles 2000 --steps 10");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("solver iterations"), std::string::npos) << r.output;
}

TEST(Cli, VersionListsCompiledBackends) {
  const ProcessResult r = run_command(tidepool() + " --version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("backends: cpu"), std::string::npos) << r.output;
}

TEST(Cli, HelpListsEveryOption) {
  const ProcessResult r = run_command(tidepool() + " --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option : {"--scene", "--solver", "--backend", "--particles", "--set", "--frames",
                             "--screenshot", "--headless", "--time", "--steps", "--report", "--export",
                             "--export-fps", "--bench", "--version", "--threads", "--render", "--gl-check"})
    EXPECT_NE(r.output.find(option), std::string::npos) << option;
}

TEST(Cli, BadInputIsAOneLineErrorWithExitCode2) {
  struct Case {
    const char* args;
    const char* says;
  } cases[] = {
      {"--frobnicate", "unknown option '--frobnicate'"},
      {"--headless --screenshot x.png", "--screenshot needs a window"},
      {"--headless --steps 5 --set viscosityy=1", "valid keys"},
      {"--headless --steps 5 --set stiffness=1e30", "outside its valid range"},
      {"--headless --steps 5 --set stiffness=nan", "stiffness"},
      {"--headless --steps 5 --scene nosuchscene", "available: "},
      {"--headless --steps 5 --scene /nonexistent/x.json", "cannot be opened"},
      {"--headless --steps 5 --particles 0", "--particles"},
      {"--headless --steps 5 --particles 900000000", "MB of memory"},
      {"--headless --steps 5 --backend gpu", "--backend must be"},
      {"--headless --steps 5 --solver sph", "--solver must be"},
      {"--render water", "--render must be spheres or surface, not 'water'"},
      {"--headless --steps 5 --render surface", "--render needs a window"},
  };
  for (const Case& c : cases) {
    const ProcessResult r = run_command(tidepool() + " " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(r.output.find("terminate"), std::string::npos) << "crashed: " << r.output;
  }
}

TEST(Cli, ForcedCudaWithoutAUsableDeviceIsAnError) {
  const ProcessResult r = run_command(tidepool() + " --headless --steps 5 --backend cuda");
  if (r.exit_code == 0) GTEST_SKIP() << "this machine has a usable CUDA device";
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--backend cuda: "), std::string::npos) << r.output;
}

TEST(Cli, MalformedSceneFileNamesTheKey) {
  const std::string path = temp_dir("scene") + "/bad.json";
  std::ofstream(path) << R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "fluid_blocks": [{"min": [0,0], "max": [1,1,1]}]})";
  const ProcessResult r = run_command(tidepool() + " --headless --steps 5 --scene " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("fluid_blocks[0].min must be an array of 3 numbers"), std::string::npos) << r.output;
}

TEST(Cli, WindowWithoutADisplaySuggestsHeadless) {
  const ProcessResult r = run_command("env -u DISPLAY " + tidepool() + " --frames 1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--headless"), std::string::npos) << r.output;
}

TEST(Cli, TwoHeadlessRunsWriteIdenticalFrames) {
  // Same inputs, fixed step: byte-identical PLY files across processes, and across thread
  // counts too (the counting sort is stable and every reduction is chunked in order).
  const std::string common = " --headless --scene dam_break --particles 3000 --steps 120 "
                             "--set dt_min=0.0006 --set dt_max=0.0006 --export-fps 100 --export ";
  const std::string a = temp_dir("det_a"), b = temp_dir("det_b"), c = temp_dir("det_c");
  ASSERT_EQ(run_command(tidepool() + common + a).exit_code, 0);
  ASSERT_EQ(run_command(tidepool() + common + b).exit_code, 0);
  ASSERT_EQ(run_command(tidepool() + " --threads 1" + common + c).exit_code, 0);
  auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  const std::string last = "/frame_00007.ply";  // t = 0.07 s, the last frame of 0.072 s
  const std::string fa = read(a + last);
  ASSERT_GT(fa.size(), 2000u * 28u) << "no frame " << last;
  EXPECT_TRUE(fa == read(b + last)) << "two identical runs differ";
  EXPECT_TRUE(fa == read(c + last)) << "1 and all threads differ";
  EXPECT_FALSE(fa == read(a + "/frame_00000.ply")) << "the water did not move";
}
