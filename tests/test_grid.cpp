// The counting-sort grid gives exactly the neighbour sets of a brute-force search.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "sim/backend/backend_cpu.h"
#include "sim/neighbors/neighbor_grid.h"
#include "sim/neighbors/neighbor_list.h"

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

namespace {

// The neighbour lists of `fluid` (fluid neighbours by original id; boundary samples by
// index) against brute force, for a boundary of tank samples [0, wall_n) and obstacle
// samples [wall_n, n) with the given clear boxes.
void check_lists(const std::vector<Vec4>& fluid, const std::vector<Vec4>& walls,
                 const std::vector<Vec4>& obstacles, Vec3 lo, Vec3 hi, float h, Vec3 clear_lo,
                 Vec3 clear_hi, Vec3 obstacle_lo, Vec3 obstacle_hi,
                 NeighborLists<CpuBackend>* lists, const std::vector<std::pair<Vec3, Vec3>>& boxes = {}) {
  NeighborGrid<CpuBackend> grid, wall_grid, obstacle_grid;
  for (auto* g : {&grid, &wall_grid, &obstacle_grid}) g->configure(lo, hi, h);
  const uint n = uint(fluid.size());
  HostBuffer<Vec4> pos(n), spare, samples(walls.size() + obstacles.size()), sample_spare;
  std::copy(fluid.begin(), fluid.end(), pos.data());
  grid.build(pos.data(), n);
  std::vector<uint> id(grid.order(), grid.order() + n);
  grid.reorder(pos, spare);
  // Walls then obstacles, each sorted by its own grid (as the simulation keeps them).
  const uint wall_n = uint(walls.size()), obstacle_n = uint(obstacles.size());
  std::vector<Vec4> sorted;
  std::vector<uint> sample_id;
  wall_grid.build(walls.data(), wall_n);
  for (uint k = 0; k < wall_n; ++k) sorted.push_back(walls[wall_grid.order()[k]]), sample_id.push_back(wall_grid.order()[k]);
  obstacle_grid.build(obstacles.data(), obstacle_n);
  for (uint k = 0; k < obstacle_n; ++k)
    sorted.push_back(obstacles[obstacle_grid.order()[k]]), sample_id.push_back(wall_n + obstacle_grid.order()[k]);
  std::copy(sorted.begin(), sorted.end(), samples.data());
  HostBuffer<float> pressure(sorted.size());
  BoundaryView b{samples.data(), samples.data(), pressure.data(), wall_grid.view(),
                 obstacle_grid.view(), wall_n, wall_n + obstacle_n, NeighborList{}, clear_lo,
                 clear_hi, obstacle_lo, obstacle_hi, nullptr, {}};
  clear_boxes(&b.objects);
  for (size_t k = 0; k < boxes.size(); ++k) grow_box(&b.objects, int(k), boxes[k].first, boxes[k].second);
  lists->set_walls(samples.data(), wall_n);  // as the simulation does: the walls' vector search
  lists->build(pos.data(), n, grid.view(), b, h);
  const NeighborList fl = lists->fluid(), bl = lists->boundary();
  const uint* active = lists->boundary_active();
  std::vector<int> listed_samples(sorted.size(), 0);
  for (uint i = 0; i < n; ++i) {
    std::set<uint> got, want;
    for_each_listed(fl, i, pos.data(), xyz(pos.data()[i]), h,
                    [&](uint j, Vec3, float) { EXPECT_TRUE(got.insert(id[j]).second); });
    for (uint j = 0; j < n; ++j)
      if (length2(xyz(fluid[id[i]]) - xyz(fluid[j])) < h * h) want.insert(j);
    EXPECT_EQ(got, want) << "fluid neighbours of particle " << id[i];
    std::set<uint> got_b, want_b;
    for_each_listed(bl, i, samples.data(), xyz(pos.data()[i]), h, [&](uint k, Vec3, float) {
      EXPECT_TRUE(got_b.insert(sample_id[k]).second);
      listed_samples[k] = 1;
    });
    for (uint k = 0; k < sorted.size(); ++k)
      if (length2(xyz(pos.data()[i]) - xyz(sorted[k])) < h * h) want_b.insert(sample_id[k]);
    EXPECT_EQ(got_b, want_b) << "boundary neighbours of particle " << id[i];
  }
  for (uint k = 0; k < sorted.size(); ++k)
    EXPECT_EQ(active[k], uint(listed_samples[k])) << "sample " << k << " marked active wrongly";
  // The samples that need a pressure: exactly the listed ones, in order, each with the
  // fluid within h of it; every sample's pressure zeroed.
  std::fill(pressure.data(), pressure.data() + sorted.size(), 7.0f);
  const SampleLists s = lists->samples(b);
  std::vector<uint> want_samples;
  for (uint k = 0; k < sorted.size(); ++k)
    if (listed_samples[k]) want_samples.push_back(k);
  ASSERT_EQ(std::vector<uint>(s.sample, s.sample + s.n), want_samples);
  for (uint q = 0; q < s.n; ++q) {
    const Vec3 xb = xyz(sorted[s.sample[q]]);
    std::set<uint> got, want;
    for_each_listed(s.fluid, q, pos.data(), xb, h, [&](uint j, Vec3, float) { EXPECT_TRUE(got.insert(id[j]).second); });
    for (uint j = 0; j < n; ++j)
      if (length2(xb - xyz(fluid[j])) < h * h) want.insert(j);
    EXPECT_EQ(got, want) << "fluid around sample " << sample_id[s.sample[q]];
  }
  for (uint k = 0; k < sorted.size(); ++k) EXPECT_EQ(pressure.data()[k], 0.0f) << "sample " << k;
  // Built without the marks (as PBF's grid build does), samples() marks them itself and
  // gives the same samples.
  NeighborLists<CpuBackend> unmarked;
  unmarked.set_walls(samples.data(), wall_n);
  unmarked.build(pos.data(), n, grid.view(), b, h, false);
  const SampleLists u = unmarked.samples(b);
  EXPECT_EQ(std::vector<uint>(u.sample, u.sample + u.n), want_samples);
  for (uint k = 0; k < sorted.size(); ++k)
    EXPECT_EQ(unmarked.boundary_active()[k], uint(listed_samples[k])) << "sample " << k;
}

// 2,500 fluid particles in the tank [0, 1] x [0, 0.6] x [0, 0.5] and 3,000 wall samples in
// a shell up to 0.05 outside it, at random.
void fluid_and_shell(std::mt19937& rng, std::vector<Vec4>* fluid, std::vector<Vec4>* walls) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  fluid->resize(2500);
  for (Vec4& v : *fluid) v = Vec4{u(rng), u(rng) * 0.6f, u(rng) * 0.5f, 0};
  while (walls->size() < 3000) {
    const Vec4 p{u(rng) * 1.1f - 0.05f, u(rng) * 0.7f - 0.05f, u(rng) * 0.6f - 0.05f, 0};
    if (p.x < 0 || p.x > 1 || p.y < 0 || p.y > 0.6f || p.z < 0 || p.z > 0.5f) walls->push_back(p);
  }
}

}  // namespace

// The lists hold exactly the neighbours a brute-force search finds: fluid, tank samples
// (outside the tank, skipped deep inside it) and obstacle samples (skipped far from them).
TEST(NeighborLists, MatchBruteForceForFluidWallsAndObstacles) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const float h = 0.08f;
  std::vector<Vec4> fluid, walls, obstacles;
  fluid_and_shell(rng, &fluid, &walls);
  // One obstacle: a ball of radius 0.1 at (0.5, 0.3, 0.25).
  while (obstacles.size() < 400) {
    const Vec4 p{0.4f + 0.2f * u(rng), 0.2f + 0.2f * u(rng), 0.15f + 0.2f * u(rng), 0};
    if (length2(xyz(p) - Vec3{0.5f, 0.3f, 0.25f}) < 0.01f) obstacles.push_back(p);
  }
  NeighborLists<CpuBackend> lists;
  check_lists(fluid, walls, obstacles, Vec3{-0.2f, -0.2f, -0.2f}, Vec3{1.2f, 0.8f, 0.7f}, h,
              Vec3{h, h, h}, Vec3{1 - h, 0.6f - h, 0.5f - h}, Vec3{0.4f - h, 0.2f - h, 0.15f - h},
              Vec3{0.6f + h, 0.4f + h, 0.35f + h}, &lists);
}

// With two obstacles far apart, each in a box of its own (BoundaryView::objects, as the
// simulation gives every body and obstacle one), the search skips the water between them
// and still lists every sample a brute-force search finds.
TEST(NeighborLists, ObjectBoxesSkipTheWaterBetweenObjectsAndMissNoSample) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const float h = 0.08f;
  std::vector<Vec4> fluid, walls, obstacles;
  fluid_and_shell(rng, &fluid, &walls);
  // Balls of radius 0.1 at x = 0.2 and 0.8; each one's box widened by h.
  const Vec3 c0{0.2f, 0.3f, 0.25f}, c1{0.8f, 0.3f, 0.25f}, r{0.1f + h, 0.1f + h, 0.1f + h};
  while (obstacles.size() < 600) {
    const Vec3 c = obstacles.size() % 2 ? c1 : c0;
    const Vec4 p{c.x - 0.1f + 0.2f * u(rng), c.y - 0.1f + 0.2f * u(rng), c.z - 0.1f + 0.2f * u(rng), 0};
    if (length2(xyz(p) - c) < 0.01f) obstacles.push_back(p);
  }
  const std::vector<std::pair<Vec3, Vec3>> boxes{{c0 - r, c0 + r}, {c1 - r, c1 + r}};
  NeighborLists<CpuBackend> lists;
  check_lists(fluid, walls, obstacles, Vec3{-0.2f, -0.2f, -0.2f}, Vec3{1.2f, 0.8f, 0.7f}, h,
              Vec3{h, h, h}, Vec3{1 - h, 0.6f - h, 0.5f - h}, c0 - r, c1 + r, &lists, boxes);
  // Between the balls, inside the one box around both: no search.
  BoundaryView b{};
  b.wall_n = 1;
  b.n = 2;
  b.obstacle_lo = c0 - r;
  b.obstacle_hi = c1 + r;
  EXPECT_TRUE(near_objects(b, Vec3{0.5f, 0.3f, 0.25f}));  // the one box alone
  clear_boxes(&b.objects);
  for (int k = 0; k < 2; ++k) grow_box(&b.objects, k, boxes[k].first, boxes[k].second);
  EXPECT_FALSE(near_objects(b, Vec3{0.5f, 0.3f, 0.25f}));
  EXPECT_TRUE(near_objects(b, Vec3{0.82f, 0.3f, 0.25f}));
  EXPECT_TRUE(near_objects(b, c0 + Vec3{0.17f, 0.0f, 0.0f}));
}

// The eight boxes' one pass (8 AVX lanes on the CPU) finds what each box's own test finds:
// random boxes, some of them unset or grown twice, against random points and boxes, with
// and without a widening by speeds.
TEST(Boxes8, MetBitsAreThoseOfEachBoxAlone) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const auto corner = [&] { return Vec3{u(rng), u(rng), u(rng)}; };
  int met = 0, missed = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Boxes8 boxes;
    clear_boxes(&boxes);
    std::vector<std::pair<Vec3, Vec3>> box(8, {Vec3{1e30f, 1e30f, 1e30f}, Vec3{-1e30f, -1e30f, -1e30f}});
    const int n = 1 + trial % 8;
    for (int k = 0; k < n + trial % 3; ++k) {
      const Vec3 lo = corner(), hi = lo + 0.3f * corner();
      const int slot = k % n;
      grow_box(&boxes, slot, lo, hi);
      box[slot].first = Vec3{std::min(box[slot].first.x, lo.x), std::min(box[slot].first.y, lo.y), std::min(box[slot].first.z, lo.z)};
      box[slot].second = Vec3{std::max(box[slot].second.x, hi.x), std::max(box[slot].second.y, hi.y), std::max(box[slot].second.z, hi.z)};
    }
    ASSERT_EQ(boxes.count, n);
    float speed[8];
    for (float& v : speed) v = 2.0f * u(rng);
    for (int q = 0; q < 50; ++q) {
      const Vec3 lo = corner(), hi = q % 2 ? lo : lo + 0.1f * corner();
      const float reach = 0.05f * u(rng), dt = q % 3 ? 0.0f : 0.02f;
      const uint bits = boxes_met(boxes, lo, hi, reach, q % 4 ? speed : nullptr, dt);
      for (int k = 0; k < 8; ++k) {
        const float w = reach + (q % 4 ? speed[k] * dt : 0.0f);
        const bool meets = k < n && hi.x >= box[k].first.x - w && lo.x <= box[k].second.x + w &&
                           hi.y >= box[k].first.y - w && lo.y <= box[k].second.y + w &&
                           hi.z >= box[k].first.z - w && lo.z <= box[k].second.z + w;
        ASSERT_EQ(((bits >> k) & 1u) != 0u, meets) << "trial " << trial << ", query " << q << ", box " << k;
        (meets ? met : missed) += 1;
      }
    }
  }
  EXPECT_GT(met, 1000);
  EXPECT_GT(missed, 5000);
}

// A clump far denser than the lattice overflows the first lists (the fluid's, and the one
// of the obstacle sample inside it): they grow and the search runs again, so that no
// neighbour is dropped.
TEST(NeighborLists, GrowWhenAParticleHasMoreNeighboursThanSlots) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const float h = 0.1f;
  std::vector<Vec4> fluid;
  for (int k = 0; k < 300; ++k) fluid.push_back(Vec4{0.5f + 0.03f * u(rng), 0.5f + 0.03f * u(rng), 0.5f + 0.03f * u(rng), 0});
  for (int k = 0; k < 500; ++k) fluid.push_back(Vec4{u(rng), u(rng), u(rng), 0});
  // An obstacle sample inside the clump: its list of fluid around it must grow too.
  std::vector<Vec4> walls{Vec4{-0.01f, 0.5f, 0.5f, 0}}, obstacles{Vec4{0.515f, 0.515f, 0.515f, 0}};
  NeighborLists<CpuBackend> lists;
  const uint before = lists.fluid_capacity(), samples_before = lists.sample_capacity();
  check_lists(fluid, walls, obstacles, Vec3{-0.2f, -0.2f, -0.2f}, Vec3{1.2f, 1.2f, 1.2f}, h,
              Vec3{h, h, h}, Vec3{1 - h, 1 - h, 1 - h}, Vec3{0.4f, 0.4f, 0.4f}, Vec3{0.63f, 0.63f, 0.63f}, &lists);
  EXPECT_GT(lists.fluid_capacity(), 300u);
  EXPECT_LT(before, 300u);
  EXPECT_GT(lists.sample_capacity(), 300u);
  EXPECT_LT(samples_before, 300u);
  double pairs = 0;  // self included, as the lists count it
  for (const Vec4& a : fluid)
    for (const Vec4& b : fluid) pairs += length2(xyz(a) - xyz(b)) < h * h ? 1 : 0;
  EXPECT_DOUBLE_EQ(lists.mean_fluid(), pairs / double(fluid.size()));
}

// Every way the CPU builds the lists gives the same arrays, element for element: the
// cell search (AVX-512, blocks of 16, the objects' samples searched by the particles of
// one cell of their grid together), one particle at a time (TIDEPOOL_SCALAR, the other
// CPUs), and the walls through the scalar search when set_walls was not given them. On
// enough particles (6,000) for the build to run on all threads, with the tank's samples and
// two clumps of objects' samples dense enough that some boundary lists run out of their
// first slots: built waiting (every list complete) and built with `over` (the lists keep
// what fits, the counts cut to it, the shortfall reported), as the simulation builds them.
TEST(NeighborLists, EveryCpuPathListsTheSameInTheSameOrder) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const float h = 0.06f;
  const uint n = 6000, wall_n = 4000, object_n = 1500;
  NeighborGrid<CpuBackend> grid, wall_grid, obstacle_grid;
  for (auto* g : {&grid, &wall_grid, &obstacle_grid})
    g->configure(Vec3{-0.2f, -0.2f, -0.2f}, Vec3{1.2f, 0.8f, 0.7f}, h);
  HostBuffer<Vec4> pos(n), spare, walls(wall_n), wall_spare, objects(object_n), object_spare;
  for (uint i = 0; i < n; ++i) pos.data()[i] = Vec4{u(rng), u(rng) * 0.6f, u(rng) * 0.5f, 0};
  for (uint k = 0; k < wall_n;) {  // a shell up to 0.05 outside the tank [0,1]x[0,0.6]x[0,0.5]
    const Vec4 p{u(rng) * 1.1f - 0.05f, u(rng) * 0.7f - 0.05f, u(rng) * 0.6f - 0.05f, 0};
    if (p.x < 0 || p.x > 1 || p.y < 0 || p.y > 0.6f || p.z < 0 || p.z > 0.5f) walls.data()[k++] = p;
  }
  // Two clumps inside the tank, 0.2 across: about 80 samples within h of a particle there.
  for (uint k = 0; k < object_n; ++k) {
    const Vec3 c = k % 2 ? Vec3{0.3f, 0.3f, 0.25f} : Vec3{0.7f, 0.2f, 0.3f};
    objects.data()[k] = Vec4{c.x + 0.2f * (u(rng) - 0.5f), c.y + 0.2f * (u(rng) - 0.5f), c.z + 0.2f * (u(rng) - 0.5f), 0};
  }
  grid.build(pos.data(), n);
  grid.reorder(pos, spare);
  wall_grid.build(walls.data(), wall_n);
  wall_grid.reorder(walls, wall_spare);
  obstacle_grid.build(objects.data(), object_n);
  obstacle_grid.reorder(objects, object_spare);
  HostBuffer<Vec4> samples(wall_n + object_n);
  std::copy(walls.data(), walls.data() + wall_n, samples.data());
  std::copy(objects.data(), objects.data() + object_n, samples.data() + wall_n);
  HostBuffer<float> pressure(wall_n + object_n);
  BoundaryView b{samples.data(), samples.data(), pressure.data(), wall_grid.view(),
                 obstacle_grid.view(), wall_n, wall_n + object_n, NeighborList{}, Vec3{h, h, h},
                 Vec3{1 - h, 0.6f - h, 0.5f - h}, Vec3{0.2f - h, 0.1f - h, 0.15f - h},
                 Vec3{0.8f + h, 0.4f + h, 0.4f + h}, nullptr, {}};
  clear_boxes(&b.objects);
  grow_box(&b.objects, 0, Vec3{0.2f - h, 0.2f - h, 0.15f - h}, Vec3{0.4f + h, 0.4f + h, 0.35f + h});
  grow_box(&b.objects, 1, Vec3{0.6f - h, 0.1f - h, 0.2f - h}, Vec3{0.8f + h, 0.3f + h, 0.4f + h});
  // Each particle's fluid list then boundary list, as stored, and the shortfall with `over`.
  Max3 shortfall{};
  auto lists = [&](bool lanes, bool vector_walls, bool with_over) {
    const bool saved = CpuBackend::lanes_enabled();
    CpuBackend::set_lanes(lanes);
    NeighborLists<CpuBackend> l;
    if (vector_walls) l.set_walls(samples.data(), wall_n);
    HostBuffer<Max3> over(1);
    over.data()[0] = Max3{0, 0, 0};
    l.build(pos.data(), n, grid.view(), b, h, true, with_over ? over.data() : nullptr);
    shortfall = over.data()[0];
    CpuBackend::set_lanes(saved);
    std::vector<std::vector<uint>> out(n + 1);
    for (const NeighborList& nl : {l.fluid(), l.boundary()})
      for (uint i = 0; i < n; ++i) {
        out[i].push_back(nl.count[i]);
        for (uint k = 0; k < nl.count[i]; ++k) out[i].push_back(nl.index[list_slot(i, k, nl.slots, nl.shift)]);
      }
    for (uint k = 0; k < wall_n + object_n; ++k) out[n].push_back(l.boundary_active()[k]);  // the marks
    return out;
  };
  for (const bool with_over : {false, true}) {
    const auto cells = lists(true, true, with_over);
    const Max3 cells_over = shortfall;
    size_t pairs = 0, object_pairs = 0;
    uint longest = 0;
    for (uint i = 0; i < n; ++i) {
      pairs += cells[i].size();
      const size_t boundary_at = 1 + cells[i][0];
      longest = std::max(longest, cells[i][boundary_at]);
      for (size_t e = boundary_at + 1; e < cells[i].size(); ++e) object_pairs += cells[i][e] >= wall_n ? 1 : 0;
    }
    EXPECT_GT(pairs, size_t(n) * 10) << "too few neighbours to compare";
    EXPECT_GT(object_pairs, size_t(n)) << "too few objects' samples listed to compare";
    if (with_over) {
      EXPECT_GT(cells_over.b, 0.0f) << "some boundary list ran out of its first slots";
    } else {
      EXPECT_GT(longest, 60u) << "the clumps give long boundary lists";
    }
    EXPECT_EQ(lists(false, true, with_over), cells) << "one particle at a time" << (with_over ? ", with over" : "");
    EXPECT_EQ(shortfall.b, cells_over.b);
    EXPECT_EQ(lists(true, false, with_over), cells) << "walls through the scalar search";
  }
}

// The AVX-512 or AVX2 search (when this build has one) lists the same neighbours in the
// same order as the scalar one, which the CUDA backend and other CPUs run.
TEST(NeighborLists, VectorSearchMatchesTheScalarOneInOrder) {
#if TP_LANE_WIDTH
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const float h = 0.07f;
  NeighborGrid<CpuBackend> grid;
  grid.configure(Vec3{0, 0, 0}, Vec3{1, 1, 1}, h);
  const uint n = 5000;
  HostBuffer<Vec4> pos(n), spare;
  for (uint i = 0; i < n; ++i) pos.data()[i] = Vec4{u(rng), u(rng), u(rng), 0};
  grid.build(pos.data(), n);
  grid.reorder(pos, spare);
  // One array, as NeighborLists keeps them: x, y, z in turn and 8 floats of padding.
  std::vector<float> xyz_arrays(3 * size_t(n) + 8);
  float* px = xyz_arrays.data();
  float* py = px + n;
  float* pz = py + n;
  for (uint i = 0; i < n; ++i) px[i] = pos.data()[i].x, py[i] = pos.data()[i].y, pz[i] = pos.data()[i].z;
  const uint capacity = 40;
  std::vector<uint> scalar(capacity + 16), vector(capacity + 16);
  uint longest = 0;
  for (uint i = 0; i < n; ++i) {
    const Vec3 x = xyz(pos.data()[i]);
    uint c = 0;
    list_neighbors(grid.view(), pos.data(), x, h, 0, scalar.data(), 1, capacity, &c);
    const uint v = list_neighbors_simd(grid.view(), px, py, pz, x, h, vector.data(), capacity);
    ASSERT_EQ(c, v) << "particle " << i;
    longest = std::max(longest, c);
    for (uint k = 0; k < std::min(c, capacity); ++k) ASSERT_EQ(scalar[k], vector[k]) << "particle " << i;
    // The GPU's variant stores only the neighbours: the same list.
    std::vector<uint> inside_only(capacity + 16, ~0u);
    uint d = 0;
    list_neighbors<true>(grid.view(), pos.data(), x, h, 0, inside_only.data(), 1, capacity, &d);
    ASSERT_EQ(c, d) << "particle " << i;
    for (uint k = 0; k < std::min(c, capacity); ++k) ASSERT_EQ(scalar[k], inside_only[k]) << "particle " << i;
  }
  EXPECT_GT(longest, 10u);
#if TP_LANE_WIDTH == 16
  // The cell search, each cell's particles (up to 16) together, lists the same: here with
  // a capacity some lists exceed, whose counts must still come out whole.
  const uint small_capacity = 12;
  const uint stride = small_capacity + 16;
  uint together = 0;
  for (uint first = 0, last; first < n; first = last) {
    const Vec3 x0 = xyz(pos.data()[first]);
    const uint cell = grid.view().linear(grid.view().cell_of(x0));
    for (last = first + 1; last < n && last - first < 16 &&
                           grid.view().linear(grid.view().cell_of(xyz(pos.data()[last]))) == cell;)
      ++last;
    const uint m = last - first;
    std::vector<Vec3> x(m);
    for (uint k = 0; k < m; ++k) x[k] = xyz(pos.data()[first + k]);
    std::vector<uint> rows(size_t(m) * stride, ~0u), counts(m, ~0u);
    list_neighbors_simd_cell(grid.view(), px, py, pz, x.data(), m, h, rows.data(), stride,
                             small_capacity, counts.data());
    for (uint k = 0; k < m; ++k) {
      uint c = 0;
      list_neighbors(grid.view(), pos.data(), x[k], h, 0, scalar.data(), 1, small_capacity, &c);
      ASSERT_EQ(counts[k], c) << "particle " << first + k;
      for (uint q = 0; q < std::min(c, small_capacity); ++q)
        ASSERT_EQ(rows[size_t(k) * stride + q], scalar[q]) << "particle " << first + k;
    }
    together += m > 1 ? m : 0;
  }
  EXPECT_GT(together, n / 4) << "too few cells with several particles to test the joint search";
#endif
#else
  GTEST_SKIP() << "this build has no vector search (compiled without -march=native, or on a "
                  "CPU without AVX-512 or AVX2); the scalar search is what the other tests check";
#endif
}
