// The debug views' values (issue 25, part 4), as publish() writes them for the renderer,
// CPU backend: the neighbour count is full inside the water and at the walls (their
// samples count) and lower at the free surface; the vorticity of a block turning rigidly
// is twice its rate of turn; the density error is the compression the statistics report.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "sim_helpers.h"

namespace tp {
namespace {

using namespace tp::test;

std::vector<Vec4> published(Simulation& sim, ColorField field) {
  HostTarget target;
  sim.publish(target, field);
  return target.values;
}

TEST(DebugViews, NeighbourCountIsFullInsideAndAtTheWallsAndLowerAtTheSurface) {
  const float s = 0.02f;
  // Water 12 spacings deep filling a 10 x 10 spacing floor: walls on four sides and below.
  auto sim = cpu_sim(box_scene(Vec3{0, 0, 0}, Vec3{10 * s, 20 * s, 10 * s}, Vec3{0, 0, 0},
                               Vec3{10 * s, 12 * s, 10 * s}, s),
                     s);
  for (int k = 0; k < 20; ++k) sim->step();
  const std::vector<Vec4> v = published(*sim, ColorField::Neighbors);
  ASSERT_EQ(v.size(), sim->particle_count());
  float top = 0.0f;
  for (const Vec4& p : v) top = std::max(top, p.y);
  double surface = 0.0, inside = 0.0, wall = 0.0;
  int ns = 0, ni = 0, nw = 0;
  for (const Vec4& p : v) {
    const bool away_from_sides = p.x > 3 * s && p.x < 7 * s && p.z > 3 * s && p.z < 7 * s;
    if (p.y > top - 0.5f * s) surface += p.w, ++ns;
    else if (p.y > 4 * s && p.y < top - 3 * s && away_from_sides) inside += p.w, ++ni;
    else if (p.y > 4 * s && p.y < top - 3 * s && p.x < 0.5f * s) wall += p.w, ++nw;
  }
  ASSERT_GT(ns * ni * nw, 0);
  surface /= ns, inside /= ni, wall /= nw;
  std::printf("neighbours within h: %.1f inside, %.1f at a side wall, %.1f in the top layer\n",
              inside, wall, surface);
  // A full lattice neighbourhood at h = 2 spacings is 26 (32 at the slightest compression).
  EXPECT_GT(inside, 25.0);
  EXPECT_LT(inside, 40.0);
  EXPECT_NEAR(wall, inside, 0.15 * inside) << "the wall's samples stand in for the water";
  EXPECT_LT(surface, 0.8 * inside) << "the free surface lacks the water above it";
  // The positions are the particles' own.
  const Snapshot snap = sim->snapshot();
  double sum_p = 0.0, sum_v = 0.0;
  for (const Vec4& p : snap.position) sum_p += p.x + p.y + p.z;
  for (const Vec4& p : v) sum_v += p.x + p.y + p.z;
  EXPECT_NEAR(sum_v, sum_p, 1e-3 * std::fabs(sum_p));
}

TEST(DebugViews, VorticityOfARigidTurnIsTwiceItsRate) {
  const float s = 0.02f;
  const Scene scene = box_scene(Vec3{0, 0, 0}, Vec3{1, 1, 1}, Vec3{0.3f, 0.3f, 0.3f},
                                Vec3{0.3f + 16 * s, 0.3f + 16 * s, 0.3f + 16 * s}, s);
  InitialState state = build_initial_state(scene, s);
  const Vec3 center{0.3f + 8 * s, 0.3f + 8 * s, 0.3f + 8 * s};
  const float rate = 2.0f;  // [rad/s] about y: v = Omega x r
  state.velocity.clear();
  for (const Vec4& p : state.fluid) {
    const Vec3 r = xyz(p) - center;
    state.velocity.push_back(Vec4{rate * r.z, 0.0f, -rate * r.x, 0.0f});
  }
  auto sim = make_simulation(BackendKind::Cpu);
  apply_quality(sim->params(), Quality::Accurate, BackendKind::Cpu);
  sim->params().gravity_y = 0.0f;
  sim->reset(state);
  const std::vector<Vec4> v = published(*sim, ColorField::Vorticity);
  double inside = 0.0, outside = 0.0;
  int ni = 0, no = 0;
  for (const Vec4& p : v) {
    const Vec3 d = xyz(p) - center;
    const float m = std::max({std::fabs(d.x), std::fabs(d.y), std::fabs(d.z)});
    if (m < 5 * s) inside += p.w, ++ni;
    else if (m > 7.0f * s) outside += p.w, ++no;
  }
  inside /= ni, outside /= no;
  std::printf("a block turning at %.1f rad/s: |curl v| %.3f 1/s inside (2 Omega = %.1f), %.3f in the outer layer\n",
              rate, inside, 2.0 * rate, outside);
  EXPECT_NEAR(inside, 2.0 * rate, 0.05 * 2.0 * rate);
  EXPECT_LT(outside, inside) << "the surface's sums lack neighbours";
}

TEST(DebugViews, DensityErrorIsTheCompressionTheStatisticsReport) {
  const float s = 0.02f;
  auto sim = cpu_sim(box_scene(Vec3{0, 0, 0}, Vec3{0.6f, 0.4f, 0.12f}, Vec3{0, 0, 0},
                               Vec3{0.2f, 0.3f, 0.12f}, s),
                     s);
  sim->params().solver = int(SolverKind::Pbf);
  for (int k = 0; k < 40; ++k) sim->step();
  const std::vector<Vec4> v = published(*sim, ColorField::DensityError);
  const Snapshot snap = sim->snapshot();
  const float rho0 = sim->params().rest_density;
  double mean_published = 0.0, mean_snapshot = 0.0, most = 0.0;
  for (const Vec4& p : v) {
    EXPECT_GE(p.w, 0.0f);
    mean_published += p.w;
    most = std::max(most, double(p.w));
  }
  for (const float rho : snap.density) mean_snapshot += 100.0 * std::max(rho / rho0 - 1.0f, 0.0f);
  mean_published /= v.size(), mean_snapshot /= snap.density.size();
  std::printf("density error: mean %.3f %% published, %.3f %% from the snapshot, %.3f %% the statistics; "
              "largest %.2f %%\n",
              mean_published, mean_snapshot, 100.0 * sim->stats().last_density_error, most);
  EXPECT_NEAR(mean_published, mean_snapshot, 1e-4 + 1e-4 * mean_snapshot);
  EXPECT_NEAR(mean_published, 100.0 * sim->stats().last_density_error, 1e-3 + 1e-3 * mean_published);
  EXPECT_GT(most, 0.0) << "a dam break compresses somewhere";
}

}  // namespace
}  // namespace tp
