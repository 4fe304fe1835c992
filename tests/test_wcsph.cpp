// WCSPH physics on the CPU backend (the same kernel bodies the CUDA backend runs).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "kernels/boundary.h"
#include "sim_helpers.h"

using namespace tp;
using namespace tp::test;

namespace {

// A column of water 32 spacings deep over an 8 x 8 particle floor.
constexpr float kColumnSpacing = 0.02f;
Scene column_scene() {
  const float s = kColumnSpacing;
  return box_scene(Vec3{0, 0, 0}, Vec3{8 * s, 44 * s, 8 * s}, Vec3{0, 0, 0}, Vec3{8 * s, 32 * s, 8 * s}, s);
}

// A small, violent dam break: a 0.3 x 0.4 x 0.24 m block in a 0.9 x 0.6 x 0.24 m tank.
constexpr float kDamSpacing = 0.02f;
Scene small_dam_break() {
  return box_scene(Vec3{0, 0, 0}, Vec3{0.9f, 0.6f, 0.24f}, Vec3{0, 0, 0}, Vec3{0.3f, 0.4f, 0.24f},
                   kDamSpacing);
}

double mean_kinetic_energy(Simulation& sim, double from, double to) {
  double sum = 0.0;
  int samples = 0;
  while (sim.stats().simulated_time < to) {
    sim.step();
    if (sim.stats().simulated_time >= from) {
      sum += kinetic_energy(sim.snapshot(), sim.mass());
      ++samples;
    }
  }
  return sum / std::max(samples, 1);
}

}  // namespace

TEST(Wcsph, InitialLatticeIsAtRestDensityEverywhereIncludingAtTheWalls) {
  // A tank full of water: before any motion every particle, at walls and corners too, has
  // exactly the lattice's density, because the boundary samples continue the lattice.
  const float s = 0.025f;
  Scene scene = box_scene(Vec3{0, 0, 0}, Vec3{0.25f, 0.25f, 0.25f}, Vec3{0, 0, 0},
                          Vec3{0.25f, 0.25f, 0.25f}, s);
  auto sim = cpu_sim(scene, s);
  ASSERT_EQ(sim->particle_count(), 1000u);
  sim->stats();  // computes the density of the current state
  const Snapshot snap = sim->snapshot();
  for (size_t i = 0; i < snap.density.size(); ++i)
    ASSERT_NEAR(snap.density[i] / sim->params().rest_density, 1.0, 1e-4) << "particle " << i;
}

TEST(Wcsph, RestingColumnSettlesAtRestDensityAndHydrostaticPressure) {
  auto sim = cpu_sim(column_scene(), kColumnSpacing);
  const uint n = sim->particle_count();
  ASSERT_EQ(n, 8u * 8u * 32u);

  const double energy_early = mean_kinetic_energy(*sim, 0.1, 0.4);
  const double energy_late = mean_kinetic_energy(*sim, 1.0, 1.2);
  std::printf("mean kinetic energy: %.4g J at 0.1-0.4 s, %.4g J at 1.0-1.2 s (ratio %.4f)\n",
              energy_early, energy_late, energy_late / energy_early);
  // The ringing decays slowly and its phase is chaotic: rounding alone moves the ratio (0.194
  // with the one-particle loops, 0.201 with 16 lanes and with 8, kernels/lanes.h), so the bound
  // leaves room; the rms and top speeds below are the test of rest.
  EXPECT_LT(energy_late, 0.25 * energy_early) << "early " << energy_early << " late " << energy_late;

  // Bottom pressure within 5 % of rho g depth: the bottom layer's pressure (from its
  // density through the Tait equation) against rho0 g times its depth below the free
  // surface (the top layer's height plus half a spacing). Averaged over 0.3 s, several
  // periods of the column's acoustic ringing (4 depth / c = 0.14 s).
  const SimParams& p = sim->params();
  double ratio_sum = 0.0;
  int samples = 0;
  for (int step = 0; sim->stats().simulated_time < 1.5; ++step) {
    sim->step();
    if (step % 10) continue;
    sim->stats();  // densities of the current positions
    const Snapshot s = sim->snapshot();
    float top = 0.0f;
    for (const Vec4& x : s.position) top = std::max(top, x.y);
    const float surface = top + 0.5f * kColumnSpacing;
    double p_sum = 0.0, expected_sum = 0.0;
    for (size_t i = 0; i < s.position.size(); ++i) {
      if (s.position[i].y > kColumnSpacing) continue;
      const double ratio = s.density[i] / p.rest_density;
      p_sum += p.stiffness * (std::pow(ratio, p.exponent) - 1.0);
      expected_sum += p.rest_density * 9.81 * (surface - s.position[i].y);
    }
    ASSERT_GT(expected_sum, 0.0);
    ratio_sum += p_sum / expected_sum;
    ++samples;
  }
  EXPECT_NEAR(ratio_sum / samples, 1.0, 0.05) << "mean bottom pressure / (rho0 g depth)";

  const RunStats st = sim->stats();
  const Snapshot s = sim->snapshot();  // densities valid for these positions
  EXPECT_EQ(sim->particle_count(), n);
  // Density error (mean over particles and steps) below 2 %; comes to rest.
  EXPECT_LT(st.density_error_mean, 0.02) << "mean density error";
  EXPECT_LT(st.last_density_error, 0.02);
  // What motion remains is the column's lightly damped acoustic ringing: small speeds.
  const double mass = sim->mass() * n;
  EXPECT_LT(std::sqrt(2.0 * kinetic_energy(s, sim->mass()) / mass), 0.05) << "rms speed, m/s";
  EXPECT_LT(st.last_max_speed, 0.2) << "m/s";
  float top = 0.0f;
  for (const Vec4& x : s.position) top = std::max(top, x.y);
  const float surface = top + 0.5f * kColumnSpacing;

  // Next to each wall (within one spacing), below the free surface's kernel support:
  // within 3 % of rest density: no gap, no pile-up.
  const Vec3 lo = sim->tank_lo(), hi = sim->tank_hi();
  const char* names[5] = {"-x", "+x", "-z", "+z", "floor"};
  for (int wall = 0; wall < 5; ++wall) {
    double worst = 0.0;
    int count = 0;
    for (size_t i = 0; i < s.position.size(); ++i) {
      const Vec4 x = s.position[i];
      if (x.y > surface - 3 * kColumnSpacing) continue;
      const float d[5] = {x.x - lo.x, hi.x - x.x, x.z - lo.z, hi.z - x.z, x.y - lo.y};
      if (d[wall] > kColumnSpacing) continue;
      worst = std::max(worst, std::abs(s.density[i] / p.rest_density - 1.0));
      ++count;
    }
    ASSERT_GT(count, 20) << names[wall];
    EXPECT_LT(worst, 0.03) << "wall " << names[wall];
  }
}

TEST(Wcsph, ViolentDamBreakWithMouseForcesStaysInsideAndFinite) {
  auto sim = cpu_sim(small_dam_break(), kDamSpacing);
  const uint n = sim->particle_count();
  SimParams& p = sim->params();
  p.mouse_strength = 1000.0f;  // the slider's maximum
  p.mouse_radius = 0.15f;
  int step = 0;
  while (sim->stats().simulated_time < 0.8) {
    // Cycle push, pull and drag every 40 steps, moving the point through the tank.
    const int phase = (step / 40) % 3;
    p.mouse_mode = phase;
    const float t = float(step) * 0.01f;
    MouseForce m{1, Vec3{0.45f + 0.3f * std::sin(t), 0.15f, 0.12f}, Vec3{8.0f * std::cos(t), 0, 0}};
    sim->set_mouse(m);
    sim->step();
    ++step;
  }
  const ParticleCheck c = check(*sim);
  EXPECT_EQ(c.nonfinite, 0u);
  EXPECT_EQ(c.outside, 0u);
  EXPECT_EQ(sim->stats().nonfinite_resets, 0u) << "the integrator met NaN or inf values";
  EXPECT_EQ(sim->particle_count(), n);
  const RunStats st = sim->stats();
  EXPECT_LT(st.max_speed, 30.0) << "m/s: forces this strong accelerate the fluid, never explode it";
  EXPECT_GT(st.max_speed, 1.0) << "the dam break and the mouse did move the fluid";
  // Ids are still a permutation of 0..n-1 (nothing lost or duplicated by the reordering).
  Snapshot s = sim->snapshot();
  std::vector<uint> ids = s.id;
  std::sort(ids.begin(), ids.end());
  for (uint i = 0; i < n; ++i) ASSERT_EQ(ids[i], i);
}

TEST(Wcsph, MousePushMovesFluidNearThePointAndNotFarFromIt) {
  const float s = 0.025f;
  Scene pool = box_scene(Vec3{0, 0, 0}, Vec3{1.0f, 0.4f, 0.2f}, Vec3{0, 0, 0}, Vec3{1.0f, 0.2f, 0.2f}, s);
  auto calm = cpu_sim(pool, s);
  auto pushed = cpu_sim(pool, s);
  pushed->params().mouse_mode = int(MouseMode::Push);
  pushed->params().mouse_radius = 0.12f;
  pushed->set_mouse(MouseForce{1, Vec3{0.2f, 0.18f, 0.1f}, Vec3{0, 0, 0}});
  for (int i = 0; i < 150; ++i) {
    calm->step();
    pushed->step();
  }
  const Snapshot a = calm->snapshot(), b = pushed->snapshot();
  double near = 0.0, far = 0.0;
  int n_near = 0, n_far = 0;
  for (size_t i = 0; i < a.position.size(); ++i) {
    const float x0 = a.position[i].x;
    const double d = length(xyz(a.position[i]) - xyz(b.position[i]));
    if (x0 < 0.3f) near += d, ++n_near;
    if (x0 > 0.7f) far += d, ++n_far;
  }
  near /= n_near;
  far /= n_far;
  EXPECT_GT(near, 10.0 * far) << "mean displacement near " << near << " m, far " << far << " m";
  EXPECT_GT(near, 0.005);
}

TEST(Wcsph, IdenticalRunsAreBitwiseIdentical) {
  auto run = [] {
    auto sim = cpu_sim(small_dam_break(), kDamSpacing);
    sim->params().dt_min = sim->params().dt_max = 0.0004f;  // a fixed step
    sim->set_mouse(MouseForce{1, Vec3{0.2f, 0.2f, 0.12f}, Vec3{2, 0, 0}});
    for (int i = 0; i < 200; ++i) sim->step();
    return sim->snapshot();
  };
  const Snapshot a = run(), b = run();
  ASSERT_EQ(a.position.size(), b.position.size());
  EXPECT_EQ(0, std::memcmp(a.position.data(), b.position.data(), a.position.size() * sizeof(Vec4)));
  EXPECT_EQ(0, std::memcmp(a.velocity.data(), b.velocity.data(), a.velocity.size() * sizeof(Vec4)));
}

TEST(Wcsph, PickFindsTheFirstFluidAlongTheRay) {
  const float s = 0.025f;
  Scene pool = box_scene(Vec3{0, 0, 0}, Vec3{0.5f, 0.5f, 0.5f}, Vec3{0, 0, 0}, Vec3{0.5f, 0.2f, 0.5f}, s);
  auto sim = cpu_sim(pool, s);
  // Straight down from above: hits the top layer (centres at 0.2 - s/2).
  auto hit = sim->pick(Ray{Vec3{0.25f, 1.0f, 0.25f}, Vec3{0, -1, 0}});
  ASSERT_TRUE(hit.has_value());
  EXPECT_NEAR(hit->y, 0.2f, 0.3f * s);  // the top of the top layer's spheres
  // Pointing up, away from the water: no hit. Parallel above the water: no hit.
  EXPECT_FALSE(sim->pick(Ray{Vec3{0.25f, 1.0f, 0.25f}, Vec3{0, 1, 0}}).has_value());
  EXPECT_FALSE(sim->pick(Ray{Vec3{-1.0f, 0.4f, 0.25f}, Vec3{1, 0, 0}}).has_value());
}

TEST(Wcsph, NonFiniteParticlesAreResetInsideAndCounted) {
  StepConstants c{};
  c.p = default_params();
  c.spacing = 0.1f;
  c.dt = 0.001f;
  c.tank_lo = Vec3{0, 0, 0};
  c.tank_hi = Vec3{1, 1, 1};
  Vec4 x[2] = {Vec4{0.5f, 0.5f, 0.5f, 0}, Vec4{0.5f, 0.5f, 0.5f, 0}};
  Vec4 v[2] = {Vec4{0, 0, 0, 0}, Vec4{0, 0, 0, 0}};
  const Vec4 a[2] = {Vec4{0, -9.81f, 0, 0}, Vec4{NAN, 0, 0, 0}};
  EXPECT_FALSE(integrate_particle(0, x, v, a, c));
  EXPECT_TRUE(integrate_particle(1, x, v, a, c)) << "a NaN must be reported";
  EXPECT_TRUE(is_finite(xyz(x[1])));
  EXPECT_TRUE(is_finite(xyz(v[1])));
  // A particle far outside is clamped inside without being counted as non-finite.
  Vec4 far[1] = {Vec4{5, -3, 0.5f, 0}};
  Vec4 fast[1] = {Vec4{100, 0, 0, 0}};
  const Vec4 none[1] = {Vec4{0, 0, 0, 0}};
  EXPECT_FALSE(integrate_particle(0, far, fast, none, c));
  EXPECT_LE(far[0].x, 1.0f);
  EXPECT_GE(far[0].y, 0.0f);
  EXPECT_LE(length(xyz(fast[0])), c.p.speed_limit * 1.0001f) << "the speed limit holds";
}
