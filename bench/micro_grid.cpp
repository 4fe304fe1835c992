// Micro-benchmarks of the neighbour search on the CPU backend (issue 7, "Performance"):
// the counting-sort grid (src/sim/neighbors/neighbor_grid.h) and the neighbour loop (kernels/grid.h),
// alone and together, on a jittered cubic lattice in shuffled memory order.
//
//   BM_GridBuild        NeighborGrid::build + reorder of the positions (counting sort, gather)
//   BM_GridBuildSorted  the same on positions already in cell order (what a running
//                       simulation mostly sees: particles move little between steps)
//   BM_NeighborPass     one pass over the sorted positions: per particle, the neighbours
//                       within h are counted and W summed (the cubic kernel of
//                       kernels/sph_kernel.h); the sum and the count are written
//   BM_FullSearch       build + reorder + pass, from the shuffled order every iteration
//   BM_ListBuild        what the simulation runs after each grid build: every particle's
//                       neighbour list (src/sim/neighbors/neighbor_list.h; AVX-512 where built for
//                       it), stored, as the reference library stores its lists
//   BM_FullListSearch   build + reorder + lists, from the shuffled order every iteration
//
// Sizes: 32,768, 125,000 and 1,000,000 points (32^3, 50^3, 100^3) at spacing s with
// h = 2 s, as in the reference figures of docs/benchmarks.md (support 4r at spacing 2r).
// Only public APIs are used (configure, build, reorder, view, for_each_neighbor), so a
// change of the grid's internals needs no change here.
//
// Threads: OpenMP's, so OMP_NUM_THREADS=1 or 2 chooses them. Wall time (UseRealTime).
//   build/bin/tp_bench_micro                          # all cores
//   OMP_NUM_THREADS=1 build/bin/tp_bench_micro --benchmark_filter=Full
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "kernels/grid.h"
#include "kernels/sph_kernel.h"
#include "sim/backend/backend_cpu.h"
#include "sim/neighbors/neighbor_grid.h"
#include "sim/neighbors/neighbor_list.h"

namespace {

using tp::CpuBackend;
using tp::uint;
using tp::Vec3;
using tp::Vec4;
using Grid = tp::NeighborGrid<CpuBackend>;
template <class T>
using Buffer = CpuBackend::Buffer<T>;

constexpr float kSpacing = 0.01f;            // s [m]; the figures do not depend on it
constexpr float kSupport = 2.0f * kSpacing;  // h = 2 s
constexpr float kJitter = 0.1f;              // each coordinate moves by up to +-0.1 s
constexpr unsigned kSeed = 20240607u;        // fixed: every run sees the same points

// A side^3 cubic lattice of spacing s, each point moved by a uniform jitter, in a random
// (fixed-seed) memory order: the unsorted state a grid build starts from.
struct Lattice {
  uint n = 0;
  Vec3 lo{}, hi{};
  std::vector<Vec4> shuffled;
};

const Lattice& lattice(uint count) {
  static std::map<uint, std::unique_ptr<Lattice>> cache;
  auto& slot = cache[count];
  if (slot) return *slot;
  slot = std::make_unique<Lattice>();
  Lattice& l = *slot;
  const int side = int(std::lround(std::cbrt(double(count))));
  std::mt19937 rng(kSeed);
  std::uniform_real_distribution<float> jitter(-kJitter * kSpacing, kJitter * kSpacing);
  l.shuffled.reserve(size_t(side) * side * side);
  for (int z = 0; z < side; ++z)
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x)
        l.shuffled.push_back(Vec4{x * kSpacing + jitter(rng), y * kSpacing + jitter(rng),
                                  z * kSpacing + jitter(rng), 0.0f});
  std::shuffle(l.shuffled.begin(), l.shuffled.end(), rng);
  l.n = uint(l.shuffled.size());
  // The box of the points plus one support, as the simulation pads its tank.
  const float pad = kSupport;
  l.lo = Vec3{-pad, -pad, -pad};
  const float far = (side - 1) * kSpacing + pad;
  l.hi = Vec3{far, far, far};
  return l;
}

// The grid and the buffers one benchmark works on, filled with the shuffled lattice.
struct Setup {
  const Lattice& l;
  Grid grid;
  Buffer<Vec4> position, scratch;
  Buffer<float> w_sum;
  Buffer<uint> count;

  explicit Setup(uint n) : l(lattice(n)) {
    grid.configure(l.lo, l.hi, kSupport);
    position.resize(l.n);
    std::copy(l.shuffled.begin(), l.shuffled.end(), position.data());
    scratch.resize(l.n);
    w_sum.resize(l.n);
    count.resize(l.n);
  }

  // build + reorder: afterwards `position` is in cell order and `scratch` holds the
  // previous order, so that unsort() restores it without a copy.
  void sort() {
    grid.build(position.data(), l.n);
    grid.reorder(position, scratch);
  }
  void unsort() { position.swap(scratch); }

  // One neighbour pass over the sorted positions: per particle, the neighbours within h
  // (itself included) counted and W summed; both written (a float and a uint per
  // particle), so that neither can be optimised away.
  void pass() {
    const tp::GridView g = grid.view();
    const Vec4* x = position.data();
    float* out = w_sum.data();
    uint* c = count.data();
    const tp::CubicKernel kernel = tp::CubicKernel::make(kSupport);
    const float h = kSupport;
    CpuBackend::for_each(l.n, [=](uint i) {
      float w = 0.0f;
      uint k = 0;
      tp::for_each_neighbor(g, x, tp::xyz(x[i]), h, [&](uint, Vec3, float r) {
        w += kernel.w(r);
        ++k;
      });
      out[i] = w;
      c[i] = k;
    });
  }

  // Every particle's neighbour list, as the simulation builds it after a grid build (no
  // boundary samples: an empty boundary grid).
  tp::NeighborLists<CpuBackend> lists;
  Grid empty;
  Buffer<Vec4> no_samples;
  void list() {
    if (empty.view().cell_start == nullptr) {
      empty.configure(l.lo, l.hi, kSupport);
      no_samples.resize(1);
      empty.build(no_samples.data(), 0);
    }
    const tp::BoundaryView b{no_samples.data(), no_samples.data(), nullptr, empty.view(), empty.view(),
                             0, 0, tp::NeighborList{}, l.lo, l.hi, Vec3{0, 0, 0}, Vec3{0, 0, 0}, nullptr, {}};
    lists.build(position.data(), l.n, grid.view(), b, kSupport);
  }

  // Mean of the counts the latest pass() wrote.
  double neighbours_per_particle() const {
    double total = 0.0;
    for (uint i = 0; i < l.n; ++i) total += count.data()[i];
    return total / l.n;
  }

  // Sum of W times the particle volume s^3, averaged: about 1 inside the lattice (the
  // SPH partition of unity), less at its faces. A check that the pass found the neighbours.
  double mean_w_volume() const {
    double total = 0.0;
    for (uint i = 0; i < l.n; ++i) total += w_sum.data()[i];
    return total / l.n * double(kSpacing) * kSpacing * kSpacing;
  }
};

void report(benchmark::State& state, Setup& s, double seconds) {
  const double n = s.l.n;
  const double per_iteration = seconds / double(state.iterations());
  state.counters["particles"] = n;
  state.counters["threads"] = omp_get_max_threads();
  state.counters["ns_per_particle"] = per_iteration / n * 1e9;
  state.counters["ms"] = per_iteration * 1e3;
  state.SetItemsProcessed(int64_t(state.iterations()) * s.l.n);
}

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void BM_GridBuild(benchmark::State& state) {
  Setup s(uint(state.range(0)));
  const auto t0 = Clock::now();
  for (auto _ : state) {
    s.sort();
    benchmark::DoNotOptimize(s.position.data());
    benchmark::ClobberMemory();
    s.unsort();  // a pointer swap: the next iteration starts from the shuffled order again
  }
  const double seconds = since(t0);
  s.sort();
  s.pass();
  state.counters["neighbours"] = s.neighbours_per_particle();
  report(state, s, seconds);
}

void BM_GridBuildSorted(benchmark::State& state) {
  Setup s(uint(state.range(0)));
  s.sort();  // in cell order from here on; each build finds it so
  const auto t0 = Clock::now();
  for (auto _ : state) {
    s.sort();
    benchmark::DoNotOptimize(s.position.data());
    benchmark::ClobberMemory();
  }
  const double seconds = since(t0);
  s.pass();
  state.counters["neighbours"] = s.neighbours_per_particle();
  report(state, s, seconds);
}

void BM_NeighborPass(benchmark::State& state) {
  Setup s(uint(state.range(0)));
  s.sort();
  const auto t0 = Clock::now();
  for (auto _ : state) {
    s.pass();
    benchmark::DoNotOptimize(s.w_sum.data());
    benchmark::ClobberMemory();
  }
  const double seconds = since(t0);
  state.counters["w_volume"] = s.mean_w_volume();
  state.counters["neighbours"] = s.neighbours_per_particle();
  report(state, s, seconds);
}

void BM_FullSearch(benchmark::State& state) {
  Setup s(uint(state.range(0)));
  const auto t0 = Clock::now();
  for (auto _ : state) {
    s.sort();
    s.pass();
    benchmark::DoNotOptimize(s.w_sum.data());
    benchmark::ClobberMemory();
    s.unsort();
  }
  const double seconds = since(t0);
  s.sort();
  s.pass();
  state.counters["neighbours"] = s.neighbours_per_particle();
  report(state, s, seconds);
}

void BM_ListBuild(benchmark::State& state) {
  Setup s(uint(state.range(0)));
  s.sort();
  s.list();  // slots sized once, as in a running simulation
  const auto t0 = Clock::now();
  for (auto _ : state) {
    s.list();
    benchmark::ClobberMemory();
  }
  const double seconds = since(t0);
  state.counters["neighbours"] = s.lists.mean_fluid();
  report(state, s, seconds);
}

void BM_FullListSearch(benchmark::State& state) {
  Setup s(uint(state.range(0)));
  s.sort();
  s.list();
  s.unsort();
  const auto t0 = Clock::now();
  for (auto _ : state) {
    s.sort();
    s.list();
    benchmark::ClobberMemory();
    s.unsort();
  }
  const double seconds = since(t0);
  state.counters["neighbours"] = s.lists.mean_fluid();
  report(state, s, seconds);
}

void sizes(benchmark::internal::Benchmark* b) {
  b->Arg(32768)->Arg(125000)->Arg(1000000);
  b->UseRealTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_GridBuild)->Apply(sizes);
BENCHMARK(BM_GridBuildSorted)->Apply(sizes);
BENCHMARK(BM_NeighborPass)->Apply(sizes);
BENCHMARK(BM_FullSearch)->Apply(sizes);
BENCHMARK(BM_ListBuild)->Apply(sizes);
BENCHMARK(BM_FullListSearch)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
