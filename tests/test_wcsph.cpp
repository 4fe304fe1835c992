// WCSPH physics on the CPU backend (the same kernel bodies the CUDA backend runs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "sim_helpers.h"

using namespace tp;
using namespace tp::test;

namespace {

// A column of water 32 spacings deep over a 10 x 10 particle floor.
struct Column {
  static constexpr float s = 0.02f;
  Scene scene = box_scene(Vec3{0, 0, 0}, Vec3{10 * s, 48 * s, 10 * s}, Vec3{0, 0, 0},
                          Vec3{10 * s, 32 * s, 10 * s}, s);
};

}  // namespace

TEST(Wcsph, RestingColumnSettlesAtRestDensityAndHydrostaticPressure) {
  Column col;
  auto sim = cpu_sim(col.scene, Column::s);
  const uint n = sim->particle_count();
  ASSERT_EQ(n, 10u * 10u * 32u);

  double energy_early = 0.0;
  while (sim->stats().simulated_time < 1.5) {
    sim->step();
    if (energy_early == 0.0 && sim->stats().simulated_time > 0.3)
      energy_early = kinetic_energy(sim->snapshot(), sim->mass());
  }
  // Measure over the last half second: mean density error is the run's statistic.
  const double error_before = sim->stats().density_error_mean;
  (void)error_before;
  Snapshot s = sim->snapshot();
  const double energy_late = kinetic_energy(s, sim->mass());
  const RunStats st = sim->stats();
  s = sim->snapshot();  // densities are now valid for these positions
  EXPECT_EQ(sim->particle_count(), n);

  // 1. Density error (mean over particles and steps) below 2 %.
  EXPECT_LT(st.density_error_mean, 0.02) << "mean density error";
  EXPECT_LT(st.last_density_error, 0.02);

  // 2. Comes to rest: kinetic energy decays and the remaining speeds are small.
  EXPECT_LT(energy_late, 0.5 * energy_early) << "early " << energy_early << " late " << energy_late;
  EXPECT_LT(st.last_max_speed, 0.15) << "m/s";

  // 3. Bottom pressure within 5 % of rho g depth. The pressure follows from the density
  // of the bottom layer through the Tait equation; depth is measured from the free surface
  // (the top layer's height plus half a spacing).
  const SimParams& p = sim->params();
  float top = 0.0f;
  for (const Vec4& x : s.position) top = std::max(top, x.y);
  const float surface = top + 0.5f * Column::s;
  double p_sum = 0.0, expected_sum = 0.0;
  int bottom = 0;
  for (size_t i = 0; i < s.position.size(); ++i) {
    if (s.position[i].y > Column::s) continue;  // bottom layer
    const double ratio = s.density[i] / p.rest_density;
    p_sum += p.stiffness * (std::pow(ratio, p.exponent) - 1.0);
    expected_sum += p.rest_density * 9.81 * (surface - s.position[i].y);
    ++bottom;
  }
  ASSERT_GT(bottom, 50);
  EXPECT_NEAR(p_sum / expected_sum, 1.0, 0.05) << "bottom pressure " << p_sum / bottom
                                                << " Pa, expected " << expected_sum / bottom;

  // 4. Next to each wall (within one spacing), below the free surface's kernel support:
  // within 3 % of rest density: no gap, no pile-up.
  const Vec3 lo = sim->tank_lo(), hi = sim->tank_hi();
  for (int wall = 0; wall < 5; ++wall) {  // -x, +x, -z, +z, floor
    double sum = 0.0, worst = 0.0;
    int count = 0;
    for (size_t i = 0; i < s.position.size(); ++i) {
      const Vec4 x = s.position[i];
      if (x.y > surface - 3 * Column::s) continue;
      const float d[5] = {x.x - lo.x, hi.x - x.x, x.z - lo.z, hi.z - x.z, x.y - lo.y};
      if (d[wall] > Column::s) continue;
      const double ratio = s.density[i] / p.rest_density;
      sum += ratio;
      worst = std::max(worst, std::abs(ratio - 1.0));
      ++count;
    }
    ASSERT_GT(count, 20) << "wall " << wall;
    EXPECT_LT(worst, 0.03) << "wall " << wall << ": mean density ratio " << sum / count;
  }
}
