// The rigid bodies of a scene, as the water's step holds them (a member of SceneObjects):
// their descriptions and states on the host, their shapes for the tank clamp in the
// backend's memory (kernels/body_coupling.h), the per-body sums of the fluid's forces on
// their samples, and their motion.
//
// The coupling is explicit with a lag of one step on every solver and backend: the force
// and torque the fluid put on a body in step n (gathered from its samples, summed per body
// on the backend) move it in step n + 1, when that step's time step is known. The sums
// travel in the step record (publish_sums), so the host reads them at step n + 1's one
// wait, never inside a solve, and they cost it no wait of their own. WCSPH, PCISPH and
// DFSPH move the bodies at the end of a step; PBF, whose constraints hold the step's
// predicted end positions, at its start (pbf_predict), so that its water meets them where
// the step ends (DFSPH's solves see them move within the step: dfsph.h, DfsphBodies).
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/body_coupling.h"
#include "sim/bodies/body_spec.h"
#include "sim/bodies/rigid_grab.h"
#include "sim/bodies/rigid_world.h"

namespace tp {

template <class Backend>
class RigidBodies {
 public:
  template <class T>
  using Buffer = typename Backend::template Buffer<T>;

  // A reset: the bodies (each checked: std::invalid_argument naming it), in a simulation
  // of `dimensions` at `spacing`. In 2D a body's centre is put on the plane and it turns
  // about z only.
  void setup(const std::vector<BodySpec>& bodies, float spacing, int dimensions, Vec3 tank_lo, Vec3 tank_hi) {
    if (bodies.size() > kMaxBodies)
      throw std::invalid_argument("too many bodies (the limit is " + std::to_string(kMaxBodies) + ")");
    for (size_t k = 0; k < bodies.size(); ++k) {
      const std::string why = check_body(bodies[k], spacing, dimensions, "bodies[" + std::to_string(k) + "]");
      if (!why.empty()) throw std::invalid_argument(why);
    }
    spacing_ = spacing;
    dimensions_ = dimensions;
    bodies_ = bodies;
    mass_.clear();
    for (BodySpec& b : bodies_) {
      if (dimensions_ == 2) keep_in_plane(b, tank_lo.z, false);
      // Normalised only when it is not unit already: each step normalises it before moving
      // it, and a state's orientation (a step's result) normalised here as well would be
      // rounded once more than the run it came from, which then departs from it.
      const Quat q = b.pose.orientation;
      if (std::fabs(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z - 1.0f) > 1e-4f)
        b.pose.orientation = quat_normalized(q);
      mass_.push_back(body_mass(b, dimensions_));
    }
    // The contacts' world (src/sim/bodies/rigid_world.h): the tank's walls and the bodies,
    // in index order; it is rebuilt from our states every step, so it holds nothing of its own.
    world_ = RigidWorld();
    world_.set_tank(tank_lo, tank_hi, dimensions_);
    for (size_t k = 0; k < bodies_.size(); ++k) world_.add_body(rigid_def(bodies_[k], mass_[k]), state_of(bodies_[k]));
    force_.assign(bodies_.size(), Vec3{0, 0, 0});
    torque_.assign(bodies_.size(), Vec3{0, 0, 0});
    read_force_ = force_;
    read_torque_ = torque_;
    upload_fields();
    sums_.resize(2 * bodies_.size());
    response_.resize(bodies_.size());
    offset_.resize(2 * bodies_.size());
    base_.resize(2 * bodies_.size());
    change_.resize(2 * bodies_.size());
    solve_sums_.resize(2 * bodies_.size());
    partial_.resize(2 * kPushChunks * bodies_.size());
    Vec4* sums = sums_.data();
    Backend::for_each(uint(2 * bodies_.size()), [=] TP_HD(uint k) { sums[k] = Vec4{0, 0, 0, 0}; });
    upload();
  }
  void clear() { setup({}, spacing_ > 0.0f ? spacing_ : 1.0f, dimensions_, Vec3{0, 0, 0}, Vec3{1, 1, 1}); }

  size_t size() const { return bodies_.size(); }
  // Whether any body moves with the water (not kinematic).
  bool any_dynamic() const {
    for (const BodySpec& b : bodies_)
      if (!b.kinematic) return true;
    return false;
  }
  const std::vector<BodySpec>& bodies() const { return bodies_; }
  const BodyMass& mass(size_t k) const { return mass_[k]; }
  // The fluid's force and torque (about the centre of mass) on body k that its next move
  // uses: the sums of the step before.
  Vec3 fluid_force(size_t k) const { return force_[k]; }
  Vec3 fluid_torque(size_t k) const { return torque_[k]; }
  // The fastest any body's point moves [m/s]: |v| + |w| times its bound.
  float max_point_speed() const {
    float most = 0.0f;
    for (const BodySpec& b : bodies_)
      most = std::max(most, length(b.motion.velocity) + length(b.motion.angular_velocity) * solid_of(b).bound);
    return most;
  }
  BodyArrayView view() const {
    BodyArrayView v = boxes_;
    v.body = solids_.data();
    v.count = int(bodies_.size());
    return v;
  }

  // Each body's surface samples in its own frame, w their volume (body_sample_volume),
  // appended to local[] with the owner index owner_base + k; first[k] is where body k's
  // begin, first[size()] the end.
  void append_samples(std::vector<Vec4>* local, std::vector<uint>* owner, uint owner_base) {
    const float flat = body_sample_flat_ratio(spacing_, dimensions_);
    first_.assign(1, uint(local->size()));
    for (size_t k = 0; k < bodies_.size(); ++k) {
      for (const Vec4& p : body_surface_samples(bodies_[k], spacing_, dimensions_)) {
        local->push_back(make_vec4(xyz(p), body_sample_volume(p.w, flat)));
        owner->push_back(owner_base + uint(k));
      }
      first_.push_back(uint(local->size()));
    }
    ranges_.resize(first_.size());
    Backend::copy_from_host(ranges_.data(), first_.data(), first_.size());
  }

  // Per body, the sum of the forces on its samples and of their moments about its centre
  // (in the backend's memory, for the next step's take_forces; with `in_solve`, for
  // solve_iterate only, the sums the next move takes left as they are): `force` and
  // `world` are per sample in the order append_samples laid them out (the sample arrays'
  // own, unsorted).
  void sum_forces(const Vec4* force, const Vec4* world, bool in_solve = false) {
    const uint n = uint(bodies_.size());
    if (n == 0) return;
    const uint* first = ranges_.data();
    const SolidBody* solid = solids_.data();
    Vec4* sums = in_solve ? solve_sums_.data() : sums_.data();
    Backend::for_each(n, [=] TP_HD(uint k) {
      Vec3 f{0, 0, 0}, t{0, 0, 0};
      const Vec3 c = solid[k].pose.position;
      for (uint j = first[k]; j < first[k + 1]; ++j) {
        const Vec3 fj = xyz(force[j]);
        f += fj;
        t += cross(xyz(world[j]) - c, fj);
      }
      sums[2 * k] = make_vec4(f, 0.0f);
      sums[2 * k + 1] = make_vec4(t, 0.0f);
    });
  }
  // The clamp's pushes out of bodies (kernels/boundary.h), taken back: per particle i,
  // pushes[i] holds the change dv of its velocity in xyz and the body in w (-1: none); the
  // body receives -m dv / dt at the particle's new position, added to the latest sums. In a
  // fixed order (64 parts of the particles, each read once with a sum per body; then per
  // body the parts in turn), so that a run is repeated to the bit on either backend.
  void take_back_pushes(const Vec4* pushes, const Vec4* position, uint n, float mass, float dt) {
    const uint count = uint(bodies_.size());
    if (count == 0 || n == 0 || !(dt > 0.0f)) return;
    const uint chunk_size = (n + kPushChunks - 1) / kPushChunks;
    Vec4* part = partial_.data();
    const SolidBody* solid = solids_.data();
    const float scale = -mass / dt;
    Backend::for_each(kPushChunks, [=] TP_HD(uint chunk) {
      Vec3 f[kMaxBodies], torque[kMaxBodies];
      for (uint k = 0; k < count; ++k) f[k] = torque[k] = Vec3{0.0f, 0.0f, 0.0f};
      const uint begin = chunk * chunk_size < n ? chunk * chunk_size : n;
      const uint end = begin + chunk_size < n ? begin + chunk_size : n;
      for (uint i = begin; i < end; ++i) {
        const Vec4 push = pushes[i];
        if (!(push.w >= 0.0f)) continue;
        const uint k = uint(push.w);
        const Vec3 fi = xyz(push) * scale;
        f[k] += fi;
        torque[k] += cross(xyz(position[i]) - solid[k].pose.position, fi);
      }
      for (uint k = 0; k < count; ++k) {
        part[2 * (chunk * count + k)] = make_vec4(f[k], 0.0f);
        part[2 * (chunk * count + k) + 1] = make_vec4(torque[k], 0.0f);
      }
    });
    Vec4* sums = sums_.data();
    Backend::for_each(count, [=] TP_HD(uint k) {
      Vec3 f = xyz(sums[2 * k]), torque = xyz(sums[2 * k + 1]);
      for (uint chunk = 0; chunk < kPushChunks; ++chunk) {
        f += xyz(part[2 * (chunk * count + k)]);
        torque += xyz(part[2 * (chunk * count + k) + 1]);
      }
      sums[2 * k] = make_vec4(f, 0.0f);
      sums[2 * k + 1] = make_vec4(torque, 0.0f);
    });
  }
  // The latest sums into `slot` (the step record's, StepRecorder::Record::bodies) on the
  // backend, without a wait: they come back with the record at the step's one wait.
  void publish_sums(Vec4* slot) const {
    const uint n = uint(2 * bodies_.size());
    if (n == 0) return;
    const Vec4* sums = sums_.data();
    Backend::for_each(n, [=] TP_HD(uint k) { slot[k] = sums[k]; });
  }
  // The sums as the record brought them back (host memory, 2 per body).
  void read_sums(const Vec4* seen) {
    for (size_t k = 0; k < bodies_.size(); ++k) {
      read_force_[k] = xyz(seen[2 * k]);
      read_torque_[k] = xyz(seen[2 * k + 1]);
    }
  }
  // At a step's save point (after its one wait): the sums of the step before, as read,
  // become the force the bodies move by.
  void take_forces() {
    for (size_t k = 0; k < bodies_.size(); ++k) {
      force_[k] = read_force_[k];
      torque_[k] = read_torque_[k];
      if (dimensions_ == 2) {
        force_[k].z = 0.0f;
        torque_[k] = Vec3{0.0f, 0.0f, torque_[k].z};
      }
    }
  }
  // No water, no force: the sums go (a step without fluid gathers none).
  void forget_sums() {
    read_force_.assign(bodies_.size(), Vec3{0, 0, 0});
    read_torque_.assign(bodies_.size(), Vec3{0, 0, 0});
    Vec4* sums = sums_.data();
    if (!bodies_.empty()) Backend::for_each(uint(2 * bodies_.size()), [=] TP_HD(uint k) { sums[k] = Vec4{0, 0, 0, 0}; });
  }

  // DFSPH's bodies inside its solves (src/sim/water/dfsph.h, DfsphBodies), all on the
  // backend (no wait): per body a change of velocity and angular velocity its samples
  // carry beyond its own motion (solve_offsets(), 2 per body), made of a base (what the
  // water is to see before a solve) and the solve's own change so far.
  // At a step's start, dt the last step's: the base is the change the latest sums (the
  // fluid's force of the last gather and the pushes taken back since: what the next move
  // applies) give over dt; each body's response is set from where it is now.
  void solve_start(float dt, Vec3 gravity, float rest_density) {
    const uint n = uint(bodies_.size());
    if (n == 0) return;
    response_host_.resize(n);
    for (uint k = 0; k < n; ++k) response_host_[k] = response_of(k, gravity, rest_density);
    Backend::upload(response_.data(), response_host_.data(), n);  // no wait
    const BodyResponse* r = response_.data();
    const Vec4* sums = sums_.data();
    Vec4 *base = base_.data(), *change = change_.data(), *offset = offset_.data();
    Backend::for_each(n, [=] TP_HD(uint k) {
      const Vec3 dv = response_velocity(r[k], xyz(sums[2 * k]), dt), dw = response_turn(r[k], xyz(sums[2 * k + 1]), dt);
      const bool finite = is_finite(dv) && is_finite(dw);
      base[2 * k] = offset[2 * k] = make_vec4(finite ? dv : Vec3{0, 0, 0}, 0.0f);
      base[2 * k + 1] = offset[2 * k + 1] = make_vec4(finite ? dw : Vec3{0, 0, 0}, 0.0f);
      change[2 * k] = change[2 * k + 1] = Vec4{0, 0, 0, 0};
    });
  }
  // In an iteration, after a gather at its pressure (sum_forces in_solve): each body's
  // change moves by its share towards what those sums give within dt.
  void solve_iterate(float dt) {
    const uint n = uint(bodies_.size());
    if (n == 0) return;
    const BodyResponse* r = response_.data();
    const Vec4* sums = solve_sums_.data();
    const Vec4* base = base_.data();
    Vec4 *change = change_.data(), *offset = offset_.data();
    Backend::for_each(n, [=] TP_HD(uint k) {
      const Vec3 dv = response_velocity(r[k], xyz(sums[2 * k]), dt), dw = response_turn(r[k], xyz(sums[2 * k + 1]), dt);
      if (!is_finite(dv) || !is_finite(dw)) return;
      const Vec3 v = xyz(change[2 * k]) + (dv - xyz(change[2 * k])) * r[k].share;
      const Vec3 w = xyz(change[2 * k + 1]) + (dw - xyz(change[2 * k + 1])) * r[k].share;
      change[2 * k] = make_vec4(v, 0.0f);
      change[2 * k + 1] = make_vec4(w, 0.0f);
      offset[2 * k] = make_vec4(xyz(base[2 * k]) + v, 0.0f);
      offset[2 * k + 1] = make_vec4(xyz(base[2 * k + 1]) + w, 0.0f);
    });
  }
  // Between two solves: the first's change kept in the base, and gravity's over dt added
  // for the bodies free to fall (the density solve predicts the velocities the step ends
  // with, the water's with its gravity).
  void solve_next(float dt) {
    const uint n = uint(bodies_.size());
    if (n == 0) return;
    const BodyResponse* r = response_.data();
    Vec4 *base = base_.data(), *change = change_.data(), *offset = offset_.data();
    Backend::for_each(n, [=] TP_HD(uint k) {
      base[2 * k] = offset[2 * k] = make_vec4(xyz(base[2 * k]) + xyz(change[2 * k]) + r[k].fall * dt, 0.0f);
      base[2 * k + 1] = offset[2 * k + 1] = make_vec4(xyz(base[2 * k + 1]) + xyz(change[2 * k + 1]), 0.0f);
      change[2 * k] = change[2 * k + 1] = Vec4{0, 0, 0, 0};
    });
  }
  const Vec4* solve_offsets() const { return offset_.data(); }
  // The share of its own change a body takes in each iteration of a solve it is coupled
  // inside: m / (m + 2 rho0 V). The water a body pushes moves with it (its added mass: half
  // the displaced water for a ball, about 2.3 times for a flat box moving broadside in 2D),
  // and a body lighter than that water, given the whole of its reaction each iteration,
  // overshoots: its velocity would swing by m_a / m times its error.
  float in_solve_share(size_t k, float rest_density) const {
    const BodyMass& m = mass_[k];
    return m.mass / (m.mass + 2.0f * rest_density * m.volume);
  }

  // The sums of the latest gather (what the next step moves the bodies by), as the host
  // last read them (a state's capture reads the record first), and back (a state file's;
  // ignored when the counts differ from the bodies').
  void latest_sums(std::vector<Vec3>* force, std::vector<Vec3>* torque) const {
    *force = read_force_;
    *torque = read_torque_;
  }
  void restore_sums(const std::vector<Vec3>& force, const std::vector<Vec3>& torque) {
    if (force.size() != bodies_.size() || torque.size() != bodies_.size()) return;
    std::vector<Vec4> sums;
    for (size_t k = 0; k < bodies_.size(); ++k) {
      sums.push_back(make_vec4(force[k], 0.0f));
      sums.push_back(make_vec4(torque[k], 0.0f));
    }
    if (!sums.empty()) Backend::copy_from_host(sums_.data(), sums.data(), sums.size());
    read_force_ = force;
    read_torque_ = torque;
  }

  // The bodies move for dt under gravity and the fluid's force of the step before, with
  // their contacts with each other and the tank (Bullet, behind RigidWorld; kinematic ones
  // by their own velocities). Returns whether any moved.
  bool advance(float dt, Vec3 gravity) {
    if (bodies_.empty()) return false;
    for (size_t k = 0; k < bodies_.size(); ++k) world_.state(int(k)) = state_of(bodies_[k]);
    world_.step(dt, gravity, force_, torque_);
    for (size_t k = 0; k < bodies_.size(); ++k) {
      const RigidBodyState& st = world_.state(int(k));
      bodies_[k].pose = st.pose;
      bodies_[k].motion = st.motion;
      if (dimensions_ == 2) keep_in_plane(bodies_[k], plane_z_);
    }
    upload();
    return true;
  }

  // The mouse joint (Box2D's b2MouseJoint, RigidWorld::set_grab): body k's point `local`
  // (its own frame) pulled towards `target` by a soft spring of 5 Hz, damping ratio 0.7 and
  // at most 30 times the body's weight. A kinematic body or a bad index: false.
  bool grab(int k, Vec3 local, Vec3 target, float gravity) {
    if (k < 0 || k >= int(bodies_.size()) || bodies_[size_t(k)].kinematic || !is_finite(local) || !is_finite(target))
      return false;
    world_.set_grab(k, local, target, 5.0f, 0.7f, 30.0f * mass_[size_t(k)].mass * std::max(gravity, 1.0f));
    return true;
  }
  void move_grab(Vec3 target) {
    if (is_finite(target)) world_.set_grab_target(target);
  }
  void release() { world_.clear_grab(); }
  int grabbed() const { return world_.grabbed_body(); }

  // What a step changes here, for the NaN guard's step start.
  struct Moment {
    std::vector<BodySpec> bodies;
    std::vector<Vec3> force, torque;
  };
  Moment moment() const { return Moment{bodies_, force_, torque_}; }
  void restore(const Moment& m) {
    if (m.bodies.size() != bodies_.size()) return;
    bodies_ = m.bodies;
    force_ = read_force_ = m.force;  // a retake's save point takes them again
    torque_ = read_torque_ = m.torque;
    upload();
  }

 private:
  // Body k's BodyResponse where it is now.
  BodyResponse response_of(uint k, Vec3 gravity, float rest_density) const {
    BodyResponse r{};
    const BodySpec& b = bodies_[k];
    const BodyMass& m = mass_[k];
    r.share = in_solve_share(k, rest_density);
    if (b.kinematic) return r;
    const Quat q = b.pose.orientation;
    if (b.axle >= 0 && b.axle < 3) {  // pinned: only the turn about the axle, a a^T / I_a
      const Vec3 axis{b.axle == 0 ? 1.0f : 0.0f, b.axle == 1 ? 1.0f : 0.0f, b.axle == 2 ? 1.0f : 0.0f};
      const Vec3 a = rotate_inverse(q, axis);
      const float inertia = a.x * a.x * m.inertia.x + a.y * a.y * m.inertia.y + a.z * a.z * m.inertia.z;
      const float s = inertia > 0.0f ? 1.0f / inertia : 0.0f;
      r.inverse_inertia[0] = axis * (axis.x * s);
      r.inverse_inertia[1] = axis * (axis.y * s);
      r.inverse_inertia[2] = axis * (axis.z * s);
      return r;
    }
    const float inverse_mass = m.mass > 0.0f ? 1.0f / m.mass : 0.0f;
    r.inverse_mass = Vec3{inverse_mass, inverse_mass, dimensions_ == 2 ? 0.0f : inverse_mass};
    if (dimensions_ == 2) {  // only the turn about z
      r.inverse_inertia[2] = Vec3{0, 0, m.inertia.z > 0.0f ? 1.0f / m.inertia.z : 0.0f};
    } else {
      // The world frame's I^-1 is symmetric: its rows are its columns, I^-1 e_j.
      const GrabBody g{b.pose, b.motion, m.mass, m.inertia, false};
      r.inverse_inertia[0] = grab_inverse_inertia(g, Vec3{1, 0, 0});
      r.inverse_inertia[1] = grab_inverse_inertia(g, Vec3{0, 1, 0});
      r.inverse_inertia[2] = grab_inverse_inertia(g, Vec3{0, 0, 1});
    }
    r.fall = dimensions_ == 2 ? Vec3{gravity.x, gravity.y, 0.0f} : gravity;
    return r;
  }
  static RigidBodyDef rigid_def(const BodySpec& b, const BodyMass& m) {
    RigidBodyDef d;
    d.geometry = b.shape == int(BodyShapeKind::Sphere)    ? sphere_geometry(b.radius)
                 : b.shape == int(BodyShapeKind::Capsule) ? capsule_geometry(b.radius, b.half_height)
                 : b.shape == int(BodyShapeKind::Mesh)    ? b.mesh->geometry
                                                          : box_geometry(b.half_extent);
    d.axle = b.axle;
    d.mass = m.mass;
    d.inertia = m.inertia;
    d.kinematic = b.kinematic;
    d.material = BodyMaterial{b.friction, b.restitution};
    return d;
  }
  static RigidBodyState state_of(const BodySpec& b) { return RigidBodyState{b.pose, b.motion}; }
  // `normalise`: always (after a step, as before); false (a body set or restored): only one
  // not in the plane already, so that a restored state's orientation is kept to the bit.
  void keep_in_plane(BodySpec& b, float z, bool normalise = true) {
    plane_z_ = z;
    b.pose.position.z = z;
    b.motion.velocity.z = 0.0f;
    b.motion.angular_velocity = Vec3{0.0f, 0.0f, b.motion.angular_velocity.z};
    // Only a turn about z: the orientation's x and y parts go.
    const Quat q = b.pose.orientation;
    if (normalise || q.x != 0.0f || q.y != 0.0f) b.pose.orientation = quat_normalized(Quat{q.w, 0.0f, 0.0f, q.z});
  }
  // The mesh bodies' distance fields, one after another in the backend's memory (the
  // clamp reads them there), each body's at field_at_[k].
  void upload_fields() {
    std::vector<float> values;
    field_at_.assign(bodies_.size(), 0);
    for (size_t k = 0; k < bodies_.size(); ++k) {
      if (bodies_[k].shape != int(BodyShapeKind::Mesh) || !bodies_[k].mesh) continue;
      size_t shared = k;  // a mesh already uploaded for another body
      for (size_t j = 0; j < k; ++j)
        if (bodies_[j].mesh == bodies_[k].mesh) shared = j;
      if (shared != k) {
        field_at_[k] = field_at_[shared];
        continue;
      }
      field_at_[k] = values.size();
      values.insert(values.end(), bodies_[k].mesh->field.value.begin(), bodies_[k].mesh->field.value.end());
    }
    fields_.resize(values.size());
    if (!values.empty()) Backend::copy_from_host(fields_.data(), values.data(), values.size());
  }
  void upload() {
    std::vector<SolidBody> solids;
    for (size_t k = 0; k < bodies_.size(); ++k) {
      solids.push_back(solid_of(bodies_[k]));
      if (bodies_[k].shape == int(BodyShapeKind::Mesh)) solids.back().field.value = fields_.data() + field_at_[k];
    }
    solids_.resize(solids.size());
    if (!solids.empty()) Backend::upload(solids_.data(), solids.data(), solids.size());  // no wait
    // Their boxes (BodyArrayView::boxes), from the same poses.
    set_body_boxes(&boxes_, solids.data(), int(solids.size()));
  }

  float spacing_ = 0.0f, plane_z_ = 0.0f;
  int dimensions_ = 3;
  std::vector<BodySpec> bodies_;
  std::vector<BodyMass> mass_;
  std::vector<Vec3> force_, torque_;  ///< the fluid's, from the step before
  std::vector<Vec3> read_force_, read_torque_;  ///< the latest sums the host has read
  std::vector<uint> first_;           ///< per body, where its samples begin; then the end
  Buffer<uint> ranges_;               ///< first_ in the backend's memory
  Buffer<SolidBody> solids_;
  BodyArrayView boxes_{};  ///< the boxes of the bodies as upload() last sent them
  Buffer<float> fields_;           ///< the mesh bodies' distance fields (upload_fields)
  std::vector<size_t> field_at_;  ///< per body, where its field begins in fields_
  Buffer<Vec4> sums_;  ///< per body: force, torque (the latest gather's)
  static constexpr uint kPushChunks = 64;  ///< take_back_pushes' parts of the particles
  Buffer<Vec4> partial_;  ///< take_back_pushes: per part of the particles and body, force and torque
  Buffer<BodyResponse> response_;  ///< per body (solve_start)
  std::vector<BodyResponse> response_host_;
  Buffer<Vec4> offset_, base_, change_;  ///< per body, 2 each: DFSPH's solves' changes (solve_start)
  Buffer<Vec4> solve_sums_;  ///< per body: force, torque at a solve's current pressure
  RigidWorld world_;   ///< the contacts (holds no state between steps but the grab)
};

}  // namespace tp
