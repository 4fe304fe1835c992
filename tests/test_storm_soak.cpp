// Abuse over time. The solver switch storm: switches at random intervals during a dam
// break stirred by random mouse forces, on every pair of solvers. The soak: the dam break
// and the water channel run side by side for a stretch of wall time, with the process's
// resident memory flat after warm-up and the particle counts conserved or steady.
// Short versions run by default; the long ones are Soak.* (label soak).
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "sim_helpers.h"

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

namespace tp {
namespace {

// ---- the switch storm -----------------------------------------------------------------

// The dam break: a block 0.3 x 0.5 x 0.25 m at one end of a 1.0 x 0.6 x 0.25 m tank,
// spacing 2.5 cm: 12 x 20 x 10 = 2,400 particles.
constexpr float kStormSpacing = 0.025f;
const Vec3 kStormTank{1.0f, 0.6f, 0.25f};

// The mouse the storm uses: the default radius and strength, a point moving at most this fast.
constexpr float kMouseMaxSpeed = 3.0f;  // [m/s]

// The bound on the top speed. Three sources of speed, each bounded by energy:
//  - a fall from the top of the tank: sqrt(2 g H);
//  - push or pull: the bump's acceleration s (1 - r/R)^2 over its radius gives at most
//    v^2 = 2 s R / 3 to a particle crossing it;
//  - drag: relaxes a particle's velocity towards the point's, at most kMouseMaxSpeed.
// Their sum, times a safety factor of 2 for splashes that combine them (pressure waves,
// a switch landing mid-collision). The solvers' own safety net (speed_limit, 50 m/s) is
// far above: a switch that throws particles shows here, not there.
double storm_speed_bound(const SimParams& p) {
  const double g = std::sqrt(double(p.gravity_x) * p.gravity_x + double(p.gravity_y) * p.gravity_y +
                             double(p.gravity_z) * p.gravity_z);
  const double fall = std::sqrt(2.0 * g * kStormTank.y);
  const double bump = std::sqrt(2.0 * p.mouse_strength * p.mouse_radius / 3.0);
  return 2.0 * (fall + bump + kMouseMaxSpeed);
}

struct StormResult {
  int switches = 0;
  uint64_t steps = 0;
  double max_speed = 0.0, bound = 0.0;
  double half_way_max = 0.0;  ///< the top speed over the first half of the switches
};

// `switches` switches between solvers a and b, each after 1 to 8 steps (seeded); at each
// switch the mouse changes: off one time in five, else a random point in the lower half of
// the tank, a random mode and a velocity of up to kMouseMaxSpeed.
StormResult switch_storm(int a, int b, int switches, unsigned seed) {
  const Scene scene = test::box_scene({0, 0, 0}, kStormTank, {0, 0, 0}, {0.3f, 0.5f, 0.25f}, kStormSpacing);
  auto sim = test::cpu_sim(scene, kStormSpacing);
  sim->params().solver = a;
  sim->params().diffuse = 0;
  const uint n0 = sim->particle_count();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> interval(1, 8), mode(0, 2), off(0, 4);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  StormResult r;
  r.bound = storm_speed_bound(sim->params());
  for (r.switches = 0; r.switches < switches; ++r.switches) {
    MouseForce m{};
    m.active = off(rng) != 0;
    m.point = Vec3{u(rng) * kStormTank.x, 0.5f * u(rng) * kStormTank.y, u(rng) * kStormTank.z};
    Vec3 dir{u(rng) - 0.5f, u(rng) - 0.5f, u(rng) - 0.5f};
    dir = dir * (1.0f / std::max(length(dir), 1e-3f));
    m.velocity = dir * (kMouseMaxSpeed * u(rng));
    sim->params().mouse_mode = mode(rng);
    sim->set_mouse(m);
    for (int k = interval(rng); k > 0; --k) sim->step();
    sim->params().solver = sim->params().solver == a ? b : a;
    if (r.switches + 1 == switches / 2) r.half_way_max = sim->stats().max_speed;
    if (r.switches % 100 == 99 || r.switches + 1 == switches) {
      const ParticleCheck c = test::check(*sim);
      EXPECT_EQ(c.nonfinite, 0u) << "after switch " << r.switches;
      EXPECT_EQ(c.outside, 0u) << "after switch " << r.switches;
    }
  }
  const RunStats st = sim->stats();
  r.steps = st.steps;
  r.max_speed = st.max_speed;
  EXPECT_EQ(sim->particle_count(), n0);
  EXPECT_EQ(st.nonfinite_resets + st.nonfinite_steps, 0u) << "the guard never had to step in";
  EXPECT_FALSE(st.halted);
  EXPECT_LE(r.max_speed, r.bound) << solver_name(a) << " <-> " << solver_name(b);
  std::printf("storm %s <-> %s: %d switches, %llu steps, %.2f s simulated, %u particles, max "
              "speed %.2f m/s (%.2f m/s half way; bound %.1f m/s)\n",
              solver_name(a), solver_name(b), r.switches, (unsigned long long)r.steps,
              st.simulated_time, n0, r.max_speed, r.half_way_max, r.bound);
  return r;
}

void storm_on_every_pair(int switches) {
  const int solvers = int(solver_names().size());
  unsigned seed = 1;
  for (int a = 0; a < solvers; ++a)
    for (int b = a + 1; b < solvers; ++b) {
      SCOPED_TRACE(std::string(solver_name(a)) + " <-> " + solver_name(b));
      switch_storm(a, b, switches, seed++);
    }
}

TEST(SwitchStorm, SixtySwitchesOnEveryPairOfSolvers) { storm_on_every_pair(60); }
TEST(Soak, SwitchStormAThousandSwitchesOnEveryPairOfSolvers) { storm_on_every_pair(1000); }

// ---- the soak -------------------------------------------------------------------------

// This process's resident memory [MB] (/proc/self/statm: pages).
double resident_mb() {
  long pages = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0.0;
  if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  std::fclose(f);
  return double(resident) * double(sysconf(_SC_PAGESIZE)) / 1e6;
}

// Both scenes run in rounds of kRound simulated seconds each (so that neither waits on
// the other's time step) for `wall_seconds` of wall time, and at least `after_warmup`
// simulated seconds past the warm-up (so that a paused or slow machine still tests
// something). Warm-up: until the dam break has run kDamSettle simulated seconds (its wave
// has crossed the tank and come back) and the channel kChannelSettle (it has filled),
// and a quarter of the wall time. After the warm-up:
//  - resident memory stays within kRssTolerance of its value at the end of the warm-up
//    (curve printed: start, after warm-up, every tenth of the run, end);
//  - the dam break (no emitter, no outflow) keeps every particle;
//  - the channel's count (an emitter in, a weir out) stays within 10 % of its mean after
//    the warm-up, and it keeps renewing its water (emitted and removed both grow).
constexpr double kRound = 0.05;          // [s] simulated
constexpr double kDamSettle = 3.0;       // [s] simulated
constexpr double kChannelSettle = 6.0;   // [s] simulated
constexpr double kRssTolerance = 2.0;    // [MB]: allocator noise; a leak of one particle
                                         // array per minute would be several times that
void soak(double wall_seconds, double after_warmup, uint64_t dam_particles, uint64_t channel_particles,
          int dam_solver) {
  const std::string dir = TIDEPOOL_SOURCE_DIR "/assets/scenes";
  const Scene dam_scene = find_scene("dam_break", dir), channel_scene = find_scene("water_channel", dir);
  auto dam = test::cpu_sim(dam_scene, spacing_for_count(dam_scene, dam_particles));
  if (dam_solver >= 0) dam->params().solver = dam_solver;
  auto channel = test::cpu_sim(channel_scene, spacing_for_count(channel_scene, channel_particles));
  channel->params().solver = int(SolverKind::Pbf);  // at its interactive settings
  channel->params().pbf_iterations = 3;
  const uint dam_n = dam->particle_count();

  const auto t0 = std::chrono::steady_clock::now();
  auto wall = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  std::vector<std::pair<double, double>> curve{{0.0, resident_mb()}};  // (wall s, MB)
  double warm_rss = 0.0, warm_wall = 0.0, warm_time = 0.0, next_sample = 0.0, rss_max_after = 0.0;
  uint low = ~0u, high = 0;
  double count_sum = 0.0;
  uint64_t samples = 0, emitted_warm = 0, removed_warm = 0;
  while (true) {
    const double w = wall();
    const bool warm = warm_wall > 0.0;
    if (warm && w >= wall_seconds && channel->simulated_time() >= warm_time + after_warmup) break;
    dam->advance(kRound, 0.0);
    channel->advance(kRound, 0.0);
    if (!warm) {
      if (w >= 0.25 * wall_seconds && dam->simulated_time() >= kDamSettle &&
          channel->simulated_time() >= kChannelSettle) {
        warm_wall = w;
        warm_time = channel->simulated_time();
        warm_rss = resident_mb();
        curve.emplace_back(w, warm_rss);
        next_sample = w + 0.1 * wall_seconds;
        const RunStats st = channel->stats();
        emitted_warm = st.emitted;
        removed_warm = st.removed;
      }
      continue;
    }
    const uint n = channel->particle_count();
    low = std::min(low, n);
    high = std::max(high, n);
    count_sum += n;
    ++samples;
    const double rss = resident_mb();
    rss_max_after = std::max(rss_max_after, rss);
    if (w >= next_sample) {
      curve.emplace_back(w, rss);
      next_sample += 0.1 * wall_seconds;
    }
  }
  curve.emplace_back(wall(), resident_mb());
  const RunStats ds = dam->stats(), cs = channel->stats();
  std::printf("soak: %.0f s of wall time; dam break %u particles, %.1f s simulated, %llu steps; "
              "channel %.1f s simulated, %llu steps\n",
              wall(), dam_n, ds.simulated_time, (unsigned long long)ds.steps, cs.simulated_time,
              (unsigned long long)cs.steps);
  std::printf("soak: resident memory [MB] at wall time [s]:");
  for (const auto& [w, mb] : curve) std::printf(" %.0f s %.1f;", w, mb);
  std::printf(" start %.1f, after warm-up (%.0f s) %.1f, end %.1f, most after warm-up %.1f\n",
              curve.front().second, warm_wall, warm_rss, curve.back().second, rss_max_after);
  const double mean = count_sum / double(samples);
  std::printf("soak: channel count after warm-up %u-%u (mean %.0f); emitted %llu, removed %llu "
              "(after warm-up: +%llu, +%llu)\n",
              low, high, mean, (unsigned long long)cs.emitted, (unsigned long long)cs.removed,
              (unsigned long long)(cs.emitted - emitted_warm), (unsigned long long)(cs.removed - removed_warm));
  if (kAddressSanitizer)  // it holds freed blocks back (its quarantine, 256 MB) to catch reuse
    std::printf("soak: AddressSanitizer build: resident memory includes its quarantine of freed "
                "blocks, so its flatness is not checked here (the plain build checks it)\n");
  else
    EXPECT_LE(rss_max_after, warm_rss + kRssTolerance) << "resident memory grew after warm-up";
  EXPECT_EQ(dam->particle_count(), dam_n) << "the dam break keeps every particle";
  EXPECT_GT(low, 0.9 * mean);
  EXPECT_LT(high, 1.1 * mean);
  EXPECT_GT(cs.emitted, emitted_warm) << "the channel's inflow kept running";
  EXPECT_GT(cs.removed, removed_warm) << "the channel's weir kept draining";
  for (Simulation* sim : {dam.get(), channel.get()}) {
    const ParticleCheck c = test::check(*sim);
    EXPECT_EQ(c.nonfinite + c.outside, 0u);
    EXPECT_EQ(sim->stats().nonfinite_steps, 0u);
  }
}

// The short one: small scenes (about 400 and 600 particles), 20 s of wall time, PBF on
// both (its time step is the largest: the fewest steps to the channel's warm-up).
TEST(SoakShort, DamBreakAndChannelHoldMemoryAndCounts) {
  soak(20.0, 2.0, 400, 600, int(SolverKind::Pbf));
}
// Ten minutes of wall time at about 2,000 (dam break, on the scene's own solver) and
// 1,200 particles (channel).
TEST(Soak, DamBreakAndChannelTenMinutes) { soak(600.0, 10.0, 2000, 1200, -1); }

}  // namespace
}  // namespace tp
