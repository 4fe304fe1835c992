// Surface tension and adhesion (Akinci et al. 2013; kernels/surface_tension.h) on all three
// solvers, CPU backend (issue 25, part 2): the splines' shapes; a block of water in zero
// gravity pulls itself round, faster the stronger the tension; a drop on the floor spreads
// less with more tension and more with adhesion.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>

#include "kernels/surface_tension.h"
#include "sim_helpers.h"

namespace tp {
namespace {

using namespace tp::test;

const SolverKind kSolvers[] = {SolverKind::Wcsph, SolverKind::Pcisph, SolverKind::Pbf, SolverKind::Dfsph};

TEST(SurfaceTension, SplinesHaveThePapersShape) {
  const float h = 0.04f;
  const float h6 = std::pow(h, 6.0f), norm = 32.0f / (3.14159265f * std::pow(h, 9.0f));
  const auto C = [&](float r) { return cohesion_spline(r, h, Dimension<3>::cohesion_norm(h)); };
  const auto A = [&](float r) { return adhesion_spline(r, h, Dimension<3>::adhesion_norm(h)); };
  // C: repulsive near 0 (-h^6/64 times the normalisation at r = 0), continuous at h/2
  // (h^6 / 64 from both sides), attractive up to h, 0 from h on.
  EXPECT_NEAR(C(0.0f), -norm * h6 / 64.0f, 1e-3f * norm * h6);
  EXPECT_NEAR(C(0.5f * h - 1e-6f), C(0.5f * h + 1e-6f), 1e-3f * norm * h6);
  EXPECT_NEAR(C(0.5f * h + 1e-7f), norm * h6 / 64.0f, 1e-3f * norm * h6);
  EXPECT_GT(C(0.75f * h), 0.0f);
  EXPECT_LT(C(0.2f * h), 0.0f);
  EXPECT_EQ(C(h), 0.0f);
  EXPECT_EQ(C(1.5f * h), 0.0f);
  // A: 0 up to h/2 and from h on, positive between, largest at 3h/4.
  EXPECT_EQ(A(0.3f * h), 0.0f);
  EXPECT_EQ(A(0.5f * h), 0.0f);
  EXPECT_EQ(A(1.2f * h), 0.0f);
  EXPECT_GT(A(0.75f * h), A(0.6f * h));
  EXPECT_GT(A(0.75f * h), A(0.9f * h));
  EXPECT_NEAR(A(0.75f * h), 0.007f / std::pow(h, 3.25f) * std::pow(h / 4.0f, 0.25f),
              1e-4f * A(0.75f * h));
}

// The principal moments of the particles' inertia tensor about their centre of mass
// (equal masses), from the 3x3 tensor by Jacobi rotations; and the centre.
struct Shape {
  std::array<double, 3> moments{};
  Vec3 center{};
  double ratio() const {
    const double lo = std::min({moments[0], moments[1], moments[2]});
    const double hi = std::max({moments[0], moments[1], moments[2]});
    return hi / lo;
  }
};

Shape shape_of(const Snapshot& s) {
  Shape out;
  double c[3] = {0, 0, 0};
  for (const Vec4& p : s.position) c[0] += p.x, c[1] += p.y, c[2] += p.z;
  for (double& v : c) v /= double(s.position.size());
  double m[3][3] = {};
  for (const Vec4& p : s.position) {
    const double d[3] = {p.x - c[0], p.y - c[1], p.z - c[2]};
    const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) m[a][b] += (a == b ? r2 : 0.0) - d[a] * d[b];
  }
  for (int sweep = 0; sweep < 50; ++sweep)
    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        if (std::fabs(m[p][q]) < 1e-14 * (std::fabs(m[p][p]) + std::fabs(m[q][q]))) continue;
        const double theta = 0.5 * std::atan2(2.0 * m[p][q], m[q][q] - m[p][p]);
        const double cs = std::cos(theta), sn = std::sin(theta);
        for (int k = 0; k < 3; ++k) {  // columns p, q
          const double a = m[k][p], b = m[k][q];
          m[k][p] = cs * a - sn * b, m[k][q] = sn * a + cs * b;
        }
        for (int k = 0; k < 3; ++k) {  // rows p, q
          const double a = m[p][k], b = m[q][k];
          m[p][k] = cs * a - sn * b, m[q][k] = sn * a + cs * b;
        }
      }
  out.moments = {m[0][0], m[1][1], m[2][2]};
  out.center = Vec3{float(c[0]), float(c[1]), float(c[2])};
  return out;
}

TEST(SurfaceTension, InertiaOfABoxIsItsKnownRatio) {
  // A 16 x 8 x 8 lattice: I_long / I_short = (8^2 + 8^2) / (16^2 + 8^2) for a continuum,
  // (n^2 - 1 per axis for a lattice): (63 + 63) / (255 + 63) -> 318 / 126.
  Snapshot s;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j)
      for (int k = 0; k < 8; ++k) s.position.push_back(Vec4{float(i), float(j), float(k), 0.0f});
  EXPECT_NEAR(shape_of(s).ratio(), 318.0 / 126.0, 1e-9);
}

// An oblong block of water (16 x 8 x 8 particles, 2 cm apart) let go in zero gravity: with
// surface tension it pulls itself round: the ratio of the largest to the smallest principal
// moment of inertia falls from 2.5 to 1.1 or less within a second, sooner at twice the
// tension; at tension 1 it stays there on average over the last half second (the drop
// rings about the round shape and calms), its reach from the centre in 26 directions the
// same within two spacings; without tension it never gets round. Also printed: the spread of the outer particles' distances from
// the centre, in spacings.
TEST(SurfaceTension, OblongBlockInZeroGravityPullsItselfRoundFasterWithMoreTension) {
  const float s = 0.02f;
  const Scene scene = box_scene(Vec3{0, 0, 0}, Vec3{0.8f, 0.6f, 0.6f}, Vec3{0.24f, 0.22f, 0.22f},
                                Vec3{0.24f + 16 * s, 0.22f + 8 * s, 0.22f + 8 * s}, s);
  const double t_end = 2.0;
  for (const SolverKind solver : kSolvers) {
    SCOPED_TRACE(solver_name(int(solver)));
    double round_at[3] = {};
    double final_ratio[3] = {}, reach_spread[3] = {};
    const float tensions[3] = {0.0f, 1.0f, 2.0f};
    for (int k = 0; k < 3; ++k) {
      auto sim = cpu_sim(scene, s);
      ASSERT_EQ(sim->particle_count(), 16u * 8u * 8u);
      sim->params().solver = int(solver);
      sim->params().gravity_y = 0.0f;
      sim->params().surface_tension = tensions[k];
      round_at[k] = INFINITY;
      const double start = shape_of(sim->snapshot()).ratio();
      double late_sum = 0.0;
      int late = 0;
      while (sim->stats().simulated_time < t_end) {
        sim->step();
        const double t = sim->stats().simulated_time, r = shape_of(sim->snapshot()).ratio();
        if (r <= 1.1 && std::isinf(round_at[k])) round_at[k] = t;
        if (t >= t_end - 0.5) late_sum += r, ++late;
      }
      final_ratio[k] = late_sum / late;
      const Snapshot snap = sim->snapshot();
      const Shape sh = shape_of(snap);
      // The water's reach from the centre in 26 directions (to the cube's faces, edges and
      // corners): the farthest particle along each; for a ball they agree.
      double far = 0.0, near = INFINITY;
      for (int dx = -1; dx <= 1; ++dx)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dz = -1; dz <= 1; ++dz) {
            if (!dx && !dy && !dz) continue;
            const Vec3 u = Vec3{float(dx), float(dy), float(dz)} * (1.0f / std::sqrt(float(dx * dx + dy * dy + dz * dz)));
            double reach = 0.0;
            for (const Vec4& p : snap.position) reach = std::max(reach, double(dot(xyz(p) - sh.center, u)));
            far = std::max(far, reach), near = std::min(near, reach);
          }
      reach_spread[k] = (far - near) / s;
      std::printf("%s, surface_tension %.1f: moments ratio %.2f, <= 1.1 first at %.2f s, mean "
                  "%.3f over %.1f-%.1f s; its reach from the centre %.1f to %.1f spacings\n",
                  solver_name(int(solver)), tensions[k], start, round_at[k], final_ratio[k],
                  t_end - 0.5, t_end, near / s, far / s);
      const ParticleCheck c = check(*sim);
      EXPECT_EQ(c.nonfinite + sim->stats().nonfinite_resets, 0u);
      EXPECT_EQ(c.outside, 0u);
    }
    // (Without tension, WCSPH and PCISPH keep the block as it is; PBF's tensile correction
    // pushes its surface particles apart, and the block slowly becomes a spreading cloud.)
    EXPECT_TRUE(std::isinf(round_at[0])) << "without tension the block never gets round";
    EXPECT_GT(final_ratio[0], 1.2);
    EXPECT_LT(round_at[1], 1.0) << "tension rounds it";
    EXPECT_LE(final_ratio[1], 1.1) << "and it stays round (a drop rings, and calms)";
    EXPECT_GT(reach_spread[0], 2.0);
    EXPECT_LT(reach_spread[1], 2.0) << "its reach in 26 directions within two spacings";
    // (At twice the tension the drop rings harder: PBF's was still ringing at 1.5-2 s, its
    // mean ratio 1.05 here and 1.19 in the sanitizer build, whose floats round otherwise.
    // So for it only the time to round is asserted.)
    EXPECT_LT(round_at[2], round_at[1]) << "twice the tension rounds it sooner";
  }
}

// A drop (a cube of 8 x 8 x 8 particles) set on the floor, 1.5 s: its footprint (the area
// of the particles within one spacing of the floor, a spacing squared each) is smaller the
// stronger the tension and larger with adhesion to the floor.
TEST(SurfaceTension, DropOnTheFloorSpreadsLessWithTensionAndMoreWithAdhesion) {
  const float s = 0.02f;
  const Scene scene = box_scene(Vec3{0, 0, 0}, Vec3{0.8f, 0.4f, 0.8f}, Vec3{0.32f, 0, 0.32f},
                                Vec3{0.32f + 8 * s, 8 * s, 0.32f + 8 * s}, s);
  struct Setting {
    float tension, adhesion;
  };
  const Setting settings[] = {{0.0f, 0.0f}, {1.0f, 0.0f}, {3.0f, 0.0f}, {1.0f, 3.0f}};
  for (const SolverKind solver : kSolvers) {
    SCOPED_TRACE(solver_name(int(solver)));
    double area[4] = {};
    for (int k = 0; k < 4; ++k) {
      auto sim = cpu_sim(scene, s);
      sim->params().solver = int(solver);
      sim->params().surface_tension = settings[k].tension;
      sim->params().adhesion = settings[k].adhesion;
      while (sim->stats().simulated_time < 1.5) sim->step();
      const Snapshot snap = sim->snapshot();
      int touching = 0;
      for (const Vec4& p : snap.position) touching += p.y < s;
      area[k] = touching * double(s) * s;
      std::printf("%s, surface_tension %.0f, adhesion %.0f: footprint %.4f m^2 (%d particles on "
                  "the floor of %u; the cube's base %.4f m^2)\n",
                  solver_name(int(solver)), settings[k].tension, settings[k].adhesion, area[k],
                  touching, sim->particle_count(), 64.0 * s * s);
      const ParticleCheck c = check(*sim);
      EXPECT_EQ(c.nonfinite + sim->stats().nonfinite_resets, 0u);
      EXPECT_EQ(c.outside, 0u);
    }
    EXPECT_LT(area[1], area[0]) << "tension: less spread than none";
    EXPECT_LT(area[2], area[1]) << "more tension, less spread";
    EXPECT_GT(area[3], area[1]) << "adhesion: more spread at the same tension";
  }
}

}  // namespace
}  // namespace tp
