// Switching scenes as the panel does it (a bad file leaves the running scene alone), the
// order in which parameters are applied at start, the frame recorder's files, and the
// panel's water depth and flow counts. No window.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>

#include "app/mode_options.h"
#include "sim/io/frame_recorder.h"
#include "app/water/panel.h"
#include "sim/scene/preset.h"
#include "app/start/realtime_count.h"
#include "app/start/setup.h"
#include "sim/water/params.h"

using namespace tp;

namespace {

std::string temp_dir(const std::string& name) {
  const std::string dir = testing::TempDir() + "tidepool_switch_" + name;
  const std::string command = "rm -rf '" + dir + "' && mkdir -p '" + dir + "'";
  EXPECT_EQ(std::system(command.c_str()), 0);
  return dir;
}

std::string write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}


// A small tank with one block of water; `extra` adds keys (params, ...).
std::string scene_file(const std::string& path, const char* block_max, const std::string& extra = "") {
  return write(path, std::string(R"({ "tank": { "min": [0, 0, 0], "max": [1, 1, 0.5] },
    "particle_spacing": 0.05,
    "fluid_blocks": [ { "min": [0, 0, 0], "max": )") + block_max + " } ]" +
                         (extra.empty() ? "" : ", " + extra) + " }");
}

Options cpu_options(const std::string& scene) {
  Options o;
  o.scene = scene;
  o.backend = "cpu";
  return o;
}

}  // namespace

TEST(SceneSwitch, ABadFileLeavesTheRunningSceneAsItWas) {
  const std::string dir = temp_dir("bad");
  const Options options = cpu_options(scene_file(dir + "/a.json", "[0.5, 0.5, 0.5]"));
  SimSetup setup = make_setup(start_plan(options));
  setup.sim->params().viscosity = 0.03f;  // a panel edit
  for (int k = 0; k < 5; ++k) setup.sim->step();
  const uint count = setup.sim->particle_count();
  const double time = setup.sim->stats().simulated_time;

  const std::string bad = write(dir + "/bad.json", R"({ "tank": { "min": [0, 0, 0], "max": [1, 1, 1] },
    "fluid_blocks": [ { "min": [0, 0, 0], "max": [0.5, 0.5] } ] })");
  try {
    switch_scene(setup, start_plan(options), bad);
    ADD_FAILURE() << "a bad scene file was loaded";
  } catch (const SetupError& e) {
    EXPECT_EQ(std::string(e.what()),
              "scene file '" + bad + "': fluid_blocks[0].max must be an array of 3 numbers, not an "
              "array of 2 elements");
  }
  EXPECT_THROW(switch_scene(setup, start_plan(options), dir + "/nothing.json"), SetupError);
  EXPECT_EQ(setup.scene.source, options.scene);
  EXPECT_EQ(setup.sim->particle_count(), count);
  EXPECT_EQ(setup.sim->stats().simulated_time, time) << "no reset";
  EXPECT_EQ(setup.sim->params().viscosity, 0.03f) << "the parameters are untouched";
  setup.sim->step();  // and it runs on
  EXPECT_GT(setup.sim->stats().simulated_time, time);
}

TEST(SceneSwitch, TheNewScenesParamsReplaceThePhysicsAndTheSolverStays) {
  const std::string dir = temp_dir("good");
  Options options = cpu_options(scene_file(dir + "/a.json", "[0.5, 0.5, 0.5]"));
  options.sets = {{"stiffness", "60000"}};
  SimSetup setup = make_setup(start_plan(options));
  setup.sim->params().solver = int(SolverKind::Pbf);  // the user's pick
  setup.sim->params().viscosity = 0.03f;               // a panel edit
  for (int k = 0; k < 5; ++k) setup.sim->step();
  const uint before = setup.sim->particle_count();

  const std::string b =
      scene_file(dir + "/b.json", "[1, 0.3, 0.5]",
                 R"("params": { "viscosity": 0.02, "solver": "pcisph", "dt_max": 0.004 },
                    "camera": { "distance": 2.5 })");
  switch_scene(setup, start_plan(options), b);
  EXPECT_EQ(setup.scene.source, b);
  EXPECT_EQ(setup.scene.camera.distance, 2.5f);
  EXPECT_NE(setup.sim->particle_count(), before);
  EXPECT_EQ(setup.sim->stats().simulated_time, 0.0) << "a fresh start";
  const SimParams& p = setup.sim->params();
  EXPECT_EQ(p.viscosity, 0.02f) << "the scene's value replaces the panel's";
  EXPECT_EQ(p.dt_max, 0.004f);
  EXPECT_EQ(p.stiffness, 60000.0f) << "--set applies to every scene";
  EXPECT_EQ(p.solver, int(SolverKind::Pbf)) << "the solver is the user's choice";
  EXPECT_EQ(p.rest_density, default_params().rest_density);
}

TEST(StartParams, TheWindowStartsRealtimePbfAndHeadlessRunsAccurate) {
  const std::string dir = temp_dir("quality");
  Options options = cpu_options(scene_file(dir + "/a.json", "[0.5, 0.5, 0.5]"));
  options.particles = 500;  // no measurement: this is about the parameters
  const SimParams window = make_setup(start_plan(options)).sim->params();
  EXPECT_EQ(window.solver, int(SolverKind::Pbf)) << "realtime picks PBF when nothing chose one";
  EXPECT_TRUE(matches_quality(window, Quality::Realtime, BackendKind::Cpu));
  EXPECT_EQ(window.pbf_iterations, 3);

  Options headless = options;
  headless.headless = true;
  const SimParams accurate = make_setup(start_plan(headless)).sim->params();
  EXPECT_EQ(accurate.solver, int(SolverKind::Wcsph)) << "headless: today's defaults";
  EXPECT_TRUE(matches_quality(accurate, Quality::Accurate, BackendKind::Cpu));

  Options asked = options;
  asked.quality = "accurate";
  EXPECT_EQ(make_setup(start_plan(asked)).sim->params().solver, int(SolverKind::Wcsph));
  asked.quality = "realtime";
  asked.headless = true;
  asked.solver = "pcisph";
  const SimParams pcisph = make_setup(start_plan(asked)).sim->params();
  EXPECT_EQ(pcisph.solver, int(SolverKind::Pcisph)) << "--solver wins over the quality's pick";
  EXPECT_TRUE(matches_quality(pcisph, Quality::Realtime, BackendKind::Cpu));

  // A scene's own values and --set go over the quality's.
  Options scene = cpu_options(
      scene_file(dir + "/b.json", "[0.5, 0.5, 0.5]", R"("params": { "dt_max": 0.004 })"));
  scene.particles = 500;
  scene.sets = {{"pbf_iterations", "5"}};
  const SimParams layered = make_setup(start_plan(scene)).sim->params();
  EXPECT_EQ(layered.dt_max, 0.004f);
  EXPECT_EQ(layered.pbf_iterations, 5);
  EXPECT_EQ(layered.cfl, 1.0f) << "the rest of realtime-pbf";

  // A scene switch at the window's quality, for the running solver.
  SimSetup setup = make_setup(start_plan(options));
  setup.sim->params().solver = int(SolverKind::Wcsph);
  switch_scene(setup, start_plan(options), dir + "/a.json", Quality::Accurate);
  EXPECT_EQ(setup.sim->params().solver, int(SolverKind::Wcsph));
  EXPECT_TRUE(matches_quality(setup.sim->params(), Quality::Accurate, BackendKind::Cpu));
}

TEST(RealtimeCount, ScalesAsTheCostOfASimulatedSecond) {
  EXPECT_EQ(scale_count(8000, 4.0, 4.0), 8000u);
  // Twice the budget: 2^(3/4) times the particles (cost ~ count^(4/3)).
  EXPECT_NEAR(double(scale_count(8000, 2.0, 4.0)), 8000.0 * std::pow(2.0, 0.75), 1.0);
  EXPECT_NEAR(double(scale_count(8000, 8.0, 4.0)), 8000.0 * std::pow(0.5, 0.75), 1.0);
  EXPECT_EQ(scale_count(1000, 0.001, 4.0), 8000u) << "at most 8x from one measurement";
  EXPECT_EQ(scale_count(1000, 0.0, 4.0), 0u) << "nothing measured";
  EXPECT_EQ(scale_count(1000, NAN, 4.0), 0u);
  // The panel's advice: the count at which a slow solver would keep real time.
  EXPECT_EQ(realtime_particle_suggestion(1.0, 8000), 0u);
  EXPECT_EQ(realtime_particle_suggestion(0.0, 8000), 0u);
  const uint64_t n = realtime_particle_suggestion(0.1, 8000);
  EXPECT_EQ(n % 100, 0u);
  EXPECT_NEAR(double(n), 0.9 * 8000 * std::pow(0.1, 0.75), 100.0);
}

TEST(RealtimeCount, AMeasuredCountIsNeverBelowTheRulesAndSaysWhy) {
  const std::string dir = temp_dir("count");
  const Scene scene = find_scene(scene_file(dir + "/a.json", "[0.5, 0.5, 0.5]"), dir);
  SimParams params = default_params();
  params.solver = int(SolverKind::Pbf);
  apply_quality(params, Quality::Realtime, BackendKind::Cpu);
  const RealtimeCount count = choose_realtime_count(scene, params, BackendKind::Cpu, 1, 3000);
  EXPECT_TRUE(count.particles == 0 || count.particles > 3000u) << "0: the rule's 3,000";
  EXPECT_NE(count.note.find("particles for real time"), std::string::npos) << count.note;
  // A scene of emitters alone has nothing to size.
  Scene empty = scene;
  empty.blocks.clear();
  empty.spheres.clear();
  EXPECT_EQ(choose_realtime_count(empty, params, BackendKind::Cpu, 1, 0).particles, 0u);
}

TEST(StartParams, SceneThenPresetThenSolverThenSet) {
  const std::string dir = temp_dir("order");
  Options options = cpu_options(scene_file(
      dir + "/a.json", "[0.5, 0.5, 0.5]",
      R"("params": { "viscosity": 0.02, "alpha": 0.05, "cfl": 0.3 })"));
  const std::string preset = write(dir + "/p.json", R"({"tidepool_preset": 1, "params":
      {"viscosity": 0.03, "stiffness": 100000, "solver": "pbf"}})");
  options.preset = preset;
  SimSetup setup = make_setup(start_plan(options));
  const SimParams& p = setup.sim->params();
  EXPECT_EQ(p.alpha, 0.05f) << "the scene's";
  EXPECT_EQ(p.viscosity, 0.03f) << "the preset's over the scene's";
  EXPECT_EQ(p.stiffness, 100000.0f) << "the preset's";
  EXPECT_EQ(p.solver, int(SolverKind::Pbf)) << "the preset's, without --solver";

  options.solver = "pcisph";
  options.sets = {{"stiffness", "200000"}, {"cfl", "0.5"}};
  setup = make_setup(start_plan(options));
  EXPECT_EQ(setup.sim->params().solver, int(SolverKind::Pcisph)) << "--solver over the preset";
  EXPECT_EQ(setup.sim->params().stiffness, 200000.0f) << "--set over the preset";
  EXPECT_EQ(setup.sim->params().cfl, 0.5f) << "--set over the scene";

  options.preset = write(dir + "/bad.json", R"({"tidepool_preset": 1, "params": {"cfl": 7}})");
  try {
    make_setup(start_plan(options));
    ADD_FAILURE() << "a bad preset was accepted";
  } catch (const SetupError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("preset file '" + options.preset + "': params.cfl: 7", 0),
              0u)
        << e.what();
  }
}

TEST(FrameRecorder, NamesFramesForParaViewAndCountsBytes) {
  EXPECT_EQ(frame_file_name("out", 0), "out/frame_00000.ply");
  EXPECT_EQ(frame_file_name("out/", 42), "out/frame_00042.ply");
  std::tm t{};
  t.tm_year = 2026 - 1900;
  t.tm_mon = 10;
  t.tm_mday = 22;
  t.tm_hour = 10;
  t.tm_min = 30;
  t.tm_sec = 15;
  t.tm_isdst = -1;
  EXPECT_EQ(default_export_dir(std::mktime(&t)), "tidepool-export-20261122-103015");

  const std::string dir = temp_dir("recorder");
  const std::string scene = scene_file(dir + "/a.json", "[0.5, 0.5, 0.5]");
  Options options = cpu_options(scene);
  options.quality = "accurate";  // steps of at most 5 ms: a frame every 10 ms is due on time
  SimSetup setup = make_setup(start_plan(options));
  FrameRecorder recorder;
  std::string error;
  ASSERT_TRUE(recorder.start(dir + "/out/deeper", 100.0, true, &error)) << error;
  ASSERT_TRUE(recorder.record(*setup.sim, &error)) << error;  // t = 0: due at once
  while (setup.sim->stats().simulated_time < 0.05) {
    setup.sim->step();
    ASSERT_TRUE(recorder.record(*setup.sim, &error)) << error;
  }
  EXPECT_EQ(recorder.frames(), 6) << "t = 0, 0.01, ..., 0.05";
  struct stat st;
  uint64_t bytes = 0;
  for (int k = 0; k < recorder.frames(); ++k) {
    ASSERT_EQ(stat(frame_file_name(dir + "/out/deeper", k).c_str(), &st), 0) << k;
    bytes += uint64_t(st.st_size);
  }
  EXPECT_EQ(recorder.bytes(), bytes);
  EXPECT_EQ(recording_summary(recorder), "6 frames, " + [&] {
    char mb[16];
    std::snprintf(mb, sizeof(mb), "%.1f", double(bytes) / 1e6);
    return std::string(mb);
  }() + " MB");
  EXPECT_TRUE(holds_frames(dir + "/out/deeper"));
  FrameRecorder again;
  EXPECT_FALSE(again.start(dir + "/out/deeper", 30.0, true, &error)) << "would mix two runs";
  EXPECT_NE(error.find("already holds frame_*.ply files"), std::string::npos) << error;
  EXPECT_FALSE(again.active());
  EXPECT_FALSE(again.start(scene + "/x", 30.0, true, &error)) << "under a file";
  EXPECT_NE(error.find("cannot create directory '" + scene + "/x'"), std::string::npos) << error;
}

TEST(PanelText, WaterDepthCountsSpheresAndFlowCountsGroupThousands) {
  Scene s;
  s.tank_lo = {0, 0, 0};
  s.tank_hi = {2, 2, 1};
  EXPECT_EQ(rest_water_depth(s), 0.0f) << "emitters alone: unknown";
  s.blocks.push_back(FluidBlock{{0, 0, 0}, {1, 1, 1}});
  EXPECT_FLOAT_EQ(rest_water_depth(s), 1.0f) << "the dam break's column stands 1 m deep";
  s.blocks[0] = FluidBlock{{0, 0, 0}, {2, 0.25f, 1}};
  s.spheres.push_back(FluidSphere{{1, 1.5f, 0.5f}, 0.3f, {0, 0, 0}});
  const float ball = float(4.0 / 3.0 * M_PI * 0.027 / 2.0);  // its volume over the 2 m^2 floor
  EXPECT_NEAR(rest_water_depth(s), 0.25f + ball, 1e-3f)
      << "a ball falling into a pool adds to the pool; its height above it does not count";
  s.blocks.clear();
  EXPECT_NEAR(rest_water_depth(s), ball, 1e-3f);

  RunStats stats;
  stats.emitted = 1234567;
  stats.removed = 56;
  EXPECT_EQ(flow_counts_text(stats), "Emitted 1,234,567, removed 56");
}

// The panel's "Reset with this count", a scene switch and a raised diffuse cap that do not
// fit in memory are refused before anything is allocated, and the running scene goes on.
TEST(SceneSwitch, WhatDoesNotFitInMemoryIsRefusedAndTheSceneRunsOn) {
  const std::string dir = temp_dir("memory");
  const Options options = cpu_options(scene_file(dir + "/a.json", "[0.5, 0.5, 0.5]"));
  SimSetup setup = make_setup(start_plan(options));
  setup.sim->step();
  const uint count = setup.sim->particle_count();
  setenv("TIDEPOOL_MEMORY_MB", "30", 1);
  const auto refusal = [&](const std::function<void()>& request) -> std::string {
    try {
      request();
    } catch (const SetupError& e) {
      return e.what();
    }
    return "";
  };
  const std::string reset = refusal([&] { reset_particles(setup, 2'000'000); });
  EXPECT_NE(reset.find("MB of memory, but only 30 MB is free; use fewer particles"),
            std::string::npos)
      << reset;
  // --spacing holds for the scenes the panel switches to.
  Options fine = options;
  fine.spacing = 0.004;
  const std::string other = scene_file(dir + "/b.json", "[1, 1, 0.5]");
  const std::string switched = refusal([&] { switch_scene(setup, start_plan(fine), other); });
  EXPECT_NE(switched.find("about 7,812,500 particles at spacing 0.004 m"), std::string::npos)
      << switched;
  EXPECT_NE(switched.find("but only 30 MB is free"), std::string::npos) << switched;
  setup.sim->params().diffuse_cap = 4'000'000;
  const std::string cap = refusal([&] { reset_particles(setup, 0); });
  EXPECT_NE(cap.find("or a smaller diffuse_cap"), std::string::npos) << cap;
  unsetenv("TIDEPOOL_MEMORY_MB");
  EXPECT_EQ(setup.scene.source, options.scene);
  EXPECT_EQ(setup.sim->particle_count(), count);
  setup.sim->step();  // and it runs on
}
