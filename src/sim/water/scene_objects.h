// The scene's objects in the step: obstacles (moved by the user, sampled for the solvers),
// emitters (add layers of particles) and outflows (remove them). The particle count may
// change only here, at the start of a step, before the grid build:
//   outflow    particles inside an outflow box removed (scan and compact, order kept)
//   emit       each due emitter's layer, minus points with a particle within 0.9 s,
//              appended with new ids; the buffers grow by half when they must
//   obstacles  each moves towards its target, at most half a spacing per step; its
//              samples carry its velocity (pressure, friction) and are re-sorted by
//              their own small grid after a move
//   bodies     rigid bodies the water moves (rigid_bodies.h): their samples share the
//              obstacles' arrays and grid, after the obstacles', and carry the velocity
//              of the body's point where they sit
// SceneObjects holds them and their buffers; SimulationImpl calls it at those points of
// the step and places the obstacles' samples after the tank's in its boundary arrays.
#pragma once

#include <algorithm>
#include <cmath>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/grid.h"
#include "kernels/obstacle.h"
#include "sim/neighbors/neighbor_grid.h"
#include "sim/water/fluid_state.h"
#include "sim/water/rigid_bodies.h"
#include "sim/water/simulation.h"

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
// The obstacles as a kernel's lambda takes them (by value).
struct ObstacleArray {
  ObstacleShape shape[kMaxObstacles];
  int count;
};

// Where an obstacle or a body whose samples SceneObjects holds is and how it moves (at
// namespace scope: nvcc refuses a private member type in a device lambda's captures).
struct SampleOwnerFrame {
  RigidPose pose;
  RigidMotion motion;
};

template <class Backend>
class SceneObjects {
 public:
  template <class T>
  using Buffer = typename Backend::template Buffer<T>;

  // A reset: the scene's obstacles (at rest; in 2D cut through their middle by the
  // plane), emitters and outflows, for a simulation of `fluid_n` initial particles at
  // `spacing` in the tank [lo, hi]; `sample_volume` is a boundary sample's. Throws
  // std::invalid_argument for more than the limits.
  void setup(const InitialState& s, uint fluid_n, float spacing, float sample_volume);

  // The obstacles' samples at their world positions with their obstacle's velocity,
  // sorted by their own grid, into sample[] and velocity[] (the boundary arrays after the
  // tank's samples).
  void place_samples(Vec4* sample, Vec4* velocity);
  void copy_to(StepConstants& c) const {
    c.obstacle_count = int(obstacles_.size());
    for (size_t k = 0; k < obstacles_.size(); ++k) c.obstacles[k] = obstacles_[k];
    c.bodies = bodies_.view();
  }
  // Simulation::move_obstacle: where obstacle `index` is to go (kept inside the tank).
  bool move_obstacle(int index, Vec3 center);
  // Each obstacle's velocity for a step after one of `last_dt`: towards its target, at
  // most half a spacing per step. Returns whether a velocity changed (place the samples).
  bool plan_motion(double last_dt);
  // The obstacles move by their velocity for `dt` (the step's, once known), the bodies
  // under `gravity` and the fluid's force of the step before. Returns whether one moved
  // (place the samples).
  bool advance(float dt, Vec3 gravity = Vec3{0, 0, 0});
  // Removes the fluid particles inside an outflow box (order kept); returns how many.
  uint remove_outflow(FluidState<Backend>& fluid);
  // Appends each due emitter's layer at simulated time t, less the points with a particle
  // within 0.9 spacings: `sorted_grid()` sorts the fluid and gives its grid, when needed.
  struct Emitted {
    uint added = 0;
    bool paused = false;  ///< the layers would pass max_particles: none were laid
  };
  // (A std::function, not a template: nvcc allows no local lambda type in the template
  // arguments of a function that holds a device lambda.)
  Emitted emit(FluidState<Backend>& fluid, double t, const std::function<GridView()>& sorted_grid);
  // The emitters' progress over a step of dt ending at simulated time t.
  void advance_emitters(double t, double dt);

  // What a step changes here, for the NaN guard's step start.
  struct Moment {
    std::vector<ObstacleShape> obstacles;
    std::vector<double> emitter_travel;
    typename RigidBodies<Backend>::Moment bodies;
  };
  Moment moment() const { return Moment{obstacles_, emitter_travel_, bodies_.moment()}; }
  void restore(const Moment& m) {
    if (!obstacles_.empty()) obstacles_ = m.obstacles;
    emitter_travel_ = m.emitter_travel;
    bodies_.restore(m.bodies);
  }
  // A state file's: obstacles with their velocities, targets, progress, the next id.
  void restore(const std::vector<ObstacleShape>& obstacles, const std::vector<Vec3>& targets,
               const std::vector<double>& travel, uint next_id) {
    obstacles_ = obstacles;
    targets_ = targets;
    emitter_travel_ = travel;
    next_id_ = next_id;
  }
  void clear();

  const std::vector<ObstacleShape>& obstacles() const { return obstacles_; }
  const std::vector<Vec3>& targets() const { return targets_; }
  const std::vector<Emitter>& emitters() const { return emitters_; }
  const std::vector<double>& emitter_travel() const { return emitter_travel_; }
  const std::vector<Outflow>& outflows() const { return outflows_; }
  uint64_t max_particles() const { return max_particles_; }
  uint next_id() const { return next_id_; }
  uint sample_count() const { return sample_n_; }
  RigidBodies<Backend>& bodies() { return bodies_; }
  const RigidBodies<Backend>& bodies() const { return bodies_; }
  // For the fluid's forces on the bodies' samples (SimulationImpl::gather_body_forces):
  // per sorted sample (as place_samples wrote them) its index in the unsorted arrays; per
  // unsorted sample its owner (obstacles first, then the bodies) and the force on it.
  const uint* sample_order() const { return grid_.order(); }
  const uint* sample_owner() const { return owner_.data(); }
  Vec4* sample_force() { return force_.data(); }
  uint body_owner_base() const { return uint(obstacles_.size()); }
  // The bodies' samples' velocities (`velocity`, sorted as place_samples wrote them) as if
  // each body moved at its own velocities plus its solve offsets (DFSPH's bodies inside its
  // solves, RigidBodies::solve_offsets); the obstacles' stay as they are.
  void offset_body_sample_velocities(Vec4* velocity);
  // The bodies' sums of their samples' forces (after a gather).
  void sum_body_forces(bool in_solve = false) { bodies_.sum_forces(force_.data(), world_.data(), in_solve); }
  // For BoundaryView: the samples' grid, and the box around every obstacle widened by h
  // (outside it no obstacle sample is within h).
  GridView grid_view() const { return grid_.view(); }
  Vec3 box_lo() const { return box_lo_; }
  Vec3 box_hi() const { return box_hi_; }
  // The tighter boxes (BoundaryView::objects) into b.
  void object_boxes(BoundaryView* b) const { b->objects = objects_; }

  // Public only because nvcc requires that functions enclosing device lambdas are.
  double emitter_gap(size_t k) const;
  template <class T>
  void compact(Buffer<T>& data, Buffer<T>& spare, const uint* place, uint n);
  void upload_frames();
  ObstacleArray obstacle_array() const {
    ObstacleArray a{};
    a.count = int(obstacles_.size());
    for (size_t k = 0; k < obstacles_.size(); ++k) a.shape[k] = obstacles_[k];
    return a;
  }

 private:
  float spacing_ = 0.0f;
  int dimensions_ = 3;
  Vec3 tank_lo_{0, 0, 0}, tank_hi_{1, 1, 1};
  std::vector<ObstacleShape> obstacles_;
  std::vector<Vec3> targets_;  ///< where move_obstacle() asked each to go
  static constexpr float kMaxObstacleSpeed = 20.0f;  ///< [m/s]
  Buffer<Vec4> local_, world_;  ///< per obstacle sample, unsorted: body frame, world
  Buffer<uint> owner_;
  Buffer<Vec4> force_;             ///< per sample, unsorted: the fluid's force on a body's
  Buffer<SampleOwnerFrame> frames_;  ///< per owner: where it is and how it moves
  RigidBodies<Backend> bodies_;
  uint sample_n_ = 0;
  NeighborGrid<Backend> grid_;  ///< the obstacles' samples, sorted after every move
  Vec3 box_lo_{0, 0, 0}, box_hi_{0, 0, 0};
  Boxes8 objects_{};  ///< the tighter boxes, each owner's in slot k % 8
  std::vector<Emitter> emitters_;
  std::vector<double> emitter_travel_;           ///< [m] moved since the last layer
  std::vector<std::vector<Vec3>> emitter_points_;  ///< one layer, nozzle coordinates
  static constexpr float kEmitMinDistance = 0.9f;  ///< [spacings]
  Buffer<Vec4> emit_x_, emit_v_;  ///< an emitted layer's candidates
  Buffer<uint> flags_;            ///< outflow's survivors / emitter's free points, scanned
  uint64_t max_particles_ = 0;
  uint next_id_ = 0;  ///< the id the next emitted particle gets
  std::vector<Outflow> outflows_;
};

template <class B>
void SceneObjects<B>::setup(const InitialState& s, uint fluid_n, float spacing, float sample_volume) {
  if (s.obstacles.size() > size_t(kMaxObstacles))
    throw std::invalid_argument("too many obstacles (the limit is " + std::to_string(kMaxObstacles) + ")");
  if (s.outflows.size() > kMaxOutflows)
    throw std::invalid_argument("too many outflows (the limit is " + std::to_string(kMaxOutflows) + ")");
  spacing_ = spacing;
  dimensions_ = s.dimensions;
  tank_lo_ = s.tank_lo;
  tank_hi_ = s.tank_hi;
  next_id_ = fluid_n;
  obstacles_ = s.obstacles;
  for (ObstacleShape& o : obstacles_) {
    o.velocity = Vec3{0, 0, 0};
    if (dimensions_ == 2) o.center.z = tank_lo_.z;  // cut through its middle by the plane
  }
  targets_.clear();
  for (const ObstacleShape& o : obstacles_) targets_.push_back(o.center);
  emitters_ = s.emitters;
  outflows_ = s.outflows;
  emitter_travel_.assign(emitters_.size(), 0.0);
  emitter_points_.clear();
  for (const Emitter& e : emitters_) emitter_points_.push_back(emitter_layer(e, spacing_, dimensions_));
  max_particles_ = s.max_particles ? s.max_particles : automatic_max_particles(fluid_n);
  max_particles_ = std::min<uint64_t>(max_particles_, uint64_t(1) << 31);

  // Obstacle samples: local offsets and owners, fixed; world positions follow the centres.
  std::vector<Vec4> local;
  std::vector<uint> owner;
  for (size_t k = 0; k < obstacles_.size(); ++k)
    for (const Vec4& p : obstacle_samples(obstacles_[k], spacing_, sample_volume, dimensions_)) {
      local.push_back(p);
      owner.push_back(uint(k));
    }
  bodies_.setup(s.bodies, spacing_, dimensions_, tank_lo_, tank_hi_);
  bodies_.append_samples(&local, &owner, uint(obstacles_.size()));
  sample_n_ = uint(local.size());
  local_.resize(sample_n_);
  owner_.resize(sample_n_);
  world_.resize(sample_n_);
  force_.resize(sample_n_);
  B::copy_from_host(local_.data(), local.data(), sample_n_);
  B::copy_from_host(owner_.data(), owner.data(), sample_n_);
  Vec4* force = force_.data();
  B::for_each(sample_n_, [=] TP_HD(uint k) { force[k] = Vec4{0, 0, 0, 0}; });
  const float pad = 2.0f * spacing_ + spacing_;
  grid_.configure(tank_lo_ - Vec3{pad, pad, pad}, tank_hi_ + Vec3{pad, pad, pad}, 2.0f * spacing_);
}

template <class B>
void SceneObjects<B>::clear() {
  obstacles_.clear();
  targets_.clear();
  emitters_.clear();
  emitter_travel_.clear();
  outflows_.clear();
  bodies_.clear();
  sample_n_ = 0;
}

template <class B>
void SceneObjects<B>::place_samples(Vec4* sample, Vec4* velocity) {
  box_lo_ = box_hi_ = Vec3{0, 0, 0};
  clear_boxes(&objects_);
  if (sample_n_ == 0) return;
  // The box around every obstacle, widened by h: outside it no sample is within h; and
  // each owner's in its slot of the tighter boxes (BoundaryView::objects).
  const float h = 2.0f * spacing_;
  const Vec3 empty{INFINITY, INFINITY, INFINITY};
  box_lo_ = empty;
  box_hi_ = -empty;
  int owner_k = 0;
  auto widen = [&](Vec3 center, Vec3 half) {
    const Vec3 lo = center - half - Vec3{h, h, h}, hi = center + half + Vec3{h, h, h};
    grow_box(box_lo_, box_hi_, lo, hi);
    grow_box(&objects_, owner_k++ % Boxes8::kCount, lo, hi);
  };
  for (const ObstacleShape& o : obstacles_) widen(o.center, obstacle_half_size(o));
  for (const BodySpec& b : bodies_.bodies()) widen(b.pose.position, solid_of(b).half_box);
  upload_frames();
  const SampleOwnerFrame* frame = frames_.data();
  const Vec4* local = local_.data();
  const uint* owner = owner_.data();
  Vec4* world = world_.data();
  B::for_each(sample_n_, [=] TP_HD(uint k) {
    world[k] = make_vec4(to_world(frame[owner[k]].pose, xyz(local[k])), local[k].w);
  });
  grid_.build(world, sample_n_);
  const uint* order = grid_.order();
  B::for_each(sample_n_, [=] TP_HD(uint j) {
    const uint k = order[j];
    const SampleOwnerFrame& f = frame[owner[k]];
    sample[j] = world[k];
    velocity[j] = make_vec4(point_velocity(f.pose, f.motion, xyz(world[k])), 0.0f);
  });
}

template <class B>
void SceneObjects<B>::offset_body_sample_velocities(Vec4* velocity) {
  if (sample_n_ == 0 || bodies_.size() == 0) return;
  const SampleOwnerFrame* frame = frames_.data();
  const uint* owner = owner_.data();
  const uint* order = grid_.order();
  const Vec4* world = world_.data();
  const Vec4* offset = bodies_.solve_offsets();
  const uint base = body_owner_base();
  B::for_each(sample_n_, [=] TP_HD(uint j) {
    const uint k = order[j];
    if (owner[k] < base) return;
    const SampleOwnerFrame& f = frame[owner[k]];
    const uint b = owner[k] - base;
    const RigidMotion m{f.motion.velocity + xyz(offset[2 * b]), f.motion.angular_velocity + xyz(offset[2 * b + 1])};
    velocity[j] = make_vec4(point_velocity(f.pose, m, xyz(world[k])), 0.0f);
  });
}

// Every owner's pose and motion into frames_: the obstacles (turned by nothing, moving
// at their velocity), then the bodies.
template <class B>
void SceneObjects<B>::upload_frames() {
  std::vector<SampleOwnerFrame> frames;
  for (const ObstacleShape& o : obstacles_)
    frames.push_back(SampleOwnerFrame{RigidPose{o.center, quat_identity()}, RigidMotion{o.velocity, Vec3{0, 0, 0}}});
  for (const BodySpec& b : bodies_.bodies()) frames.push_back(SampleOwnerFrame{b.pose, b.motion});
  frames_.resize(frames.size());
  if (!frames.empty()) B::upload(frames_.data(), frames.data(), frames.size());  // no wait
}

template <class B>
bool SceneObjects<B>::move_obstacle(int index, Vec3 center) {
  if (index < 0 || index >= int(obstacles_.size()) || !is_finite(center)) return false;
  const ObstacleShape& o = obstacles_[size_t(index)];
  const Vec3 half = obstacle_half_size(o);
  auto keep_in = [](float x, float lo, float hi, float h) {
    return lo + h <= hi - h ? clampf(x, lo + h, hi - h) : 0.5f * (lo + hi);
  };
  targets_[size_t(index)] =
      Vec3{keep_in(center.x, tank_lo_.x, tank_hi_.x, half.x), keep_in(center.y, tank_lo_.y, tank_hi_.y, half.y),
           keep_in(center.z, tank_lo_.z, tank_hi_.z, half.z)};
  return true;
}

// At most half a spacing per step of the previous step's length, so that the fluid is
// never overrun within a step.
template <class B>
bool SceneObjects<B>::plan_motion(double dt) {
  if (obstacles_.empty()) return false;
  const float limit = float(std::min(0.5 * spacing_ / dt, double(kMaxObstacleSpeed)));
  bool changed = false;
  for (size_t k = 0; k < obstacles_.size(); ++k) {
    const Vec3 to = targets_[k] - obstacles_[k].center;
    Vec3 v = to * float(1.0 / dt);
    const float speed = length(v);
    if (speed > limit) v = v * (limit / speed);
    if (length(to) < 1e-6f * spacing_) v = Vec3{0, 0, 0};
    changed = changed || v.x != obstacles_[k].velocity.x || v.y != obstacles_[k].velocity.y ||
              v.z != obstacles_[k].velocity.z;
    obstacles_[k].velocity = v;
  }
  return changed;
}

// Called once the step's dt is known (the integration), so that the clamp pushes
// particles out of where the obstacles are at the end of the step.
template <class B>
bool SceneObjects<B>::advance(float dt, Vec3 gravity) {
  bool moved = bodies_.advance(dt, gravity);
  for (size_t k = 0; k < obstacles_.size(); ++k) {
    ObstacleShape& o = obstacles_[k];
    if (o.velocity.x == 0.0f && o.velocity.y == 0.0f && o.velocity.z == 0.0f) continue;
    const Vec3 to = targets_[k] - o.center;
    const Vec3 step = o.velocity * dt;
    o.center = length2(step) >= length2(to) ? targets_[k] : o.center + step;
    moved = true;
  }
  return moved;
}

template <class B>
uint SceneObjects<B>::remove_outflow(FluidState<B>& fluid) {
  if (outflows_.empty() || fluid.n == 0) return 0;
  OutflowBoxes boxes{};
  boxes.count = int(outflows_.size());
  for (size_t k = 0; k < outflows_.size(); ++k) {
    boxes.lo[k] = outflows_[k].lo;
    boxes.hi[k] = outflows_[k].hi;
  }
  const uint n = fluid.n;
  flags_.grow(n + 1);
  uint* keep = flags_.data();
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
  if (survivors == n) return 0;
  // keep[] now holds places; a particle is kept when its place differs from the next one's.
  compact(fluid.position, fluid.spare4, keep, n);
  compact(fluid.velocity, fluid.spare4, keep, n);
  compact(fluid.id, fluid.spare_id, keep, n);
  compact(fluid.pressure, fluid.spare_f, keep, n);
  fluid.n = survivors;
  return n - survivors;
}

template <class B>
template <class T>
void SceneObjects<B>::compact(Buffer<T>& data, Buffer<T>& spare, const uint* place, uint n) {
  spare.resize(data.size());
  const T* src = data.data();
  T* dst = spare.data();
  B::for_each(n, [=] TP_HD(uint i) {
    if (place[i + 1] != place[i]) dst[place[i]] = src[i];
  });
  data.swap(spare);
}

template <class B>
typename SceneObjects<B>::Emitted SceneObjects<B>::emit(FluidState<B>& fluid, double t,
                                                        const std::function<GridView()>& sorted_grid) {
  Emitted result;
  if (emitters_.empty()) return result;
  std::vector<Vec4> cand_x, cand_v;
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
      for (size_t o = 0; o < obstacles_.size() && clear; ++o) clear = obstacle_distance(obstacles_[o], x) > margin;
      for (const BodySpec& b : bodies_.bodies())
        if (clear) clear = solid_distance(solid_of(b), to_local(b.pose, x)) > margin;
      if (!clear) continue;
      cand_x.push_back(make_vec4(x, 0.0f));
      cand_v.push_back(make_vec4(plane ? Vec3{e.velocity.x, e.velocity.y, 0.0f} : e.velocity, 0.0f));
    }
    emitter_travel_[k] = std::min(emitter_travel_[k] - gap, gap);
  }
  if (cand_x.empty()) return result;
  const uint m = uint(cand_x.size());
  if (uint64_t(fluid.n) + m > max_particles_) {
    result.paused = true;
    return result;
  }
  // Which candidates have no particle within 0.9 spacings (the grid of the current
  // positions; candidates of one layer are a spacing apart by construction).
  emit_x_.grow(m);
  emit_v_.grow(m);
  flags_.grow(m + 1);
  B::copy_from_host(emit_x_.data(), cand_x.data(), m);
  B::copy_from_host(emit_v_.data(), cand_v.data(), m);
  uint* free_place = flags_.data();
  const Vec4* cx = emit_x_.data();
  if (fluid.n > 0) {
    const GridView g = sorted_grid();
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
  if (added == 0) return result;
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
  result.added = added;
  return result;
}

// Distance the water moves between two layers: a spacing, or more to keep to the rate.
template <class B>
double SceneObjects<B>::emitter_gap(size_t k) const {
  const Emitter& e = emitters_[k];
  const double gap = spacing_;
  if (!(e.rate > 0.0f)) return gap;
  const double per_layer = double(emitter_points_[k].size());
  return std::max(gap, double(length(e.velocity)) * per_layer / double(e.rate));
}

template <class B>
void SceneObjects<B>::advance_emitters(double t, double dt) {
  for (size_t k = 0; k < emitters_.size(); ++k) {
    const Emitter& e = emitters_[k];
    if (t >= e.start && (e.stop < 0.0f || t < e.stop)) emitter_travel_[k] += double(length(e.velocity)) * dt;
  }
}

}  // namespace tp
