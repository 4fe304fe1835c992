// The NaN guard (src/sim/water/step_guard.h): a NaN injected mid-step through the test hook is
// caught, the step is taken again from its start at half the time step, the user is told
// once, and nothing spreads; a NaN that keeps coming back stops the simulation instead of
// looping. On every solver.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "sim_helpers.h"

namespace tp {
namespace {

class NanGuard : public testing::TestWithParam<int> {
 protected:
  // A small dam break, a few hundred particles, 30 steps in (the water moving).
  std::unique_ptr<Simulation> moving_water() {
    const Scene scene = test::box_scene({0, 0, 0}, {0.6f, 0.4f, 0.15f}, {0, 0, 0}, {0.2f, 0.3f, 0.15f}, 0.025f);
    auto sim = test::cpu_sim(scene, 0.025f);
    sim->params().solver = GetParam();
    for (int k = 0; k < 30; ++k) sim->step();
    return sim;
  }
};

std::unique_ptr<Simulation> restored(const SimState& state) {
  auto sim = make_simulation(BackendKind::Cpu);
  sim->restore(state);
  return sim;
}

bool all_finite(const Snapshot& s) {
  for (size_t i = 0; i < s.position.size(); ++i)
    if (!is_finite(xyz(s.position[i])) || !is_finite(xyz(s.velocity[i]))) return false;
  return true;
}

// The state after the poisoned step is exactly the one a clean step at half the time step
// takes from the same start: the NaN left no trace, in that particle or its neighbours.
TEST_P(NanGuard, InjectedNanIsUndoneAndTheStepRetakenAtHalfTheTimeStep) {
  auto sim = moving_water();
  const SimState start = sim->capture();
  const double dt_clean = restored(start)->step();

  sim->inject_nan_for_test(sim->particle_count() / 2, 1);
  const double dt = sim->step();
  EXPECT_EQ(float(dt), 0.5f * float(dt_clean)) << "the retry's time step is half the failed one";

  auto half = restored(start);
  half->params().dt_max = 0.5f * float(dt_clean);  // the same step, at half the time step
  EXPECT_EQ(half->step(), dt);
  const Snapshot got = sim->snapshot(), want = half->snapshot();
  ASSERT_EQ(got.id, want.id);
  EXPECT_EQ(test::count_differing(got, want, 1e-6f, 1e-5f), 0) << "particles whose state differs from a clean half step";
  EXPECT_TRUE(all_finite(got));

  const RunStats st = sim->stats();
  EXPECT_EQ(st.nonfinite_steps, 1u);
  EXPECT_GE(st.nonfinite_resets, 1u);
  EXPECT_EQ(st.steps, start.stats.steps + 1) << "one step, however many attempts";
  EXPECT_FALSE(st.halted);
  EXPECT_NE(st.guard_note.find("NaN"), std::string::npos) << st.guard_note;
}

// Told once: the note comes with the first repeated step and not again, not even when a
// second step is repeated; the count goes on. Nothing spreads over the following steps.
TEST_P(NanGuard, TheUserIsToldOnceAndNothingSpreads) {
  auto sim = moving_water();
  EXPECT_EQ(sim->take_guard_note(), "") << "nothing to say before anything happened";
  sim->inject_nan_for_test(0, 1);
  sim->step();
  const std::string note = sim->take_guard_note();
  std::printf("%s: %s\n", solver_name(GetParam()), note.c_str());
  EXPECT_NE(note.find("half"), std::string::npos) << note;
  EXPECT_EQ(sim->take_guard_note(), "") << "given once";
  int notes = 1;
  for (int k = 0; k < 40; ++k) {
    if (k == 20) sim->inject_nan_for_test(sim->particle_count() - 1, 1);
    sim->step();
    if (!sim->take_guard_note().empty()) ++notes;
  }
  EXPECT_EQ(notes, 1);
  const RunStats st = sim->stats();
  EXPECT_EQ(st.nonfinite_steps, 2u);
  EXPECT_EQ(st.guard_note, note) << "the panel keeps the first sentence";
  const ParticleCheck c = test::check(*sim);
  EXPECT_EQ(c.nonfinite + c.outside, 0u);
  // No particle was parked at the tank's centre (where the clamp sends a NaN it resets).
  const Vec3 center = (sim->tank_lo() + sim->tank_hi()) * 0.5f;
  for (const Vec4& x : sim->snapshot().position) EXPECT_GT(length(xyz(x) - center), 1e-4f);
}

// A NaN that every retry meets: the guard halves the step a bounded number of times, then
// stops with the state of the step's start (finite) and a clear sentence; later steps and
// advance() return at once instead of looping; a reset brings the simulation back.
TEST_P(NanGuard, ANanThatStaysStopsTheSimulationInsteadOfLooping) {
  auto sim = moving_water();
  const Snapshot before = sim->snapshot();
  const uint64_t steps = sim->stats().steps;
  sim->inject_nan_for_test(3, 1000);
  EXPECT_EQ(sim->step(), 0.0);
  EXPECT_TRUE(sim->halted());
  const std::string note = sim->take_guard_note();
  std::printf("%s: %s\n", solver_name(GetParam()), note.c_str());
  EXPECT_NE(note.find("stopped"), std::string::npos) << note;
  EXPECT_EQ(sim->take_guard_note(), "");
  EXPECT_EQ(sim->step(), 0.0);
  EXPECT_EQ(sim->advance(0.5, 0.0), 1) << "advance() gives up at once";
  const Snapshot after = sim->snapshot();
  ASSERT_EQ(after.position.size(), before.position.size());
  for (size_t i = 0; i < after.position.size(); ++i)
    ASSERT_EQ(length(xyz(after.position[i]) - xyz(before.position[i])), 0.0f) << "the last finite state is kept";
  EXPECT_EQ(sim->stats().steps, steps);
  EXPECT_TRUE(sim->stats().halted);

  const Scene scene = test::box_scene({0, 0, 0}, {0.6f, 0.4f, 0.15f}, {0, 0, 0}, {0.2f, 0.3f, 0.15f}, 0.025f);
  sim->reset(build_initial_state(scene, 0.025f));
  EXPECT_FALSE(sim->halted());
  EXPECT_EQ(sim->stats().guard_note, "");
  for (int k = 0; k < 5; ++k) EXPECT_GT(sim->step(), 0.0);
  EXPECT_EQ(test::check(*sim).nonfinite, 0u);
}

INSTANTIATE_TEST_SUITE_P(Solvers, NanGuard, testing::Values(0, 1, 2),
                         [](const testing::TestParamInfo<int>& info) { return std::string(solver_name(info.param)); });

}  // namespace
}  // namespace tp
