// The command line as a user meets it: headless runs, reports, exports, errors.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <vector>

#include "process.h"

using namespace tp::test;

namespace {

std::string temp_dir(const std::string& name) { return fresh_temp_dir("tidepool_" + name); }

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

// A scene with bodies: beside each frame, bodies_NNNNN.json with the bodies as a scene's
// bodies array gives them (shape, size, density, pose) and the frame's time; the floating
// scene's ball (1,200 kg/m^3, dropped from above the water) is lower in the last frame.
TEST(Cli, ExportWritesTheBodiesBesideEachFrame) {
  const std::string dir = temp_dir("export_bodies");
  const ProcessResult r = run_command(tidepool() + " --headless --scene floating --particles 3000 --time 0.2 "
                                      "--export " + dir + " --export-fps 10");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto read = [&](int frame) {
    char name[32];
    std::snprintf(name, sizeof(name), "/bodies_%05d.json", frame);
    std::ifstream in(dir + name);
    EXPECT_TRUE(in.good()) << dir + name;
    return nlohmann::json::parse(in, nullptr, false);
  };
  const nlohmann::json first = read(0), last = read(2);
  ASSERT_TRUE(first.is_object() && last.is_object());
  EXPECT_FALSE(std::ifstream(dir + "/bodies_00003.json").good()) << "one file per frame, no more";
  ASSERT_EQ(first["bodies"].size(), 4u);
  EXPECT_NEAR(last["time"].get<double>(), 0.2, 0.02);
  const nlohmann::json& box = first["bodies"][0];
  EXPECT_EQ(box["shape"], "box");
  EXPECT_NEAR(box["density"].get<double>(), 300.0, 1e-3);
  ASSERT_EQ(box["size"].size(), 3u);
  ASSERT_EQ(box["orientation"].size(), 4u);
  const nlohmann::json& ball0 = first["bodies"][3];
  const nlohmann::json& ball2 = last["bodies"][3];
  EXPECT_EQ(ball0["shape"], "sphere");
  EXPECT_GT(ball0["radius"].get<double>(), 0.0);
  EXPECT_LT(ball2["position"][1].get<double>(), ball0["position"][1].get<double>() - 0.01) << "the ball fell";
}

TEST(Cli, BenchPrintsFigures) {
  const ProcessResult r = run_command(tidepool() + " --bench --scene pool --particles 2000 --steps 20");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* column : {"particles", "steps", "dt ms", "ms/step", "wall/sim", "rho err %",
                             "nbrs", "iters", "ms per step by phase", "forces"})
    EXPECT_NE(r.output.find(column), std::string::npos) << column << "\n" << r.output;
}

TEST(Cli, BenchOfAnIterativeSolverPrintsItsIterations) {
  // One row each; the last column is the mean iteration count, "-" for WCSPH.
  const ProcessResult r = run_command(
      tidepool() + " --bench --scene pool --particles 2000 --steps 10 --solver wcsph,pcisph,pbf");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::regex row(R"(\n(\d)  pool +(\w+) .* (\S+)(?=\n))");
  std::vector<std::pair<std::string, std::string>> iterations;  // (solver, last column)
  for (std::sregex_iterator m(r.output.begin(), r.output.end(), row), end; m != end; ++m)
    iterations.emplace_back((*m)[2].str(), (*m)[3].str());
  ASSERT_GE(iterations.size(), 3u) << r.output;
  EXPECT_EQ(iterations[0], std::make_pair(std::string("wcsph"), std::string("-")));
  for (size_t k : {1, 2}) {
    EXPECT_NE(iterations[k].second, "-") << iterations[k].first << "\n" << r.output;
    EXPECT_GE(std::atof(iterations[k].second.c_str()), 1.0) << r.output;
  }
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
                             "--export-fps", "--bench", "--version", "--threads", "--render", "--gl-check",
                             "--preset", "--load-state", "--save-state", "--spacing",
                             "--bench-json"})
    EXPECT_NE(r.output.find(option), std::string::npos) << option;
}

TEST(Cli, BadInputIsAOneLineErrorWithExitCode2) {
  struct Case {
    const char* args;
    const char* says;
  } cases[] = {
      {"--frobnicate", "unknown option '--frobnicate'"},
      {"--headless --screenshot x.png", "--screenshot needs a window"},
      {"--headless --video x.mp4", "--video needs a window"},
      {"--video", "--video needs a value"},
      {"--replay x.tpsession --scene pool", "--replay takes everything from the session; --scene cannot be used"},
      {"--replay /nonexistent/x.tpsession", "cannot open the session /nonexistent/x.tpsession"},
      {"--replay /nonexistent/x.tpsession --headless", "cannot open the session /nonexistent/x.tpsession"},
      {"--replay x.tpsession --steps 10", "--steps cannot be used with it"},
      {"--fps 60", "--fps is the frame rate of a replay rendered offline"},
      {"--replay x.tpsession --fps 60", "use it with --replay SESSION --video MP4"},
      {"--replay x.tpsession --video x.mp4 --fps 0", "--fps must be a number from 1 to 240"},
      {"--headless --steps 5 --set viscosityy=1", "valid keys"},
      {"--headless --steps 5 --set stiffness=1e30", "outside its valid range"},
      {"--headless --steps 5 --set stiffness=nan", "stiffness"},
      {"--headless --steps 5 --scene nosuchscene", "available: "},
      {"--headless --steps 5 --scene /nonexistent/x.json", "cannot be opened"},
      {"--headless --steps 5 --particles 0", "--particles"},
      {"--headless --steps 5 --particles 900000000", "MB of memory"},
      {"--headless --steps 5 --backend gpu", "--backend must be"},
      {"--headless --steps 5 --solver sph", "--solver must be"},
      {"--render water", "--render must be spheres, surface or mesh, not 'water'"},
      // Files the run would write at its end, found unwritable at its start.
      {"--video /nonexistent/dir/x.mp4", "tidepool: --video: cannot write '/nonexistent/dir/x.mp4'"},
      {"--replay x.tpsession --video /nonexistent/dir/x.mp4", "tidepool: --video: cannot write"},
      {"--frames 5 --screenshot /nonexistent/dir/x.png", "tidepool: --screenshot: cannot write"},
      {"--headless --steps 5 --render surface", "--render needs a window"},
      // A name the format does not match (a PNG named .jpg, an MP4 named .avi).
      {"--frames 5 --screenshot x.jpg", "--screenshot writes a PNG: name the file .png, not 'x.jpg'"},
      {"--frames 5 --video x.avi", "--video writes an MP4 (H.264): name the file .mp4, not 'x.avi'"},
  };
  for (const Case& c : cases) {
    const ProcessResult r = run_command(tidepool() + " " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(r.output.find("terminate"), std::string::npos) << "crashed: " << r.output;
    // Not the whole usage after it (a hundred lines that scrolled the mistake away).
    EXPECT_EQ(r.output.find("Headless (no window, no OpenGL)"), std::string::npos) << c.args << "\n" << r.output;
  }
  const ProcessResult bad = run_command(tidepool() + " --frobnicate");
  EXPECT_NE(bad.output.find("Run 'tidepool --help' for the options."), std::string::npos) << bad.output;
}

// --particles below what a scene's bodies allow (two spacings across the smallest): more
// particles than asked, and a line that says so and why, not a silent change.
TEST(Cli, FewerParticlesThanTheBodiesAllowAreSaid) {
  const ProcessResult r = run_command(tidepool() + " --headless --scene floating --particles 10 --steps 2 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m, std::regex(R"(tidepool: (\d+) particles, not the 10 asked: the scene's bodies need a spacing of at most ([0-9.]+) m)")))
      << r.output;
  EXPECT_GT(std::stoi(m[1]), 10);
  EXPECT_NE(r.output.find(m[1].str() + " particles, spacing " + m[2].str()), std::string::npos) << r.output;
  // As many as the bodies allow or more: nothing said.
  const ProcessResult enough = run_command(tidepool() + " --headless --scene floating --particles 3000 --steps 2 2>&1");
  EXPECT_EQ(enough.exit_code, 0) << enough.output;
  EXPECT_EQ(enough.output.find("asked: the scene's bodies"), std::string::npos) << enough.output;
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
  const ProcessResult r = run_command("env -u DISPLAY -u WAYLAND_DISPLAY " + tidepool() + " --frames 1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--headless"), std::string::npos) << r.output;
  // At once: not after measuring the machine for a window it cannot open.
  EXPECT_EQ(r.output.find("particles for real time"), std::string::npos) << r.output;
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

// ---- scenes, presets and export progress (issue 6) -----------------------------------------
namespace {

nlohmann::json report_of(const ProcessResult& r) {
  const size_t brace = r.output.find("{\n");
  if (brace == std::string::npos) return nlohmann::json();
  return nlohmann::json::parse(r.output.substr(brace, r.output.rfind('}') - brace + 1));
}

// The shipped scenes, as the binary finds them (its ../share/tidepool/assets/scenes).
std::vector<std::string> shipped_scenes() {
  std::string dir = tidepool();
  dir = dir.substr(0, dir.rfind('/')) + "/../share/tidepool/assets/scenes";
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string f = e->d_name;
      if (f.size() > 5 && f.compare(f.size() - 5, 5, ".json") == 0) names.push_back(f.substr(0, f.size() - 5));
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST(Cli, EveryShippedSceneRunsHeadless) {
  const std::vector<std::string> scenes = shipped_scenes();
  for (const char* name : {"dam_break", "double_dam_break", "drop_into_pool", "fountain",
                           "obstacles", "pool", "water_channel"})
    EXPECT_NE(std::find(scenes.begin(), scenes.end(), name), scenes.end()) << name << " is missing";
  for (const char* name : {"plume", "smoke_obstacles", "ink_box", "cavity"})
    EXPECT_NE(std::find(scenes.begin(), scenes.end(), name), scenes.end()) << name << " is missing";
  for (const std::string& scene : scenes) {
    SCOPED_TRACE(scene);
    const bool gas = scene == "plume" || scene == "smoke_obstacles" || scene == "ink_box" || scene == "cavity";
    if (gas) {  // (tests/app/test_cli_gas.cpp runs them in depth)
      const ProcessResult r = run_command(tidepool() + " --headless --scene " + scene + " --cells 16 --time 0.2 --report -");
      ASSERT_EQ(r.exit_code, 0) << r.output;
      const nlohmann::json j = report_of(r);
      ASSERT_TRUE(j.is_object()) << r.output;
      EXPECT_EQ(j["kind"], "gas");
      EXPECT_GE(j["simulated_time"].get<double>(), 0.2);
      EXPECT_LE(j["run"]["worst_pressure_residual"].get<double>(), 1e-4);
      continue;
    }
    const ProcessResult r = run_command(tidepool() + " --headless --scene " + scene +
                                        " --particles 2000 --time 0.2 --report -");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json j = report_of(r);
    ASSERT_TRUE(j.is_object()) << r.output;
    EXPECT_EQ(j["scene"], scene);
    EXPECT_GE(j["simulated_time_s"].get<double>(), 0.2);
    EXPECT_GT(j["particles"].get<int>(), 0);
    EXPECT_EQ(j["outside_tank"].get<int>(), 0);
    EXPECT_EQ(j["nan_count"].get<int>(), 0);
    // The bodies where the run left them, with a scene's keys.
    ASSERT_TRUE(j["bodies"].is_array()) << r.output;
    for (const auto& b : j["bodies"]) {
      ASSERT_TRUE(b["position"].is_array() && b["position"].size() == 3) << b.dump();
      for (const auto& x : b["position"]) EXPECT_TRUE(x.is_number()) << "finite (a NaN is written as null): " << b.dump();
      EXPECT_TRUE(b["shape"].is_string()) << b.dump();
    }
    if (scene == "floating") {  // three boxes and a ball of 1,200 kg/m^3 let go 0.62 m up
      ASSERT_EQ(j["bodies"].size(), 4u) << r.output;
      EXPECT_EQ(j["bodies"][3]["shape"], "sphere");
      EXPECT_EQ(j["bodies"][3]["density"].get<double>(), 1200.0);
      EXPECT_LT(j["bodies"][3]["position"][1].get<double>(), 0.6) << "the ball has fallen";
      EXPECT_LT(j["bodies"][3]["velocity"][1].get<double>(), 0.0) << "and is falling";
    }
  }
}

TEST(Cli, BadSceneFileExitsWithCode2NamingTheFileAndTheKeyPath) {
  const std::string dir = temp_dir("bad_scenes");
  struct Case {
    const char* text;
    const char* says;  // after "scene file '<path>': "
  } cases[] = {
      {R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "fluid_blocks": [{"min": [0,0,0], "max": [0.5,0.5,0.5]}],
          "emitters": [{"position": [0.5,0.5,0.5], "velocity": [1,0,0], "radius": 0.1, "rate": -5}]})",
       "emitters[0].rate must be a number in [0, 1e+09], not -5"},
      {R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "fluid_blocks": [{"min": [0,0,0], "max": [0.5,0.5,0.5]}],
          "params": {"viscosity": 7}})",
       "params.viscosity is invalid: viscosity: 7 is outside its valid range"},
      {"{\"tank\": {\"min\": [0,0,0],\n \"max\": [1,1,1]]}", "JSON syntax error at line 2, column "},
  };
  int k = 0;
  for (const Case& c : cases) {
    const std::string path = dir + "/bad" + std::to_string(k++) + ".json";
    std::ofstream(path) << c.text;
    const ProcessResult r = run_command(tidepool() + " --headless --steps 5 --scene " + path);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("tidepool: scene file '" + path + "': " + c.says), std::string::npos)
        << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "one line: " << r.output;
  }
}

// --preset sets what the report shows; --solver and --set come after it.
TEST(Cli, PresetSetsTheParametersAndComesBeforeSolverAndSet) {
  const std::string dir = temp_dir("preset");
  const std::string preset = dir + "/pbf.json";
  std::ofstream(preset) << R"({"tidepool_preset": 1, "params": {"solver": "pbf", "pbf_iterations": 3,
                              "viscosity": 0.005}})";
  const std::string run = tidepool() + " --headless --scene dam_break --particles 2000 --steps 10 "
                          "--report - --preset " + preset;
  ProcessResult r = run_command(run);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json j = report_of(r);
  EXPECT_EQ(j["solver"], "pbf");
  EXPECT_DOUBLE_EQ(j["mean_iterations"].get<double>(), 3.0) << "the preset's pbf_iterations";

  r = run_command(run + " --set pbf_iterations=5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  j = report_of(r);
  EXPECT_EQ(j["solver"], "pbf");
  EXPECT_DOUBLE_EQ(j["mean_iterations"].get<double>(), 5.0) << "--set wins over the preset";

  r = run_command(run + " --solver wcsph");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(report_of(r)["solver"], "wcsph") << "--solver wins over the preset";

  r = run_command(run + " --set solver=pcisph");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(report_of(r)["solver"], "pcisph") << "--set solver= is no longer overridden";
}

TEST(Cli, BadPresetExitsWithCode2NamingTheFileAndTheKey) {
  const std::string dir = temp_dir("bad_preset");
  struct Case {
    const char* text;
    const char* says;  // after "preset file '<path>': "
  } cases[] = {
      {R"({"tidepool_preset": 1, "params": {"viscosityy": 0.01}})",
       "params.viscosityy is not a parameter (valid keys: "},
      {R"({"tidepool_preset": 1, "params": {"stiffness": 1e30}})",
       "params.stiffness: 1e+30 is outside its valid range [1000, 1e+07] Pa"},
      {R"({"tidepool_preset": 1, "params": {"solver": 2.5}})",
       "params.solver must be one of wcsph pcisph pbf dfsph (or 0 to 3), not 2.5"},
      {R"({"tidepool_preset": 1, "params": {"viscosity": 0.01,}})", "JSON syntax error at line 1, column "},
      {R"({"params": {}})", "tidepool_preset is missing"},
  };
  int k = 0;
  for (const Case& c : cases) {
    const std::string path = dir + "/bad" + std::to_string(k++) + ".json";
    std::ofstream(path) << c.text;
    const ProcessResult r =
        run_command(tidepool() + " --headless --scene pool --particles 1000 --steps 5 --preset " + path);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("tidepool: preset file '" + path + "': " + c.says), std::string::npos)
        << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "one line: " << r.output;
  }
  const ProcessResult r = run_command(tidepool() + " --headless --steps 5 --preset " + dir + "/none.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("preset file '" + dir + "/none.json' cannot be opened"), std::string::npos)
      << r.output;
}

// --export says how it is going: a line when the first frame is written and then at most
// one a second, "export: frame N (t = T s), X MB in DIR", and a summary at the end; the
// frames are whole PLY files, as many as the summary says.
TEST(Cli, ExportPrintsProgressAndASummary) {
  const std::string dir = temp_dir("export_progress");
  const ProcessResult r = run_command(tidepool() + " --headless --scene pool --particles 2000 "
                                      "--time 0.5 --export-fps 20 --report - --export " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::regex progress(R"(tidepool: export: frame (\d+) \(t = ([0-9.]+) s\), ([0-9.]+) MB in (\S+)\n)");
  int lines = 0, last_frame = -1;
  for (auto it = std::sregex_iterator(r.output.begin(), r.output.end(), progress);
       it != std::sregex_iterator(); ++it, ++lines) {
    const int frame = std::stoi((*it)[1]);
    EXPECT_GT(frame, last_frame);
    EXPECT_NEAR(std::stod((*it)[2]), frame / 20.0, 0.01) << (*it)[0];
    EXPECT_EQ((*it)[4].str(), dir);
    last_frame = frame;
  }
  EXPECT_GE(lines, 1) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.output, m,
      std::regex(R"(tidepool: export: (\d+) frames, ([0-9.]+) MB in (\S+) \(t = 0.00 to ([0-9.]+) s, 20 frames per simulated second\))")))
      << r.output;
  const int frames = std::stoi(m[1]);
  EXPECT_EQ(frames, 11) << "t = 0, 0.05, ..., 0.5";
  EXPECT_EQ(m[3].str(), dir);
  EXPECT_NEAR(std::stod(m[4]), 0.5, 0.01);
  const uint64_t particles = report_of(r)["particles"].get<uint64_t>();
  uint64_t bytes = 0;
  for (int k = 0; k < frames; ++k) {
    char name[32];
    std::snprintf(name, sizeof(name), "/frame_%05d.ply", k);
    const std::string ply = read_file(dir + name);
    const size_t end = ply.find("end_header\n");
    ASSERT_NE(end, std::string::npos) << name;
    EXPECT_NE(ply.find("element vertex " + std::to_string(particles) + "\n"), std::string::npos) << name;
    EXPECT_EQ(ply.size(), end + 11 + particles * 28) << name << " is complete";
    bytes += ply.size();
  }
  EXPECT_NEAR(std::stod(m[2]), double(bytes) / 1e6, 0.051);
}

// A state saved by one headless run and loaded by another continues exactly: the obstacles
// scene (inlet, outlet, ball, box) run to 0.3 s, saved, loaded and run on to 0.6 s ends in
// the same state file, byte for byte, as one run straight to 0.6 s. A damaged state file
// is refused with exit code 2 naming it.
TEST(Cli, SaveStateThenLoadStateContinuesExactly) {
  const std::string dir = temp_dir("state");
  const std::string common = tidepool() + " --headless --scene obstacles --particles 1500 --solver pbf";
  const ProcessResult first = run_command(common + " --time 0.3 --save-state " + dir + "/a.tpstate");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("saved state at t = 0.3"), std::string::npos) << first.output;
  const ProcessResult second =
      run_command(common + " --load-state " + dir + "/a.tpstate --time 0.6 --save-state " + dir + "/b.tpstate");
  ASSERT_EQ(second.exit_code, 0) << second.output;
  const ProcessResult straight = run_command(common + " --time 0.6 --save-state " + dir + "/c.tpstate");
  ASSERT_EQ(straight.exit_code, 0) << straight.output;
  const std::string b = read_file(dir + "/b.tpstate"), c = read_file(dir + "/c.tpstate");
  ASSERT_GT(c.size(), 1500u * 40u);
  EXPECT_TRUE(b == c) << "the loaded run ended elsewhere than the straight one";
  EXPECT_FALSE(read_file(dir + "/a.tpstate") == c) << "the water did not move";

  std::ofstream(dir + "/bad.tpstate") << "TIDEPOOL STATE 1\n garbage";
  const ProcessResult bad = run_command(common + " --load-state " + dir + "/bad.tpstate --time 0.1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("state file '" + dir + "/bad.tpstate'"), std::string::npos) << bad.output;
}

// Every way of asking for more than the memory holds is refused before the run, with exit
// code 2 and the memory it would need (TIDEPOOL_MEMORY_MB stands for a small machine). (A
// scene's own spacing: MemoryNeed.ASpacingTooFineIsRefusedWithTheMemoryItWouldNeed.)
TEST(Cli, WhatDoesNotFitInMemoryIsRefusedUpFront) {
  const std::string dir = temp_dir("memory");
  const std::string state = dir + "/big.tpstate";
  ASSERT_EQ(run_command(tidepool() + " --headless --scene pool --particles 60000 --steps 1 "
                                     "--save-state " + state).exit_code, 0);
  struct Case {
    std::string args, says;
  } cases[] = {
      {"--particles 200000", "but only 40 MB is free; use fewer particles"},
      {"--spacing 0.01", "about 1,000,000 particles at spacing 0.01 m"},
      {"--particles 2000 --set diffuse_cap=4000000",
       "with room for 4,000,000 spray, foam and bubble particles"},
      {"--load-state " + state, "state file '" + state + "': 59,"},
  };
  for (const Case& c : cases) {
    const ProcessResult r = run_command("TIDEPOOL_MEMORY_MB=40 " + tidepool() +
                                        " --headless --steps 1 " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find("MB of memory"), std::string::npos) << c.args << "\n" << r.output;
  }
}
