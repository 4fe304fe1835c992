// The gas simulation (src/sim/gas/gas_solver.h, kernels/gas.h) on the CPU backend: the
// projection leaves no divergence (beside obstacles too), advection keeps a blob's mass and
// carries it where the flow goes (the second-order option sharper), the lid-driven cavity
// at Re = 100 against Ghia, Ghia & Shin 1982, and vorticity confinement keeps the curls.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "sim/gas/gas_params.h"
#include "sim/gas/gas_sim.h"

namespace tp {
namespace {

GasSetup box(Int3 n, float dx, unsigned open = 0) {
  GasSetup s;
  s.grid.n = n;
  s.grid.dx = dx;
  s.grid.lo = Vec3{0, 0, 0};
  s.grid.open = open;
  return s;
}

// Forces off: only what the test sets moves the gas.
void no_forces(GasParams& p) {
  p.buoyancy = 0.0f;
  p.weight = 0.0f;
  p.vorticity = 0.0f;
  p.temperature_decay = 0.0f;
  p.density_decay = 0.0f;
}

// A deterministic rough velocity field (hash of the face index), in [-1, 1] m/s.
std::vector<float> rough(size_t n, unsigned seed) {
  std::vector<float> v(n);
  unsigned x = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    v[i] = float(x % 20001u) / 10000.0f - 1.0f;
  }
  return v;
}

ObstacleShape sphere(Vec3 c, float r) {
  ObstacleShape o{};
  o.kind = int(ShapeKind::Sphere);
  o.center = c;
  o.radius = r;
  return o;
}

ObstacleShape cube(Vec3 c, Vec3 half) {
  ObstacleShape o{};
  o.kind = int(ShapeKind::Box);
  o.center = c;
  o.half_extent = half;
  return o;
}

// The stated tolerance: after the projection the largest |div u| is at most
// pressure_tolerance times the largest before it (plus float rounding of the sums).
TEST(Gas, ProjectionLeavesNoDivergenceAnywhereBesideObstaclesToo) {
  struct Case {
    const char* name;
    Int3 n;
    unsigned open;
  };
  for (const Case& c : {Case{"2D closed", {128, 128, 1}, 0u}, Case{"2D open top", {96, 128, 1}, 1u << 3},
                        Case{"3D closed", {32, 40, 24}, 0u}, Case{"3D open top", {32, 40, 24}, 1u << 3}}) {
    SCOPED_TRACE(c.name);
    GasSetup s = box(c.n, 1.0f / 32.0f, c.open);
    s.obstacles.push_back(sphere(Vec3{0.4f, 0.6f, 0.35f}, 0.2f));
    s.obstacles.push_back(cube(Vec3{0.7f, 0.3f, 0.35f}, Vec3{0.1f, 0.15f, 0.1f}));
    auto gas = make_gas_simulation(BackendKind::Cpu);
    gas->reset(s);
    std::vector<unsigned char> solid;
    gas->read_solid(&solid);
    ASSERT_GT(std::count(solid.begin(), solid.end(), 1), 100) << "the obstacles fill cells";
    for (int a = 0; a < 3; ++a) gas->write_velocity(a, rough(s.grid.faces(a), unsigned(a + 1)));
    const float before = gas->max_divergence();
    ASSERT_GT(before, 10.0f);
    gas->project();
    const GasStats st = gas->stats();
    const float after = gas->max_divergence();
    std::printf("%s: max |div u| %.3g -> %.3g 1/s, %d iterations, residual %.2g\n", c.name, before, after,
                st.pressure_iterations, st.pressure_residual);
    EXPECT_LE(st.pressure_residual, gas->params().pressure_tolerance);
    EXPECT_LE(after, 2.0f * gas->params().pressure_tolerance * before) << "beside the obstacles and walls too";
    EXPECT_LT(st.pressure_iterations, 40) << "the multigrid preconditioner keeps the count low";
  }
}

TEST(Gas, JacobiIsTheSlowerOptionAndSaysItsResidual) {
  GasSetup s = box(Int3{128, 128, 1}, 1.0f / 128.0f);
  auto gas = make_gas_simulation(BackendKind::Cpu);
  gas->reset(s);
  gas->params().pressure_solver = int(GasPressureSolver::Jacobi);
  gas->params().jacobi_iterations = 40;
  for (int a = 0; a < 2; ++a) gas->write_velocity(a, rough(s.grid.faces(a), unsigned(a + 7)));
  gas->project();
  const float jacobi = gas->stats().pressure_residual;
  EXPECT_GT(jacobi, 1e-3f) << "40 Jacobi sweeps leave a residual the report shows";
  EXPECT_LT(jacobi, 1.0f);
}

// A Gaussian blob in a uniform 1 m/s flow along a channel open at both ends, carried one
// domain length (the 1 m square it starts in) without dissipation.
struct Carried {
  double mass_before, mass_after;
  double center_x, center_y;
  double peak;
  double spread;  ///< [m] RMS distance from the centre, density-weighted
};

Carried carry_blob(GasAdvection scheme) {
  const float dx = 1.0f / 32.0f;
  GasSetup s = box(Int3{96, 32, 1}, dx, (1u << 0) | (1u << 1));
  auto gas = make_gas_simulation(BackendKind::Cpu);
  gas->reset(s);
  no_forces(gas->params());
  gas->params().advection = int(scheme);
  gas->params().dt_max = 1.0f / 60.0f;
  std::vector<float> u(s.grid.faces(0), 1.0f);
  gas->write_velocity(0, u);
  std::vector<float> rho(s.grid.cells());
  for (int j = 0; j < 32; ++j)
    for (int i = 0; i < 96; ++i) {
      const float x = (i + 0.5f) * dx - 0.75f, y = (j + 0.5f) * dx - 0.5f;
      rho[size_t(i + 96 * j)] = std::exp(-(x * x + y * y) / (2.0f * 0.08f * 0.08f));
    }
  gas->write_channel(kGasDensity, rho);
  Carried r{};
  gas->step();  // (the mass as the first step leaves it: nothing is lost to a step)
  r.mass_before = 0.0;
  for (float v : rho) r.mass_before += double(v) * dx * dx;
  while (gas->stats().simulated_time < 1.0 - 1e-6) gas->step();
  const double t = gas->stats().simulated_time;
  gas->read_channel(kGasDensity, &rho);
  double m = 0.0, cx = 0.0, cy = 0.0;
  for (int j = 0; j < 32; ++j)
    for (int i = 0; i < 96; ++i) {
      const double v = rho[size_t(i + 96 * j)];
      m += v, cx += v * (i + 0.5) * dx, cy += v * (j + 0.5) * dx;
      r.peak = std::max(r.peak, v);
    }
  r.mass_after = m * dx * dx;
  r.center_x = cx / m - (t - 1.0);  // (the time stepped past 1 s)
  r.center_y = cy / m;
  double spread = 0.0;
  for (int j = 0; j < 32; ++j)
    for (int i = 0; i < 96; ++i) {
      const double dxi = (i + 0.5) * dx - cx / m, dyj = (j + 0.5) * dx - cy / m;
      spread += rho[size_t(i + 96 * j)] * (dxi * dxi + dyj * dyj);
    }
  r.spread = std::sqrt(spread / m);
  return r;
}

TEST(Gas, AdvectionKeepsABlobsMassAndCarriesItWithTheFlow) {
  const float dx = 1.0f / 32.0f;
  const Carried first = carry_blob(GasAdvection::SemiLagrangian);
  const Carried second = carry_blob(GasAdvection::MacCormack);
  for (const Carried& c : {first, second}) {
    EXPECT_NEAR(c.mass_after / c.mass_before, 1.0, 0.01) << "mass within 1 %";
    EXPECT_NEAR(c.center_x, 1.75, dx) << "the centre within a cell of x0 + u t";
    EXPECT_NEAR(c.center_y, 0.5, dx);
  }
  std::printf("semi-Lagrangian: mass %+.3f %%, peak %.3f, spread %.4f m; MacCormack: mass %+.3f %%, peak %.3f, "
              "spread %.4f m (at the start: peak 1, spread %.4f m)\n",
              100.0 * (first.mass_after / first.mass_before - 1.0), first.peak, first.spread,
              100.0 * (second.mass_after / second.mass_before - 1.0), second.peak, second.spread,
              0.08 * std::sqrt(2.0));
  EXPECT_GT(second.peak, first.peak + 0.05) << "the second-order option keeps a sharper profile";
  EXPECT_LT(second.spread, first.spread);
}

// The lid-driven cavity at Re = 100 (1 m square, lid 1 m/s, nu = 0.01 m^2/s) on 128^2
// cells, run to steady state. Reference: Ghia, U., Ghia, K. N. & Shin, C. T. (1982), "High-Re
// solutions for incompressible flow using the Navier-Stokes equations and a multigrid
// method", J. Comput. Phys. 48(3), 387-411: Table I (u along the vertical centreline) and
// Table II (v along the horizontal centreline), Re = 100 columns; the walls' own values
// (0 and the lid's 1) left out.
TEST(Gas, LidDrivenCavityMatchesGhiaGhiaShin1982) {
  const double ghia_y[] = {0.0547, 0.0625, 0.0703, 0.1016, 0.1719, 0.2813, 0.4531, 0.5000,
                           0.6172, 0.7344, 0.8516, 0.9531, 0.9609, 0.9688, 0.9766};
  const double ghia_u[] = {-0.03717, -0.04192, -0.04775, -0.06434, -0.10150, -0.15662, -0.21090, -0.20581,
                           -0.13641, 0.00332,  0.23151,  0.68717,  0.73722,  0.78871,  0.84123};
  const double ghia_x[] = {0.0625, 0.0703, 0.0781, 0.0938, 0.1563, 0.2266, 0.2344, 0.5000,
                           0.8047, 0.8594, 0.9063, 0.9453, 0.9531, 0.9609, 0.9688};
  const double ghia_v[] = {0.09233, 0.10091, 0.10890, 0.12317, 0.16077, 0.17507, 0.17527, 0.05454,
                           -0.24533, -0.22445, -0.16914, -0.10313, -0.08864, -0.07391, -0.05906};
  const int n = 128;
  const float dx = 1.0f / n;
  GasSetup s = box(Int3{n, n, 1}, dx);
  s.walls.no_slip = 1;
  s.walls.velocity[3] = Vec3{1.0f, 0.0f, 0.0f};  // the lid
  auto gas = make_gas_simulation(BackendKind::Cpu);
  gas->reset(s);
  no_forces(gas->params());
  gas->params().viscosity = 0.01f;
  gas->params().dt_max = 1.0f / 64.0f;  // (the lid crosses 2 cells a step)
  std::vector<float> u, v, previous;
  double change = 1.0;
  while (gas->stats().simulated_time < 16.0) {
    const double t0 = gas->stats().simulated_time;
    while (gas->stats().simulated_time < t0 + 1.0) gas->step();
    gas->read_velocity(0, &u);
    if (!previous.empty()) {
      change = 0.0;
      for (size_t i = 0; i < u.size(); ++i) change = std::max(change, double(std::fabs(u[i] - previous[i])));
    }
    previous = u;
    if (change < 1e-4) break;  // steady: less than 1e-4 m/s in a second
  }
  gas->read_velocity(1, &v);
  // u on the faces x = 0.5 (i = 64) at y = (j + 1/2) dx; v on y = 0.5 at x = (i + 1/2) dx.
  auto u_at = [&](double y) {
    const double p = y / dx - 0.5;
    const int j = std::clamp(int(std::floor(p)), 0, n - 2);
    const double t = p - j;
    return (1 - t) * u[size_t(64 + (n + 1) * j)] + t * u[size_t(64 + (n + 1) * (j + 1))];
  };
  auto v_at = [&](double x) {
    const double p = x / dx - 0.5;
    const int i = std::clamp(int(std::floor(p)), 0, n - 2);
    const double t = p - i;
    return (1 - t) * v[size_t(i + n * 64)] + t * v[size_t(i + 1 + n * 64)];
  };
  double su = 0.0, sv = 0.0;
  for (int k = 0; k < 15; ++k) {
    su += (u_at(ghia_y[k]) - ghia_u[k]) * (u_at(ghia_y[k]) - ghia_u[k]);
    sv += (v_at(ghia_x[k]) - ghia_v[k]) * (v_at(ghia_x[k]) - ghia_v[k]);
  }
  const double rms_u = std::sqrt(su / 15.0), rms_v = std::sqrt(sv / 15.0);
  std::printf("cavity Re = 100, 128^2: t = %.0f s (change %.1e m/s in the last second), RMS against Ghia: u %.4f, "
              "v %.4f (of the lid's 1 m/s); u(0.5, 0.5) = %.4f (Ghia -0.20581), min v = %.4f at x = 0.8047 "
              "(Ghia -0.24533)\n",
              gas->stats().simulated_time, change, rms_u, rms_v, u_at(0.5), v_at(0.8047));
  EXPECT_LT(change, 1e-3) << "steady";
  EXPECT_LT(rms_u, 0.05);
  EXPECT_LT(rms_v, 0.05);
}

// A 2D plume from a hot, smoky source: total enstrophy (sum of |curl u|^2 dA), averaged
// over the steps of its second second (a single instant of a plume that has begun to
// roll up swings by 20 %), with the given confinement.
double enstrophy(const GasSimulation& gas) {
  const GasGrid g = gas.setup().grid;
  std::vector<float> u, v;
  gas.read_velocity(0, &u);
  gas.read_velocity(1, &v);
  double sum = 0.0;
  for (int j = 1; j < g.n.y; ++j)
    for (int i = 1; i < g.n.x; ++i) {  // curl at the grid's nodes
      const double dvdx = (v[size_t(i + g.n.x * j)] - v[size_t(i - 1 + g.n.x * j)]) / g.dx;
      const double dudy = (u[size_t(i + (g.n.x + 1) * j)] - u[size_t(i + (g.n.x + 1) * (j - 1))]) / g.dx;
      sum += (dvdx - dudy) * (dvdx - dudy) * g.dx * g.dx;
    }
  return sum;
}

double plume_enstrophy(float epsilon) {
  const float dx = 1.0f / 64.0f;
  GasSetup s = box(Int3{64, 96, 1}, dx, 1u << 3);
  GasSource src;
  src.center = Vec3{0.5f, 0.15f, 0.0f};
  src.radius = 0.08f;
  src.density = 4.0f;
  src.temperature = 20.0f;
  s.sources.push_back(src);
  auto gas = make_gas_simulation(BackendKind::Cpu);
  gas->reset(s);
  gas->params().vorticity = epsilon;
  double sum = 0.0;
  int samples = 0;
  while (gas->stats().simulated_time < 2.0) {
    gas->step();
    if (gas->stats().simulated_time > 1.0) sum += enstrophy(*gas), ++samples;
  }
  return sum / samples;
}

TEST(Gas, VorticityConfinementRaisesAPlumesEnstrophy) {
  const double without = plume_enstrophy(0.0f);
  const double with = plume_enstrophy(default_gas_params().vorticity);
  std::printf("plume enstrophy after 2 s: %.3g without confinement, %.3g with epsilon %.2f (x%.2f)\n", without,
              with, double(default_gas_params().vorticity), with / without);
  EXPECT_GT(without, 0.0);
  EXPECT_GT(with, 1.08 * without) << "measured 1.12 times on the 2-core VM";
}

}  // namespace
}  // namespace tp

namespace tp {
namespace {

// Every parameter at NaN, at +-1e30 and at its ends, a few steps each, beside a source
// and an obstacle: the values are clamped (a NaN keeps the last valid one), the fields stay
// finite and the projection keeps its tolerance.
TEST(Gas, ExtremeAndNaNParametersAreClampedAndTheGasRunsOn) {
  GasSetup s = box(Int3{24, 32, 16}, 0.05f, 1u << 3);
  s.obstacles.push_back(sphere(Vec3{0.6f, 0.9f, 0.4f}, 0.15f));
  GasSource src;
  src.center = Vec3{0.6f, 0.2f, 0.4f};
  src.radius = 0.15f;
  src.density = 5.0f;
  src.temperature = 30.0f;
  s.sources.push_back(src);
  auto gas = make_gas_simulation(BackendKind::Cpu);
  gas->reset(s);
  for (const GasParamInfo& info : gas_param_table()) {
    for (const double value : {double(NAN), 1e30, -1e30, info.min, info.max}) {
      SCOPED_TRACE(testing::Message() << info.name << " = " << value);
      const GasParams before = gas->params();
      info.set(gas->params(), value);
      for (int k = 0; k < 3; ++k) gas->step();
      const double now = info.get(gas->params());
      if (std::isnan(value) && info.real) {
        EXPECT_EQ(now, info.get(before)) << "a NaN keeps the last valid value";
      } else {  // (an int field stores NaN as its lowest value: clamped to the minimum)
        EXPECT_TRUE(float(now) >= float(info.min) && float(now) <= float(info.max)) << now;
      }
      const GasStats st = gas->stats();
      ASSERT_TRUE(std::isfinite(st.smoke_mass) && std::isfinite(st.max_speed));
      EXPECT_LT(st.max_speed, 1e3f);
      const GasParams& p = gas->params();
      if (p.pressure_solver == int(GasPressureSolver::Mgpcg) && st.pressure_iterations < p.pressure_max_iterations) {
        EXPECT_LE(st.pressure_residual, p.pressure_tolerance);
      }
      gas->params() = default_gas_params();
    }
  }
}

}  // namespace
}  // namespace tp
