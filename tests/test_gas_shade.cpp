// What the gas publishes for drawing (GasSimulation::publish, kernels/gas_shade.h gas_shade_cell,
// gas_sun_layer): density and dye colour per cell, solids marked for the ray-march, the
// sun's shadow under dense smoke and obstacles, and the speed and vorticity views.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/gas/gas_sim.h"
#include "sim_helpers.h"

namespace tp {
namespace {

using test::HostTarget;

GasSetup box3d() {
  GasSetup s;
  s.grid.n = Int3{16, 24, 16};
  s.grid.dx = 1.0f / 16.0f;
  return s;
}

// A slab of dense smoke near the top of a 3D box, and one grey cell far below it: the cell
// under the slab is in its shadow (the sun straight above), the same smoke beside it is
// not; a solid cell is -1; each cell's density is its a, its colour the dye's.
TEST(GasShade, SmokeIsLitByTheSunAndShadowedByDenseSmokeAbove) {
  GasSetup s = box3d();
  ObstacleShape ball{};
  ball.kind = int(ShapeKind::Sphere);
  ball.center = Vec3{0.8f, 0.75f, 0.2f};  // over cells (12, 12, 3): not over the probes at z = 8
  ball.radius = 0.1f;
  s.obstacles.push_back(ball);
  auto gas = make_gas_simulation(BackendKind::Cpu);
  gas->reset(s);
  const GasGrid& g = gas->setup().grid;
  const uint n = g.cells();
  std::vector<float> rho(n, 0.0f), red(n, 0.0f), green(n, 0.0f), blue(n, 0.0f);
  auto set = [&](int i, int j, int k, float d, Vec3 color) {
    const uint c = g.cell(i, j, k);
    rho[c] = d, red[c] = d * color.x, green[c] = d * color.y, blue[c] = d * color.z;
  };
  for (int i = 0; i < 6; ++i)
    for (int k = 0; k < 16; ++k) set(i, 20, k, 4.0f, Vec3{1, 1, 1});  // the slab, over x < 6
  set(2, 4, 8, 0.1f, Vec3{0.8f, 0.4f, 0.2f});   // under the slab
  set(12, 4, 8, 0.1f, Vec3{0.8f, 0.4f, 0.2f});  // beside it, nothing above
  gas->write_channel(kGasDensity, rho);
  gas->write_channel(kGasRed, red);
  gas->write_channel(kGasGreen, green);
  gas->write_channel(kGasBlue, blue);
  GasShade shade;
  shade.sun = Vec3{0.0f, 1.0f, 0.0f};
  HostTarget target;
  gas->publish(shade, target);
  ASSERT_EQ(target.values.size(), size_t(n));
  const Vec4 under = target.values[g.cell(2, 4, 8)], beside = target.values[g.cell(12, 4, 8)];
  EXPECT_FLOAT_EQ(under.w, 0.1f);
  EXPECT_FLOAT_EQ(beside.w, 0.1f);
  // Beside: ambient + the sun through its own half cell (exp(-0.125)); under: ambient.
  EXPECT_LE(beside.x, 0.8f * (shade.ambient + shade.sun_light));
  EXPECT_GT(beside.x, 0.8f * (shade.ambient + 0.8f * shade.sun_light));
  EXPECT_LT(under.x, 0.8f * (shade.ambient + 0.05f * shade.sun_light));
  // The dye's hue, toward white by the floor kGasDyeFloor at this thin density.
  const float f = kGasDyeFloor;
  EXPECT_NEAR(beside.y / beside.x, (0.1f * 0.4f + f) / (0.1f * 0.8f + f), 1e-4f);
  // The obstacle: -1 in its cells; its shadow darkens the empty cells below it too.
  std::vector<unsigned char> solid;
  gas->read_solid(&solid);
  int solids = 0;
  for (uint c = 0; c < n; ++c)
    if (solid[c]) {
      ++solids;
      EXPECT_EQ(target.values[c].w, -1.0f);
    } else {
      EXPECT_GE(target.values[c].w, 0.0f);
    }
  EXPECT_GT(solids, 0);
  const Vec4 below_ball = target.values[g.cell(12, 6, 3)], open_sky = target.values[g.cell(9, 6, 3)];
  EXPECT_LT(below_ball.x, open_sky.x * 0.6f);
  // A slanted sun moves the shadow: the cell under the slab is lit from the side.
  shade.sun = Vec3{-3.0f, 1.0f, 0.0f};  // the sun low over -x: rays from (2, 4) leave the side
  gas->publish(shade, target);
  EXPECT_GT(target.values[g.cell(2, 4, 8)].x, under.x * 2.0f);
}

// In 2D the plane is lit evenly: each cell's rgb is its dye colour; where there is no
// smoke, white (nothing to colour).
TEST(GasShade, ThePlaneShowsTheDyeColorAsItIs) {
  GasSetup s;
  s.grid.n = Int3{32, 32, 1};
  s.grid.dx = 1.0f / 32.0f;
  auto gas = make_gas_simulation(BackendKind::Cpu);
  gas->reset(s);
  const uint n = s.grid.cells();
  std::vector<float> rho(n, 0.0f), red(n, 0.0f), zero(n, 0.0f);
  for (uint c = 0; c < n; c += 3) rho[c] = 2.0f, red[c] = 2.0f * 0.9f;
  gas->write_channel(kGasDensity, rho);
  gas->write_channel(kGasRed, red);
  gas->write_channel(kGasGreen, zero);
  gas->write_channel(kGasBlue, zero);
  HostTarget target;
  gas->publish(GasShade{}, target);
  for (uint c = 0; c < n; ++c) {
    if (rho[c] == 0.0f) {
      EXPECT_EQ(target.values[c].w, 0.0f);
      continue;
    }
    const float f = kGasDyeFloor;  // the dye over the density, a little toward white
    EXPECT_NEAR(target.values[c].x, (2.0f * 0.9f + f) / (2.0f + f), 1e-5f);
    EXPECT_NEAR(target.values[c].y, f / (2.0f + f), 1e-5f);
    EXPECT_EQ(target.values[c].w, 2.0f);
  }
}

// The views: opaque colour maps of the speed and the vorticity; a still cell and a moving
// one differ, a shear's two signs of vorticity differ in 2D (the diverging map); out-of-range
// shade values (NaN, an unknown view) are brought back, never a crash or a NaN texel.
TEST(GasShade, SpeedAndVorticityViewsColorTheFlow) {
  GasSetup s;
  s.grid.n = Int3{32, 32, 1};
  s.grid.dx = 1.0f / 32.0f;
  auto gas = make_gas_simulation(BackendKind::Cpu);
  gas->reset(s);
  const GasGrid& g = gas->setup().grid;
  // u(y): +1 m/s in a band in the middle, 0 elsewhere: vorticity of both signs at its edges.
  std::vector<float> u(g.faces(0), 0.0f);
  for (int j = 12; j < 20; ++j)
    for (int i = 1; i < g.n.x; ++i) u[g.face(0, i, j, 0)] = 1.0f;
  gas->write_velocity(0, u);
  GasShade shade;
  shade.view = kGasViewSpeed;
  shade.view_range = 1.0f;
  HostTarget target;
  gas->publish(shade, target);
  const Vec4 still = target.values[g.cell(16, 4, 0)], moving = target.values[g.cell(16, 16, 0)];
  EXPECT_EQ(still.w, 1000.0f);
  EXPECT_GT(std::fabs(moving.x - still.x) + std::fabs(moving.y - still.y) + std::fabs(moving.z - still.z), 0.5f);
  shade.view = kGasViewVorticity;
  shade.view_range = 8.0f;
  gas->publish(shade, target);
  const Vec4 lower = target.values[g.cell(16, 11, 0)], upper = target.values[g.cell(16, 20, 0)];
  const Vec4 calm = target.values[g.cell(16, 4, 0)];
  // du/dy > 0 at the lower edge: omega_z = -du/dy < 0 (blue); the upper edge red.
  EXPECT_GT(lower.z, lower.x);
  EXPECT_GT(upper.x, upper.z);
  EXPECT_NEAR(calm.x, calm.z, 1e-3f);  // zero: the map's middle, grey
  std::vector<GasShade> bad(3);
  bad[0].view = 17;
  bad[1].extinction = std::nanf(""), bad[1].sun = Vec3{NAN, -1.0f, NAN};
  bad[2].view = kGasViewSpeed, bad[2].view_range = -INFINITY;
  for (const GasShade& b : bad) {
    gas->publish(b, target);
    for (const Vec4& v : target.values)
      ASSERT_TRUE(std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z) && std::isfinite(v.w));
  }
}

}  // namespace
}  // namespace tp
