// Rigid bodies in the water (issue 36): the coupling's bookkeeping and the floating bodies'
// physics, on the CPU backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>

#include "sim/io/state_file.h"
#include "sim/water/body_edits.h"
#include "bodies_pool.h"

namespace tp::test {
namespace {


// The water's surface far from the body: the mean over the particles within `band` of the
// tank's side walls (x) of the highest particle per column, plus half a spacing. Columns
// are one spacing across in x and, in 3D, in z (the highest of a whole slab across the
// tank would read its highest wave, not its level).
float far_surface(const Snapshot& snap, float spacing, float x_lo, float x_hi, float band) {
  double sum = 0.0;
  int columns = 0;
  for (float x = x_lo + 0.5f * spacing; x < x_hi; x += spacing) {
    if (x > x_lo + band && x < x_hi - band) continue;
    std::map<int, float> top;  // per z column (one in 2D)
    for (const Vec4& p : snap.position)
      if (std::fabs(p.x - x) < 0.5f * spacing) {
        const auto [it, first] = top.try_emplace(int(std::floor(p.z / spacing)), p.y);
        if (!first) it->second = std::max(it->second, p.y);
      }
    for (const auto& [z, y] : top) {
      sum += y;
      ++columns;
    }
  }
  return columns ? float(sum / columns) + 0.5f * spacing : 0.0f;
}


// A state file holds the bodies' whole state: a run restored from one mid-way goes on bit
// for bit as the run it came from (bodies falling into the water, every solver).
TEST(Bodies, AStateFileWithBodiesContinuesExactly) {
  for (const char* solver : {"pbf", "pcisph", "wcsph"}) {
    SCOPED_TRACE(solver);
    const Scene scene = pool_with_body(
        2, 0.02f, 0.3f,
        "{\"shape\": \"box\", \"position\": [-0.2, 0.4, 0], \"size\": [0.2, 0.08, 0.08], \"density\": 500, "
        "\"rotation\": [0, 0, 20]},"
        "{\"shape\": \"sphere\", \"position\": [0.25, 0.45, 0], \"radius\": 0.06, \"density\": 1500}");
    auto a = cpu_sim(scene, 0.02f);
    a->params().solver = int(solver_named(solver));
    while (a->simulated_time() < 0.3) a->step();
    const std::string bytes = encode_state(a->capture(), "test");
    auto b = make_simulation(BackendKind::Cpu);
    b->restore(decode_state(bytes, "test.tpstate", nullptr));
    for (int step = 0; step < 40; ++step) {
      a->step();
      b->step();
    }
    const std::vector<BodySpec> ba = a->bodies(), bb = b->bodies();
    ASSERT_EQ(ba.size(), 2u);
    ASSERT_EQ(bb.size(), 2u);
    for (size_t k = 0; k < 2; ++k) {
      EXPECT_EQ(ba[k].pose.position.x, bb[k].pose.position.x);
      EXPECT_EQ(ba[k].pose.position.y, bb[k].pose.position.y);
      EXPECT_EQ(ba[k].pose.orientation.w, bb[k].pose.orientation.w);
      EXPECT_EQ(ba[k].pose.orientation.z, bb[k].pose.orientation.z);
      EXPECT_EQ(ba[k].motion.velocity.y, bb[k].motion.velocity.y);
    }
    const Snapshot sa = a->snapshot(), sb = b->snapshot();
    ASSERT_EQ(sa.position.size(), sb.position.size());
    size_t differ = 0;
    for (size_t i = 0; i < sa.position.size(); ++i)
      differ += sa.position[i].x != sb.position[i].x || sa.position[i].y != sb.position[i].y;
    EXPECT_EQ(differ, 0u);
    EXPECT_GT(std::fabs(ba[0].pose.position.y - 0.4f), 0.01f) << "the box should have moved";
  }
}

// A body placed overlapping the water (SPlisHSPlasH's issue 56: it explodes there): the
// water inside it, or within 0.4 spacings of its surface, is removed at load, and nothing
// bursts: in 3D, on every solver, a box half in the water (at its draft) and a ball wholly
// under it (1,100 kg/m^3) keep the water's top speed under what a fall from the box's top
// to the surface would give (sqrt(2 g 0.075) = 1.2 m/s, doubled) over 0.4 s, and no
// particle's centre is ever more than a quarter spacing inside either (the clamp's
// guarantee, kernels/boundary.h).
TEST(Bodies, ABodyPlacedInTheWaterDisplacesItWithoutABurst) {
  const float sp = 0.025f;
  const std::string box = "{\"shape\": \"box\", \"position\": [-0.25, 0.3, 0], \"size\": [0.25, 0.15, 0.2], \"density\": 500}";
  const std::string ball = "{\"shape\": \"sphere\", \"position\": [0.25, 0.15, 0], \"radius\": 0.08, \"density\": 1100}";
  const uint pool_count = cpu_sim(pool_with_body(3, sp, 0.3f, ""), sp)->particle_count();
  for (const char* solver : {"pbf", "pcisph", "wcsph"}) {
    SCOPED_TRACE(solver);
    auto sim = cpu_sim(pool_with_body(3, sp, 0.3f, box + "," + ball), sp);
    sim->params().solver = int(solver_named(solver));
    const auto nearest = [&] {  // the least signed distance of a particle's centre to a body [spacings]
      float least = INFINITY;
      const std::vector<BodySpec> bodies = sim->bodies();
      for (const Vec4& x : sim->snapshot().position) {
        for (const BodySpec& b : bodies)
          least = std::min(least, solid_distance(solid_of(b), rotate_inverse(b.pose.orientation, xyz(x) - b.pose.position)));
      }
      return least / sp;
    };
    EXPECT_GE(nearest(), 0.4f - 1e-3f) << "at load: none within 0.4 spacings of a body";
    // What went: the volume the bodies displace (half the box, the whole ball), and at most
    // the shell of 0.4 spacings plus half a lattice cell over their wet surfaces.
    const float pi = 3.14159265f, r = 0.08f;
    const float displaced = 0.5f * 0.25f * 0.15f * 0.2f + 4.0f / 3.0f * pi * r * r * r;
    const float wet = 0.25f * 0.2f + 2.0f * (0.25f + 0.2f) * 0.075f + 4.0f * pi * r * r;
    const float removed = float(pool_count - sim->particle_count()) * sp * sp * sp;
    std::printf("[ overlap ] %s: removed %.5f m^3, displaced %.5f, shell %.5f\n", solver, removed, displaced, wet * 0.9f * sp);
    EXPECT_GT(removed, 0.9f * displaced);
    EXPECT_LT(removed, displaced + wet * 0.9f * sp);
    float deepest = 0.0f;
    for (int step = 1; sim->simulated_time() < 0.4; ++step) {
      sim->step();
      if (step % 10 == 0) deepest = std::max(deepest, -nearest());
    }
    deepest = std::max(deepest, -nearest());
    const float top_speed = float(sim->stats().max_speed);
    std::printf("[ overlap ] %s: %u particles, top speed %.3f m/s, deepest inside a body %.3f spacings\n", solver,
                sim->particle_count(), top_speed, deepest);
    EXPECT_LT(top_speed, 2.0f * std::sqrt(2.0f * 9.81f * 0.075f));
    EXPECT_LE(deepest, 0.25f + 1e-3f);
  }
}

// The floating_2d scene at its own spacing: the three blocks (300, 700, 950 kg/m^3) float
// with their tops above the water, the disc (1,200 kg/m^3) lies on the floor.
TEST(Bodies, TheFloatingSceneFloatsThreeBlocksAndSinksTheDisc2D) {
  const Scene scene = load_scene_file(std::string(TIDEPOOL_SOURCE_DIR) + "/assets/scenes/floating_2d.json");
  auto sim = cpu_sim(scene, scene.spacing);  // on the scene's own solver
  while (sim->simulated_time() < 4.0) sim->step();
  const std::vector<BodySpec> b = sim->bodies();
  ASSERT_EQ(b.size(), 4u);
  const float surface = far_surface(sim->snapshot(), scene.spacing, -1.0f, 1.0f, 0.1f);
  for (int k = 0; k < 3; ++k) {
    const float top = b[size_t(k)].pose.position.y + b[size_t(k)].half_extent.y;  // (they turn little)
    const float bottom = b[size_t(k)].pose.position.y - b[size_t(k)].half_extent.y;
    std::printf("[ floating_2d ] block %d (%.0f kg/m^3): bottom %.3f m, top %.3f m, surface %.3f m\n", k,
                b[size_t(k)].density, bottom, top, surface);
    EXPECT_GT(top, surface) << "block " << k << " should float";
    EXPECT_LT(bottom, surface) << "block " << k << " should be in the water";
  }
  const float disc_bottom = b[3].pose.position.y - b[3].radius;
  const double top_speed = sim->stats().max_speed;
  std::printf("[ floating_2d ] disc: bottom %.4f m; the water's top speed %.2f m/s\n", disc_bottom, top_speed);
  EXPECT_LT(disc_bottom, 0.01f) << "the disc should lie on the floor";
  EXPECT_LT(length(b[3].motion.velocity), 0.05f);
  // Nothing is thrown: the disc lands on the water at 1.5 m/s (a fall of 0.12 m), and the
  // splash may be twice that and more. Water jammed under the disc as it settled on the
  // floor was thrown at 50 m/s before PCISPH let jammed particles down gradually.
  EXPECT_LT(top_speed, 2.0 * 2.0 * std::sqrt(2.0 * 9.81 * 0.12));
  // Nor is water crushed: while the loop measured its prediction against the bodies where
  // they were and not where they went, water ahead of the disc was pressed 12 % a step,
  // and PCISPH's jam relief let it ratchet to 8.8 rho0 under the disc (9.8 % since).
  const double worst = sim->stats_as_stepped().density_error_max;
  std::printf("[ floating_2d ] the most compressed particle of the run: %.1f %%\n", 100.0 * worst);
  EXPECT_LT(worst, 0.2);
}

// The same scene switched to PBF at the realtime quality (the window's default quality; 5
// iterations in 2D): a pool 40 particles deep. At the quality's frame steps the water
// compressed 7 % within 0.1 s and burst at the 50 m/s limit; its steps are now held to
// what the iterations hold up in 2D (pbf_holding_step).
TEST(Bodies, TheFloatingScene2DHoldsOnPbfAtTheRealtimeQuality) {
  const Scene scene = load_scene_file(std::string(TIDEPOOL_SOURCE_DIR) + "/assets/scenes/floating_2d.json");
  auto sim = make_simulation(BackendKind::Cpu);
  apply_scene_params(scene, sim->params());
  sim->params().solver = int(SolverKind::Pbf);  // (the quality's preset is the solver's)
  apply_quality(sim->params(), Quality::Realtime, BackendKind::Cpu, 2);
  sim->reset(build_initial_state(scene, scene.spacing));
  while (sim->simulated_time() < 1.5) sim->step();
  const RunStats st = sim->stats();
  std::printf("[ floating_2d, PBF realtime ] %u particles, %llu steps (%.2f ms on average): top speed %.2f m/s, "
              "mean compression %.2f %%\n", sim->particle_count(), (unsigned long long)st.steps,
              1e3 * st.simulated_time / double(st.steps), st.max_speed, 100.0 * st.density_error_mean);
  EXPECT_LT(st.max_speed, 2.0 * 2.0 * std::sqrt(2.0 * 9.81 * 0.12));  // as on PCISPH (above)
  EXPECT_LT(st.density_error_mean, 0.03);
  const ParticleCheck c = check(*sim);
  EXPECT_EQ(c.nonfinite, 0u);
  EXPECT_EQ(c.outside, 0u);
}

// The window's default: the 3D floating scene on PBF at the realtime quality. Its boxes
// must come to rest at their drafts, as at the accurate quality (0.006 m/s there after
// 5 s), not bob: over the 5th and 6th seconds each box's vertical speed, sampled every
// step, is under 0.1 m/s rms (the draft tests' bound for a box at rest). With the warm
// start's half share and the bodies moved at the end of the step they bobbed at 0.28, 0.21
// and 0.18 m/s rms, the 300 kg/m^3 box at up to 0.75 m/s (pbf.h, kPbfWarmStartWithBodies
// and pbf_predict; with the bodies moved first, still 0.11 m/s rms at the half share). At
// the window's count on this machine (8,100 particles, docs/scenes.md), about 11 s.
TEST(Bodies, TheFloatingScenesBoxesComeToRestOnPbfAtTheRealtimeQuality) {
  const Scene scene = load_scene_file(std::string(TIDEPOOL_SOURCE_DIR) + "/assets/scenes/floating.json");
  auto sim = make_simulation(BackendKind::Cpu);
  apply_scene_params(scene, sim->params());
  sim->params().solver = int(SolverKind::Pbf);
  apply_quality(sim->params(), Quality::Realtime, BackendKind::Cpu, 3);
  sim->reset(build_initial_state(scene, spacing_for_count(scene, 8100)));
  while (sim->simulated_time() < 4.0) sim->step();
  std::vector<double> sum2(3, 0.0), most(3, 0.0);
  int samples = 0;
  while (sim->simulated_time() < 6.0) {
    sim->step();
    const std::vector<BodySpec> b = sim->bodies();
    for (size_t k = 0; k < 3; ++k) {
      const double vy = b[k].motion.velocity.y;
      sum2[k] += vy * vy;
      most[k] = std::max(most[k], std::fabs(vy));
    }
    ++samples;
  }
  const std::vector<BodySpec> b = sim->bodies();
  std::printf("[ floating, PBF realtime ] mean compression over the run %.2f %%\n",
              100.0 * sim->stats().density_error_mean);
  for (size_t k = 0; k < 3; ++k) {
    const double rms = std::sqrt(sum2[k] / samples);
    std::printf("[ floating, PBF realtime ] box %zu (%.0f kg/m^3): centre %.3f m, vertical speed %.3f m/s rms, "
                "%.3f at most (%d steps)\n", k, b[k].density, b[k].pose.position.y, rms, most[k], samples);
    EXPECT_LT(rms, 0.1) << "box " << k << " should rest at its draft";
  }
  // The water the cap leaves a little more compressed (1.2 % here, 1.0 % at the half share), still whole.
  EXPECT_LT(sim->stats().density_error_mean, 0.03);
  const ParticleCheck c = check(*sim);
  EXPECT_EQ(c.nonfinite, 0u);
  EXPECT_EQ(c.outside, 0u);
}

// The pools of the switch and the hydrostatics tests: water 0.3 m deep in a tank of
// half-extents tank_hi (x from -tank_hi.x to tank_hi.x).
struct PoolShape {
  int dimensions;
  float spacing, far;  // far: |x| beyond which the hydrostatics test reads the floor
  Vec3 tank_hi;
  double floor_area() const { return dimensions == 3 ? 4.0 * double(tank_hi.x) * tank_hi.z : 2.0 * tank_hi.x; }
  // The far surface (far_surface) within `band` of the side walls.
  float surface(const Snapshot& snap, float band) const { return far_surface(snap, spacing, -tank_hi.x, tank_hi.x, band); }
};

const PoolShape kPool2D{2, 0.01f, 0.35f, Vec3{0.6f, 0.6f, 0.3f}};
const PoolShape kPool3D{3, 0.025f, 0.3f, Vec3{0.5f, 0.6f, 0.2f}};

// The switch: in the same pool a body of 980 kg/m^3 rises and floats, one of 1,020 sinks to
// the floor. Both start at rest wholly under water, at mid-depth: dropped onto the water
// instead, a body a few spacings tall whose density is within 2 % of the water's hangs
// awash, because particle water cannot close over a flat top until the top is about a
// spacing under the surface, and at that depth the pressure under the body holds up
// (h + s) / h times its volume of water (docs/bodies.md, "The switch").
void expect_switch(int dimensions, const char* solver) {
  const bool d3 = dimensions == 3;
  const PoolShape& pool = d3 ? kPool3D : kPool2D;
  const float s = pool.spacing, half_height = d3 ? 0.05f : 0.04f;
  const std::string size = d3 ? "[0.2, 0.1, 0.2]" : "[0.2, 0.08, 0.08]";
  const Scene scene = pool_with_body(
      dimensions, s, 0.3f,
      "{\"shape\": \"box\", \"position\": [-0.25, 0.15, 0], \"size\": " + size + ", \"density\": 980},"
      "{\"shape\": \"box\", \"position\": [0.25, 0.15, 0], \"size\": " + size + ", \"density\": 1020}",
      pool.tank_hi);
  auto sim = cpu_sim(scene, s);
  sim->params().solver = int(solver_named(solver));
  for (double t = 0.5; t <= 4.0; t += 0.5) {
    while (sim->simulated_time() < t) sim->step();
    const std::vector<BodySpec> b = sim->bodies();
    std::printf("[ switch %dD ] %s at %.1f s: 980 top %.4f m, 1020 bottom %.4f m\n", dimensions, solver, t,
                b[0].pose.position.y + half_height, b[1].pose.position.y - half_height);
  }
  const std::vector<BodySpec> b = sim->bodies();
  const float surface = pool.surface(sim->snapshot(), d3 ? 0.1f : 0.12f);
  std::printf("[ switch %dD ] %s: %u particles, surface %.4f m\n", dimensions, solver, sim->particle_count(), surface);
  EXPECT_GT(b[0].pose.position.y + half_height, surface - 0.2f * s) << "980 kg/m^3 rises and floats";
  EXPECT_LT(b[1].pose.position.y - half_height, 0.4f * s) << "1020 kg/m^3 sinks to the floor";
}

class BodiesSwitch : public testing::TestWithParam<const char*> {};
TEST_P(BodiesSwitch, NineEightyFloatsAndTenTwentySinks2D) { expect_switch(2, GetParam()); }
TEST_P(BodiesSwitch, NineEightyFloatsAndTenTwentySinks3D) { expect_switch(3, GetParam()); }
INSTANTIATE_TEST_SUITE_P(Bodies, BodiesSwitch, testing::Values("pbf", "pcisph", "wcsph", "dfsph"),
                         [](const testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

// The level at which the far water's pressure extrapolates to zero: a straight line
// through the pressures of the particles within `band` of the side walls, from 0.1 m up
// to three spacings under `surface` (the pressure solvers; PBF has none: NaN).
double pressure_zero_level(const Snapshot& snap, float spacing, float half_width, float band, float surface) {
  double n = 0, sy = 0, sp = 0, syy = 0, syp = 0;
  for (size_t i = 0; i < snap.position.size(); ++i) {
    const Vec4& q = snap.position[i];
    if (std::fabs(q.x) < half_width - band || q.y < 0.1f || q.y > surface - 3.0f * spacing) continue;
    n += 1;
    sy += q.y;
    sp += snap.pressure[i];
    syy += double(q.y) * q.y;
    syp += double(q.y) * snap.pressure[i];
  }
  if (n < 3) return NAN;
  const double slope = (n * syp - sy * sp) / (n * syy - sy * sy);
  if (!(slope < 0.0)) return NAN;
  return -(sp - slope * sy) / n / slope;
}

// The pool a draft is measured in: the box's height and footprint, the water's depth, the
// tank's half extents, and the band along the side walls (x) where the far water is read.
struct DraftPool {
  float height, width, depth;
  Vec3 tank_hi;
  float band;
};
// 2D: a box 0.24 x 0.08 m in water 0.3 m deep, 1.2 m wide. 3D: a box 0.24 x 0.16 x 0.24 m
// in water 0.25 m deep, 0.8 x 0.6 m.
DraftPool draft_pool(int dimensions) {
  return dimensions == 2 ? DraftPool{0.08f, 0.24f, 0.3f, Vec3{0.6f, 0.6f, 0.3f}, 0.15f}
                         : DraftPool{0.16f, 0.24f, 0.25f, Vec3{0.4f, 0.5f, 0.3f}, 0.1f};
}

// The box's rms speed over the averaged second, at most (2026-12-02, m/s rms at 300, 500,
// 800 kg/m^3: 2D PBF 0.056, 0.012, 0.014, PCISPH 0.006 to 0.008, WCSPH 0.025 to 0.033,
// DFSPH 0.270, 0.201, 0.050; 3D 0.003 (PCISPH) to 0.048 (DFSPH at 300)).
constexpr double kDraftRestSpeed = 0.1;  // [m/s]

// Archimedes, in 2D or 3D: a box twice as wide as tall (or more) of density rho comes to
// rest at a draft of rho / rho_water times its height (the far-field surface minus its
// lowest point, averaged over a second at rest), within 3 % of its height. The tests average
// the third second: over the second second PBF's 300 kg/m^3 box, still settling, read
// +3.2 % (+0.2 % over the third, +0.4 % over the fourth).
// In 2D the box is 0.08 m tall, 8 spacings at 0.01 m and 16 at 0.005. The pressure solvers
// float it high by a fraction of a spacing (2026-12-02: PCISPH -3.2, -3.2, -4.0 % of the height at
// 0.01 m, -1.0, -0.8, -1.4 % at 0.005 m; WCSPH -3.6, -2.2, -4.3 % and -2.2, -2.2, -2.9 %).
// Printed beside it, where the far water's pressure extrapolates to zero, against the
// surface the particles show (the top particles plus half a spacing): PCISPH's a third of a
// spacing above it, WCSPH's on it, so that is not the whole of it (docs/bodies.md).
void expect_draft(int dimensions, const char* solver, float density, float settle, float within, float s) {
  const DraftPool pool = draft_pool(dimensions);
  const float height = pool.height;
  const float draft = density / 1000.0f * height;
  const float y = pool.depth - draft + 0.5f * height;  // its centre where it floats
  const std::string w = std::to_string(pool.width);
  const Scene scene = pool_with_body(
      dimensions, s, pool.depth,
      "{\"shape\": \"box\", \"position\": [0, " + std::to_string(y) + ", 0], \"size\": [" + w + ", " +
          std::to_string(height) + ", " + (dimensions == 2 ? std::string("0.08") : w) +
          "], \"density\": " + std::to_string(density) + "}",
      pool.tank_hi);
  auto sim = cpu_sim(scene, s);
  sim->params().solver = int(solver_named(solver));
  while (sim->simulated_time() < settle) sim->step();
  double sum = 0.0, zero_sum = 0.0, fastest = 0.0, speed2 = 0.0;
  int samples = 0, zeros = 0, steps = 0;
  double t_next = settle;
  const float half_width = pool.tank_hi.x;
  while (sim->simulated_time() < settle + 1.0) {
    sim->step();
    const double speed = length(sim->bodies()[0].motion.velocity);
    fastest = std::max(fastest, speed);
    speed2 += speed * speed;
    ++steps;
    if (sim->simulated_time() < t_next) continue;
    t_next += 0.05;
    const BodySpec b = sim->bodies()[0];
    const Snapshot snap = sim->snapshot();
    const float surface = far_surface(snap, s, -half_width, half_width, pool.band);
    sum += surface - (b.pose.position.y - 0.5f * height);
    ++samples;
    const double zero = pressure_zero_level(snap, s, half_width, pool.band, surface);
    if (!std::isnan(zero)) {
      zero_sum += zero - surface;
      ++zeros;
    }
  }
  const double measured = sum / samples, rms = std::sqrt(speed2 / std::max(steps, 1));
  char zero[64] = "no pressure";
  if (zeros) std::snprintf(zero, sizeof zero, "%.2f spacings above the surface", zero_sum / zeros / s);
  std::printf("[ draft %dD ] %s density %.0f, spacing %.3f m: %.4f m, Archimedes %.4f m (%+.1f %% of the height); "
              "the pressure's zero: %s; the box's speed %.3f m/s rms, at most %.3f\n",
              dimensions, solver, density, s, measured, draft, 100.0 * (measured - draft) / height, zero, rms, fastest);
  EXPECT_NEAR(measured, draft, within * height) << solver << " at " << density << " kg/m^3";
  // At rest: a box bobbing through the second would make its mean draft say little
  // (DFSPH's light boxes bounce on the water in 2D, up to 0.77 m/s: docs/bodies.md).
  EXPECT_LT(rms, kDraftRestSpeed) << solver << " at " << density << " kg/m^3: the box comes to rest";
}

// Archimedes at its root, apart from where the surface is: the water's force on a box held
// still wholly under water (0.2 x 0.08 m, or 0.2 x 0.08 x 0.2 m, its centre 0.15 m down in
// water 0.3 m deep, over 0.5 s after 1 s) is the weight of the water it displaces, rho g V,
// within 2 %. The water taken out at load is exactly the box's volume here, and it rests
// half a spacing from the faces as it does on the floor.
void expect_held_buoyancy(int dimensions, const char* solver, float within) {
  const Vec3 size{0.2f, 0.08f, 0.2f};
  const float s = dimensions == 2 ? 0.01f : 0.02f, depth = 0.3f;
  const Scene scene = pool_with_body(dimensions, s, depth,
                                     "{\"shape\": \"box\", \"kinematic\": true, \"position\": [0, 0.15, 0], \"size\": [" +
                                         std::to_string(size.x) + ", " + std::to_string(size.y) + ", " +
                                         std::to_string(size.z) + "]}",
                                     dimensions == 2 ? Vec3{0.6f, 0.6f, 0.3f} : Vec3{0.3f, 0.6f, 0.3f});
  auto sim = cpu_sim(scene, s);
  sim->params().solver = int(solver_named(solver));
  while (sim->simulated_time() < 1.0) sim->step();
  Vec3 sum{0, 0, 0};
  int samples = 0;
  while (sim->simulated_time() < 1.5) {
    sim->step();
    sum = sum + sim->body_fluid_force(0);
    ++samples;
  }
  const Vec3 f = sum * (1.0f / float(samples));
  // Where the water rests against the box's faces (its first layer's centres, in spacings
  // from the face; half a spacing is where it rests on the tank's floor).
  const Snapshot snap = sim->snapshot();
  const float top = 0.15f + 0.5f * size.y, bottom = 0.15f - 0.5f * size.y;
  auto mid = [&](const Vec4& q) { return std::fabs(q.x) < 0.06f && (dimensions == 2 || std::fabs(q.z) < 0.06f); };
  float above = 1e9f, below = 1e9f;
  for (const Vec4& q : snap.position) {
    if (mid(q) && q.y > top) above = std::min(above, q.y - top);
    if (mid(q) && q.y < bottom) below = std::min(below, bottom - q.y);
  }
  const double volume = dimensions == 2 ? double(size.x) * size.y : double(size.x) * size.y * size.z;
  const double expected = 1000.0 * 9.81 * volume;
  std::printf("[ held ] %dD %s: force (%.2f, %.2f, %.2f) N, rho g V %.2f N (%+.2f %%); nearest water %.2f "
              "spacings above the top, %.2f below the bottom\n",
              dimensions, solver, f.x, f.y, f.z, expected, 100.0 * (f.y - expected) / expected, above / s, below / s);
  EXPECT_NEAR(f.y, expected, within * expected);
  // PBF's water is held off a body's faces by its projection (pbf_project_from_bodies) where
  // the pressure solvers' pressure holds it: at half a spacing, as on the tank's floor.
  // (Without the projection PBF's rested 0.14 spacings away, and the force fell 5.5 % short.)
  if (std::string(solver) == "pbf") {
    EXPECT_GT(above, 0.45f * s) << "PBF's water rests half a spacing above the box's top";
    EXPECT_GT(below, 0.45f * s) << "and half a spacing below its bottom";
  }
}

class BodiesHeld : public ::testing::TestWithParam<const char*> {};

TEST_P(BodiesHeld, UnderWaterTheForceIsTheDisplacedWeight2D) { expect_held_buoyancy(2, GetParam(), 0.02f); }

TEST_P(BodiesHeld, UnderWaterTheForceIsTheDisplacedWeight3D) { expect_held_buoyancy(3, GetParam(), 0.02f); }

INSTANTIATE_TEST_SUITE_P(Bodies, BodiesHeld, ::testing::Values("pbf", "pcisph", "wcsph", "dfsph"),
                         [](const auto& info) { return std::string(info.param); });

// Hydrostatics beside a floating body: a box of 500 kg/m^3 (2D: 0.24 x 0.08 m, 0.01 m
// spacing, in a pool 1.2 m wide; 3D: 0.24 x 0.1 x 0.2 m, 0.025 m spacing, in a pool 1 x
// 0.4 m) floating in the middle of water 0.3 m deep, and the same pool without it. From
// 1.5 to 3 s: the pressure of the floor's layer of water more than 0.35 m (3D: 0.3 m) from
// the pool's middle along x against rho g (H - y), H the level of the risen water (the
// water's volume plus the volume the body displaces, its mass over rho, over the pool's
// floor); and the far surface. The pressure within 5 % on PCISPH and WCSPH (what the
// resting columns allow); PBF, which has no pressure, on the water level: the far
// surface rises over the pool alone's by the body's displaced volume over the floor, within
// a quarter spacing; and on the floor's force over its area (its walls' moves), within 2 %. (The far surface itself, the top particles plus half a spacing, sits
// 0.3 to 0.5 spacings below H with or without the body: the water is compressed.)
struct PoolReading {
  double level = 0.0, ratio = 0.0, surface = 0.0;
  double gauge = 0.0;  // the floor's force per area far from the middle, over rho g H
};

// Where the floor is read as a gauge reads it: the tank's floor samples (below y = 0) more
// than `far` from the middle along x and two spacings from the side walls, as two boxes
// whose faces lie half a sample spacing beyond the outermost samples in them, and the
// area those boxes cover. On PBF, whose walls push the particles by moving them
// (Simulation::wall_fluid_force), the boxes reach up through the floor's layer of water
// (a spacing) instead.
struct FloorGauge {
  Vec3 lo[2], hi[2];
  double area = 0.0;
};

FloorGauge floor_gauge(const Scene& scene, const PoolShape& pool, bool particles) {
  const InitialState st = build_initial_state(scene, pool.spacing);
  std::vector<float> xs, zs;
  for (const Vec4& b : st.boundary)
    if (b.y < 0.0f) xs.push_back(b.x), zs.push_back(b.z);
  auto distinct = [](std::vector<float> v) {
    std::sort(v.begin(), v.end());
    std::vector<float> out;
    for (float x : v)
      if (out.empty() || x - out.back() > 1e-5f) out.push_back(x);
    return out;
  };
  const std::vector<float> dx = distinct(xs), dz = distinct(zs);
  const float margin = 2.0f * pool.spacing;
  float x0 = INFINITY, x1 = -INFINITY, z0 = INFINITY, z1 = -INFINITY, d = 0.0f;
  for (size_t k = 0; k < dx.size(); ++k) {
    if (k > 0 && d == 0.0f) d = dx[k] - dx[k - 1];
    if (dx[k] > pool.far && dx[k] < pool.tank_hi.x - margin) x0 = std::min(x0, dx[k]), x1 = std::max(x1, dx[k]);
  }
  FloorGauge g;
  const float half = 0.5f * d, below = -1.0f, top = (particles ? 1.0f : 0.25f) * pool.spacing;
  double width_z = 1.0;
  if (pool.dimensions == 3) {
    for (float z : dz)
      if (std::fabs(z) < pool.tank_hi.z - margin) z0 = std::min(z0, z), z1 = std::max(z1, z);
    width_z = double(z1 - z0 + d);
  } else {
    z0 = -1.0f + half, z1 = 1.0f - half;
  }
  g.lo[0] = Vec3{x0 - half, below, z0 - half}, g.hi[0] = Vec3{x1 + half, top, z1 + half};
  g.lo[1] = Vec3{-x1 - half, below, z0 - half}, g.hi[1] = Vec3{-x0 + half, top, z1 + half};
  g.area = 2.0 * double(x1 - x0 + d) * width_z;
  return g;
}

PoolReading read_pool(const PoolShape& pool, const char* solver, const std::string& body) {
  const float s = pool.spacing, depth = 0.3f;
  const Scene scene = pool_with_body(pool.dimensions, s, depth, body, pool.tank_hi);
  const bool pbf = std::string(solver) == "pbf";
  const FloorGauge gauge = floor_gauge(scene, pool, pbf);
  auto sim = cpu_sim(scene, s);
  sim->params().solver = int(solver_named(solver));
  sim->measure_walls(true);  // PBF's walls' force (the pressure solvers read theirs anyway)
  const double rho = sim->params().rest_density, g = 9.81;
  PoolReading r;
  const double displaced = sim->bodies().empty() ? 0.0 : body_mass(sim->bodies()[0], pool.dimensions).mass / rho;
  r.level = (double(sim->particle_count()) * sim->mass() / rho + displaced) / pool.floor_area();
  while (sim->simulated_time() < 1.5) sim->step();
  int samples = 0;
  double floor_impulse = 0.0, floor_time = 0.0;  // the gauge's, over every step
  for (double t_next = 1.5; sim->simulated_time() < 3.0;) {
    const double dt = sim->step();
    // The gauge: the step's force, read before a snapshot re-sorts the particles.
    if (const auto a = sim->wall_fluid_force(gauge.lo[0], gauge.hi[0]), b = sim->wall_fluid_force(gauge.lo[1], gauge.hi[1]);
        a && b) {
      floor_impulse += -double(a->y + b->y) * dt;
      floor_time += dt;
    }
    if (sim->simulated_time() < t_next) continue;
    t_next += 0.05;
    const Snapshot snap = sim->snapshot();
    double p_sum = 0.0, expected = 0.0;
    for (size_t i = 0; i < snap.position.size(); ++i) {
      if (snap.position[i].y > s || std::fabs(snap.position[i].x) < pool.far) continue;
      p_sum += snap.pressure[i];
      expected += rho * g * (r.level - snap.position[i].y);
    }
    r.ratio += p_sum / expected;
    r.surface += pool.surface(snap, 0.15f);
    ++samples;
  }
  r.ratio /= samples;
  r.gauge = floor_time > 0.0 ? floor_impulse / floor_time / (rho * g * r.level * gauge.area) : 0.0;
  r.surface /= samples;
  return r;
}

void expect_hydrostatics(const PoolShape& pool, const char* solver, const std::string& body) {
  const float s = pool.spacing;
  const PoolReading alone = read_pool(pool, solver, "");
  const PoolReading with = read_pool(pool, solver, body);
  std::printf("[ hydrostatics %dD ] %s: the floor's gauge far from the box at %.4f x rho g H (the pool alone: %.4f)\n",
              pool.dimensions, solver, with.gauge, alone.gauge);
  std::printf("[ hydrostatics %dD ] %s: the floor far from the box at %.3f x rho g H (the pool alone: %.3f); H %.4f m "
              "(alone %.4f); far surface %.4f m (alone %.4f): risen %.4f m for %.4f (%+.2f spacings)\n",
              pool.dimensions, solver, with.ratio, alone.ratio, with.level, alone.level, with.surface, alone.surface,
              with.surface - alone.surface, with.level - alone.level,
              ((with.surface - alone.surface) - (with.level - alone.level)) / s);
  if (std::string(solver) == "pbf") {
    EXPECT_NEAR(with.surface - alone.surface, with.level - alone.level, 0.25 * s) << "PBF: the water rose by the "
                                                                                    "displaced volume";
    // PBF's floor as a gauge reads it: what its walls' moves give the floor's layer of water.
    // (Measured: 2D 1.008 with the box, 0.988 alone; 3D 1.000 and 0.994.)
    EXPECT_NEAR(with.gauge, 1.0, 0.02) << "PBF: the floor's force over its area against rho g H";
    EXPECT_NEAR(alone.gauge, 1.0, 0.02) << "PBF: the pool alone's floor against rho g H";
  } else {
    // The 2 % on the pressure on the floor as a gauge reads it (the water's force on
    // the floor's samples over their area); the floor layer's own pressure within the
    // resting columns' 5 % (PCISPH's reads 3.5 % low: its water is compressed 1.8 % there
    // at the 1 % tolerance, and its pressure is read at the layer, not at the floor).
    // (Until 2026-12-03 the gauge was read after a snapshot, whose sort had left the step's
    // pressure terms with other particles: PCISPH and DFSPH then read 5 to 7 % low in 3D.
    // Read every step before any snapshot, every solver's floor holds the pool's weight.)
    EXPECT_NEAR(with.gauge, 1.0, 0.02)
        << "the pressure on the floor (its force over its area) against rho g H";
    EXPECT_NEAR(with.gauge / alone.gauge, 1.0, 0.02) << "what the floating body adds to the floor's pressure, "
                                                        "against what its displaced water gives";
    EXPECT_NEAR(with.ratio, 1.0, 0.05) << "the floor layer's pressure against rho g H of the risen water";
  }
}

class BodiesHydrostatics2D : public ::testing::TestWithParam<const char*> {};

TEST_P(BodiesHydrostatics2D, TheFloorFarFromAFloatingBoxFeelsTheRisenWater) {
  expect_hydrostatics(kPool2D, GetParam(),
                      "{\"shape\": \"box\", \"position\": [0, 0.35, 0], \"size\": [0.24, 0.08, 0.08], \"density\": 500}");
}

INSTANTIATE_TEST_SUITE_P(Bodies, BodiesHydrostatics2D, ::testing::Values("pbf", "pcisph", "wcsph", "dfsph"),
                         [](const auto& info) { return std::string(info.param); });

class BodiesHydrostatics3D : public ::testing::TestWithParam<const char*> {};

TEST_P(BodiesHydrostatics3D, TheFloorFarFromAFloatingBoxFeelsTheRisenWater) {
  expect_hydrostatics(kPool3D, GetParam(),
                      "{\"shape\": \"box\", \"position\": [0, 0.36, 0], \"size\": [0.24, 0.1, 0.2], \"density\": 500}");
}

INSTANTIATE_TEST_SUITE_P(Bodies, BodiesHydrostatics3D, ::testing::Values("pbf", "pcisph", "wcsph", "dfsph"),
                         [](const auto& info) { return std::string(info.param); });

class BodiesDraft2D : public ::testing::TestWithParam<std::tuple<const char*, float>> {};

// Over the fourth second: since PBF moves its bodies first (pbf_predict) its boxes are
// calmer (0.006 to 0.008 m/s rms against up to 0.066) and settle more slowly, the
// 800 kg/m^3 box at +3.0, +2.8, +2.5 % over the 3rd, 4th and 5th seconds and +2.2 % at rest
// over the 10th: a box 8 spacings tall stops within the particle water's hysteresis, a
// quarter spacing (docs/bodies.md).
TEST_P(BodiesDraft2D, ABoxFloatsAtArchimedesDraft) {
  expect_draft(2, std::get<0>(GetParam()), std::get<1>(GetParam()), 3.0f, 0.03f, 0.01f);
}

// The same with the box 16 spacings tall (0.005 m: 14,400 particles; PBF 35 s, PCISPH 80 to
// 120 s, WCSPH 5 to 8 min, DFSPH 38 s each on 2 cores, in validation): the pressure solvers'
// drafts within the 3 % there; DFSPH's 800 kg/m^3 box fails (below).
class BodiesDraft2DFine : public BodiesDraft2D {};

TEST_P(BodiesDraft2DFine, ABoxFloatsAtArchimedesDraft) {
  expect_draft(2, std::get<0>(GetParam()), std::get<1>(GetParam()), 2.0f, 0.03f, 0.005f);
}

// Archimedes in 3D: a box 0.24 x 0.16 x 0.24 m, 8 spacings tall at 0.02 m (15,000
// particles), over the third second (2026-12-02: PBF -0.6, +0.1, -0.8 % of the height,
// 10 s each; PCISPH -2.3, -2.4, -2.3 %, 10 s; WCSPH -2.2, -2.4, -1.6 %, 34 s; DFSPH
// 40 s). Six spacings tall (0.12 m), PCISPH read -3.4 % at 500 kg/m^3, PBF -0.4 %.
class BodiesDraft3D : public BodiesDraft2D {};

TEST_P(BodiesDraft3D, ABoxFloatsAtArchimedesDraft) {
  expect_draft(3, std::get<0>(GetParam()), std::get<1>(GetParam()), 2.0f, 0.03f, 0.02f);
}

auto draft_name = [](const auto& info) {
  return std::string(std::get<0>(info.param)) + "_" + std::to_string(int(std::get<1>(info.param)));
};
INSTANTIATE_TEST_SUITE_P(Bodies, BodiesDraft2D,
                         ::testing::Combine(::testing::Values("pbf", "pcisph", "wcsph", "dfsph"),
                                            ::testing::Values(300.0f, 500.0f, 800.0f)),
                         draft_name);
// DFSPH since 2026-12-07 (38 s a run; it took 500 s on 2026-12-02): the 300 and 500 kg/m^3
// boxes float within 1.6 %, but the 800 box, coupled inside DFSPH's solves, bounces out of the
// settling water and sinks (+85 % of the height; -2.7 % with the coupling off): docs/bodies.md.
INSTANTIATE_TEST_SUITE_P(Bodies, BodiesDraft2DFine,
                         ::testing::Combine(::testing::Values("pbf", "pcisph", "wcsph", "dfsph"),
                                            ::testing::Values(300.0f, 500.0f, 800.0f)),
                         draft_name);

INSTANTIATE_TEST_SUITE_P(Bodies, BodiesDraft3D,
                         ::testing::Combine(::testing::Values("pbf", "pcisph", "wcsph", "dfsph"),
                                            ::testing::Values(300.0f, 500.0f, 800.0f)),
                         draft_name);

}  // namespace
}  // namespace tp::test
