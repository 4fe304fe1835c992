// Every scene in assets/scenes runs on every solver; the channel runs at a steady count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "scene_cases.h"
#include "sim_helpers.h"

namespace tp {
namespace {

const std::string& kSceneDir = test::kShippedSceneDir;

std::unique_ptr<Simulation> scene_sim(const Scene& scene, uint64_t particles, int solver) {
  auto sim = make_simulation(BackendKind::Cpu);
  apply_scene_params(scene, sim->params());
  sim->params().solver = solver;
  sim->reset(build_initial_state(scene, spacing_for_count(scene, particles)));
  return sim;
}

class ShippedScene : public testing::TestWithParam<std::tuple<std::string, int>> {};

// Two seconds of each scene at about 1,000 particles (and at most 1,000 spray, foam and
// bubble particles, which a coarse fluid spawns many of): finite, in the tank, out of the
// obstacles, with water throughout; emitters add and outflows remove.
TEST_P(ShippedScene, RunsTwoSecondsOnEachSolver) {
  const auto& [name, solver] = GetParam();
  const Scene scene = find_scene(name, kSceneDir);
  auto sim = scene_sim(scene, 1000, solver);
  sim->params().diffuse = 1;
  sim->params().diffuse_cap = 1000;
  const uint n0 = sim->particle_count();
  uint fewest = n0, most = n0;
  float closest = INFINITY;
  while (sim->stats().simulated_time < 2.0) {
    sim->step();
    fewest = std::min(fewest, sim->particle_count());
    most = std::max(most, sim->particle_count());
    if (!scene.obstacles.empty() && sim->stats().steps % 50 == 0)
      closest = std::min(closest, test::closest_to_obstacles(sim->snapshot(), sim->obstacles()));
  }
  const Snapshot s = sim->snapshot();
  const ParticleCheck c = check_particles(s, sim->tank_lo(), sim->tank_hi());
  const RunStats st = sim->stats();
  std::printf("%s/%s: %u particles at the start, %u-%u while running, %u at the end (%lu emitted, "
              "%lu removed), %lu steps, max speed %.2f m/s, %u diffuse\n",
              name.c_str(), solver_name(solver), n0, fewest, most, sim->particle_count(), st.emitted,
              st.removed, st.steps, st.max_speed, st.diffuse.total());
  EXPECT_EQ(c.nonfinite, 0u);
  EXPECT_EQ(st.nonfinite_resets, 0u);
  EXPECT_EQ(c.outside, 0u);
  EXPECT_GT(sim->particle_count(), n0 / 2) << "the water is still there";
  EXPECT_LT(st.max_speed, 15.0) << "nothing was flung";
  if (!scene.emitters.empty()) {
    EXPECT_GT(st.emitted, 0u) << "its emitters ran";
  }
  // A drain on the floor takes water at once; a weir only once the level reaches its
  // crest (TheChannelKeepsASteadyCount checks those).
  const bool drain = std::any_of(scene.outflows.begin(), scene.outflows.end(),
                                 [&](const Outflow& o) { return o.lo.y <= scene.tank_lo.y; });
  if (drain) {
    EXPECT_GT(st.removed, 0u) << "its drain took water";
  }
  if (!scene.obstacles.empty()) {
    closest = std::min(closest, test::closest_to_obstacles(s, sim->obstacles()));
    EXPECT_GE(closest, 0.0f) << "no particle inside an obstacle";
  }
}

// The default run takes each scene on one solver, turns shifted from the emulated device's
// share (test_emulated_device.cpp) so that the two cover different pairs; the rest of the
// matrix runs on request (./test.sh -L validation).
INSTANTIATE_TEST_SUITE_P(Scenes, ShippedScene, testing::ValuesIn(test::scene_solver_share(false, 1)),
                         test::scene_solver_name);
INSTANTIATE_TEST_SUITE_P(AllScenes, ShippedScene, testing::ValuesIn(test::scene_solver_share(true, 1)),
                         test::scene_solver_name);

TEST(ShippedScenes, AllSevenAreThere) {  // (the loop above runs whatever is in the folder)
  const std::vector<std::string> names = list_scenes(kSceneDir);
  for (const char* want : {"dam_break", "double_dam_break", "drop_into_pool", "fountain", "water_channel", "obstacles", "pool"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
}

TEST(ShippedScenes, MaxParticlesStandsForTheSameWaterAtAnotherSpacing) {
  const Scene scene = find_scene("water_channel", kSceneDir);
  ASSERT_GT(scene.max_particles, 0u);
  EXPECT_EQ(build_initial_state(scene, scene.spacing).max_particles, scene.max_particles);
  EXPECT_EQ(build_initial_state(scene, 2.0f * scene.spacing).max_particles,
            std::max<uint64_t>(scene.max_particles / 8, kMinMaxParticles));
}

// The channel, inflow at one end and a weir at the other (water above its crest drains),
// settles at a steady count: after the first seconds, the count stays in a band around
// its mean. (A longer run of the same is under the soak label.)
void channel_count_band(double seconds, double settle) {
  const Scene scene = find_scene("water_channel", kSceneDir);
  // PBF at its interactive settings (three iterations), about 1,500 particles.
  auto sim = scene_sim(scene, 1500, int(SolverKind::Pbf));
  sim->params().diffuse = 0;
  sim->params().pbf_iterations = 3;
  std::vector<double> per_second;
  double sum = 0.0;
  int samples = 0;
  uint low = ~0u, high = 0;
  while (sim->stats().simulated_time < seconds) {
    sim->step();
    const double t = sim->stats().simulated_time;
    if (t < settle) continue;
    const uint n = sim->particle_count();
    low = std::min(low, n);
    high = std::max(high, n);
    sum += n;
    ++samples;
    const size_t second = size_t(t - settle);
    if (per_second.size() <= second) per_second.push_back(0.0);
    per_second[second] = n;
  }
  const double mean = sum / samples;
  const RunStats st = sim->stats();
  std::printf("channel: %.0f s, after %.0f s the count ran %u-%u (mean %.0f, %+.1f%% / %+.1f%%); "
              "emitted %lu, removed %lu; counts at each second:",
              seconds, settle, low, high, mean, 100 * (low / mean - 1), 100 * (high / mean - 1), st.emitted,
              st.removed);
  for (double n : per_second) std::printf(" %.0f", n);
  std::printf("\n");
  EXPECT_GT(low, 0.9 * mean);
  EXPECT_LT(high, 1.1 * mean);
  EXPECT_GT(double(st.removed), 0.5 * mean) << "much of the water was renewed";
  const ParticleCheck c = test::check(*sim);
  EXPECT_EQ(c.nonfinite + c.outside, 0u);
}

TEST(ShippedScenes, TheChannelKeepsASteadyCount) { channel_count_band(12.0, 5.0); }
TEST(Soak, TheChannelKeepsASteadyCountForTwoMinutes) { channel_count_band(126.0, 6.0); }

}  // namespace
}  // namespace tp
