// The counting-sort grid gives exactly the neighbour sets of a brute-force search.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "sim/backend_cpu.h"
#include "sim/neighbor_grid.h"

using namespace tp;

namespace {

using Pairs = std::set<std::pair<uint, uint>>;  // (id_i, id_j), i != j

Pairs brute_force(const std::vector<Vec4>& p, float h) {
  Pairs out;
  for (uint i = 0; i < p.size(); ++i)
    for (uint j = 0; j < p.size(); ++j)
      if (i != j && length2(xyz(p[i]) - xyz(p[j])) < h * h) out.insert({i, j});
  return out;
}

// Builds the grid over `points`, reorders them, and lists neighbour pairs by original id.
Pairs grid_search(const std::vector<Vec4>& points, Vec3 lo, Vec3 hi, float h) {
  NeighborGrid<CpuBackend> grid;
  grid.configure(lo, hi, h);
  HostBuffer<Vec4> pos(points.size()), spare;
  std::copy(points.begin(), points.end(), pos.data());
  const uint n = uint(points.size());
  grid.build(pos.data(), n);
  std::vector<uint> id(grid.order(), grid.order() + n);
  grid.reorder(pos, spare);
  // Sorted: each cell's range holds exactly the particles whose cell it is.
  const GridView g = grid.view();
  for (uint k = 0; k < n; ++k) {
    const uint c = g.linear(g.cell_of(xyz(pos.data()[k])));
    EXPECT_LE(g.cell_start[c], k);
    EXPECT_LT(k, g.cell_start[c + 1]);
  }
  Pairs out;
  for (uint i = 0; i < n; ++i)
    for_each_neighbor(g, pos.data(), xyz(pos.data()[i]), h, [&](uint j, Vec3, float) {
      if (j != i) {
        EXPECT_TRUE(out.insert({id[i], id[j]}).second) << "pair found twice";
      }
    });
  return out;
}

}  // namespace

TEST(NeighborGrid, RandomPointsMatchBruteForce) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<Vec4> p(3000);
  for (Vec4& v : p) v = Vec4{u(rng), u(rng) * 0.5f, u(rng) * 0.7f, 0};
  const float h = 0.06f;
  const Pairs expected = brute_force(p, h);
  EXPECT_GT(expected.size(), 10000u);
  EXPECT_EQ(grid_search(p, Vec3{0, 0, 0}, Vec3{1, 0.5f, 0.7f}, h), expected);
}

TEST(NeighborGrid, LatticeOnCellFacesMatchesBruteForce) {
  // Points exactly on cell faces and spaced exactly h/2 apart (ties at r = h excluded).
  const float h = 0.125f;  // exact in binary
  std::vector<Vec4> p;
  for (int z = 0; z <= 8; ++z)
    for (int y = 0; y <= 8; ++y)
      for (int x = 0; x <= 8; ++x) p.push_back(Vec4{x * h / 2, y * h / 2, z * h / 2, 0});
  const Pairs expected = brute_force(p, h);
  EXPECT_EQ(grid_search(p, Vec3{0, 0, 0}, Vec3{0.5f, 0.5f, 0.5f}, h), expected);
}

TEST(NeighborGrid, PointsClampedAtAndBeyondTheDomainEdge) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-0.2f, 1.2f);  // some outside [0, 1]
  std::vector<Vec4> p(1500);
  for (Vec4& v : p) v = Vec4{u(rng), u(rng), u(rng), 0};
  for (int k = 0; k < 50; ++k) p.push_back(Vec4{1.0f, 1.0f, float(k) / 50, 0});  // on max faces
  for (int k = 0; k < 50; ++k) p.push_back(Vec4{0.0f, float(k) / 50, 0.0f, 0});  // on min faces
  const float h = 0.1f;
  // Points beyond the domain are binned into its edge cells. Clamping moves a cell index
  // by at most as much as the point moved, so two points within h still land in adjacent
  // cells and every neighbour is still found.
  EXPECT_EQ(grid_search(p, Vec3{0, 0, 0}, Vec3{1, 1, 1}, h), brute_force(p, h));
}

TEST(NeighborGrid, OrderWithinCellIsDeterministic) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<Vec4> p(20000);
  for (Vec4& v : p) v = Vec4{u(rng), u(rng), u(rng), 0};
  std::vector<uint> first;
  for (int run = 0; run < 5; ++run) {
    NeighborGrid<CpuBackend> grid;
    grid.configure(Vec3{0, 0, 0}, Vec3{1, 1, 1}, 0.05f);
    grid.build(p.data(), uint(p.size()));
    std::vector<uint> order(grid.order(), grid.order() + p.size());
    // Within a cell, old indices ascend (a stable counting sort).
    const GridView g = grid.view();
    for (uint c = 0; c < g.cell_count(); ++c)
      for (uint k = g.cell_start[c] + 1; k < g.cell_start[c + 1]; ++k) ASSERT_LT(order[k - 1], order[k]);
    if (run == 0) first = order;
    else EXPECT_EQ(order, first);
  }
}

TEST(CpuBackend, ExclusiveScanIsRightForLargeArraysAndAnyTeamSize) {
  // Large enough for the parallel path; run both at top level and from inside a parallel
  // region, where nested parallelism is off and the inner team has one thread while
  // omp_get_max_threads() may still say more.
  const uint n = 300000;
  std::vector<uint> input(n + 1);
  std::mt19937 rng(5);
  for (uint i = 0; i < n; ++i) input[i] = rng() % 7;
  std::vector<uint> expected(input);
  CpuBackend::serial_exclusive_scan(expected.data(), n);
  ASSERT_GT(expected[n], 0u);

  std::vector<uint> a(input);
  CpuBackend::exclusive_scan(a.data(), n);
  EXPECT_EQ(a, expected);

  std::vector<uint> b(input);
  omp_set_num_threads(4);  // more than the team the nested region will get
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    CpuBackend::exclusive_scan(b.data(), n);
  }
  omp_set_num_threads(omp_get_num_procs());
  EXPECT_EQ(b, expected);
}
