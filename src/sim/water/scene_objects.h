// The scene's objects in the step: obstacles (moved by the user, sampled for the solvers),
// emitters (add layers of particles) and outflows (remove them). The particle count may
// change only here, at the start of a step, before the grid build:
//   outflow    particles inside an outflow box removed (scan and compact, order kept)
//   emit       each due emitter's layer, minus points with a particle within 0.9 s,
//              appended with new ids; the buffers grow by half when they must
//   obstacles  each moves towards its target, at most half a spacing per step; its
//              samples carry its velocity (pressure, friction) and are re-sorted by
//              their own small grid after a move
#pragma once

#include <algorithm>
#include <cmath>

#include "kernels/obstacle.h"
#include "sim/water/simulation_impl.h"

namespace tp {

// Obstacle samples in the obstacle's own frame: lattice points of spacing s from half a
// spacing to two and a half spacings inside its surface (the tank's walls also start half
// a spacing behind the face the fluid rests on), w = the lattice volume. In 2D the points
// of the obstacle's cut through its centre's plane (z = 0 in its frame).
std::vector<Vec4> obstacle_samples(const ObstacleShape& shape, float spacing, float volume, int dimensions = 3);
// Points of one emitted layer in the nozzle's plane: (u, w) coordinates on a square lattice
// of spacing s, inside the disk or rectangle. In 2D the nozzle is a slot: the points on the
// u axis across the disk's diameter or the rectangle's width (emitter_frame: u in the plane).
std::vector<Vec3> emitter_layer(const Emitter& emitter, float spacing, int dimensions = 3);
// The nozzle's frame: axis a along the velocity, u horizontal when it can be, w = a x u;
// in 2D u across a in the plane z = const (w along z).
void emitter_frame(const Emitter& emitter, Vec3* a, Vec3* u, Vec3* w, int dimensions = 3);

struct OutflowBoxes {
  Vec3 lo[kMaxOutflows], hi[kMaxOutflows];
  int count;
};

template <class B>
void SimulationImpl<B>::setup_scene_objects(const InitialState& s) {
  if (s.obstacles.size() > size_t(kMaxObstacles))
    throw std::invalid_argument("too many obstacles (the limit is " + std::to_string(kMaxObstacles) + ")");
  if (s.outflows.size() > kMaxOutflows)
    throw std::invalid_argument("too many outflows (the limit is " + std::to_string(kMaxOutflows) + ")");
  obstacles_ = s.obstacles;
  for (ObstacleShape& o : obstacles_) {
    o.velocity = Vec3{0, 0, 0};
    if (dimensions_ == 2) o.center.z = tank_lo_.z;  // cut through its middle by the plane
  }
  obstacle_target_.clear();
  for (const ObstacleShape& o : obstacles_) obstacle_target_.push_back(o.center);
  emitters_ = s.emitters;
  outflows_ = s.outflows;
  emitter_travel_.assign(emitters_.size(), 0.0);
  emitter_points_.clear();
  for (const Emitter& e : emitters_) emitter_points_.push_back(emitter_layer(e, spacing_, dimensions_));
  const uint64_t initial = fluid.n;
  max_particles_ = s.max_particles ? s.max_particles : automatic_max_particles(initial);
  max_particles_ = std::min<uint64_t>(max_particles_, uint64_t(1) << 31);

  // Obstacle samples: local offsets and owners, fixed; world positions follow the centres.
  std::vector<Vec4> local;
  std::vector<uint> owner;
  const float volume =
      1.0f / lattice_kernel_sum(CubicKernel::make_for(dimensions_, 2.0f * spacing_), spacing_, dimensions_);
  for (size_t k = 0; k < obstacles_.size(); ++k)
    for (const Vec4& p : obstacle_samples(obstacles_[k], spacing_, volume, dimensions_)) {
      local.push_back(p);
      owner.push_back(uint(k));
    }
  obstacle_n_ = uint(local.size());
  obstacle_local_.resize(obstacle_n_);
  obstacle_owner_.resize(obstacle_n_);
  obstacle_world_.resize(obstacle_n_);
  B::copy_from_host(obstacle_local_.data(), local.data(), obstacle_n_);
  B::copy_from_host(obstacle_owner_.data(), owner.data(), obstacle_n_);
}

// The tank's samples sorted once by their grid, then room for the obstacles' after them.
template <class B>
void SimulationImpl<B>::place_boundary_samples(const InitialState& s, float lattice_sum) {
  std::vector<Vec4> samples(s.boundary);
  for (Vec4& b : samples)
    if (!(b.w > 0.0f)) b.w = 1.0f / lattice_sum;
  wall_n_ = uint(samples.size());
  const uint total = wall_n_ + obstacle_n_;
  boundary_.resize(total);
  B::copy_from_host(boundary_.data(), samples.data(), wall_n_);
  boundary_grid_.build(boundary_.data(), wall_n_);
  boundary_grid_.reorder(boundary_, boundary_spare_);
  lists_.set_walls(boundary_.data(), wall_n_);
  boundary_pressure_.resize(total);
  boundary_velocity_.resize(total);
  Vec4* v = boundary_velocity_.data();
  float* p = boundary_pressure_.data();
  B::for_each(total, [=] TP_HD(uint k) {
    v[k] = Vec4{0, 0, 0, 0};
    p[k] = 0.0f;
  });
  const float pad = 2.0f * spacing_ + spacing_;
  obstacle_grid_.configure(tank_lo_ - Vec3{pad, pad, pad}, tank_hi_ + Vec3{pad, pad, pad}, 2.0f * spacing_);
  copy_obstacles_to_constants();
  place_obstacle_samples();
}

template <class B>
void SimulationImpl<B>::copy_obstacles_to_constants() {
  constants_.obstacle_count = int(obstacles_.size());
  for (size_t k = 0; k < obstacles_.size(); ++k) constants_.obstacles[k] = obstacles_[k];
}

// World positions and velocities of the obstacle samples, sorted by their own grid into
// the boundary arrays after the tank's.
template <class B>
void SimulationImpl<B>::place_obstacle_samples() {
  obstacle_lo_ = obstacle_hi_ = Vec3{0, 0, 0};
  if (obstacle_n_ == 0) return;
  copy_obstacles_to_constants();
  // The box around every obstacle, widened by h: outside it no sample is within h.
  const float h = 2.0f * spacing_;
  obstacle_lo_ = Vec3{INFINITY, INFINITY, INFINITY};
  obstacle_hi_ = -obstacle_lo_;
  for (const ObstacleShape& o : obstacles_) {
    const Vec3 half = obstacle_half_size(o);
    const Vec3 lo = o.center - half - Vec3{h, h, h}, hi = o.center + half + Vec3{h, h, h};
    obstacle_lo_ = Vec3{std::min(obstacle_lo_.x, lo.x), std::min(obstacle_lo_.y, lo.y), std::min(obstacle_lo_.z, lo.z)};
    obstacle_hi_ = Vec3{std::max(obstacle_hi_.x, hi.x), std::max(obstacle_hi_.y, hi.y), std::max(obstacle_hi_.z, hi.z)};
  }
  const StepConstants c = constants_;
  const Vec4* local = obstacle_local_.data();
  const uint* owner = obstacle_owner_.data();
  Vec4* world = obstacle_world_.data();
  B::for_each(obstacle_n_, [=] TP_HD(uint k) {
    world[k] = make_vec4(c.obstacles[owner[k]].center + xyz(local[k]), local[k].w);
  });
  obstacle_grid_.build(world, obstacle_n_);
  const uint* order = obstacle_grid_.order();
  Vec4* sample = boundary_.data() + wall_n_;
  Vec4* velocity = boundary_velocity_.data() + wall_n_;
  B::for_each(obstacle_n_, [=] TP_HD(uint j) {
    const uint k = order[j];
    sample[j] = world[k];
    velocity[j] = make_vec4(c.obstacles[owner[k]].velocity, 0.0f);
  });
}

template <class B>
bool SimulationImpl<B>::move_obstacle(int index, Vec3 center) {
  if (index < 0 || index >= int(obstacles_.size()) || !is_finite(center)) return false;
  const ObstacleShape& o = obstacles_[size_t(index)];
  const Vec3 half = obstacle_half_size(o);
  auto keep_in = [](float x, float lo, float hi, float h) {
    return lo + h <= hi - h ? clampf(x, lo + h, hi - h) : 0.5f * (lo + hi);
  };
  obstacle_target_[size_t(index)] =
      Vec3{keep_in(center.x, tank_lo_.x, tank_hi_.x, half.x), keep_in(center.y, tank_lo_.y, tank_hi_.y, half.y),
           keep_in(center.z, tank_lo_.z, tank_hi_.z, half.z)};
  return true;
}

// Each obstacle's velocity for this step: towards its target, at most half a spacing per
// step of the previous step's length (so that the fluid is never overrun within a step).
template <class B>
void SimulationImpl<B>::plan_obstacle_motion() {
  if (obstacles_.empty()) return;
  const double dt = stats_.steps ? std::max(stats_.last_dt, double(params_.dt_min)) : double(params_.dt_min);
  const float limit = float(std::min(0.5 * spacing_ / dt, double(kMaxObstacleSpeed)));
  bool changed = false;
  for (size_t k = 0; k < obstacles_.size(); ++k) {
    const Vec3 to = obstacle_target_[k] - obstacles_[k].center;
    Vec3 v = to * float(1.0 / dt);
    const float speed = length(v);
    if (speed > limit) v = v * (limit / speed);
    if (length(to) < 1e-6f * spacing_) v = Vec3{0, 0, 0};
    changed = changed || v.x != obstacles_[k].velocity.x || v.y != obstacles_[k].velocity.y ||
              v.z != obstacles_[k].velocity.z;
    obstacles_[k].velocity = v;
  }
  if (changed) place_obstacle_samples();  // the same places, the new velocities
  copy_obstacles_to_constants();
}

// Called by integrate() and commit_predicted() once the step's dt is known: the obstacles
// move (and their samples with them), so that the clamp pushes particles out of where
// they are at the end of the step.
template <class B>
void SimulationImpl<B>::advance_obstacles() {
  bool moved = false;
  for (size_t k = 0; k < obstacles_.size(); ++k) {
    ObstacleShape& o = obstacles_[k];
    if (o.velocity.x == 0.0f && o.velocity.y == 0.0f && o.velocity.z == 0.0f) continue;
    const Vec3 to = obstacle_target_[k] - o.center;
    const Vec3 step = o.velocity * constants_.dt;
    o.center = length2(step) >= length2(to) ? obstacle_target_[k] : o.center + step;
    moved = true;
  }
  copy_obstacles_to_constants();
  // The samples follow at once, so that the end state's density (statistics, the diffuse
  // particles, a density reused by the next step) sees the obstacles where they are.
  if (moved) place_obstacle_samples();
}

template <class B>
void SimulationImpl<B>::remove_outflow() {
  if (outflows_.empty() || fluid.n == 0) return;
  OutflowBoxes boxes{};
  boxes.count = int(outflows_.size());
  for (size_t k = 0; k < outflows_.size(); ++k) {
    boxes.lo[k] = outflows_[k].lo;
    boxes.hi[k] = outflows_[k].hi;
  }
  const uint n = fluid.n;
  object_flags_.grow(n + 1);
  uint* keep = object_flags_.data();
  const Vec4* x = fluid.position.data();
  B::for_each(n, [=] TP_HD(uint i) {
    const Vec3 p = xyz(x[i]);
    uint inside = 0;
    for (int k = 0; k < boxes.count; ++k)
      inside |= uint(p.x >= boxes.lo[k].x && p.x <= boxes.hi[k].x && p.y >= boxes.lo[k].y &&
                     p.y <= boxes.hi[k].y && p.z >= boxes.lo[k].z && p.z <= boxes.hi[k].z);
    keep[i] = 1u - inside;
  });
  B::exclusive_scan(keep, n);
  uint survivors = 0;
  B::copy_to_host(&survivors, keep + n, 1);
  if (survivors == n) return;
  // keep[] now holds places; a particle is kept when its place differs from the next one's.
  compact(fluid.position, fluid.spare4, keep, n);
  compact(fluid.velocity, fluid.spare4, keep, n);
  compact(fluid.id, fluid.spare_id, keep, n);
  compact(fluid.pressure, fluid.spare_f, keep, n);
  stats_.removed += n - survivors;
  fluid.n = survivors;
  sorted_ = density_valid_ = false;
}

template <class B>
template <class T>
void SimulationImpl<B>::compact(Buffer<T>& data, Buffer<T>& spare, const uint* place, uint n) {
  spare.resize(data.size());
  const T* src = data.data();
  T* dst = spare.data();
  B::for_each(n, [=] TP_HD(uint i) {
    if (place[i + 1] != place[i]) dst[place[i]] = src[i];
  });
  data.swap(spare);
}

template <class B>
void SimulationImpl<B>::emit_particles() {
  stats_.emitters_paused = false;
  if (emitters_.empty()) return;
  const double t = stats_.simulated_time;
  std::vector<Vec4> cand_x, cand_v;
  copy_obstacles_to_constants();
  const StepConstants& c = constants_;
  for (size_t k = 0; k < emitters_.size(); ++k) {
    const Emitter& e = emitters_[k];
    const double gap = emitter_gap(k);
    const bool active = t >= e.start && (e.stop < 0.0f || t < e.stop);
    if (!active || emitter_points_[k].empty()) {
      emitter_travel_[k] = gap;  // lays its first layer as soon as it starts
      continue;
    }
    if (emitter_travel_[k] < gap) continue;
    const float offset = float(std::min(emitter_travel_[k] - gap, double(spacing_)));
    Vec3 a, u, w;
    emitter_frame(e, &a, &u, &w, dimensions_);
    const float margin = 0.5f * spacing_;
    const bool plane = dimensions_ == 2;
    for (const Vec3& p : emitter_points_[k]) {
      Vec3 x = e.position + u * p.x + w * p.y + a * offset;
      if (plane) x.z = tank_lo_.z;
      const bool in_tank = x.x > tank_lo_.x + margin && x.x < tank_hi_.x - margin && x.y > tank_lo_.y + margin &&
                           x.y < tank_hi_.y - margin &&
                           (plane || (x.z > tank_lo_.z + margin && x.z < tank_hi_.z - margin));
      bool clear = in_tank;
      for (int o = 0; o < c.obstacle_count && clear; ++o) clear = obstacle_distance(c.obstacles[o], x) > margin;
      if (!clear) continue;
      cand_x.push_back(make_vec4(x, 0.0f));
      cand_v.push_back(make_vec4(plane ? Vec3{e.velocity.x, e.velocity.y, 0.0f} : e.velocity, 0.0f));
    }
    emitter_travel_[k] = std::min(emitter_travel_[k] - gap, gap);
  }
  if (cand_x.empty()) return;
  const uint m = uint(cand_x.size());
  if (uint64_t(fluid.n) + m > max_particles_) {
    stats_.emitters_paused = true;
    return;
  }
  // Which candidates have no particle within 0.9 spacings (the grid of the current
  // positions; candidates of one layer are a spacing apart by construction).
  emit_x_.grow(m);
  emit_v_.grow(m);
  object_flags_.grow(m + 1);
  B::copy_from_host(emit_x_.data(), cand_x.data(), m);
  B::copy_from_host(emit_v_.data(), cand_v.data(), m);
  uint* free_place = object_flags_.data();
  const Vec4* cx = emit_x_.data();
  if (fluid.n > 0) {
    sort_particles();
    const GridView g = grid_.view();
    const Vec4* x = fluid.position.data();
    const float min_dist = kEmitMinDistance * spacing_;
    B::for_each(m, [=] TP_HD(uint k) {
      bool free = true;
      for_each_neighbor(g, x, xyz(cx[k]), min_dist, [&](uint, Vec3, float) { free = false; });
      free_place[k] = free ? 1u : 0u;
    });
  } else {
    B::for_each(m, [=] TP_HD(uint k) { free_place[k] = 1u; });
  }
  B::exclusive_scan(free_place, m);
  uint added = 0;
  B::copy_to_host(&added, free_place + m, 1);
  if (added == 0) return;
  const uint n = fluid.n;
  fluid.reserve(n + added);
  {
    const Vec4* cv = emit_v_.data();
    Vec4* x = fluid.position.data();
    Vec4* v = fluid.velocity.data();
    uint* id = fluid.id.data();
    float* p = fluid.pressure.data();
    const uint first_id = next_id_;
    B::for_each(m, [=] TP_HD(uint k) {
      if (free_place[k + 1] == free_place[k]) return;
      const uint slot = n + free_place[k];
      x[slot] = cx[k];
      v[slot] = cv[k];
      id[slot] = first_id + free_place[k];
      p[slot] = 0.0f;
    });
  }
  next_id_ += added;
  fluid.n = n + added;
  stats_.emitted += added;
  sorted_ = density_valid_ = false;
}

// Distance the water moves between two layers: a spacing, or more to keep to the rate.
template <class B>
double SimulationImpl<B>::emitter_gap(size_t k) const {
  const Emitter& e = emitters_[k];
  const double gap = spacing_;
  if (!(e.rate > 0.0f)) return gap;
  const double per_layer = double(emitter_points_[k].size());
  return std::max(gap, double(length(e.velocity)) * per_layer / double(e.rate));
}

template <class B>
void SimulationImpl<B>::advance_emitters(double dt) {
  const double t = stats_.simulated_time;
  for (size_t k = 0; k < emitters_.size(); ++k) {
    const Emitter& e = emitters_[k];
    if (t >= e.start && (e.stop < 0.0f || t < e.stop)) emitter_travel_[k] += double(length(e.velocity)) * dt;
  }
}

}  // namespace tp
