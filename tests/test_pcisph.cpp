// PCISPH's step controller (src/sim/water/pcisph.h): the step follows the water it holds up.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "sim_helpers.h"

using namespace tp;
using namespace tp::test;

namespace {

struct PoolRun {
  uint64_t steps = 0;
  double error = 0.0;  // mean density error over the run
  double max_speed = 0.0;
};

// A pool 9 spacings deep (0.18 m, 8 x 8 across) for 0.2 s, with or without a small block
// of water 0.5 m above its surface, falling towards it (it lands at about 0.32 s).
PoolRun run_pool(bool with_drop) {
  const float s = 0.02f;
  std::string json = R"({"tank": {"min": [0,0,0], "max": [0.16,0.8,0.16]}, "particle_spacing": 0.02,
    "fluid_blocks": [{"min": [0,0,0], "max": [0.16,0.18,0.16]})";
  if (with_drop) json += R"(, {"min": [0.04,0.68,0.04], "max": [0.08,0.72,0.08]})";
  json += "]}";
  auto sim = cpu_sim(parse_scene(json, "pool"), s);
  sim->params().solver = int(SolverKind::Pcisph);
  while (sim->stats().simulated_time < 0.2) sim->step();
  const RunStats st = sim->stats();
  const ParticleCheck c = check(*sim);
  EXPECT_EQ(c.nonfinite + st.nonfinite_resets, 0u);
  EXPECT_EQ(c.outside, 0u);
  return {st.steps, st.density_error_mean, st.max_speed};
}

}  // namespace

// The holding step (pcisph_holding_step) comes from the water's depth. Its extent along
// gravity counts a drop high above the pool as water to hold up: 0.72 m instead of 0.18 m,
// and the pool took 1.9 times the steps (measured: 124 with the drop, 65 without). The
// previous step's pressure says how deep the water really is (measured: 74 and 64; the
// first steps still start from the extent's step and grow by 5 % a step).
TEST(Pcisph, ADropAboveAPoolDoesNotShortenThePoolsStep) {
  const PoolRun pool = run_pool(false), drop = run_pool(true);
  std::printf("pool: %llu steps, error %.3f %%; with a drop above it: %llu steps, error %.3f %%\n",
              (unsigned long long)pool.steps, 100.0 * pool.error, (unsigned long long)drop.steps,
              100.0 * drop.error);
  EXPECT_LT(double(drop.steps), 1.3 * double(pool.steps)) << "steps with the drop / without";
  EXPECT_LT(drop.error, 0.01) << "within the tolerance (1 %)";
  EXPECT_LT(drop.max_speed, 2.5) << "m/s: the drop's fall, and a pool at rest";
}
