// The start plan: what it takes from the command line, and the order of the parameter
// layers it applies (docs/command-line.md, "The order of the parameters"): the defaults,
// the quality's preset for the solver that runs, the scene's params, the --preset file,
// --solver, then each --set. No window, no simulation.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/mode_options.h"
#include "app/start/setup.h"
#include "sim/scene/preset.h"
#include "sim/water/params.h"

using namespace tp;

namespace {

Options parsed(std::vector<std::string> args) {
  args.insert(args.begin(), "tidepool");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  Options options;
  std::string error;
  EXPECT_TRUE(parse_command_line(int(argv.size()), argv.data(), &options, &error)) << error;
  return options;
}

// A scene that names four values; the layers above it name some of them again.
Scene scene_with_params() {
  Scene scene;
  scene.source = "layers.json";
  scene.params = {{"viscosity", "0.02"}, {"stiffness", "40000"}, {"dt_max", "0.004"}, {"pbf_iterations", "4"}};
  return scene;
}

Preset preset_file() {
  return parse_preset(R"({"tidepool_preset": 1, "params": {"viscosity": 0.03, "stiffness": 50000,
                          "solver": "pcisph"}})",
                      "preset.json");
}

}  // namespace

TEST(StartPlan, TakesTheStartFromTheCommandLine) {
  const StartPlan window = start_plan(parsed({"--scene", "pool", "--backend", "cpu", "--threads", "2", "--particles",
                                              "3000", "--preset", "p.json", "--solver", "pcisph", "--set",
                                              "viscosity=0.01", "--set", "stiffness=60000", "--steps-per-frame", "2"}));
  EXPECT_EQ(window.scene, "pool");
  EXPECT_EQ(window.backend, "cpu");
  EXPECT_EQ(window.threads, 2);
  EXPECT_TRUE(window.window);
  EXPECT_EQ(window.quality, Quality::Realtime) << "the window keeps the clock";
  EXPECT_EQ(window.particles, 3000u);
  EXPECT_EQ(window.steps_per_frame, 2);
  EXPECT_EQ(window.layers.preset_file, "p.json");
  EXPECT_EQ(window.layers.solver, "pcisph");
  const ParamSets sets = {{"viscosity", "0.01"}, {"stiffness", "60000"}};
  EXPECT_EQ(window.layers.sets, sets) << "in the order given";

  const StartPlan headless = start_plan(parsed({"--headless", "--spacing", "0.05", "--load-state", "s.tpstate"}));
  EXPECT_FALSE(headless.window);
  EXPECT_EQ(headless.quality, Quality::Accurate) << "no clock to keep";
  EXPECT_EQ(headless.spacing, 0.05);
  EXPECT_EQ(headless.load_state, "s.tpstate");
  EXPECT_EQ(start_plan(parsed({"--bench"})).quality, Quality::Accurate);
  EXPECT_EQ(start_plan(parsed({"--headless", "--quality", "realtime"})).quality, Quality::Realtime);
  EXPECT_EQ(start_plan(parsed({"--quality", "accurate"})).quality, Quality::Accurate);
}

TEST(StartPlan, AGasSceneRefusesTheFirstWaterOptionGiven) {
  StartPlan plan = start_plan(parsed({"--scene", "plume", "--color", "speed", "--particles", "500", "--cells", "16"}));
  EXPECT_EQ(plan.cells, 16);
  const std::vector<std::string> water = {"--particles", "--color"};
  EXPECT_EQ(plan.water_options, water);
  EXPECT_EQ(gas_refusal(plan), "--particles is for water scenes; 'plume' is a gas scene (use --cells N for its grid)");
  plan.water_options.clear();
  EXPECT_EQ(gas_refusal(plan), "");
}

// Each layer names its values over the layers below it and leaves the rest as they were.
TEST(ParameterLayers, EachLayerNamesItsValuesOverTheOnesBelow) {
  const Scene scene = scene_with_params();
  const Preset preset = preset_file();
  ParamLayers layers;
  layers.solver = "pbf";
  layers.sets = {{"viscosity", "0.05"}};
  const SimParams defaults = default_params();
  const SimParams p = start_params(scene, layers, &preset, BackendKind::Cpu, Quality::Realtime);
  EXPECT_EQ(p.viscosity, 0.05f) << "--set over the preset, the scene and the defaults";
  EXPECT_EQ(p.solver, int(SolverKind::Pbf)) << "--solver over the preset's pcisph";
  EXPECT_EQ(p.stiffness, 50000.0f) << "the preset over the scene";
  EXPECT_EQ(p.dt_max, 0.004f) << "the scene over the quality's step of a frame";
  EXPECT_EQ(p.pbf_iterations, 4) << "the scene over realtime PBF's 3";
  EXPECT_EQ(p.cfl, 1.0f) << "realtime PBF's, which no layer names, over the defaults'";
  EXPECT_FLOAT_EQ(p.diffuse_interval, 0.016f) << "realtime on the CPU: spray once a frame, which no layer names";
  EXPECT_EQ(p.rest_density, defaults.rest_density) << "named by nothing: the default";

  // Taken away from the top, each layer below shows through.
  layers.sets.clear();
  EXPECT_EQ(start_params(scene, layers, &preset, BackendKind::Cpu, Quality::Realtime).viscosity, 0.03f);
  EXPECT_EQ(start_params(scene, layers, nullptr, BackendKind::Cpu, Quality::Realtime).viscosity, 0.02f);
  const SimParams bare = start_params(Scene{}, ParamLayers{}, nullptr, BackendKind::Cpu, Quality::Realtime);
  EXPECT_EQ(bare.viscosity, defaults.viscosity);
  EXPECT_EQ(bare.dt_max, 0.0125f) << "realtime PBF's, over the defaults'";
  EXPECT_EQ(bare.pbf_iterations, 3);
  EXPECT_EQ(start_params(Scene{}, ParamLayers{}, nullptr, BackendKind::Cpu, Quality::Accurate).dt_max,
            defaults.dt_max);
}

// The solver that runs: the one the layers name last, else PBF at the realtime quality and
// the defaults' at accurate; its quality preset lies under the layers.
TEST(ParameterLayers, TheSolverIsTheLastOneNamedAndPicksTheQualityUnderTheLayers) {
  const Scene none;
  const Preset preset = preset_file();
  ParamLayers layers;
  EXPECT_EQ(start_params(none, layers, nullptr, BackendKind::Cpu, Quality::Realtime).solver, int(SolverKind::Pbf));
  EXPECT_EQ(start_params(none, layers, nullptr, BackendKind::Cpu, Quality::Accurate).solver,
            default_params().solver);
  Scene pcisph_scene;
  pcisph_scene.params = {{"solver", "pcisph"}};
  const SimParams scene_pick = start_params(pcisph_scene, layers, nullptr, BackendKind::Cpu, Quality::Realtime);
  EXPECT_EQ(scene_pick.solver, int(SolverKind::Pcisph)) << "the scene's";
  EXPECT_TRUE(matches_quality(scene_pick, Quality::Realtime, BackendKind::Cpu)) << "realtime PCISPH under it";
  EXPECT_EQ(start_params(none, layers, &preset, BackendKind::Cpu, Quality::Realtime).solver,
            int(SolverKind::Pcisph))
      << "the preset's";
  const Preset no_solver = parse_preset(R"({"tidepool_preset": 1, "params": {"viscosity": 0.03}})", "v.json");
  EXPECT_EQ(start_params(none, layers, &no_solver, BackendKind::Cpu, Quality::Realtime).solver,
            default_params().solver)
      << "a preset file is a choice: its solver, else the defaults'";
  layers.solver = "wcsph";
  layers.sets = {{"solver", "pbf"}};
  const SimParams set_pick = start_params(pcisph_scene, layers, &preset, BackendKind::Cpu, Quality::Accurate);
  EXPECT_EQ(set_pick.solver, int(SolverKind::Pbf)) << "--set over --solver, the preset and the scene";
  EXPECT_TRUE(matches_quality(set_pick, Quality::Accurate, BackendKind::Cpu));
  // A scene switch keeps the running solver over the new scene's and --solver; --set
  // still names its own.
  layers.sets.clear();
  EXPECT_EQ(start_params(pcisph_scene, layers, &preset, BackendKind::Cpu, Quality::Realtime, int(SolverKind::Pbf))
                .solver,
            int(SolverKind::Pbf));
  layers.sets = {{"solver", "wcsph"}};
  EXPECT_EQ(start_params(pcisph_scene, layers, nullptr, BackendKind::Cpu, Quality::Realtime, int(SolverKind::Pbf))
                .solver,
            int(SolverKind::Wcsph));
}

// A bad value is refused at its own layer, naming it, whatever lies under it.
TEST(ParameterLayers, ABadValueIsRefusedNamingItsLayer) {
  const auto refusal = [](const Scene& scene, const ParamLayers& layers, Quality quality) {
    try {
      start_params(scene, layers, nullptr, BackendKind::Cpu, quality);
    } catch (const SetupError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  Scene bad_scene;
  bad_scene.source = "bad.json";
  bad_scene.params = {{"viscosity", "7"}};
  ParamLayers layers;
  layers.sets = {{"viscosity", "9"}};
  for (Quality q : {Quality::Realtime, Quality::Accurate}) {
    EXPECT_EQ(refusal(bad_scene, layers, q).rfind("scene file 'bad.json': params.viscosity is invalid", 0), 0u)
        << refusal(bad_scene, layers, q);
    EXPECT_EQ(refusal(Scene{}, layers, q).rfind("--set viscosity", 0), 0u) << refusal(Scene{}, layers, q);
  }
  ParamLayers bad_solver;
  bad_solver.solver = "sph";
  EXPECT_EQ(refusal(Scene{}, bad_solver, Quality::Realtime),
            "--solver must be one of " + solver_names_list() + ", not 'sph'");
  ParamLayers conflict;
  conflict.sets = {{"dt_max", "1e-4"}, {"dt_min", "1e-3"}};
  EXPECT_NE(refusal(Scene{}, conflict, Quality::Realtime).find("dt_max"), std::string::npos);
}
