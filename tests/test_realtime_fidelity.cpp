// The realtime quality (the window's default) against the accurate quality: the water a
// user plays with must be the water the accurate solver simulates (issue 37, part 2;
// docs/realtime.md, "Fidelity"). The realtime quality's own solver and settings, at the
// count the window starts the default dam break with on a 2-core machine (8,000).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "sim/scene/fidelity.h"
#include "sim_helpers.h"

namespace tp {
namespace {

constexpr uint64_t kWindowCount = 8000;

Scene shipped(const char* name) {
  return load_scene_file(std::string(TIDEPOOL_SOURCE_DIR) + "/assets/scenes/" + name + ".json");
}

// The default window's solver (the realtime quality's, as the window starts it), or
// `solver`, at `quality`.
std::unique_ptr<Simulation> window_sim(const Scene& scene, float spacing, Quality quality,
                                       int solver = realtime_solver()) {
  auto sim = make_simulation(BackendKind::Cpu);
  sim->params().solver = solver;
  apply_quality(sim->params(), quality, BackendKind::Cpu, scene.dimensions);
  apply_scene_params(scene, sim->params());
  sim->params().diffuse = 0;  // (spray does not move the water)
  sim->reset(build_initial_state(scene, spacing));
  return sim;
}

void print_run(const char* label, const DamBreakRun& r) {
  std::printf("%-9s %6llu steps, %.2f iterations/step, mean density error %.3f %%, worst %.2f %% "
              "(at %.3f s), top speed %.2f m/s\n",
              label, (unsigned long long)r.steps, r.mean_iterations, 100.0 * r.mean_error,
              100.0 * r.max_error, r.max_error_at, r.max_speed);
}

// The default dam break for a second: the surge front and the water's height at the left
// wall within 5 % (RMS over samples every 1/60 s) of the accurate run's, mean density
// error at most 1 % and the worst particle's at most 10 % over the run.
TEST(RealtimeFidelity, DamBreakFollowsTheAccurateWater) {
  const Scene scene = shipped("dam_break");
  const float s = spacing_for_count(scene, kWindowCount);
  auto accurate = window_sim(scene, s, Quality::Accurate);
  auto realtime = window_sim(scene, s, Quality::Realtime);
  const DamBreakRun ref = run_dam_break(*accurate, s, scene.tank_lo.x, 1.0);
  const DamBreakRun run = run_dam_break(*realtime, s, scene.tank_lo.x, 1.0);
  print_run("accurate", ref);
  print_run("realtime", run);
  ASSERT_EQ(run.samples.size(), 61u);
  ASSERT_EQ(ref.samples.size(), 61u);
  for (size_t k = 0; k < run.samples.size(); k += 6)
    std::printf("  t %.2f s  front %.3f m (accurate %.3f)  height %.3f m (accurate %.3f)  top %.3f m "
                "(accurate %.3f)\n",
                run.samples[k].t, run.samples[k].front, ref.samples[k].front,
                run.samples[k].height, ref.samples[k].height, run.samples[k].top, ref.samples[k].top);
  // The measure itself: the surge reaches the far wall within the second, and the column
  // at the left wall falls to about half its height.
  EXPECT_GT(ref.samples.back().front, 3.5);
  EXPECT_LT(ref.samples.back().height, 0.7);
  EXPECT_GT(ref.samples.back().height, 0.2);
  const Deviation d = rms_deviation(run, ref);
  // (The top is printed, not judged: the highest particle at the wall differs by 2.5 to
  // 6 % between accurate runs that differ only in their step or iteration count.)
  std::printf("RMS deviation from the accurate run: front %.2f %%, height %.2f %%, top %.2f %%\n",
              100.0 * d.front, 100.0 * d.height, 100.0 * d.top);
  EXPECT_LE(d.front, 0.05);
  EXPECT_LE(d.height, 0.05);
  EXPECT_LE(run.mean_error, 0.01);
  EXPECT_LE(run.max_error, 0.10);
  // The panel's figures (realtime_fidelity) are this run's (within what another CPU's
  // vector width changes).
  const QualityFidelity stated = realtime_fidelity(realtime_solver());
  EXPECT_TRUE(stated.measured);
  EXPECT_NEAR(d.front, stated.front, 0.005);
  EXPECT_NEAR(d.height, stated.height, 0.005);
  EXPECT_NEAR(run.mean_error, stated.mean_error, 0.001);
  EXPECT_NEAR(run.max_error, stated.max_error, 0.01);
  // ... and it is the cheaper water: fewer solver iterations in all.
  EXPECT_LT(double(run.steps) * run.mean_iterations, 0.5 * double(ref.steps) * ref.mean_iterations);
}

// The accurate water itself: PBF's water at the left wall of the default dam break falls
// as the pressure solvers' does. Its tank's samples once pushed a particle with the
// particle's own multiplier only, half what water across the wall would, and the layer
// beside the wall stood still on the floor while the water beside it fell: its height at
// the wall was 16.7 % (RMS over 1.6 s) above WCSPH's, where PCISPH's is 2.5 % from it
// (docs/solvers.md, "Why PBF's column lingers at the wall"). Against PCISPH's: 17.6 %
// before, 8.6 % with the side walls' push (kPbfSideWallPush); the bound 12 %.
TEST(RealtimeFidelity, PbfWaterAtTheWallFallsAsThePressureSolversDoes) {
  const Scene scene = shipped("dam_break");
  const float s = spacing_for_count(scene, kWindowCount);
  auto pbf = window_sim(scene, s, Quality::Accurate, int(SolverKind::Pbf));
  auto pcisph = window_sim(scene, s, Quality::Accurate, int(SolverKind::Pcisph));
  const DamBreakRun p = run_dam_break(*pbf, s, scene.tank_lo.x, 1.6);
  const DamBreakRun ref = run_dam_break(*pcisph, s, scene.tank_lo.x, 1.6);
  ASSERT_EQ(p.samples.size(), ref.samples.size());
  for (size_t k = 18; k < p.samples.size(); k += 12)
    std::printf("  t %.2f s  height at the wall: PBF %.3f m, PCISPH %.3f m\n", p.samples[k].t,
                p.samples[k].height, ref.samples[k].height);
  const Deviation d = rms_deviation(p, ref);
  std::printf("PBF from PCISPH (accurate, 1.6 s): front %.2f %%, height %.2f %%\n", 100.0 * d.front,
              100.0 * d.height);
  EXPECT_LE(d.height, 0.12);
  EXPECT_LE(d.front, 0.05);
}

// A resting pool at the realtime quality stands as still as the accurate quality's: over
// the 4th second, the water's RMS speed at most 0.05 m/s, the speed a thousandth of the
// water exceeds no more than the accurate pool's with a quarter to spare (the issue asks
// for no particle over 0.05 m/s; neither quality's pool has settled that far by then: a
// few particles at 0.1 to 0.3 m/s in both, docs/realtime.md), no particle faster than
// either the accurate pool's fastest or a fall into a vacancy (below), with a quarter to
// spare, and the mean density error at most 1 %.
TEST(RealtimeFidelity, RestingPoolStandsStill) {
  const Scene scene = shipped("pool");
  const float s = spacing_for_count(scene, kWindowCount);
  auto realtime = window_sim(scene, s, Quality::Realtime);
  auto accurate = window_sim(scene, s, Quality::Accurate);
  const RestingRun r = run_resting(*realtime, 3.0, 4.0);
  const RestingRun a = run_resting(*accurate, 3.0, 4.0);
  for (const auto& [label, run] : {std::pair{"realtime", r}, std::pair{"accurate", a}})
    std::printf("pool, %s, %llu particles, 3-4 s (%d steps): RMS speed %.4f m/s, fastest %.4f "
                "m/s, a thousandth faster than %.4f m/s, mean density error at most %.3f %%\n",
                label, (unsigned long long)realtime->particle_count(), run.steps, run.rms,
                run.fastest, run.fastest_thousandth, 100.0 * run.error);
  EXPECT_LE(r.rms, 0.05);
  // The fastest particle is one particle's and jumps between settings that change nothing
  // else (the pool at 3, 4 and 5 iterations: 0.20, 0.61 and 0.55 m/s, docs/realtime.md);
  // the speed a thousandth of the water exceeds (0.105, 0.095, 0.103) does not. The 0.6
  // m/s particles are second-row particles dropping into a vacancy of the floor's row, half
  // a spacing down, in two or three steps: at 7,000, 8,127 and 9,000 particles, 0 to 5 such
  // particles a second with the tank's samples pushing as water or not (kPbfSideWallPush).
  // Falling half a spacing takes a particle to sqrt(g s); faster than that it was thrown.
  EXPECT_LE(r.fastest, 1.25 * std::max(a.fastest, std::sqrt(9.81 * double(s))));
  EXPECT_LE(r.fastest_thousandth, 1.25 * a.fastest_thousandth);
  EXPECT_LE(r.error, 0.01);
  EXPECT_GT(r.steps, 0);
  // Before the warm start and the damped last iteration, the pool trembled for ever.
  SimParams& p = realtime->params();
  p.pbf_warm_start = 0.0f;
  p.pbf_final_weight = 1.0f;
  const RestingRun cold = run_resting(*realtime, 4.0, 5.0);
  std::printf("pool, realtime without the warm start and the damping, 4-5 s: RMS speed %.4f "
              "m/s, fastest %.4f m/s\n",
              cold.rms, cold.fastest);
  EXPECT_GT(cold.rms, 2.0 * r.rms);
}

}  // namespace
}  // namespace tp
