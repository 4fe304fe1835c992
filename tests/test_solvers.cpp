// The four solvers (WCSPH, PCISPH, PBF, DFSPH) against the same checks, on the CPU backend (the
// same kernel bodies the CUDA backend runs): a resting column, a dam break against
// experiment, live switching, and the ends of every slider.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/dfsph.h"
#include "sim_helpers.h"

using namespace tp;
using namespace tp::test;

namespace {

const SolverKind kSolvers[] = {SolverKind::Wcsph, SolverKind::Pcisph, SolverKind::Pbf, SolverKind::Dfsph};

std::string solver_test_name(const testing::TestParamInfo<SolverKind>& info) {
  return solver_name(int(info.param));
}


}  // namespace

class EachSolver : public testing::TestWithParam<SolverKind> {};
INSTANTIATE_TEST_SUITE_P(Solvers, EachSolver, testing::ValuesIn(kSolvers), solver_test_name);

// A column of water 32 spacings deep over an 8 x 8 particle floor, let go from the lattice.
TEST_P(EachSolver, RestingColumnSettlesIncompressibleAndHydrostatic) {
  const float s = 0.02f;
  auto sim = cpu_sim(box_scene(Vec3{0, 0, 0}, Vec3{8 * s, 44 * s, 8 * s}, Vec3{0, 0, 0},
                               Vec3{8 * s, 32 * s, 8 * s}, s),
                     s);
  const SolverKind kind = GetParam();
  sim->params().solver = int(kind);
  const uint n = sim->particle_count();
  ASSERT_EQ(n, 8u * 8u * 32u);
  const ColumnRecord r = settle_column(*sim, s);
  const double error = r.error, ratio = r.ratio, energy_early = r.energy_early, energy_late = r.energy_late;
  const RunStats st = sim->stats();
  std::printf("%s: mean density error %.3f %% (0.5-1.5 s), bottom pressure %.3f x rho0 g depth, "
              "kinetic energy %.2e J (0.1-0.4 s) -> %.2e J (1.2-1.5 s), %llu steps, mean dt "
              "%.2f ms, mean iterations %.1f\n",
              solver_name(int(kind)), 100.0 * error, ratio, energy_early, energy_late, (unsigned long long)st.steps,
              1e3 * st.simulated_time / st.steps, st.mean_iterations);

  // PCISPH builds each step's pressure from zero out of the predicted compression, so deep
  // water settles with its compression just under the tolerance (1 %) by construction.
  EXPECT_LT(error, kind == SolverKind::Wcsph ? 0.02 : kind == SolverKind::Dfsph ? 0.001 : 0.01)
      << "mean density error (DFSPH: at most 0.1 % at the accurate quality, issue 37)";
  if (kind != SolverKind::Pbf) {
    EXPECT_NEAR(ratio, 1.0, 0.05) << "bottom pressure / (rho0 g depth)";
  }
  EXPECT_LT(energy_late, r.rest_bound()) << "the column comes to rest";
  // DFSPH's Jacobi density solve ran to its cap, 100 iterations, every step of the still
  // column, short of its tolerance; the Chebyshev semi-iteration (kernels/dfsph.h) reaches
  // the tolerance in about 24 (3D) and 28 (2D).
  if (kind == SolverKind::Dfsph) {
    EXPECT_LT(st.mean_iterations, 40.0) << "iterations a step, both solves";
  }
  const Snapshot snap = sim->snapshot();
  const double rms = std::sqrt(2.0 * kinetic_energy(snap, sim->mass()) / (sim->mass() * n));
  EXPECT_LT(rms, 0.05) << "rms speed, m/s";
  const ParticleCheck c = check(*sim);
  EXPECT_EQ(c.nonfinite + st.nonfinite_resets, 0u);
  EXPECT_EQ(c.outside, 0u);
}

// The column spans the tank's full depth (quasi-2D: four particle layers between the
// front and back walls). L = 0.146 m as in the experiment, 20 spacings wide: 3,200 particles.
TEST_P(EachSolver, DamBreakFrontFollowsKoshizukaOka1996) {
  const float L = 0.146f, s = L / 20.0f, depth = 4 * s;
  auto sim = cpu_sim(box_scene(Vec3{0, 0, 0}, Vec3{4 * L, 3 * L, depth}, Vec3{0, 0, 0},
                               Vec3{L, 2 * L, depth}, s),
                     s);
  sim->params().solver = int(GetParam());
  sim->params().viscosity = 1e-6f;  // water; the experiment's scale leaves viscosity no part
  ASSERT_EQ(sim->particle_count(), 20u * 40u * 4u);
  const double time_scale = std::sqrt(2.0 * 9.81 / L);  // T = t * time_scale
  const double t_end = kKoshizukaOka[std::size(kKoshizukaOka) - 1].T / time_scale;

  std::vector<FrontPoint> curve{{0.0, surge_front(sim->snapshot(), s) / L}};
  while (sim->stats().simulated_time < t_end + 0.005) {
    sim->step();
    curve.push_back({sim->stats().simulated_time * time_scale, surge_front(sim->snapshot(), s) / L});
  }
  const double rms = koshizuka_oka_rms(curve, solver_name(int(GetParam())), sim->particle_count(),
                                       sim->stats().steps);
  EXPECT_LE(rms, 0.15);
  const ParticleCheck c = check(*sim);
  EXPECT_EQ(c.nonfinite + sim->stats().nonfinite_resets, 0u);
  EXPECT_EQ(c.outside, 0u);
}

namespace {

// Every ordered pair of the first three solvers once: W->P, P->B, B->W, W->B, B->P, P->W.
const std::vector<SolverKind> kSwitchOrder = {SolverKind::Wcsph, SolverKind::Pcisph, SolverKind::Pbf,
                                              SolverKind::Wcsph, SolverKind::Pbf,    SolverKind::Pcisph,
                                              SolverKind::Wcsph};
// With DFSPH (D), every ordered pair of the four: W->P, P->B, B->D, D->W, W->B, B->P, P->D,
// D->B, B->W, W->D, D->P, P->W.
const std::vector<SolverKind> kSwitchOrderWithDfsph = {
    SolverKind::Wcsph,  SolverKind::Pcisph, SolverKind::Pbf,   SolverKind::Dfsph, SolverKind::Wcsph,
    SolverKind::Pbf,    SolverKind::Pcisph, SolverKind::Dfsph, SolverKind::Pbf,   SolverKind::Wcsph,
    SolverKind::Dfsph,  SolverKind::Pcisph, SolverKind::Wcsph};

struct SwitchRecord {
  double worst_jump = 0.0;   // largest max speed in the steps after a switch / before it
  double max_speed = 0.0;    // over the whole run, m/s
  double max_error = 0.0;    // largest per-step mean density error
};

// Runs `steps_per_solver` steps with each solver of `order` in turn, the particles
// carried over; compares the top speed of the 5 steps after each switch with that of the
// 5 steps before it.
SwitchRecord switch_storm(Simulation& sim, int steps_per_solver, double speed_floor,
                          const std::vector<SolverKind>& order) {
  SwitchRecord r;
  double before = 0.0;
  for (size_t k = 0; k < order.size(); ++k) {
    sim.params().solver = int(order[k]);
    double after = 0.0, recent = 0.0;
    for (int step = 0; step < steps_per_solver; ++step) {
      sim.step();
      const RunStats st = sim.stats();
      r.max_speed = std::max(r.max_speed, st.last_max_speed);
      r.max_error = std::max(r.max_error, st.last_density_error);
      if (step < 5) after = std::max(after, st.last_max_speed);
      if (step >= steps_per_solver - 5) recent = std::max(recent, st.last_max_speed);
    }
    if (k > 0) {
      const double jump = after / std::max(before, speed_floor);
      std::printf("  %s -> %s: top speed %.3f m/s before, %.3f after\n",
                  solver_name(int(order[k - 1])), solver_name(int(order[k])),
                  before, after);
      r.worst_jump = std::max(r.worst_jump, jump);
    }
    before = recent;
  }
  return r;
}

}  // namespace

// Switching while the water settles: the column of the test above, let go, then switched
// every 40 steps through all pairs. A switch keeps the particles and continues: nothing
// lost, no compression beyond the tolerances, no burst of speed. (Measured: the top speed
// after a switch 0.19-0.53 m/s, the largest being WCSPH's own settling, 1.07 % worst mean
// compression.)
namespace {
void expect_settling_storm_calm(const std::vector<SolverKind>& order) {
  const float s = 0.02f;
  auto sim = cpu_sim(box_scene(Vec3{0, 0, 0}, Vec3{8 * s, 44 * s, 8 * s}, Vec3{0, 0, 0},
                               Vec3{8 * s, 32 * s, 8 * s}, s),
                     s);
  while (sim->stats().simulated_time < 0.3) sim->step();
  const SwitchRecord r = switch_storm(*sim, 40, 0.1, order);
  std::printf("settling: worst jump x%.2f, max speed %.3f m/s, max density error %.2f %%\n",
              r.worst_jump, r.max_speed, 100.0 * r.max_error);
  EXPECT_LT(r.max_speed, 0.8) << "m/s: a 0.64 m column settling";
  EXPECT_LT(r.max_error, 0.02);
  const ParticleCheck c = check(*sim);
  EXPECT_EQ(c.nonfinite + sim->stats().nonfinite_resets, 0u);
  EXPECT_EQ(c.outside, 0u);
  const Snapshot snap = sim->snapshot();
  float top = 0.0f;
  for (const Vec4& x : snap.position) top = std::max(top, x.y);
  EXPECT_LT(top, 34 * s) << "no water thrown above the column";
}
}  // namespace

TEST(SolverSwitch, SettlingColumnSwitchedThroughAllPairsStaysCalm) { expect_settling_storm_calm(kSwitchOrder); }

// Switching while the water sloshes: a small dam break, switched every 30 steps through
// all pairs twice while the surge runs up the far wall and falls back.
namespace {
std::unique_ptr<Simulation> sloshing_dam_break() {
  const float s = 0.02f;
  return cpu_sim(box_scene(Vec3{0, 0, 0}, Vec3{0.9f, 0.6f, 0.24f}, Vec3{0, 0, 0},
                           Vec3{0.3f, 0.4f, 0.24f}, s),
                 s);
}

void expect_sloshing_storm_bounded(const std::vector<SolverKind>& order) {
  auto sim = sloshing_dam_break();
  while (sim->stats().simulated_time < 0.05) sim->step();
  SwitchRecord r1 = switch_storm(*sim, 30, 0.5, order);
  SwitchRecord r2 = switch_storm(*sim, 30, 0.5, order);
  const double jump = std::max(r1.worst_jump, r2.worst_jump);
  const double speed = std::max(r1.max_speed, r2.max_speed);
  const double error = std::max(r1.max_error, r2.max_error);
  // The top speed is the surge's jet running up the far wall at about 0.3 s, whose speed
  // is each solver's own: alone, to the storm's end, WCSPH 6.9 m/s, DFSPH 6.0, PCISPH 5.4,
  // PBF 4.3 (a fall from the block's top gives 2.8 m/s). So the storm is held to the
  // fastest of its solvers alone, not to a fixed figure that depends on which solver the
  // jet happens to meet.
  double alone = 0.0;
  std::vector<SolverKind> seen;
  for (SolverKind kind : order) {
    if (std::find(seen.begin(), seen.end(), kind) != seen.end()) continue;
    seen.push_back(kind);
    auto solo = sloshing_dam_break();
    solo->params().solver = int(kind);
    while (solo->stats().simulated_time < sim->stats().simulated_time) {
      solo->step();
      alone = std::max(alone, solo->stats().last_max_speed);
    }
  }
  std::printf("sloshing (%.2f s): worst jump x%.2f, max speed %.3f m/s (its solvers alone: %.3f), "
              "max density error %.2f %%\n",
              sim->stats().simulated_time, jump, speed, alone, 100.0 * error);
  EXPECT_LT(jump, 2.0) << "top speed after a switch / before it (floor 0.5 m/s)";
  EXPECT_LT(speed, 1.1 * alone) << "m/s, against the fastest of its solvers alone";
  EXPECT_LT(error, 0.05);
  const ParticleCheck c = check(*sim);
  EXPECT_EQ(c.nonfinite + sim->stats().nonfinite_resets, 0u);
  EXPECT_EQ(c.outside, 0u);
}
}  // namespace

TEST(SolverSwitch, SloshingDamBreakSwitchedThroughAllPairsStaysBounded) {
  expect_sloshing_storm_bounded(kSwitchOrder);
}

// The same two storms through every pair of the four solvers. The sloshing one holds
// (2026-12-01: x1.54 worst jump, 6.41 m/s against 6.93 for WCSPH alone; 24 s, in the
// default run). The settling one carries the label `validation`: not met at 2026-12-03
// (1.147 m/s, a particle thrown up in the column's upper half on PCISPH -> DFSPH while
// DFSPH's solve runs to 110 iterations); met at this start since DFSPH's Chebyshev
// semi-iteration (2026-12-06: 0.63 m/s), but not at every start (below: 6 of 17 over). Into DFSPH and PCISPH the compression another
// solver left is let out gradually (switch_allowed_compression), and PBF eases its s_corr
// in (pbf_scorr_share: DFSPH -> PBF threw a surface particle at 0.96 m/s, now 0.69).
// Both storms' top speed depends on when the storm starts: over 17 starting times from
// 0.3 to 0.7 s (docs/solvers.md, "Switching"), the three solvers' reached 0.59 to 1.00
// m/s, 3 of 17 over the bound (before the two changes above: 0.63 to 1.72, 10 of 17),
// the four solvers' 0.61 to 1.19 m/s, 7 of 17 over (before: 0.75 to 8.23, 14 of 17);
// with DFSPH's Chebyshev semi-iteration 0.60 to 0.98 m/s, 6 of 17 over.
TEST(SolverSwitch, FourSolversSettlingColumnSwitchedThroughAllPairsStaysCalm) {
  expect_settling_storm_calm(kSwitchOrderWithDfsph);
}
TEST(SolverSwitch, FourSolversSloshingDamBreakSwitchedThroughAllPairsStaysBounded) {
  expect_sloshing_storm_bounded(kSwitchOrderWithDfsph);
}

// DFSPH's Chebyshev semi-iteration (kernels/dfsph.h): plain Jacobi (omega 1) for the first
// four updates and at tolerances looser than 0.2 %; then omega falls from 2 / (2 - r^2)
// (1.96 at r = 0.99) towards its limit 2 / (1 + sqrt(1 - r^2)) (1.75), never under it; and
// the extrapolated pressure stays >= 0.
TEST(Dfsph, ChebyshevWeightsFallToTheirLimitOnlyAtTightTolerances) {
  const double tight = 0.0005, realtime = 0.005;
  for (int u = 1; u < kDfsphChebyshevStart; ++u) EXPECT_EQ(dfsph_chebyshev_weight(u, 1.0f, tight), 1.0f);
  for (int u = 1; u < 50; ++u) EXPECT_EQ(dfsph_chebyshev_weight(u, 1.5f, realtime), 1.0f);
  const double r2 = double(kDfsphChebyshevRadius) * kDfsphChebyshevRadius;
  const double limit = 2.0 / (1.0 + std::sqrt(1.0 - r2));
  float omega = dfsph_chebyshev_weight(kDfsphChebyshevStart, 1.0f, tight);
  EXPECT_NEAR(omega, 2.0 / (2.0 - r2), 1e-5);
  for (int u = kDfsphChebyshevStart + 1; u < kDfsphChebyshevStart + 200; ++u) {
    const float next = dfsph_chebyshev_weight(u, omega, tight);
    EXPECT_LT(next, omega + 1e-6f) << u;
    EXPECT_GT(next, limit - 1e-4) << u;
    omega = next;
  }
  EXPECT_NEAR(omega, limit, 1e-3);
  // The gate as the loop hands it a tolerance (0.01 times the parameter's float percentage):
  // 0.2 % in, 0.25 % out.
  EXPECT_NE(dfsph_chebyshev_weight(kDfsphChebyshevStart, 1.0f, 0.01 * double(0.2f)), 1.0f);
  EXPECT_EQ(dfsph_chebyshev_weight(kDfsphChebyshevStart, 1.0f, 0.01 * double(0.25f)), 1.0f);
  EXPECT_FLOAT_EQ(dfsph_accelerated(3.0f, 1.0f, 1.5f), 4.0f);  // 1.5 (3 - 1) + 1
  EXPECT_EQ(dfsph_accelerated(0.0f, 2.0f, 1.75f), 0.0f);       // -1.5, kept >= 0
}

// The panel's sliders at their ends, moved while the default dam break runs, for each
// solver with its own parameters and the shared ones: the water may be violent, but values
// stay finite, inside the tank, and the bulk's speed stays within what the new forces can
// give it (a fall across the tank), with no particle beyond the speed limit.
TEST_P(EachSolver, ExtremeParameterChangesWhileRunningStayBounded) {
  struct Change {
    const char* key;
    const char* value;
  };
  std::vector<Change> changes = {{"viscosity", "0"}, {"viscosity", "0.1"}, {"gravity_y", "-100"},
                                 {"rest_density", "10000"}};
  const SolverKind kind = GetParam();
  if (kind == SolverKind::Wcsph) {
    changes.insert(changes.end(), {{"rest_density", "100"}, {"stiffness", "1000"},
                                   {"stiffness", "10000000"}, {"gravity_x", "100"},
                                   {"alpha", "0"}, {"alpha", "1"}, {"cfl", "1"},
                                   {"dt_max", "0.02"}, {"exponent", "1"}, {"exponent", "10"},
                                   {"speed_limit", "1000"}});
  } else if (kind == SolverKind::Pcisph) {
    changes.insert(changes.end(), {{"pcisph_tolerance", "0.01"}, {"pcisph_tolerance", "10"},
                                   {"pcisph_max_iterations", "1"},
                                   {"pcisph_max_iterations", "200"}, {"dt_max", "0.02"}});
  } else {
    changes.insert(changes.end(), {{"pbf_iterations", "2"}, {"pbf_iterations", "100"},
                                   {"pbf_relaxation", "0.0001"}, {"pbf_relaxation", "10"},
                                   {"pbf_scorr_k", "1"}, {"pbf_scorr_n", "2"},
                                   {"pbf_scorr_dq", "0.3"}, {"pbf_vorticity", "1"},
                                   {"pbf_xsph", "1"}, {"dt_max", "0.02"}});
  }
  const Scene scene = load_scene_file(TIDEPOOL_SOURCE_DIR "/assets/scenes/dam_break.json");
  const float s = spacing_for_count(scene, 1500);
  for (const Change& change : changes) {
    const auto t0 = std::chrono::steady_clock::now();
    auto sim = cpu_sim(scene, s);
    sim->params().solver = int(kind);
    while (sim->stats().simulated_time < 0.15) sim->step();
    std::string error;
    ASSERT_TRUE(set_param_from_text(sim->params(), change.key, change.value, &error)) << error;
    const SimParams& p = sim->params();
    const float g = length(Vec3{p.gravity_x, p.gravity_y, p.gravity_z});
    const float diagonal = length(sim->tank_hi() - sim->tank_lo());
    const double bulk_bound = std::sqrt(2.0 * std::max(g, 9.81f) * diagonal) + 2.0;
    const double start = sim->stats().simulated_time;
    double worst_rms = 0.0;
    for (int steps = 0; sim->stats().simulated_time < start + 0.3 && steps < 8000; ++steps) {
      sim->step();
      if (steps % 10 == 0) {
        const Snapshot snap = sim->snapshot();
        worst_rms = std::max(worst_rms, std::sqrt(2.0 * kinetic_energy(snap, 1.0f) / snap.velocity.size()));
      }
    }
    const ParticleCheck c = check(*sim);
    EXPECT_EQ(c.nonfinite + sim->stats().nonfinite_resets, 0u) << change.key << " = " << change.value;
    EXPECT_EQ(c.outside, 0u) << change.key << " = " << change.value;
    EXPECT_LE(sim->stats().max_speed, p.speed_limit * 1.001) << change.key << " = " << change.value;
    EXPECT_LT(worst_rms, bulk_bound) << change.key << " = " << change.value << ": rms speed, m/s";
    std::printf("%s %s=%s: %.2f s, %llu steps, rms %.2f (bound %.1f), max %.1f m/s\n",
                solver_name(int(kind)), change.key, change.value,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                (unsigned long long)sim->stats().steps, worst_rms, bulk_bound, sim->stats().max_speed);
  }
}

// PBF's tensile correction acts as a force (scaled with dt^2), not as a displacement per
// step: at a small fixed step a resting column stays at rest. (As a displacement it turned
// into speed as 1/dt: a resting pool reached 8 m/s at a fixed 0.5 ms step.)
TEST(Pbf, SmallFixedTimeStepKeepsARestingColumnCalm) {
  const float s = 0.02f;
  auto sim = cpu_sim(box_scene(Vec3{0, 0, 0}, Vec3{8 * s, 44 * s, 8 * s}, Vec3{0, 0, 0},
                               Vec3{8 * s, 32 * s, 8 * s}, s),
                     s);
  sim->params().solver = int(SolverKind::Pbf);
  sim->params().dt_min = sim->params().dt_max = 0.0005f;
  // The tenth fastest particle, not the fastest: one particle's top speed jumps between runs
  // that change the walls' push a little (1 to 1.6 lambda_i: 0.25 to 0.49 m/s, not in order,
  // where the tenth stays at 0.22 to 0.24; docs/solvers.md, PBF); the 8 m/s this guards
  // against moves them all.
  double late_max = 0.0, late_tenth = 0.0;
  while (sim->stats().simulated_time < 0.4) {
    sim->step();
    if (sim->stats().simulated_time <= 0.2) continue;
    late_max = std::max(late_max, sim->stats().last_max_speed);
    late_tenth = std::max(late_tenth, ranked_speed(sim->snapshot().velocity, 9));
  }
  std::printf("pbf at 0.5 ms: top speed %.3f m/s, tenth fastest %.3f m/s over 0.2-0.4 s, mean "
              "density error %.3f %%\n",
              late_max, late_tenth, 100.0 * sim->stats().density_error_mean);
  EXPECT_LT(late_tenth, 0.3) << "m/s";
  EXPECT_LT(sim->stats().density_error_mean, 0.01);
}

// pbf_tolerance: the loop stops at its tolerance (after at least two iterations), runs its
// cap when the tolerance is out of reach, and runs pbf_iterations exactly when it is 0.
TEST(Pbf, ToleranceStopsTheIterationsOnceTheDensityIsWithinIt) {
  const float s = 0.02f;
  struct Run {
    double mean_iterations, error;
    int max_iterations;
  };
  auto run = [&](int iterations, float tolerance) {
    auto sim = cpu_sim(box_scene(Vec3{0, 0, 0}, Vec3{8 * s, 44 * s, 8 * s}, Vec3{0, 0, 0},
                                 Vec3{8 * s, 16 * s, 8 * s}, s),
                       s);
    sim->params().solver = int(SolverKind::Pbf);
    sim->params().pbf_iterations = iterations;
    sim->params().pbf_tolerance = tolerance;
    Run r{0.0, 0.0, 0};
    while (sim->stats().simulated_time < 0.2) {
      sim->step();
      r.max_iterations = std::max(r.max_iterations, sim->stats().last_iterations);
    }
    r.mean_iterations = sim->stats().mean_iterations;
    r.error = sim->stats().density_error_mean;
    std::printf("pbf, %d iterations, tolerance %g %%: %.2f iterations (most %d), error %.4f %%\n",
                iterations, tolerance, r.mean_iterations, r.max_iterations, 100.0 * r.error);
    return r;
  };
  const Run fixed = run(7, 0.0f);
  EXPECT_DOUBLE_EQ(fixed.mean_iterations, 7.0) << "no tolerance: always pbf_iterations";
  const Run loose = run(50, 10.0f);
  EXPECT_GE(loose.mean_iterations, 2.0) << "a tolerance met at once still runs two";
  EXPECT_LT(loose.mean_iterations, 2.05) << "(the release from the lattice may need a third)";
  const Run two = run(2, 0.0f);
  const Run tight = run(100, 0.1f);
  EXPECT_GT(tight.mean_iterations, 2.0) << "0.1 % needs more than two iterations";
  EXPECT_LT(tight.mean_iterations, 100.0) << "and stops before the cap on average";
  EXPECT_LT(tight.error, 0.0012) << "the end states are about within the tolerance";
  EXPECT_LT(tight.error, 0.2 * two.error) << "five times stiffer than two fixed iterations";
  const Run capped = run(5, 1e-6f);
  EXPECT_DOUBLE_EQ(capped.mean_iterations, 5.0) << "an unreachable tolerance runs the cap";
}

// PBF at a user's large step and few iterations: a dam break at CFL 1 with steps of up to
// 1/60 s and 3 iterations. The Jacobi iterations overshoot where a falling column meets the
// floor; without a limit on each iteration's correction they diverged there (corrections
// of 2.8 spacings in one iteration), the correction-made velocities shrank the CFL step,
// which made them faster still, and particles were flung at the 50 m/s cap.
TEST(Pbf, LargeStepsWithFewIterationsDoNotFlingParticles) {
  const float s = 0.02f;
  const float top = 26 * s;  // the block falls from s above the floor and collapses
  auto sim = cpu_sim(box_scene(Vec3{0, 0, 0}, Vec3{60 * s, 40 * s, 10 * s}, Vec3{0, s, 0},
                               Vec3{16 * s, top, 10 * s}, s),
                     s);
  SimParams& p = sim->params();
  p.solver = int(SolverKind::Pbf);
  p.pbf_iterations = 3;
  p.cfl = 1.0f;
  p.dt_max = 1.0f / 60.0f;
  while (sim->stats().simulated_time < 0.6) sim->step();
  // Nothing in a dam break moves faster than a fall from its top: sqrt(2 g top), doubled
  // for the splash.
  const double bound = 2.0 * std::sqrt(2.0 * 9.81 * top);
  const ParticleCheck c = check(*sim);
  std::printf("pbf, 3 iterations, CFL 1, dt <= 1/60 s: %llu steps, top speed %.2f m/s (bound %.2f), "
              "density error mean %.3f %% max %.1f %%\n",
              (unsigned long long)sim->stats().steps, sim->stats().max_speed, bound,
              100.0 * sim->stats().density_error_mean, 100.0 * sim->stats().density_error_max);
  EXPECT_LT(sim->stats().max_speed, bound) << "m/s";
  EXPECT_LT(sim->stats().density_error_mean, 0.02) << "the interactive goal: at most 2 %";
  EXPECT_EQ(c.nonfinite, 0u);
  EXPECT_EQ(c.outside, 0u);
}
