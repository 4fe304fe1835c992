// Quality presets (src/sim/scene/quality.h): accurate is what every validation test runs,
// realtime is what the window starts with, and switching either keeps the water.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "sim/scene/quality.h"
#include "sim_helpers.h"

namespace tp {
namespace {

double value_of(const QualityPreset& preset, const std::string& key) {
  for (const auto& [k, v] : preset.values)
    if (k == key) return v;
  ADD_FAILURE() << preset.name << " has no " << key;
  return NAN;
}

TEST(Quality, AccurateIsTheTableDefaultsThatTheValidationTestsRun) {
  for (int solver = 0; solver < int(solver_names().size()); ++solver) {
    const QualityPreset preset = quality_preset(Quality::Accurate, solver, BackendKind::Cpu);
    EXPECT_EQ(preset.name, std::string("accurate-") + solver_name(solver));
    SimParams p = default_params();
    p.solver = solver;
    EXPECT_TRUE(matches_quality(p, Quality::Accurate, BackendKind::Cpu)) << preset.name;
    for (const auto& [key, value] : preset.values)
      EXPECT_EQ(value, find_param(key)->fallback) << preset.name << ": " << key;
  }
  // ... and the tests' helper applies it by name.
  auto sim = test::cpu_sim(test::box_scene(Vec3{0, 0, 0}, Vec3{1, 1, 1}, Vec3{0, 0, 0},
                                           Vec3{0.5f, 0.5f, 0.5f}, 0.1f),
                           0.1f);
  EXPECT_TRUE(matches_quality(sim->params(), Quality::Accurate, BackendKind::Cpu));
}

TEST(Quality, RealtimeRunsPbfAsTheFlexDemoDoesWithSprayOnEitherBackend) {
  const QualityPreset pbf = quality_preset(Quality::Realtime, int(SolverKind::Pbf), BackendKind::Cpu);
  EXPECT_EQ(pbf.name, "realtime-pbf");
  EXPECT_EQ(value_of(pbf, "pbf_iterations"), 3);
  EXPECT_EQ(value_of(pbf, "pbf_tolerance"), 0);
  // ... warm-started, its last iteration damped (tests/test_realtime_fidelity.cpp: the
  // accurate water's front and height within 5 %, a resting pool that rests).
  EXPECT_EQ(value_of(pbf, "pbf_warm_start"), 0.5);
  EXPECT_EQ(value_of(pbf, "pbf_final_weight"), 0.5);
  EXPECT_NEAR(value_of(pbf, "dt_max"), 1.0 / 80.0, 1e-4);
  EXPECT_EQ(value_of(pbf, "pbf_vorticity"), 0);
  // In 2D its own settings: steps of a frame, the table's warm start and weight.
  const QualityPreset pbf_2d =
      quality_preset(Quality::Realtime, int(SolverKind::Pbf), BackendKind::Cpu, 2);
  EXPECT_NEAR(value_of(pbf_2d, "dt_max"), 1.0 / 60.0, 1e-3);
  EXPECT_LE(value_of(pbf_2d, "dt_max"), 1.0 / 60.0);
  EXPECT_EQ(value_of(pbf_2d, "pbf_warm_start"), 0);
  EXPECT_EQ(value_of(pbf_2d, "pbf_final_weight"), 1);
  EXPECT_EQ(value_of(pbf, "cfl"), 1.0);
  // Spray and foam on, on either backend; the CPU updates them once a 60 Hz frame.
  const QualityPreset pbf_cuda = quality_preset(Quality::Realtime, int(SolverKind::Pbf), BackendKind::Cuda);
  EXPECT_EQ(value_of(pbf, "diffuse"), 1);
  EXPECT_EQ(value_of(pbf_cuda, "diffuse"), 1);
  EXPECT_NEAR(value_of(pbf, "diffuse_interval"), 1.0 / 60.0, 1e-3);
  EXPECT_LE(value_of(pbf, "diffuse_interval"), 0.0166) << "steps of a frame update at every step";
  EXPECT_EQ(value_of(pbf_cuda, "diffuse_interval"), find_param("diffuse_interval")->fallback);
  EXPECT_EQ(value_of(quality_preset(Quality::Accurate, int(SolverKind::Pbf), BackendKind::Cpu), "diffuse_interval"),
            find_param("diffuse_interval")->fallback);
  // Spray switched off is an edit of the preset, but not of the water (the panel's
  // fidelity line asks with water_only).
  SimParams sprayless = default_params();
  sprayless.solver = int(SolverKind::Pbf);
  apply_quality(sprayless, Quality::Realtime, BackendKind::Cpu);
  sprayless.diffuse = 0;
  EXPECT_FALSE(matches_quality(sprayless, Quality::Realtime, BackendKind::Cpu));
  EXPECT_TRUE(matches_quality(sprayless, Quality::Realtime, BackendKind::Cpu, 3, true));
  sprayless.pbf_iterations = 4;
  EXPECT_FALSE(matches_quality(sprayless, Quality::Realtime, BackendKind::Cpu, 3, true)) << "the water edited";
  // WCSPH's step is its speed of sound's: it keeps its accurate step settings.
  const QualityPreset wcsph =
      quality_preset(Quality::Realtime, int(SolverKind::Wcsph), BackendKind::Cpu);
  EXPECT_EQ(value_of(wcsph, "cfl"), find_param("cfl")->fallback);
  EXPECT_EQ(value_of(wcsph, "dt_max"), find_param("dt_max")->fallback);
  // Every value is one the parameter table accepts.
  for (Quality q : {Quality::Realtime, Quality::Accurate})
    for (int solver = 0; solver < int(solver_names().size()); ++solver)
      for (BackendKind b : {BackendKind::Cpu, BackendKind::Cuda}) {
        SimParams p = default_params();
        p.solver = solver;
        apply_quality(p, q, b);
        SimParams clamped = p;
        EXPECT_TRUE(clamp_params(clamped).empty()) << quality_name(q) << " " << solver;
        EXPECT_TRUE(matches_quality(p, q, b));
      }
}

TEST(Quality, SetsOnlyItsOwnKeys) {
  SimParams p = default_params();
  p.viscosity = 0.02f;
  p.gravity_y = -3.0f;
  p.mouse_strength = 12.0f;
  p.solver = int(SolverKind::Pbf);
  const SimParams before = p;
  apply_quality(p, Quality::Realtime, BackendKind::Cpu);
  const QualityPreset preset = quality_preset(Quality::Realtime, p.solver, BackendKind::Cpu);
  for (const ParamInfo& info : param_table()) {
    const bool governed =
        std::any_of(preset.values.begin(), preset.values.end(),
                    [&](const auto& kv) { return kv.first == info.name; });
    if (!governed) {
      EXPECT_EQ(info.get(p), info.get(before)) << info.name << " changed";
    }
  }
  EXPECT_FALSE(matches_quality(before, Quality::Realtime, BackendKind::Cpu));
  Quality q;
  EXPECT_TRUE(parse_quality("accurate", &q) && q == Quality::Accurate);
  EXPECT_TRUE(parse_quality("realtime", &q) && q == Quality::Realtime);
  EXPECT_FALSE(parse_quality("fast", &q));
}

TEST(Quality, SwitchingQualityAndSolverKeepsTheWater) {
  // A dam break in full flow at realtime PBF, switched to accurate WCSPH mid-run: the same
  // particles, and the next step moves none of them further than the flow does.
  const float s = 0.05f;
  auto sim = test::cpu_sim(test::box_scene(Vec3{0, 0, 0}, Vec3{1.6f, 0.8f, 0.3f}, Vec3{0, 0, 0},
                                           Vec3{0.4f, 0.6f, 0.3f}, s),
                           s);
  sim->params().solver = int(SolverKind::Pbf);
  apply_quality(sim->params(), Quality::Realtime, BackendKind::Cpu);
  for (int k = 0; k < 25; ++k) sim->step();
  const Snapshot before = sim->snapshot();
  const double speed = sim->stats().last_max_speed;
  ASSERT_GT(speed, 0.5) << "the water should be moving";
  sim->params().solver = int(SolverKind::Wcsph);
  apply_quality(sim->params(), Quality::Accurate, BackendKind::Cpu);
  const double dt = sim->step();
  const Snapshot after = sim->snapshot();
  ASSERT_EQ(before.id, after.id) << "the switch replaced the particles";
  float moved = 0.0f;
  for (size_t i = 0; i < before.position.size(); ++i)
    moved = std::max(moved, length(xyz(after.position[i]) - xyz(before.position[i])));
  EXPECT_LE(moved, 2.0 * speed * dt + 1e-4) << "a jump at the switch";
  EXPECT_LT(dt, 0.006) << "WCSPH's accurate step";
  for (int k = 0; k < 40; ++k) sim->step();
  const ParticleCheck c = test::check(*sim);
  EXPECT_EQ(c.outside, 0u);
  EXPECT_EQ(c.nonfinite, 0u);
}

}  // namespace
}  // namespace tp
