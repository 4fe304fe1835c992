// True 2D (issue 25, part 1; kernels/dimension.h): the 2D normalisations, particles that
// stay in the plane, and the three solvers against the 3D tests' checks in the plane: a
// resting column (hydrostatic, incompressible), Koshizuka & Oka's dam break, a block in
// zero gravity pulled round by surface tension; the shipped 2D scenes run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>

#include "kernels/surface_tension.h"
#include "sim_helpers.h"

namespace tp {
namespace {

using namespace tp::test;

const SolverKind kSolvers[] = {SolverKind::Wcsph, SolverKind::Pcisph, SolverKind::Pbf, SolverKind::Dfsph};

std::string solver_test_name(const testing::TestParamInfo<SolverKind>& info) {
  return solver_name(int(info.param));
}

// The midpoint rule over a square (2D) or cube (3D) lattice of n points per unit length
// covering [-1, 1]^D, of f(x) for a kernel of support 1.
double integrate(int dims, int n, const std::function<double(Vec3)>& f) {
  const double d = 1.0 / n;
  double sum = 0.0;
  const int zn = dims == 3 ? n : 0;
  for (int k = -zn; k < std::max(zn, 1); ++k)
    for (int j = -n; j < n; ++j)
      for (int i = -n; i < n; ++i) {
        const Vec3 x{float((i + 0.5) * d), float((j + 0.5) * d), dims == 3 ? float((k + 0.5) * d) : 0.0f};
        sum += f(x);
      }
  return sum * (dims == 3 ? d * d * d : d * d);
}

TEST(TwoD, CubicSplineIntegratesToOneOverThePlane) {
  const float h = 1.0f;
  const CubicKernel w2 = CubicKernel::make<2>(h), w3 = CubicKernel::make<3>(h);
  const double area = integrate(2, 800, [&](Vec3 x) { return w2.w(length(x)); });
  const double volume = integrate(3, 100, [&](Vec3 x) { return w3.w(length(x)); });
  std::printf("integral of W: 2D %.5f, 3D %.5f\n", area, volume);
  EXPECT_NEAR(area, 1.0, 1e-3);
  EXPECT_NEAR(volume, 1.0, 2e-3);
  // The gradient is W's derivative in both: a central difference along x.
  const Vec3 x{0.3f, 0.2f, 0.0f};
  const float e = 1e-3f;
  const float numeric = (w2.w(length(x + Vec3{e, 0, 0})) - w2.w(length(x - Vec3{e, 0, 0}))) / (2 * e);
  EXPECT_NEAR(w2.grad(x, length(x)).x, numeric, 1e-3f * std::fabs(numeric));
  // On the particles' square lattice the sum of W is 1 / s^2 within a few per cent, so the
  // mass rho0 / sum is about rho0 s^2 (per metre of depth).
  const float s = 0.5f;
  double sum = 0.0;
  for (int j = -3; j <= 3; ++j)
    for (int i = -3; i <= 3; ++i) sum += w2.w(s * std::sqrt(float(i * i + j * j)));
  EXPECT_NEAR(sum * s * s, 1.0, 0.05);
}

// The derivation in kernels/dimension.h: with the 2D normalisations, a half-plane of
// neighbours pulls a particle at its edge as hard as a half-space does in 3D, for Akinci's
// cohesion spline and (against a wall) for the adhesion spline. Integrated numerically
// over the lattice here, against the closed forms there.
TEST(TwoD, AkinciSplinesPullAFlatSurfaceAsHardAsIn3D) {
  const float h = 1.0f;
  const auto pull = [&](int dims, int n, auto spline) {
    return integrate(dims, n, [&](Vec3 x) {
      const float r = length(x);
      return x.y < 0.0f && r > 0.0f ? double(spline(r)) * (-x.y / r) : 0.0;
    });
  };
  const double c3 = pull(3, 120, [&](float r) { return cohesion_spline(r, h, Dimension<3>::cohesion_norm(h)); });
  const double c2 = pull(2, 1500, [&](float r) { return cohesion_spline(r, h, Dimension<2>::cohesion_norm(h)); });
  const double a3 = pull(3, 120, [&](float r) { return adhesion_spline(r, h, Dimension<3>::adhesion_norm(h)); });
  const double a2 = pull(2, 1500, [&](float r) { return adhesion_spline(r, h, Dimension<2>::adhesion_norm(h)); });
  std::printf("flat-surface pull: cohesion 3D %.6f 2D %.6f, adhesion 3D %.6f 2D %.6f\n", c3, c2, a3, a2);
  EXPECT_NEAR(c2 / c3, 1.0, 0.01);
  EXPECT_NEAR(a2 / a3, 1.0, 0.01);
  // And they scale with h as a 2D kernel must: C ~ 1/h^2, A ~ 1/h^2 at the same r/h.
  const float k = 0.04f;
  EXPECT_NEAR(cohesion_spline(0.75f * k, k, Dimension<2>::cohesion_norm(k)) * k * k,
              cohesion_spline(0.75f, 1.0f, Dimension<2>::cohesion_norm(1.0f)), 1e-3);
  EXPECT_NEAR(adhesion_spline(0.75f * k, k, Dimension<2>::adhesion_norm(k)) * k * k,
              adhesion_spline(0.75f, 1.0f, Dimension<2>::adhesion_norm(1.0f)), 1e-4);
}

// Every particle exactly on the plane with no velocity across it, even with the mouse's
// point and velocity given off the plane and gravity given a z component.
TEST(TwoD, ParticlesStayInThePlane) {
  const float s = 0.02f;
  for (SolverKind kind : kSolvers) {
    auto sim = cpu_sim(box_scene(Vec3{0, 0, -0.3f}, Vec3{0.6f, 0.5f, 0.3f}, Vec3{0, 0, -1}, Vec3{0.3f, 0.3f, 1}, s, 2), s);
    sim->params().solver = int(kind);
    sim->params().gravity_z = -3.0f;
    sim->params().surface_tension = 1.0f;
    ASSERT_EQ(sim->dimensions(), 2);
    ASSERT_EQ(sim->particle_count(), 15u * 15u);
    const float plane = sim->tank_lo().z;
    EXPECT_EQ(plane, sim->tank_hi().z);
    EXPECT_NEAR(plane, 0.0f, 1e-6f);
    MouseForce m{};
    m.active = 1;
    m.point = Vec3{0.15f, 0.15f, 0.25f};
    m.velocity = Vec3{1.0f, 0.0f, 2.0f};
    sim->set_mouse(m);
    for (int k = 0; k < 60; ++k) sim->step();
    const Snapshot snap = sim->snapshot();
    int off = 0;
    for (size_t i = 0; i < snap.position.size(); ++i)
      off += snap.position[i].z != plane || snap.velocity[i].z != 0.0f;
    EXPECT_EQ(off, 0) << solver_name(int(kind));
    const ParticleCheck c = check(*sim);
    EXPECT_EQ(c.nonfinite, 0u);
    EXPECT_EQ(c.outside, 0u);
  }
}

class EachSolver2D : public testing::TestWithParam<SolverKind> {};
INSTANTIATE_TEST_SUITE_P(Solvers, EachSolver2D, testing::ValuesIn(kSolvers), solver_test_name);

// The 3D resting column's test in the plane: 16 particles wide, 32 deep (as the 3D column).
TEST_P(EachSolver2D, RestingColumnSettlesIncompressibleAndHydrostatic) {
  const float s = 0.02f;
  auto sim = cpu_sim(box_scene(Vec3{0, 0, 0}, Vec3{16 * s, 44 * s, 1}, Vec3{0, 0, 0}, Vec3{16 * s, 32 * s, 1}, s, 2), s);
  const SolverKind kind = GetParam();
  sim->params().solver = int(kind);
  const uint n = sim->particle_count();
  ASSERT_EQ(n, 16u * 32u);
  const ColumnRecord r = settle_column(*sim, s);
  const double error = r.error, ratio = r.ratio, energy_early = r.energy_early, energy_late = r.energy_late;
  const RunStats st = sim->stats();
  std::printf("2D %s: mean density error %.3f %% (0.5-1.5 s), bottom pressure %.3f x rho0 g depth, kinetic "
              "energy %.2e -> %.2e J/m, %llu steps, mean iterations %.1f\n",
              solver_name(int(kind)), 100.0 * error, ratio, energy_early, energy_late,
              (unsigned long long)st.steps, st.mean_iterations);
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
  const ParticleCheck c = check(*sim);
  EXPECT_EQ(c.nonfinite + st.nonfinite_resets, 0u);
  EXPECT_EQ(c.outside, 0u);
}

// Koshizuka & Oka's column (L = 0.146 m wide, 2L tall, tank 4L long) in the plane, 40
// spacings wide: 3,200 particles. The 3D test's data and front, the same 15 % bound.
TEST_P(EachSolver2D, DamBreakFrontFollowsKoshizukaOka1996) {
  const float L = 0.146f, s = L / 40.0f;
  auto sim = cpu_sim(box_scene(Vec3{0, 0, 0}, Vec3{4 * L, 3 * L, 1}, Vec3{0, 0, 0}, Vec3{L, 2 * L, 1}, s, 2), s);
  sim->params().solver = int(GetParam());
  sim->params().viscosity = 1e-6f;
  ASSERT_EQ(sim->particle_count(), 40u * 80u);
  const double time_scale = std::sqrt(2.0 * 9.81 / L);
  const double t_end = kKoshizukaOka[std::size(kKoshizukaOka) - 1].T / time_scale;
  std::vector<FrontPoint> curve{{0.0, surge_front(sim->snapshot(), s) / L}};
  while (sim->stats().simulated_time < t_end + 0.005) {
    sim->step();
    curve.push_back({sim->stats().simulated_time * time_scale, surge_front(sim->snapshot(), s) / L});
  }
  const std::string label = std::string("2D ") + solver_name(int(GetParam()));
  const double rms = koshizuka_oka_rms(curve, label.c_str(), sim->particle_count(), sim->stats().steps);
  EXPECT_LE(rms, 0.15);
  const ParticleCheck c = check(*sim);
  EXPECT_EQ(c.nonfinite + sim->stats().nonfinite_resets, 0u);
  EXPECT_EQ(c.outside, 0u);
}

// The ratio of the larger to the smaller principal moment of the water's 2D inertia
// tensor about its centre (1 for a disc, 4 for a 2:1 rectangle). Particles with fewer than
// two others within 1.5 spacings are left out: a droplet thrown off is not the drop's shape.
double inertia_ratio_2d(const Snapshot& snap, float s) {
  std::vector<Vec3> kept;
  for (const Vec4& p : snap.position) {
    int near = 0;
    for (const Vec4& q : snap.position) near += length2(xyz(p) - xyz(q)) < 2.25f * s * s;
    if (near >= 3) kept.push_back(xyz(p));
  }
  if (kept.size() < 10) return INFINITY;  // no drop left: a cloud
  double cx = 0, cy = 0;
  for (const Vec3& p : kept) cx += p.x, cy += p.y;
  cx /= kept.size();
  cy /= kept.size();
  double xx = 0, yy = 0, xy = 0;
  for (const Vec3& p : kept) {
    const double x = p.x - cx, y = p.y - cy;
    xx += x * x, yy += y * y, xy += x * y;
  }
  const double mean = 0.5 * (xx + yy), d = std::sqrt(0.25 * (xx - yy) * (xx - yy) + xy * xy);
  return (mean + d) / (mean - d);
}

// A 24 x 12 rectangle in zero gravity, with the 2D splines: tension pulls it towards round,
// more with more tension (the mean inertia ratio over 1.5-2 s). Measured: 4.02 at the start;
// tension 1: 2.08 / 1.94 / 1.97 (WCSPH / PCISPH / PBF), tension 3: 1.51 / 1.77 / 1.21.
// In 2D the water stops short of a disc (its particles lock into a hexagonal packing) and
// stronger tension does not always get closer (WCSPH 1.65 at 4, 1.99 at 8), and PBF above
// about 3 tears the drop apart (docs/2d.md): the test holds what 2D does, 1 and 3, and that
// 3 ends no less round than 1 (which of the two is rounder turns with the rounding: an
// AVX2 machine's lanes made DFSPH's 3 the less round by 0.12, 2026-12-01).
TEST_P(EachSolver2D, SurfaceTensionPullsABlockRoundInZeroGravity) {
  const float s = 0.01f;
  const SolverKind kind = GetParam();
  double late[3] = {};
  const float gammas[3] = {0.0f, 1.0f, 3.0f};
  for (int g = 0; g < 3; ++g) {
    auto sim = cpu_sim(box_scene(Vec3{0, 0, 0}, Vec3{0.6f, 0.6f, 1}, Vec3{0.18f, 0.24f, 0}, Vec3{0.42f, 0.36f, 1}, s, 2), s);
    sim->params().solver = int(kind);
    sim->params().gravity_y = 0.0f;
    sim->params().surface_tension = gammas[g];
    ASSERT_EQ(sim->particle_count(), 24u * 12u);
    const double start = inertia_ratio_2d(sim->snapshot(), s);
    EXPECT_NEAR(start, 4.0, 0.05);
    int samples = 0;
    for (int step = 0; sim->stats().simulated_time < 2.0; ++step) {
      sim->step();
      if (sim->stats().simulated_time < 1.5 || step % 5) continue;
      late[g] += inertia_ratio_2d(sim->snapshot(), s);
      ++samples;
    }
    late[g] /= samples;
    std::printf("2D %s, tension %.0f: inertia ratio %.2f at the start, mean %.3f over 1.5-2 s\n",
                solver_name(int(kind)), gammas[g], start, late[g]);
    const ParticleCheck c = check(*sim);
    EXPECT_EQ(c.nonfinite + sim->stats().nonfinite_resets, 0u);
  }
  // Without tension WCSPH and PCISPH keep the block as it was; PBF, whose constraint only
  // pushes, lets it spread as a cloud (as in 3D): neither is round.
  EXPECT_GT(late[0], kind == SolverKind::Pbf ? 2.5 : 3.8);
  EXPECT_LT(late[1], 2.2);
  // Tension 3 no less round than 1, within the spread rounding gives the 2D drop's
  // oscillation: the order of the two turns with the arithmetic (DFSPH 1.655 / 1.770 with
  // AVX2 lanes, 1.883 / 1.668 on the scalar path; both within the bounds around it).
  EXPECT_LT(late[2], late[1] + 0.15);
  EXPECT_LT(late[2], 1.85);
}

// The shipped 2D scenes build and run half a second in the window's real-time settings (2D's):
// everything on the plane, inside the tank, out of the obstacles; the fountain's spout
// and drain work.
TEST(TwoD, ShippedScenesRun) {
  for (const char* name : {"dam_break_2d", "drop_into_pool_2d", "fountain_2d", "channel_2d"}) {
    const Scene scene = find_scene(name, TIDEPOOL_SOURCE_DIR "/assets/scenes");
    ASSERT_EQ(scene.dimensions, 2) << name;
    auto sim = make_simulation(BackendKind::Cpu);
    apply_scene_params(scene, sim->params());
    sim->params().solver = int(SolverKind::Pbf);
    apply_quality(sim->params(), Quality::Realtime, BackendKind::Cpu, 2);
    sim->reset(build_initial_state(scene, scene.spacing));
    const uint start = sim->particle_count();
    double top_speed = 0.0;
    while (sim->stats().simulated_time < 0.5) {
      sim->step();
      top_speed = std::max(top_speed, sim->stats().last_max_speed);
    }
    const Snapshot snap = sim->snapshot();
    const RunStats st = sim->stats();
    std::printf("%s: %u particles at the start, %u at 0.5 s (%llu emitted, %llu drained), %llu steps, top "
                "speed %.2f m/s\n",
                name, start, sim->particle_count(), (unsigned long long)st.emitted, (unsigned long long)st.removed,
                (unsigned long long)st.steps, top_speed);
    // Nothing faster than the jet or a fall from the top of the tank would give (under
    // 3D's real-time settings the 2D dam break burst at 0.2 s to the 50 m/s limit). Where
    // the falling disc first meets the pool a thin sheet squirts sideways, faster than the
    // drop (15-22 m/s for a few particles on every solver and quality, 5.3 in 3D).
    EXPECT_LT(top_speed, std::string(name) == "drop_into_pool_2d" ? 25.0 : 8.0) << name;
    int off = 0;
    for (const Vec4& p : snap.position) off += p.z != sim->tank_lo().z;
    EXPECT_EQ(off, 0) << name;
    const ParticleCheck c = check(*sim);
    EXPECT_EQ(c.nonfinite + st.nonfinite_resets, 0u) << name;
    EXPECT_EQ(c.outside, 0u) << name;
    const auto obstacles = sim->obstacles();
    if (!obstacles.empty()) {
      EXPECT_GT(closest_to_obstacles(snap, obstacles), -0.5f * sim->spacing()) << name;
    }
    if (std::string(name) == "fountain_2d") {
      EXPECT_GT(st.emitted, 0u);
    }
    if (std::string(name) == "channel_2d") {
      EXPECT_EQ(obstacles.size(), 2u);
    }
  }
}

// DFSPH in deep 2D water at the window's quality: the dam break's column (89 particles
// deep) and the floating scene's pool, a second each. At the quality's frame steps the
// Jacobi density solve could not hold the column up within its 100 iterations, a layered
// velocity mode its prediction does not see grew at the floor, and the floor burst (the dam
// break at 50 m/s with a particle 78 % compressed, the floating scene at 49.5 m/s, 68 %);
// the steps are now held to what the iterations hold up (dfsph_holding_step).
TEST(TwoD, DeepWaterHoldsOnDfsphAtTheRealtimeQuality) {
  for (const char* name : {"dam_break_2d", "floating_2d"}) {
    const Scene scene = find_scene(name, TIDEPOOL_SOURCE_DIR "/assets/scenes");
    auto sim = make_simulation(BackendKind::Cpu);
    apply_scene_params(scene, sim->params());
    sim->params().solver = int(SolverKind::Dfsph);
    apply_quality(sim->params(), Quality::Realtime, BackendKind::Cpu, 2);
    sim->reset(build_initial_state(scene, scene.spacing));
    while (sim->stats().simulated_time < 1.0) sim->step();
    const RunStats st = sim->stats();
    const double worst = sim->stats_as_stepped().density_error_max;
    std::printf("[ %s, DFSPH realtime ] %u particles, %llu steps (%.2f ms on average): top speed %.2f m/s, "
                "mean compression %.2f %%, worst particle %.1f %%\n",
                name, sim->particle_count(), (unsigned long long)st.steps, 1e3 * st.simulated_time / double(st.steps),
                st.max_speed, 100.0 * st.density_error_mean, 100.0 * worst);
    // The dam break's front and splash stay under 12 m/s on PCISPH's accurate quality (a
    // fall of the column's 2 m height is 6.3 m/s); the floating scene's disc lands at 1.5.
    EXPECT_LT(st.max_speed, 15.0) << name;
    EXPECT_LT(worst, 0.3) << name;
    EXPECT_LT(st.density_error_mean, 0.01) << name;
    const ParticleCheck c = check(*sim);
    EXPECT_EQ(c.nonfinite + st.nonfinite_resets, 0u) << name;
    EXPECT_EQ(c.outside, 0u) << name;
  }
}

}  // namespace
}  // namespace tp

namespace tp {
namespace {

// An obstacle dragged through the water in the plane (ctrl + drag, the target following the
// cursor) pushes it aside without flinging any: the channel's disc and block moved 5 cm
// along the stream at 0.25 m/s mid-run, then held. (Jumped 5 cm at once, an obstacle
// crosses the water at the 20 m/s cap for a few steps and throws it at up to 50 m/s in 2D,
// 8-20 m/s in 3D, where the water can also go round it.)
TEST(TwoD, ObstaclesDraggedInThePlanePushTheWaterCalmly) {
  const Scene scene = find_scene("channel_2d", TIDEPOOL_SOURCE_DIR "/assets/scenes");
  for (SolverKind kind : kSolvers) {
    auto sim = make_simulation(BackendKind::Cpu);
    apply_quality(sim->params(), Quality::Accurate, BackendKind::Cpu);
    apply_scene_params(scene, sim->params());
    sim->params().solver = int(kind);
    sim->reset(build_initial_state(scene, spacing_for_count(scene, 2000)));
    const std::vector<ObstacleShape> start = sim->obstacles();
    double before = 0.0, after = 0.0;
    while (sim->stats().simulated_time < 0.6) {
      sim->step();
      const double t = sim->stats().simulated_time;
      double& top = t < 0.2 ? before : after;
      top = std::max(top, sim->stats().last_max_speed);
      const float share = float(std::clamp((t - 0.2) / 0.2, 0.0, 1.0));  // 0.25 m/s from 0.2 to 0.4 s
      if (t < 0.2) continue;
      for (size_t k = 0; k < start.size(); ++k) {
        EXPECT_TRUE(sim->move_obstacle(int(k), start[k].center + Vec3{0.05f * share, 0.0f, 0.3f}));
      }
    }
    const Snapshot snap = sim->snapshot();
    std::printf("channel_2d %s: top speed %.2f m/s before the drag, %.2f during and after; obstacles moved %.3f m\n",
                solver_name(int(kind)), before, after, sim->obstacles()[0].center.x - start[0].center.x);
    EXPECT_LT(after, 2.0 * before + 1.0);
    EXPECT_NEAR(sim->obstacles()[0].center.x - start[0].center.x, 0.05f, 1e-3f);
    // The target's z (0.3 m off the plane) is the plane's: the drag stays in it.
    for (const ObstacleShape& o : sim->obstacles()) EXPECT_EQ(o.center.z, sim->tank_lo().z);
    EXPECT_GT(closest_to_obstacles(snap, sim->obstacles()), -0.5f * sim->spacing());
  }
}

}  // namespace
}  // namespace tp
