// The diffuse particle system's driver (spray, foam, bubbles; physics in
// kernels/diffuse.h). Runs every diffuse_interval of simulated time after a solver step,
// on the fluid's end state with the grid, lists and densities the step left (positions at
// most a step newer than the search), whatever the solver, so it carries on through a
// solver switch:
//   advance          every diffuse particle: the fluid sampled where it is (on the CPU a
//                    vector search, diffuse_sample.h), then classify, move, age; dead ones
//                    flagged
//   spawn counts     once a 60 Hz frame: the colour-field normals of the fluid particles
//                    that need them (wave crests), each one's expected count, rounded at
//                    random, then a scan gives each its place
//   compact + spawn  survivors in birth order, then the new ones; past the cap the oldest
//                    are dropped first, so the count never exceeds it and nothing
//                    allocates while running
//   counts           spray, foam and bubbles, for the panel
// DiffuseParticles holds them; SimulationImpl::step_diffuse calls it after each step.
#pragma once

#include <algorithm>

#include "kernels/diffuse.h"
#include "kernels/neighbor_list.h"
#include "sim/backend/publish_values.h"
#include "sim/water/diffuse_sample.h"
#include "sim/water/fluid_state.h"
#include "sim/water/simulation.h"

namespace tp {

template <class Backend>
class DiffuseParticles {
 public:
  template <class T>
  using Buffer = typename Backend::template Buffer<T>;

  // The cap in use: the parameter, or the backend's own. On the CPU each live diffuse
  // particle costs about a fluid particle's density loop every update: 50,000 keeps them
  // under a third of a step at the interactive counts.
  static uint capacity(const SimParams& params) {
    if (params.diffuse_cap > 0) return uint(params.diffuse_cap);
    return Backend::kIsDevice ? 2000000u : 50000u;
  }
  // After a step of dt: whether an update is due. Every `interval` of simulated time
  // (diffuse_interval: 2.5 ms, or a 60 Hz frame in the realtime quality on the CPU) rather
  // than every step: WCSPH's steps are a fraction of a millisecond, and spray, foam and
  // bubbles look the same updated at 400 Hz, at a fraction of the cost (a grid search for
  // each diffuse particle). The update then covers the time since the last one (elapsed()).
  bool due(double dt, double interval) {
    time_ += dt;
    return time_ >= interval;
  }
  double elapsed() const { return time_; }
  // One update over c.dt = elapsed() on the fluid's end state (its grid, lists and
  // densities; `id` and `seed` make the spawning's random numbers), counts into `counts`.
  void update(const FluidView& f, const GridView& g, const NeighborList& nl, const BoundaryView& b,
              const StepConstants& c, const uint* id, uint seed, uint cap, DiffuseCounts& counts);
  void clear() {
    state_.clear();
    time_ = spawn_time_ = 0.0;
  }

  uint size() const { return state_.n; }
  void publish(PublishTarget& target);
  std::vector<DiffuseParticle> snapshot();
  // Adds particles through the host: the living first, then the new, the newest last;
  // past the cap the oldest go, as when spawning.
  void add(const std::vector<DiffuseParticle>& particles, uint cap, DiffuseCounts& counts);
  // A state file's: the time since the last update.
  void set_elapsed(double t) { time_ = t; }
  // And the time since the last spawning, which an update adds its time to.
  double spawn_time() const { return spawn_time_; }
  void set_spawn_time(double t) { spawn_time_ = t; }

  // Public only because nvcc requires that functions enclosing device lambdas are.
  uint count_kind(DiffuseKind kind);
  void advance(const FluidView& f, const GridView& g, const StepConstants& c);
  uint spawn_counts(const FluidView& f, const NeighborList& nl, const BoundaryView& b, const StepConstants& c,
                    const uint* id, uint seed);
  void count(uint cap, DiffuseCounts& counts) {
    counts.spray = count_kind(DiffuseKind::Spray);
    counts.foam = count_kind(DiffuseKind::Foam);
    counts.bubbles = count_kind(DiffuseKind::Bubble);
    counts.capacity = cap;
  }

 private:
  DiffuseState<Backend> state_;
#if TP_LANE_WIDTH
  DiffuseSampler sampler_;  ///< the CPU's vector search of the fluid at the diffuse particles
#endif
  double time_ = 0.0;        ///< [s] simulated since the last update
  double spawn_time_ = 0.0;  ///< [s] simulated up to the last update since the last spawning
  // Spawning takes two neighbour loops over the whole fluid (normals, potentials), as
  // much as advancing the diffuse particles themselves, so it runs once a frame at 60
  // frames/s (every other step of the realtime PBF), over the time since it last ran: the
  // new particles are strewn over a cylinder along the path each fluid particle takes in as
  // long a time (diffuse_spawn; up to 25 ms ahead at realtime, 7.5 cm at 3 m/s), so that
  // they come as a stream, not in bursts. (16 ms, a little under 1/60 s, so that steps of
  // a frame spawn at every step.)
  static constexpr double kSpawnInterval = 0.016;  ///< [s]
};

template <class B>
void DiffuseParticles<B>::update(const FluidView& f, const GridView& g, const NeighborList& nl,
                                 const BoundaryView& b, const StepConstants& c, const uint* id, uint seed,
                                 uint cap, DiffuseCounts& counts) {
  DiffuseState<B>& d = state_;
  const uint m = d.n;

  // Advance the living; flags[k] = 1 for a survivor.
  d.flags.grow(m + 1);
  advance(f, g, c);
  B::exclusive_scan(d.flags.data(), m);
  uint survivors = 0;
  B::copy_to_host(&survivors, d.flags.data() + m, 1);

  // How many each fluid particle spawns, and where its first goes: once every
  // kSpawnInterval, over the time since the last (spawn_time_).
  const uint n = f.n;
  spawn_time_ += c.dt;
  uint born = 0;
  StepConstants cs = c;
  if (spawn_time_ >= kSpawnInterval) {
    cs.dt = float(spawn_time_);
    spawn_time_ = 0.0;
    born = spawn_counts(f, nl, b, cs, id, seed);
    counts.spawned += born;
  }

  // The oldest go first: survivors are in birth order, so drop from their front, then
  // (when more are born than the cap holds) from the front of the newborn.
  const uint total = survivors + born;
  const uint drop = total > cap ? total - cap : 0u;
  const uint drop_old = std::min(drop, survivors);
  const uint drop_new = drop - drop_old;
  const uint kept_old = survivors - drop_old;
  d.next_position.resize(cap);
  d.next_velocity.resize(cap);
  {
    const Vec4* x = d.position.data();
    const Vec4* v = d.velocity.data();
    const uint* place = d.flags.data();
    Vec4* nx = d.next_position.data();
    Vec4* nv = d.next_velocity.data();
    B::for_each(m, [=] TP_HD(uint k) {
      const bool alive = place[k + 1] != place[k];
      if (!alive || place[k] < drop_old) return;
      nx[place[k] - drop_old] = x[k];
      nv[place[k] - drop_old] = v[k];
    });
    const uint* first = d.spawn.data();
    if (born) B::for_each(n, [=] TP_HD(uint i) {
      for (uint k = 0; first[i] + k < first[i + 1]; ++k) {
        const uint j = first[i] + k;  // the j-th newborn of this step
        if (j < drop_new) continue;
        const uint slot = kept_old + (j - drop_new);
        diffuse_spawn(i, k, f, g, id, seed, cs, &nx[slot], &nv[slot]);
      }
    });
  }
  d.position.swap(d.next_position);
  d.velocity.swap(d.next_velocity);
  d.n = total - drop;
  count(cap, counts);
}

// How many each fluid particle spawns over c.dt, scanned into d.spawn (where each one's
// first goes), and their sum. Only the particles fast enough to spawn (I_k above 0) and
// their neighbours need a normal; a block of lanes with none of them skips the normals'
// pass, which in calm water is most of the fluid.
template <class B>
uint DiffuseParticles<B>::spawn_counts(const FluidView& f, const NeighborList& nl, const BoundaryView& b,
                                       const StepConstants& c, const uint* id, uint seed) {
  DiffuseState<B>& d = state_;
  const uint n = f.n;
  d.normal.grow(n);
  d.expected.grow(n);
  d.spawn.grow(n + 1);
  Vec4* normal = d.normal.data();
  float* expected = d.expected.data();
  B::for_each(n, [=] TP_HD(uint i) { expected[i] = diffuse_energetic(i, f, c); });
  B::for_each_lanes(n, TP_LANES(i) {
    if (any_lane(maxf(load(expected, i), listed_max(nl, i, expected)) > 0.0f)) {
      diffuse_normal(i, f, nl, b, c, normal);
    } else {
      using V = Vec3Of<decltype(i)>;
      const RealOf<decltype(i)> zero(0.0f);
      store_xyzw(normal, i, V{zero, zero, zero}, zero);
    }
  });
  // (expected holds the flags until each particle's own block overwrites them; only the
  // normals' pass above reads another particle's.)
  B::for_each_lanes(n, TP_LANES(i) { store(expected, i, diffuse_expected(i, f, nl, normal, c)); });
  uint* spawn_count = d.spawn.data();
  B::for_each(n, [=] TP_HD(uint i) { spawn_count[i] = diffuse_spawn_count(expected[i], id[i], seed); });
  B::exclusive_scan(d.spawn.data(), n);
  uint born = 0;
  B::copy_to_host(&born, d.spawn.data() + n, 1);
  return born;
}

// Every living diffuse particle: the fluid sampled where it is, then its step; flags[k]
// = 1 for a survivor.
template <class B>
void DiffuseParticles<B>::advance(const FluidView& f, const GridView& g, const StepConstants& c) {
  DiffuseState<B>& d = state_;
  Vec4* x = d.position.data();
  Vec4* v = d.velocity.data();
  uint* alive = d.flags.data();
#if TP_LANE_WIDTH
  if constexpr (!B::kIsDevice) {
    if (B::lanes_enabled()) {
      // The fluid's coordinates and velocities in columns, then each particle's search
      // (src/sim/water/diffuse_sample.h).
      const uint n = f.n;
      d.columns.grow(6 * size_t(n));
      float* col = d.columns.data();
      B::for_each(n, [=](uint i) {
        const Vec4 p = f.position[i], u = f.velocity[i];
        col[i] = p.x, col[n + i] = p.y, col[2 * size_t(n) + i] = p.z;
        col[3 * size_t(n) + i] = u.x, col[4 * size_t(n) + i] = u.y, col[5 * size_t(n) + i] = u.z;
      });
      const FluidColumns columns{col, col + n, col + 2 * size_t(n), col + 3 * size_t(n), col + 4 * size_t(n),
                                 col + 5 * size_t(n)};
      d.sample.grow(d.n);
      Vec4* sample = d.sample.data();
      sampler_.template sample<B>(x, d.n, columns, g, c.kernel, sample);
      B::for_each(d.n, [=](uint k) {
        const Vec4 s = sample[k];
        alive[k] = diffuse_advance(k, x, v, FluidSample{int(s.w), xyz(s)}, c) ? 1u : 0u;
      });
      return;
    }
  }
#endif
  B::for_each(d.n, [=] TP_HD(uint k) {
    alive[k] = diffuse_advance(k, x, v, sample_fluid(xyz(x[k]), f, g, c), c) ? 1u : 0u;
  });
}

template <class B>
uint DiffuseParticles<B>::count_kind(DiffuseKind kind) {
  const Vec4* v = state_.velocity.data();
  const float k = float(int(kind));
  return uint(B::reduce_sum(state_.n, [=] TP_HD(uint i) { return v[i].w == k ? 1.0f : 0.0f; }) + 0.5);
}

template <class B>
void DiffuseParticles<B>::publish(PublishTarget& target) {
  const uint n = state_.n;
  const Vec4* x = state_.position.data();
  const Vec4* v = state_.velocity.data();
  publish_values<B>(target, n, state_.staging, [=] TP_HD(uint k) { return diffuse_published(x[k], v[k]); });
}

template <class B>
std::vector<DiffuseParticle> DiffuseParticles<B>::snapshot() {
  const uint n = state_.n;
  std::vector<Vec4> x(n), v(n);
  B::copy_to_host(x.data(), state_.position.data(), n);
  B::copy_to_host(v.data(), state_.velocity.data(), n);
  std::vector<DiffuseParticle> out(n);
  for (uint k = 0; k < n; ++k)
    out[k] = DiffuseParticle{xyz(x[k]), xyz(v[k]), int(v[k].w), x[k].w};
  return out;
}

template <class B>
void DiffuseParticles<B>::add(const std::vector<DiffuseParticle>& particles, uint cap, DiffuseCounts& counts) {
  DiffuseState<B>& d = state_;
  std::vector<Vec4> x(d.n), v(d.n);
  B::copy_to_host(x.data(), d.position.data(), d.n);
  B::copy_to_host(v.data(), d.velocity.data(), d.n);
  for (const DiffuseParticle& p : particles) {
    x.push_back(make_vec4(p.position, p.lifetime));
    v.push_back(make_vec4(p.velocity, float(clampi(p.kind, 0, 2))));
  }
  const size_t drop = x.size() > cap ? x.size() - cap : 0;
  const uint n = uint(x.size() - drop);
  d.position.resize(std::max(n, cap));
  d.velocity.resize(std::max(n, cap));
  B::copy_from_host(d.position.data(), x.data() + drop, n);
  B::copy_from_host(d.velocity.data(), v.data() + drop, n);
  d.n = n;
  count(cap, counts);
}

}  // namespace tp
