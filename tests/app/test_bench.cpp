// --bench matrices and --spacing: the command line's lists and their errors, the tables,
// and real (tiny) matrix runs whose JSON is read back and checked.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/headless/bench.h"
#include "app/cli.h"
#include "app/mode_options.h"
#include "app/start/setup.h"
#include "process.h"

using namespace tp;
using namespace tp::test;

namespace {

// Parses a command line given as one string (words separated by spaces).
bool parse(const std::string& line, Options* options, std::string* error) {
  std::vector<std::string> words = {"tidepool"};
  std::istringstream in(line);
  for (std::string w; in >> w;) words.push_back(w);
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  return parse_command_line(int(argv.size()), argv.data(), options, error);
}

std::string temp_dir(const std::string& name) {
  const std::string dir = testing::TempDir() + "tidepool_bench_" + name;
  run_command("rm -rf '" + dir + "' && mkdir -p '" + dir + "'");
  return dir;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::string source_dir() { return TIDEPOOL_SOURCE_DIR; }

}  // namespace

// ---- the command line ---------------------------------------------------------------------------

TEST(BenchCli, ListsGiveTheCrossProductAndTheirFirstItemsAsSingleValues) {
  Options o;
  std::string error;
  ASSERT_TRUE(parse("--bench --scene dam_break,pool --solver wcsph,pbf --particles 500,1000 "
                    "--backend cpu,cuda --threads 1,2 --steps 5",
                    &o, &error))
      << error;
  EXPECT_EQ(o.scene, "dam_break");
  EXPECT_EQ(o.solver, "wcsph");
  EXPECT_EQ(o.backend, "cpu");
  EXPECT_EQ(o.particles, 500u);
  EXPECT_EQ(o.threads, 1);
  EXPECT_EQ(bench_configurations(o), 32u);
  const std::vector<BenchConfig> m = bench_matrix(o);
  ASSERT_EQ(m.size(), 32u);
  // Scene outermost, then solver, particle count, backend, threads innermost.
  EXPECT_EQ(m[0].scene, "dam_break");
  EXPECT_EQ(m[0].threads, 1);
  EXPECT_EQ(m[1].threads, 2);
  EXPECT_EQ(m[2].backend, "cuda");
  EXPECT_EQ(m[4].particles, 1000u);
  EXPECT_EQ(m[8].solver, "pbf");
  EXPECT_EQ(m[16].scene, "pool");
}

TEST(BenchCli, WithoutListsTheBenchIsOneConfiguration) {
  Options o;
  std::string error;
  ASSERT_TRUE(parse("--bench --solver pcisph --particles 2000", &o, &error)) << error;
  ASSERT_EQ(bench_configurations(o), 1u);
  const std::vector<BenchConfig> m = bench_matrix(o);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].scene, "dam_break");
  EXPECT_EQ(m[0].solver, "pcisph");
  EXPECT_EQ(m[0].backend, "auto");
  EXPECT_EQ(m[0].particles, 2000u);
  EXPECT_EQ(m[0].threads, 0);
}

TEST(BenchCli, SpacingIsAPositiveNumberOfMetresAndCanBeAList) {
  Options o;
  std::string error;
  ASSERT_TRUE(parse("--headless --spacing 0.03125", &o, &error)) << error;
  EXPECT_DOUBLE_EQ(o.spacing, 0.03125);
  EXPECT_EQ(o.particles, 0u);

  Options b;
  ASSERT_TRUE(parse("--bench --spacing 0.02,0.03125 --solver wcsph,pbf", &b, &error)) << error;
  const std::vector<BenchConfig> m = bench_matrix(b);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_DOUBLE_EQ(m[0].spacing, 0.02);
  EXPECT_DOUBLE_EQ(m[1].spacing, 0.03125);
  EXPECT_EQ(m[1].particles, 0u);
}

TEST(BenchCli, BadListsAndSpacingsAreOneLineErrors) {
  struct Case {
    const char* args;
    const char* says;
  } cases[] = {
      {"--spacing 0", "--spacing must be a positive number of metres (e.g. 0.02), not '0'"},
      {"--spacing -0.1", "not '-0.1'"},
      {"--spacing nan", "--spacing must be a positive number"},
      {"--spacing inf", "--spacing must be a positive number"},
      {"--spacing 1e-400", "--spacing must be a positive number"},
      {"--spacing abc", "not 'abc'"},
      {"--spacing", "--spacing needs a value"},
      {"--headless --spacing 0.02 --particles 100", "use --particles or --spacing, not both"},
      {"--headless --solver wcsph,pbf", "--solver takes a comma-separated list only with --bench"},
      {"--spacing 0.02,0.04", "--spacing takes a comma-separated list only with --bench"},
      {"--bench --solver wcsph,,pbf", "--solver has an empty item in 'wcsph,,pbf'"},
      {"--bench --scene dam_break,", "--scene has an empty item"},
      {"--bench --solver wcsph,sph", "--solver must be one of wcsph, pcisph, pbf, dfsph, not 'sph'"},
      {"--bench --backend cpu,gpu", "--backend must be auto, cpu or cuda, not 'gpu'"},
      {"--bench --threads 1,0", "--threads must be a whole number from 1 to 4096, not '0'"},
      {"--bench --particles 1000,x", "--particles must be a whole number from 1 to 1000000000, "
                                     "not 'x'"},
      {"--headless --bench-json out.json", "--bench-json needs --bench"},
      {"--bench --bench-json=", "--bench-json needs a file name or -"},
      {"--bench --solver wcsph,pbf --report r.json",
       "--report is for one run, and this --bench runs 2 configurations"},
      {"--bench --particles 500,1000 --save-state s.tpstate", "--save-state is for one run"},
  };
  for (const Case& c : cases) {
    Options o;
    std::string error;
    EXPECT_FALSE(parse(c.args, &o, &error)) << c.args;
    EXPECT_NE(error.find(c.says), std::string::npos) << c.args << "\n" << error;
  }
}

// --spacing sets the spacing exactly, in the window and headless alike (make_setup), and
// for every scene the panel switches to; the CPU's default particle budget does not apply.
TEST(BenchCli, SpacingIsUsedExactlyAtStartAndAfterASceneSwitch) {
  Options o;
  std::string error;
  ASSERT_TRUE(parse("--backend cpu --spacing 0.05 --scene dam_break", &o, &error)) << error;
  SimSetup setup = make_setup(start_plan(o));
  EXPECT_FLOAT_EQ(setup.sim->spacing(), 0.05f);
  EXPECT_FLOAT_EQ(setup.spacing, 0.05f);
  switch_scene(setup, start_plan(o), "pool");
  EXPECT_FLOAT_EQ(setup.sim->spacing(), 0.05f);
}

// ---- the tables ---------------------------------------------------------------------------------

TEST(BenchTable, SkippedRowsGiveTheirReasonOnceAndPhasesAreTheUnion) {
  BenchRow wcsph;
  wcsph.scene = "pool";
  wcsph.solver = "wcsph";
  wcsph.backend = "cpu";
  wcsph.threads = 2;
  wcsph.particles = 12345;
  wcsph.steps = 10;
  wcsph.wall_seconds = 0.5;  // 50 ms per step
  wcsph.simulated_seconds = 0.01;
  wcsph.stats.phases = {{"grid", 100.0}, {"pressure", 400.0}};
  BenchRow pbf = wcsph;
  pbf.solver = "pbf";
  pbf.iterative = true;
  pbf.stats.mean_iterations = 3.5;
  pbf.stats.phases = {{"grid", 50.0}, {"constraints", 450.0}};
  BenchRow cuda;
  cuda.scene = "pool";
  cuda.solver = "wcsph";
  cuda.backend = "cuda";
  cuda.status = "skipped";
  cuda.reason = "no CUDA-capable device was found";
  BenchRow cuda2 = cuda;
  cuda2.solver = "pbf";
  const std::string table = bench_table({wcsph, cuda, pbf, cuda2});
  EXPECT_NE(table.find("12,345"), std::string::npos) << table;
  EXPECT_NE(table.find("50.0"), std::string::npos) << "ms/step\n" << table;
  EXPECT_NE(table.find("3.50"), std::string::npos) << "PBF's iterations\n" << table;
  EXPECT_NE(table.find("skipped: no CUDA-capable device was found"), std::string::npos) << table;
  EXPECT_EQ(table.find("device", table.find("device") + 1), std::string::npos)
      << "the reason is written once\n" << table;
  EXPECT_NE(table.find("skipped (as row 2)"), std::string::npos) << table;
  // The phase table: every phase of any row, "-" where a row has none.
  const size_t phases = table.find("ms per step by phase");
  ASSERT_NE(phases, std::string::npos) << table;
  const std::string second = table.substr(phases);
  for (const char* name : {"grid", "pressure", "constraints", "sum", "ms/step"})
    EXPECT_NE(second.find(name), std::string::npos) << name << "\n" << second;
  EXPECT_NE(second.find(" - "), std::string::npos) << second;
}

// ---- real runs ----------------------------------------------------------------------------------

// Two solvers x two particle counts on the CPU, 5 steps each: one JSON row per
// configuration with figures that agree with each other, and the same rows in the table.
TEST(Bench, TinyMatrixWritesOneJsonRowPerConfiguration) {
  const std::string dir = temp_dir("matrix");
  const std::string json = dir + "/bench.json";
  const ProcessResult r = run_command(
      tidepool() + " --bench --scene dam_break --solver wcsph,pcisph --particles 400,700 "
                   "--backend cpu --steps 5 --set diffuse=0 --bench-json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = read_json(json);
  EXPECT_EQ(j["tidepool_bench"].get<int>(), 1);
  EXPECT_TRUE(j["complete"].get<bool>());
  EXPECT_FALSE(j["machine"]["cpu"].get<std::string>().empty());
  EXPECT_GE(j["machine"]["cores"].get<int>(), 1);
  EXPECT_EQ(j["settings"]["steps"].get<int>(), 5);
  EXPECT_EQ(j["settings"]["set"]["diffuse"].get<std::string>(), "0");
  const auto& runs = j["runs"];
  ASSERT_EQ(runs.size(), 4u) << j.dump(2);
  const char* solvers[] = {"wcsph", "wcsph", "pcisph", "pcisph"};
  const double requested[] = {400, 700, 400, 700};
  for (size_t k = 0; k < 4; ++k) {
    SCOPED_TRACE(runs[k].dump(2));
    const auto& run = runs[k];
    EXPECT_EQ(run["status"].get<std::string>(), "ok");
    EXPECT_EQ(run["solver"].get<std::string>(), solvers[k]);
    EXPECT_EQ(run["backend"].get<std::string>(), "cpu");
    EXPECT_EQ(run["scene"].get<std::string>(), "dam_break");
    EXPECT_NEAR(run["particles"].get<double>(), requested[k], 0.2 * requested[k]);
    EXPECT_EQ(run["particles_requested"].get<double>(), requested[k]);
    EXPECT_GT(run["boundary_samples"].get<int>(), 0);
    EXPECT_EQ(run["steps"].get<int>(), 5);
    EXPECT_GE(run["threads"].get<int>(), 1);
    const double ms = run["ms_per_step"].get<double>();
    const double dt_ms = run["mean_dt_ms"].get<double>();
    EXPECT_GT(ms, 0.0);
    EXPECT_GT(dt_ms, 0.0);
    EXPECT_NEAR(dt_ms, 1000.0 * run["simulated_s"].get<double>() / 5.0, 1e-9);
    EXPECT_NEAR(ms, 1000.0 * run["wall_s"].get<double>() / 5.0, 1e-9);
    // Wall seconds per simulated second is the ratio of the two per-step times.
    EXPECT_NEAR(run["wall_s_per_simulated_s"].get<double>(), ms / dt_ms, 1e-6 * ms / dt_ms);
    ASSERT_TRUE(run["phases"].is_object());
    for (const char* phase : {"grid", "density", "forces"})
      EXPECT_TRUE(run["phases"].contains(phase)) << phase;
    double sum = 0.0;
    for (const auto& [name, value] : run["phases"].items()) {
      EXPECT_GE(value.get<double>(), 0.0) << name;
      sum += value.get<double>();
    }
    EXPECT_NEAR(run["phases_sum_ms_per_step"].get<double>(), sum, 1e-9);
    EXPECT_LE(sum, ms * 1.05 + 0.05) << "the phases are this run's steps, within its wall time";
    for (const char* key : {"density_error_mean_percent", "density_error_max_percent",
                            "neighbors_per_particle", "boundary_neighbors_per_particle"})
      ASSERT_TRUE(run[key].is_number()) << key;
    if (k < 2)
      EXPECT_TRUE(run["mean_iterations"].is_null()) << "WCSPH does not iterate";
    else
      EXPECT_GE(run["mean_iterations"].get<double>(), 1.0);
  }
  // The table: a header and one line per configuration.
  EXPECT_NE(r.output.find("ms/step"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("wall/sim"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ms per step by phase"), std::string::npos) << r.output;
  for (const char* row : {"\n1  dam_break  wcsph", "\n4  dam_break  pcisph"})
    EXPECT_NE(r.output.find(row), std::string::npos) << row << "\n" << r.output;

  // scripts/plot_bench.py draws it (python3's standard library only).
  if (run_command("python3 --version").exit_code != 0) return;
  const std::string svg = dir + "/bench.svg";
  const ProcessResult plot =
      run_command("python3 " + source_dir() + "/scripts/plot_bench.py " + json + " " + svg);
  ASSERT_EQ(plot.exit_code, 0) << plot.output;
  const ProcessResult check = run_command(
      "python3 -c \"import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); "
      "n = sum(1 for e in r.iter() if e.tag.endswith('polyline')); print('lines', n)\" " + svg);
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("lines 4"), std::string::npos)
      << "two solvers in two panels\n" << check.output;
}

// Without a GPU (or without the CUDA build) a cuda configuration is a skipped row with the
// reason, the others run, and the exit code is 0. --bench-json - puts the JSON alone on
// standard output.
TEST(Bench, CudaIsASkippedRowWithAReasonWithoutAGpu) {
  const ProcessResult r =
      run_command("(" + tidepool() + " --bench --backend cpu,cuda --particles 400 --steps 2 "
                                     "--bench-json - 2>/dev/null)");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output);  // nothing but the JSON
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][0]["status"].get<std::string>(), "ok");
  const auto& cuda = j["runs"][1];
  if (cuda["status"] == "ok") GTEST_SKIP() << "this machine has a usable CUDA device";
  EXPECT_EQ(cuda["status"].get<std::string>(), "skipped");
  EXPECT_EQ(cuda["backend"].get<std::string>(), "cuda");
  EXPECT_FALSE(cuda["reason"].get<std::string>().empty());
  EXPECT_FALSE(cuda.contains("ms_per_step"));
  // The table goes to standard error then, and names the reason.
  const ProcessResult table =
      run_command(tidepool() + " --bench --backend cpu,cuda --particles 400 --steps 2");
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find("skipped: " + cuda["reason"].get<std::string>()), std::string::npos)
      << table.output;
}

// The reference library's dam break at its own spacing: 31^3 particles, and 49^3 at 0.02 m
// (the reference's r = 0.01 run) from the same file.
TEST(Bench, ReferenceDamBreakAtItsSpacingHasExactly29791Particles) {
  const ProcessResult r = run_command(
      "(" + tidepool() + " --bench --scene " + source_dir() +
      "/bench/reference_dam_break.json --spacing 0.03125,0.02 --backend cpu --steps 1 "
      "--set diffuse=0 --bench-json - 2>/dev/null)");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][0]["scene"].get<std::string>(), "reference_dam_break");
  EXPECT_EQ(j["runs"][0]["particles"].get<int>(), 29791);
  EXPECT_DOUBLE_EQ(j["runs"][0]["spacing_m"].get<double>(), 0.03125);
  EXPECT_DOUBLE_EQ(j["runs"][0]["spacing_requested_m"].get<double>(), 0.03125);
  EXPECT_EQ(j["runs"][1]["particles"].get<int>(), 117649);
}

// Every configuration is checked before the first one runs: one that would not fit in
// memory stops the bench at once, naming that configuration, and so does a spacing too
// fine for this machine.
TEST(Bench, AConfigurationThatDoesNotFitIsRefusedBeforeAnyRuns) {
  const ProcessResult r =
      run_command(tidepool() + " --bench --particles 500,900000000 --steps 1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("900000000 particles"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("MB of memory"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("bench 1/"), std::string::npos) << "nothing ran\n" << r.output;

  const ProcessResult fine = run_command(tidepool() + " --headless --spacing 0.0002 --steps 1");
  EXPECT_EQ(fine.exit_code, 2) << fine.output;
  EXPECT_NE(fine.output.find("MB of memory"), std::string::npos) << fine.output;
  EXPECT_EQ(fine.output.find("terminate"), std::string::npos) << fine.output;
}

// Ctrl-C stops the current configuration after its step; the JSON keeps what ran, marked
// incomplete, and the exit code is 130.
TEST(Bench, InterruptedMatrixKeepsTheRowsSoFar) {
  const std::string json = temp_dir("interrupt") + "/bench.json";
  const ProcessResult r = run_command(
      "timeout --preserve-status -s INT 3 " + tidepool() +
      " --bench --solver wcsph,pbf --particles 2000 --steps 1000000 --bench-json " + json);
  EXPECT_EQ(r.exit_code, 130) << r.output;
  const nlohmann::json j = read_json(json);
  EXPECT_FALSE(j["complete"].get<bool>());
  ASSERT_EQ(j["runs"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["runs"][0]["status"].get<std::string>(), "interrupted");
  EXPECT_GT(j["runs"][0]["steps"].get<int>(), 0);
  EXPECT_NE(r.output.find("(interrupted)"), std::string::npos) << r.output;
}
