// Diffuse particles (spray, foam, bubbles; Ihmsen et al. 2012) on the CPU backend, which
// runs the same kernel bodies as CUDA: what spawns them and what does not, the cap and its
// recycling of the oldest, each kind's motion on a small scripted case, and a long run
// through every solver.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "sim/backend/backend_cpu.h"
#include "sim/neighbors/neighbor_grid.h"
#include "sim/water/diffuse_sample.h"
#include "sim_helpers.h"

using namespace tp;
using namespace tp::test;

namespace {

// A dam break small enough for a unit test: a 0.4 m column in a 1.2 m tank, 2.5 cm
// spacing (2,048 particles); the front reaches the far wall at about 0.4 s.
std::unique_ptr<Simulation> small_dam_break() {
  const Scene scene = box_scene({0, 0, 0}, {1.2f, 0.8f, 0.2f}, {0, 0, 0}, {0.4f, 0.4f, 0.2f}, 0.025f);
  return cpu_sim(scene, 0.025f);
}

void run_for(Simulation& sim, double seconds) {
  for (double t = 0.0; t < seconds;) t += sim.step();
}

bool inside(const Vec3& x, const Simulation& sim) {
  const Vec3 lo = sim.tank_lo(), hi = sim.tank_hi();
  return x.x >= lo.x && x.y >= lo.y && x.z >= lo.z && x.x <= hi.x && x.y <= hi.y && x.z <= hi.z;
}

}  // namespace

TEST(Diffuse, StillWaterSpawnsNothing) {
  const Scene scene = box_scene({0, 0, 0}, {0.6f, 0.6f, 0.3f}, {0, 0, 0}, {0.6f, 0.3f, 0.3f}, 0.02f);
  auto sim = cpu_sim(scene, 0.02f);
  ASSERT_EQ(sim->params().diffuse, 1) << "on by default";
  run_for(*sim, 0.5);
  const RunStats s = sim->stats();
  std::printf("still water: %llu steps, %llu diffuse spawned, max speed %.3f m/s\n",
              (unsigned long long)s.steps, (unsigned long long)s.diffuse.spawned, s.max_speed);
  EXPECT_EQ(s.diffuse.spawned, 0u);
  EXPECT_EQ(sim->diffuse_count(), 0u);
}

TEST(Diffuse, DamBreakImpactSpawnsAllThreeKinds) {
  auto sim = small_dam_break();
  run_for(*sim, 0.25);  // the column collapsing
  const uint64_t collapse = sim->stats().diffuse.spawned;
  run_for(*sim, 0.1);
  const uint64_t before = sim->stats().diffuse.spawned;
  run_for(*sim, 0.25);  // the front hits the far wall and climbs it
  const uint64_t impact = sim->stats().diffuse.spawned - before;
  run_for(*sim, 0.4);
  const RunStats s = sim->stats();
  std::printf("dam break: %llu spawned while the column collapses (0-0.25 s), %llu at the impact "
              "(0.35-0.6 s), %llu by 1.0 s; alive %u spray, %u foam, %u bubbles\n",
              (unsigned long long)collapse, (unsigned long long)impact,
              (unsigned long long)s.diffuse.spawned, s.diffuse.spray, s.diffuse.foam, s.diffuse.bubbles);
  EXPECT_GT(impact, 2 * std::max<uint64_t>(collapse, 10)) << "the impact spawns";
  EXPECT_GT(s.diffuse.spray, 0u);
  EXPECT_GT(s.diffuse.foam, 0u);
  EXPECT_GT(s.diffuse.bubbles, 0u);
  EXPECT_EQ(s.diffuse.total(), sim->diffuse_count());
  for (const DiffuseParticle& d : sim->diffuse_snapshot()) {
    ASSERT_TRUE(is_finite(d.position) && is_finite(d.velocity));
    ASSERT_TRUE(inside(d.position, *sim));
  }
}

TEST(Diffuse, SmallCapHoldsTheCountAndRecyclesTheOldest) {
  auto sim = small_dam_break();
  sim->params().diffuse_cap = 100;
  sim->params().diffuse_trapped_rate = sim->params().diffuse_crest_rate = 1500.0f;
  run_for(*sim, 0.8);
  const RunStats a = sim->stats();
  ASSERT_GT(a.diffuse.spawned, 1000u) << "enough spawned to overflow the cap";
  // Step by step: the count stays at the cap while spawning goes on (the exact order of
  // recycling is checked below, where the particles can be told apart).
  int full_steps = 0;
  for (int k = 0; k < 300; ++k) {
    const uint64_t spawned = sim->stats().diffuse.spawned;
    sim->step();
    const uint64_t born = sim->stats().diffuse.spawned - spawned;
    ASSERT_LE(sim->diffuse_count(), 100u);
    if (sim->diffuse_count() == 100u && born > 0) ++full_steps;
  }
  std::printf("cap 100: %d of 300 steps at the cap with particles born; %llu spawned in all\n",
              full_steps, (unsigned long long)sim->stats().diffuse.spawned);
  EXPECT_GT(full_steps, 5) << "diffuse particles are spawned once a 60 Hz frame of simulated time";

  // Through add_diffuse, exactly: past the cap the oldest go first.
  sim->params().diffuse = 0;
  sim->step();  // turning it off clears them
  EXPECT_EQ(sim->diffuse_count(), 0u);
  sim->params().diffuse = 1;
  sim->params().diffuse_cap = 5;
  std::vector<DiffuseParticle> marked;
  for (int k = 0; k < 7; ++k)
    marked.push_back(DiffuseParticle{{0.6f, 0.7f, 0.1f}, {0, 0, 0}, 1, 100.0f + float(k)});
  sim->add_diffuse({marked.begin(), marked.begin() + 3});
  sim->add_diffuse({marked.begin() + 3, marked.end()});
  const std::vector<DiffuseParticle> kept = sim->diffuse_snapshot();
  ASSERT_EQ(kept.size(), 5u);
  for (size_t k = 0; k < kept.size(); ++k) EXPECT_EQ(kept[k].lifetime, 102.0f + float(k));
}

TEST(Diffuse, SprayFliesBallisticallyAwayFromTheWater) {
  // Water in one corner of a large tank; a droplet far from it, no air drag.
  const Scene scene = box_scene({0, 0, 0}, {4.0f, 4.0f, 1.0f}, {0, 0, 0}, {0.3f, 0.2f, 0.3f}, 0.04f);
  auto sim = cpu_sim(scene, 0.04f);
  const auto quiet = [](Simulation& s) {  // nothing else spawned; a fixed step
    s.params().diffuse_trapped_rate = s.params().diffuse_crest_rate = 0.0f;
    s.params().dt_min = s.params().dt_max = 0.0005f;
  };
  quiet(*sim);
  sim->params().diffuse_spray_drag = 0.0f;
  const Vec3 x0{2.0f, 1.5f, 0.5f}, v0{1.0f, 2.0f, 0.0f};
  sim->add_diffuse({DiffuseParticle{x0, v0, 0, 1.0f}});
  double t = 0.0;
  while (t < 0.4) t += sim->step();
  const std::vector<DiffuseParticle> d = sim->diffuse_snapshot();
  ASSERT_EQ(d.size(), 1u);
  // On the parabola through x0 with v0, at the time its x says it has flown (the diffuse
  // particles are updated every few steps, so they may be a step or two behind t).
  const float g = -9.81f;
  const float flown = (d[0].position.x - x0.x) / v0.x;
  const float parabola_y = x0.y + v0.y * flown + 0.5f * g * flown * flown;
  std::printf("spray after %.3f s: flown %.4f s, at (%.5f, %.5f, %.5f); parabola y %.5f\n", t,
              flown, d[0].position.x, d[0].position.y, d[0].position.z, parabola_y);
  EXPECT_EQ(d[0].kind, 0) << "still spray";
  EXPECT_NEAR(flown, t, 0.006) << "updated at most a few milliseconds behind";
  EXPECT_NEAR(d[0].position.y, parabola_y, 1e-4f);
  EXPECT_NEAR(d[0].position.z, x0.z, 1e-6f);
  EXPECT_NEAR(d[0].velocity.y, v0.y + g * flown, 1e-3f);
  const Vec3 expected{x0.x + v0.x * float(t), 0.0f, 0.0f};

  // With air drag it falls short of the ballistic path.
  auto dragged = cpu_sim(scene, 0.04f);
  quiet(*dragged);
  dragged->params().diffuse_spray_drag = 2.0f;
  dragged->add_diffuse({DiffuseParticle{x0, v0, 0, 1.0f}});
  t = 0.0;
  while (t < 0.4) t += dragged->step();
  EXPECT_LT(dragged->diffuse_snapshot().at(0).position.x, expected.x - 0.02f);
}

TEST(Diffuse, BubbleRisesAndBecomesFoamAtTheSurface) {
  const Scene scene = box_scene({0, 0, 0}, {0.2f, 0.5f, 0.2f}, {0, 0, 0}, {0.2f, 0.3f, 0.2f}, 0.02f);
  auto sim = cpu_sim(scene, 0.02f);
  run_for(*sim, 0.05);  // let the column settle a little
  sim->add_diffuse({DiffuseParticle{{0.1f, 0.08f, 0.1f}, {0, 0, 0}, 2, 10.0f}});
  sim->step();
  ASSERT_EQ(sim->diffuse_snapshot().at(0).kind, 2) << "deep in the water it is a bubble";
  float y_prev = sim->diffuse_snapshot().at(0).position.y;
  bool rose = true;
  int foam_at = -1;
  for (int k = 0; k < 3000 && foam_at < 0; ++k) {
    sim->step();
    const DiffuseParticle b = sim->diffuse_snapshot().at(0);
    if (b.kind == 2) rose = rose && b.position.y >= y_prev - 1e-4f;
    if (b.kind == 1) foam_at = k;
    y_prev = b.position.y;
  }
  const DiffuseParticle b = sim->diffuse_snapshot().at(0);
  std::printf("bubble: foam after %d steps at y = %.3f (surface about 0.30)\n", foam_at, b.position.y);
  EXPECT_TRUE(rose) << "a bubble only rises";
  ASSERT_GE(foam_at, 0) << "it reached the surface and became foam";
  EXPECT_GT(b.position.y, 0.24f);
}

TEST(Diffuse, FoamRidesWithTheWater) {
  // No gravity; a slab of water gliding along x at 0.5 m/s through a long tank, foam on
  // its top face.
  const Scene scene = box_scene({0, 0, 0}, {3.0f, 0.5f, 0.3f}, {0.3f, 0.0f, 0.0f}, {0.7f, 0.2f, 0.3f}, 0.02f);
  InitialState state = build_initial_state(scene, 0.02f);
  state.velocity.assign(state.fluid.size(), Vec4{0.5f, 0.0f, 0.0f, 0.0f});
  auto sim = make_simulation(BackendKind::Cpu);
  sim->params().gravity_y = 0.0f;
  sim->reset(state);
  float top = 0.0f;
  for (const Vec4& p : state.fluid) top = std::max(top, p.y);
  const Vec3 start{0.5f, top + 0.005f, 0.15f};
  sim->add_diffuse({DiffuseParticle{start, {0, 0, 0}, 1, 50.0f}});
  sim->step();
  ASSERT_EQ(sim->diffuse_snapshot().at(0).kind, 1) << "on the surface it is foam";
  double t = 0.0;
  while (t < 0.4) t += sim->step();
  const DiffuseParticle f = sim->diffuse_snapshot().at(0);
  std::printf("foam after %.3f s: moved %.4f m along x (water 0.5 m/s: %.4f), velocity %.3f\n", t,
              f.position.x - start.x, 0.5 * t, f.velocity.x);
  EXPECT_EQ(f.kind, 1);
  EXPECT_NEAR(f.velocity.x, 0.5f, 0.05f);
  EXPECT_NEAR(f.position.x - start.x, 0.5 * t, 0.03);
  EXPECT_NEAR(f.lifetime, 50.0f - float(t), 0.01f) << "foam ages";
}

TEST(Diffuse, LongRunThroughEverySolverStaysFiniteInsideAndUnderTheCap) {
  auto sim = small_dam_break();
  sim->params().diffuse_cap = 1000;
  sim->params().diffuse_trapped_rate = 3000.0f;  // many spawns, many deaths
  sim->params().diffuse_crest_rate = 3000.0f;
  sim->params().diffuse_life_min = 0.2f;
  sim->params().diffuse_life_max = 0.5f;
  uint peak = 0;
  for (int k = 0; k < 1200; ++k) {
    if (k % 200 == 0) sim->params().solver = (k / 200) % 3;  // WCSPH, PCISPH, PBF, twice
    sim->step();
    peak = std::max(peak, sim->diffuse_count());
    ASSERT_LE(sim->diffuse_count(), 1000u);
  }
  const RunStats s = sim->stats();
  std::printf("long run: %.2f s simulated, %llu spawned, peak %u alive, now %u\n", s.simulated_time,
              (unsigned long long)s.diffuse.spawned, peak, sim->diffuse_count());
  EXPECT_GT(s.diffuse.spawned, 3u * 1000u) << "many spawns";
  EXPECT_EQ(peak, 1000u) << "up to the cap";
  for (const DiffuseParticle& d : sim->diffuse_snapshot()) {
    ASSERT_TRUE(is_finite(d.position) && is_finite(d.velocity) && is_finite(d.lifetime));
    ASSERT_TRUE(inside(d.position, *sim));
    ASSERT_GE(d.kind, 0);
    ASSERT_LE(d.kind, 2);
  }
  EXPECT_EQ(check(*sim).outside, 0u);
}

// The CPU's vector search of the fluid at the diffuse particles (src/sim/water/diffuse_sample.h:
// the particles of a cell together, a cell row's candidates in lanes) finds what the
// one-particle loop CUDA runs finds: the same neighbour count, and the same W-weighted mean
// velocity but for rounding (its square root is a refined reciprocal one). Random water with
// random velocities, and points inside it, beyond the grid, piled 40 into one cell (groups
// of 16 and a ragged one), and one that is not finite.
TEST(Diffuse, TheVectorSearchOfTheFluidMatchesTheOneParticleLoop) {
#if !TP_LANE_WIDTH
  GTEST_SKIP() << "this build has neither AVX-512 nor AVX2: every search runs one particle at a time";
#else
  const float h = 0.1f;
  const Vec3 lo{0, 0, 0}, hi{0.6f, 0.5f, 0.4f};
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const uint n = 3001;
  HostBuffer<Vec4> x(n), v(n), spare;
  for (uint i = 0; i < n; ++i) {
    x.data()[i] = Vec4{hi.x * u(rng), hi.y * u(rng), hi.z * u(rng), 0.0f};
    v.data()[i] = Vec4{u(rng) - 0.5f, u(rng) - 0.5f, 2.0f * u(rng), 0.0f};
  }
  NeighborGrid<CpuBackend> grid;
  grid.configure(lo, hi, h);
  grid.build(x.data(), n);
  grid.reorder(x, spare);
  grid.reorder(v, spare);
  const GridView g = grid.view();
  std::vector<float> col(6 * size_t(n));
  for (uint i = 0; i < n; ++i) {
    const Vec4 p = x.data()[i], w = v.data()[i];
    col[i] = p.x, col[n + i] = p.y, col[2 * n + i] = p.z, col[3 * n + i] = w.x, col[4 * n + i] = w.y,
    col[5 * n + i] = w.z;
  }
  const FluidColumns columns{&col[0], &col[n], &col[2 * n], &col[3 * n], &col[4 * n], &col[5 * n]};

  std::vector<Vec4> points;
  for (int k = 0; k < 2000; ++k)
    points.push_back(Vec4{-0.2f + 1.0f * u(rng), -0.2f + 0.9f * u(rng), -0.2f + 0.8f * u(rng), 1.0f});
  for (int k = 0; k < 40; ++k)
    points.push_back(Vec4{0.31f + 0.08f * u(rng), 0.21f + 0.08f * u(rng), 0.11f + 0.08f * u(rng), 1.0f});
  points.push_back(Vec4{std::nanf(""), 0.1f, 0.1f, 1.0f});
  std::vector<Vec4> out(points.size());
  DiffuseSampler sampler;
  sampler.sample<CpuBackend>(points.data(), uint(points.size()), columns, g, CubicKernel::make(h), out.data());

  FluidView f{};
  f.position = x.data();
  f.velocity = v.data();
  StepConstants c{};
  c.kernel = CubicKernel::make(h);
  int with_neighbours = 0;
  double worst = 0.0;
  for (size_t k = 0; k < points.size(); ++k) {
    const FluidSample s = sample_fluid(xyz(points[k]), f, g, c);
    ASSERT_EQ(int(out[k].w), s.neighbours) << "point " << k;
    with_neighbours += s.neighbours > 0;
    worst = std::max(worst, double(length(xyz(out[k]) - s.velocity)));
  }
  std::printf("%zu points, %d with fluid neighbours; the mean velocities differ by at most %.2g m/s\n",
              points.size(), with_neighbours, worst);
  EXPECT_GT(with_neighbours, 500);
  EXPECT_LT(worst, 1e-4) << "an unrefined rsqrt gave 6.5e-4 m/s (AVX-512) to 3e-3 (AVX2)";
  EXPECT_EQ(out.back().w, 0.0f) << "a point that is not finite has no neighbours";
#endif
}
