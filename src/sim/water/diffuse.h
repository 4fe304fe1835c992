// The diffuse particle system's driver (spray, foam, bubbles; physics in
// kernels/diffuse.h). Runs after each solver step on the fluid's end state, whatever the
// solver, so it carries on through a solver switch:
//   grid + density   the end state's (the next step's own grid and density then reuse them)
//   normals          colour-field normal of every fluid particle (wave crests need them)
//   advance          every diffuse particle: classify, move, age; dead ones flagged
//   spawn counts     per fluid particle, then a scan gives each its place
//   compact + spawn  survivors in birth order, then the new ones; past the cap the oldest
//                    are dropped first, so the count never exceeds it and nothing
//                    allocates while running
//   counts           spray, foam and bubbles, for the panel
#pragma once

#include <algorithm>

#include "kernels/diffuse.h"
#include "sim/backend/publish_values.h"
#include "sim/water/simulation_impl.h"

namespace tp {

template <class B>
uint SimulationImpl<B>::diffuse_capacity() const {
  if (params_.diffuse_cap > 0) return uint(params_.diffuse_cap);
  // On the CPU each live diffuse particle costs about a fluid particle's density loop
  // every update: 50,000 keeps them under a third of a step at the interactive counts.
  return B::kIsDevice ? 2000000u : 50000u;
}

template <class B>
void SimulationImpl<B>::step_diffuse(double dt) {
  if (!params_.diffuse) {
    diffuse_.clear();
    diffuse_time_ = 0.0;
    stats_.diffuse = DiffuseCounts{0, 0, 0, diffuse_capacity(), stats_.diffuse.spawned};
    return;
  }
  // Every kDiffuseInterval of simulated time rather than every step: WCSPH's steps are a
  // fraction of a millisecond, and spray, foam and bubbles look the same updated at
  // 400 Hz, at a fraction of the cost (two neighbour loops over the fluid and one over the
  // diffuse particles). The update then covers the time since the last one.
  diffuse_time_ += dt;
  if (diffuse_time_ < kDiffuseInterval) return;
  ensure_density();
  const float step_dt = constants_.dt;
  constants_.dt = float(diffuse_time_);
  phase("diffuse", [&] { update_diffuse(); });
  constants_.dt = step_dt;
  diffuse_time_ = 0.0;
}

template <class B>
void SimulationImpl<B>::update_diffuse() {
  DiffuseState<B>& d = diffuse_;
  const uint cap = diffuse_capacity();
  const FluidView f = fluid.view();
  const GridView g = grid_.view();
  const NeighborList nl = fluid_list();
  const BoundaryView b = boundary_view();
  const StepConstants c = constants_;
  const uint m = d.n;

  // Advance the living; flags[k] = 1 for a survivor.
  d.flags.grow(m + 1);
  {
    Vec4* x = d.position.data();
    Vec4* v = d.velocity.data();
    uint* alive = d.flags.data();
    B::for_each(m, [=] TP_HD(uint k) { alive[k] = diffuse_advance(k, x, v, f, g, c) ? 1u : 0u; });
  }
  B::exclusive_scan(d.flags.data(), m);
  uint survivors = 0;
  B::copy_to_host(&survivors, d.flags.data() + m, 1);

  // How many each fluid particle spawns, and where its first goes.
  const uint n = f.n;
  d.normal.grow(n);
  d.spawn.grow(n + 1);
  {
    Vec4* normal = d.normal.data();
    B::for_each_lanes(n, TP_LANES(i) { diffuse_normal(i, f, nl, b, c, normal); });
    uint* count = d.spawn.data();
    const uint* id = fluid.id.data();
    const uint seed = uint(stats_.steps);
    B::for_each(n, [=] TP_HD(uint i) { count[i] = diffuse_spawn_count(i, f, nl, normal, id, seed, c); });
  }
  B::exclusive_scan(d.spawn.data(), n);
  uint born = 0;
  B::copy_to_host(&born, d.spawn.data() + n, 1);
  stats_.diffuse.spawned += born;

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
    const uint* id = fluid.id.data();
    const uint seed = uint(stats_.steps);
    B::for_each(n, [=] TP_HD(uint i) {
      for (uint k = 0; first[i] + k < first[i + 1]; ++k) {
        const uint j = first[i] + k;  // the j-th newborn of this step
        if (j < drop_new) continue;
        const uint slot = kept_old + (j - drop_new);
        diffuse_spawn(i, k, f, g, id, seed, c, &nx[slot], &nv[slot]);
      }
    });
  }
  d.position.swap(d.next_position);
  d.velocity.swap(d.next_velocity);
  d.n = total - drop;
  count_diffuse();
}

template <class B>
uint SimulationImpl<B>::count_diffuse_kind(DiffuseKind kind) {
  const Vec4* v = diffuse_.velocity.data();
  const float k = float(int(kind));
  return uint(B::reduce_sum(diffuse_.n, [=] TP_HD(uint i) { return v[i].w == k ? 1.0f : 0.0f; }) + 0.5);
}

template <class B>
void SimulationImpl<B>::count_diffuse() {
  stats_.diffuse.spray = count_diffuse_kind(DiffuseKind::Spray);
  stats_.diffuse.foam = count_diffuse_kind(DiffuseKind::Foam);
  stats_.diffuse.bubbles = count_diffuse_kind(DiffuseKind::Bubble);
  stats_.diffuse.capacity = diffuse_capacity();
}

template <class B>
void SimulationImpl<B>::publish_diffuse(PublishTarget& target) {
  const uint n = diffuse_.n;
  const Vec4* x = diffuse_.position.data();
  const Vec4* v = diffuse_.velocity.data();
  publish_values<B>(target, n, diffuse_.staging,
                 [=] TP_HD(uint k) { return diffuse_published(x[k], v[k]); });
}

template <class B>
std::vector<DiffuseParticle> SimulationImpl<B>::diffuse_snapshot() {
  const uint n = diffuse_.n;
  std::vector<Vec4> x(n), v(n);
  B::copy_to_host(x.data(), diffuse_.position.data(), n);
  B::copy_to_host(v.data(), diffuse_.velocity.data(), n);
  std::vector<DiffuseParticle> out(n);
  for (uint k = 0; k < n; ++k)
    out[k] = DiffuseParticle{xyz(x[k]), xyz(v[k]), int(v[k].w), x[k].w};
  return out;
}

template <class B>
void SimulationImpl<B>::add_diffuse(const std::vector<DiffuseParticle>& particles) {
  // Through the host: the living first, then the new, the newest last; past the cap the
  // oldest go, as when spawning.
  const uint cap = diffuse_capacity();
  std::vector<Vec4> x(diffuse_.n), v(diffuse_.n);
  B::copy_to_host(x.data(), diffuse_.position.data(), diffuse_.n);
  B::copy_to_host(v.data(), diffuse_.velocity.data(), diffuse_.n);
  for (const DiffuseParticle& p : particles) {
    x.push_back(make_vec4(p.position, p.lifetime));
    v.push_back(make_vec4(p.velocity, float(clampi(p.kind, 0, 2))));
  }
  const size_t drop = x.size() > cap ? x.size() - cap : 0;
  const uint n = uint(x.size() - drop);
  diffuse_.position.resize(std::max(n, cap));
  diffuse_.velocity.resize(std::max(n, cap));
  B::copy_from_host(diffuse_.position.data(), x.data() + drop, n);
  B::copy_from_host(diffuse_.velocity.data(), v.data() + drop, n);
  diffuse_.n = n;
  count_diffuse();
}

template <class B>
uint SimulationImpl<B>::diffuse_count() const {
  return diffuse_.n;
}

}  // namespace tp
