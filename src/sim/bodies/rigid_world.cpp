// The rigid-body world (rigid_world.h) on Bullet, rebuilt from our state every step.
#include "sim/bodies/rigid_world.h"

#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "sim/bodies/rigid_grab.h"
#include "sim/bodies/rigid_shape.h"

namespace tp {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

btVector3 to_bt(Vec3 v) { return btVector3(v.x, v.y, v.z); }
Vec3 from_bt(const btVector3& v) { return Vec3{v.x(), v.y(), v.z()}; }
btTransform to_bt(const RigidPose& p) {
  const Quat q = p.orientation;
  return btTransform(btQuaternion(q.x, q.y, q.z, q.w), to_bt(p.position));
}
bool finite(Vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }
bool finite(Quat q) {
  return std::isfinite(q.w) && std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z);
}
bool finite(const RigidBodyState& s) {
  return finite(s.pose.position) && finite(s.pose.orientation) && finite(s.motion.velocity) &&
         finite(s.motion.angular_velocity);
}

struct Body {
  RigidBodyDef def;
  RigidBodyState state;
  CollisionShape shape;
};

struct Static {
  CollisionShape shape;
  RigidPose pose;
  BodyMaterial material;
};

// Bullet's world, stepped one step of exactly dt: gravity, then its internal single step
// (forces and gravity into velocities, collisions, solver, integration), then the forces
// cleared. Unlike stepSimulation it does not derive kinematic bodies' velocities from their
// transforms: a kinematic body keeps the velocity we give it.
class OneStepWorld : public btDiscreteDynamicsWorld {
 public:
  using btDiscreteDynamicsWorld::btDiscreteDynamicsWorld;
  void step_once(btScalar dt) {
    applyGravity();
    internalSingleStepSimulation(dt);
    clearForces();
  }
};

// The seed of the solver's order: FNV-1a over the bodies' states, so that the order changes
// from step to step (a fixed order leaves the same small bias in every step, and stacks
// creep) and is still a function of the state alone.
static_assert(sizeof(RigidBodyState) % 4 == 0, "the state hash reads it as 32-bit words");
unsigned long state_hash(const std::vector<Body>& bodies) {
  uint64_t h = 14695981039346656037ull;
  for (const Body& b : bodies) {
    uint32_t words[sizeof(RigidBodyState) / 4];
    std::memcpy(words, &b.state, sizeof(words));
    for (uint32_t w : words) h = (h ^ w) * 1099511628211ull;
  }
  return static_cast<unsigned long>(h ^ (h >> 32));
}

// Bullet's tables of collision algorithms (which shape pair takes which) and the pools
// their contact manifolds come from. They hold no contact between steps: every manifold
// and algorithm goes back in the step's teardown, which step() checks before the next.
// (Built fresh, the dispatcher's tables alone take about 15 us, more than the rest of an
// 8-body rebuild.)
struct Dispatch {
  btDefaultCollisionConfiguration config{pools()};
  btCollisionDispatcher dispatcher{&config};

  Dispatch() { btGImpactCollisionAlgorithm::registerAlgorithm(&dispatcher); }
  static btDefaultCollisionConstructionInfo pools() {
    btDefaultCollisionConstructionInfo info;
    info.m_defaultMaxPersistentManifoldPoolSize = 1024;  // beyond: the heap
    info.m_defaultMaxCollisionAlgorithmPoolSize = 1024;
    return info;
  }
};

// Everything of Bullet that lives for one step. Declared so that the world goes first and
// the collision objects last (the world's destructor reads their broadphase handles).
// The broadphase tests every pair of boxes around the objects: built afresh each step, that
// is faster than a tree (btDbvtBroadphase) up to 512 bodies at least (measured on 2 cores,
// boxes of 10 cm: 64 bodies 0.08 against 0.15 ms a step apart, 0.68 against 0.80 stacked;
// 512 bodies 1.3 against 1.9 and 8.5 against 12.9).
struct Scratch {
  Dispatch& d;
  std::vector<std::unique_ptr<btCollisionObject>> objects;
  btSimpleBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  OneStepWorld world{&d.dispatcher, &broadphase, &solver, &d.config};

  Scratch(Dispatch& dispatch, int max_objects) : d(dispatch), broadphase(max_objects) {}
  // The pairs go first, last to first (each removal O(1)), with their algorithms and
  // manifolds: left to the world's destructor, every object's removal scans all the pairs.
  ~Scratch() {
    btOverlappingPairCache* cache = broadphase.getOverlappingPairCache();
    btBroadphasePairArray& pairs = cache->getOverlappingPairArray();
    while (pairs.size() > 0) {
      const btBroadphasePair& last = pairs[pairs.size() - 1];
      btBroadphaseProxy* a = last.m_pProxy0;
      btBroadphaseProxy* b = last.m_pProxy1;
      cache->removeOverlappingPair(a, b, &d.dispatcher);
    }
  }
};

}  // namespace

struct RigidWorld::Impl {
  std::unique_ptr<Dispatch> dispatch = std::make_unique<Dispatch>();
  std::vector<Body> bodies;
  std::vector<Static> statics;
  std::vector<Static> walls;
  int dims = 3;
  float plane_z = 0.0f;  // 2D: the bodies' plane
  GrabSpring grab;
  int grab_body = -1;
  RigidSolverSettings settings;
  std::vector<RigidContact> contacts;
  RigidStepTimes times;
  std::string warning;

  void warn(const std::string& text) {
    if (warning.size() > 2000) return;
    if (!warning.empty()) warning += "; ";
    warning += text;
  }
  void to_plane(RigidBodyState& s) const {
    if (dims != 2) return;
    s.pose.position.z = plane_z;
    s.motion.velocity.z = 0.0f;
    s.motion.angular_velocity.x = s.motion.angular_velocity.y = 0.0f;
    Quat& q = s.pose.orientation;
    if (q.x != 0.0f || q.y != 0.0f) q = quat_normalized(Quat{q.w, 0.0f, 0.0f, q.z});
  }
  void add_static(Scratch& s, const Static& c) const;
  btRigidBody* add_body(Scratch& s, int index);
  void read_contacts(Scratch& s);
};

RigidWorld::RigidWorld() : impl_(std::make_unique<Impl>()) {}
RigidWorld::~RigidWorld() = default;
RigidWorld::RigidWorld(RigidWorld&&) noexcept = default;
RigidWorld& RigidWorld::operator=(RigidWorld&&) noexcept = default;

void RigidWorld::set_tank(Vec3 lo, Vec3 hi, int dimensions, BodyMaterial material) {
  if (!finite(lo) || !finite(hi) || hi.x <= lo.x || hi.y <= lo.y ||
      (dimensions == 3 && hi.z <= lo.z) || (dimensions != 2 && dimensions != 3))
    throw std::invalid_argument("rigid world: the tank must have lo < hi and 2 or 3 dimensions");
  const std::string p = material_problem(material);
  if (!p.empty()) throw std::invalid_argument("rigid world: the tank's " + p);
  Impl& m = *impl_;
  m.walls.clear();
  m.dims = dimensions;
  m.plane_z = lo.z;
  const Vec3 size = hi - lo;
  const float t = std::max(1.0f, std::max(size.x, std::max(size.y, size.z)));  // thickness
  const Vec3 mid = (lo + hi) * 0.5f;
  const Vec3 half = size * 0.5f + Vec3{t, t, t};  // across: past the corners
  for (int axis = 0; axis < (dimensions == 2 ? 2 : 3); ++axis) {
    for (int side = 0; side < 2; ++side) {
      Vec3 h = half, c = mid;
      float* hc = axis == 0 ? &h.x : axis == 1 ? &h.y : &h.z;
      float* cc = axis == 0 ? &c.x : axis == 1 ? &c.y : &c.z;
      const float face = axis == 0   ? (side ? hi.x : lo.x)
                         : axis == 1 ? (side ? hi.y : lo.y)
                                     : (side ? hi.z : lo.z);
      *hc = 0.5f * t;
      *cc = side ? face + 0.5f * t : face - 0.5f * t;
      Static wall;
      wall.shape.build(box_geometry(h), false);
      wall.pose = RigidPose{c, quat_identity()};
      wall.material = material;
      m.walls.push_back(std::move(wall));
    }
  }
  for (Body& b : m.bodies) m.to_plane(b.state);
}

void RigidWorld::clear_tank() {
  impl_->walls.clear();
  impl_->dims = 3;
}
int RigidWorld::dimensions() const { return impl_->dims; }

int RigidWorld::add_body(const RigidBodyDef& def, const RigidBodyState& state) {
  Impl& m = *impl_;
  const int index = static_cast<int>(m.bodies.size());
  std::string p = body_def_problem(def);
  if (p.empty() && !finite(state)) p = "its position, orientation or velocity is not finite";
  const Quat q = state.pose.orientation;
  if (p.empty() && !(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z > 1e-12f))
    p = "its orientation is a zero quaternion";
  if (!p.empty()) throw std::invalid_argument("rigid body " + std::to_string(index) + ": " + p);
  Body b;
  b.def = def;
  b.state = state;
  b.state.pose.orientation = quat_normalized(state.pose.orientation);
  m.to_plane(b.state);
  b.shape.build(def.geometry, true);
  m.bodies.push_back(std::move(b));
  return index;
}

void RigidWorld::remove_body(int index) {
  Impl& m = *impl_;
  if (index < 0 || index >= static_cast<int>(m.bodies.size())) return;
  m.bodies.erase(m.bodies.begin() + index);
  if (m.grab_body == index)
    m.grab_body = -1;
  else if (m.grab_body > index)
    --m.grab_body;
}

size_t RigidWorld::size() const { return impl_->bodies.size(); }
const RigidBodyDef& RigidWorld::def(int i) const { return impl_->bodies.at(i).def; }
RigidBodyDef& RigidWorld::def(int i) { return impl_->bodies.at(i).def; }
const RigidBodyState& RigidWorld::state(int i) const { return impl_->bodies.at(i).state; }
RigidBodyState& RigidWorld::state(int i) { return impl_->bodies.at(i).state; }

int RigidWorld::add_static_mesh(std::vector<Vec3> vertices, std::vector<uint32_t> indices,
                                RigidPose pose, BodyMaterial material) {
  return add_static_shape(mesh_geometry(std::move(vertices), std::move(indices)), pose, material);
}

int RigidWorld::add_static_shape(const BodyGeometry& geometry, RigidPose pose,
                                 BodyMaterial material) {
  Impl& m = *impl_;
  const int index = static_cast<int>(m.statics.size());
  std::string p = geometry_problem(geometry);
  if (p.empty()) p = material_problem(material);
  if (p.empty() && !(finite(pose.position) && finite(pose.orientation)))
    p = "its pose is not finite";
  if (!p.empty())
    throw std::invalid_argument("static collider " + std::to_string(index) + ": " + p);
  Static c;
  c.shape.build(geometry, false);
  c.pose = RigidPose{pose.position, quat_normalized(pose.orientation)};
  c.material = material;
  m.statics.push_back(std::move(c));
  return index;
}

size_t RigidWorld::static_count() const { return impl_->statics.size(); }
void RigidWorld::clear_statics() { impl_->statics.clear(); }

void RigidWorld::set_grab(int body, Vec3 local_point, Vec3 target, float frequency_hz,
                          float damping_ratio, float max_force) {
  Impl& m = *impl_;
  if (body < 0 || body >= static_cast<int>(m.bodies.size()) || !finite(local_point) ||
      !finite(target)) {
    m.grab_body = -1;
    return;
  }
  m.grab_body = body;
  m.grab.local_point = local_point;
  m.grab.target = target;
  m.grab.frequency_hz = std::isfinite(frequency_hz) ? std::max(frequency_hz, 0.0f) : 0.0f;
  m.grab.damping_ratio = std::isfinite(damping_ratio) ? std::max(damping_ratio, 0.0f) : 0.0f;
  m.grab.max_force = std::isfinite(max_force) ? std::max(max_force, 0.0f) : 0.0f;
}
void RigidWorld::set_grab_target(Vec3 target) {
  if (finite(target)) impl_->grab.target = target;
}
void RigidWorld::clear_grab() { impl_->grab_body = -1; }
int RigidWorld::grabbed_body() const { return impl_->grab_body; }

void RigidWorld::set_solver(const RigidSolverSettings& s) {
  RigidSolverSettings c = s;
  c.iterations = std::min(std::max(c.iterations, 1), 1000);
  c.substeps = std::min(std::max(c.substeps, 1), 64);
  auto unit = [](float v, float fallback) {
    return std::isfinite(v) ? std::min(std::max(v, 0.0f), 1.0f) : fallback;
  };
  c.split_erp = unit(c.split_erp, 0.4f);
  c.slop = std::isfinite(c.slop) ? std::min(std::max(c.slop, 0.0f), 0.01f) : 0.0002f;
  impl_->settings = c;
}
const RigidSolverSettings& RigidWorld::solver() const { return impl_->settings; }
const std::vector<RigidContact>& RigidWorld::contacts() const { return impl_->contacts; }
const RigidStepTimes& RigidWorld::times() const { return impl_->times; }
const std::string& RigidWorld::warning() const { return impl_->warning; }

RigidContactStats RigidWorld::contact_stats() const {
  RigidContactStats s;
  for (const RigidContact& c : impl_->contacts) {
    ++s.count;
    s.max_penetration = std::max(s.max_penetration, c.depth);
  }
  return s;
}

// Friction and restitution: Bullet multiplies the two sides' coefficients, so each side
// carries the square root and the product is the geometric mean.
void RigidWorld::Impl::add_static(Scratch& s, const Static& c) const {
  auto object = std::make_unique<btCollisionObject>();
  object->setCollisionShape(c.shape.get());
  object->setWorldTransform(to_bt(c.pose));
  object->setFriction(std::sqrt(c.material.friction));
  object->setRestitution(std::sqrt(c.material.restitution));
  object->setCollisionFlags(btCollisionObject::CF_STATIC_OBJECT);
  object->setUserIndex(-1);
  object->setContactProcessingThreshold(0.0f);
  s.world.addCollisionObject(object.get(), btBroadphaseProxy::StaticFilter,
                             btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter);
  s.objects.push_back(std::move(object));
}

btRigidBody* RigidWorld::Impl::add_body(Scratch& s, int index) {
  Body& b = bodies[index];
  const bool kinematic = b.def.kinematic;
  btRigidBody::btRigidBodyConstructionInfo info(
      kinematic ? 0.0f : b.def.mass, nullptr, b.shape.get(),
      kinematic ? btVector3(0, 0, 0) : to_bt(b.def.inertia));
  info.m_startWorldTransform = to_bt(b.state.pose);
  info.m_friction = std::sqrt(b.def.material.friction);
  info.m_restitution = std::sqrt(b.def.material.restitution);
  auto body = std::make_unique<btRigidBody>(info);
  if (kinematic)
    body->setCollisionFlags(body->getCollisionFlags() | btCollisionObject::CF_KINEMATIC_OBJECT);
  if (dims == 2) {
    body->setLinearFactor(btVector3(1, 1, 0));
    body->setAngularFactor(btVector3(0, 0, 1));
  }
  if (b.def.axle >= 0 && b.def.axle <= 2) {  // an axle: no move, a turn about one axis
    btVector3 turn(0, 0, 0);
    turn[b.def.axle] = 1;
    body->setLinearFactor(btVector3(0, 0, 0));
    body->setAngularFactor(turn);
  }
  body->setLinearVelocity(to_bt(b.state.motion.velocity));
  body->setAngularVelocity(to_bt(b.state.motion.angular_velocity));
  body->setUserIndex(index);
  body->setContactProcessingThreshold(0.0f);  // no speculative contacts (see step())
  s.world.addRigidBody(body.get());
  body->forceActivationState(DISABLE_DEACTIVATION);
  btRigidBody* raw = body.get();
  s.objects.push_back(std::move(body));
  return raw;
}

void RigidWorld::Impl::read_contacts(Scratch& s) {
  contacts.clear();
  btDispatcher& d = s.d.dispatcher;
  for (int i = 0; i < d.getNumManifolds(); ++i) {
    const btPersistentManifold* manifold = d.getManifoldByIndexInternal(i);
    for (int k = 0; k < manifold->getNumContacts(); ++k) {
      const btManifoldPoint& p = manifold->getContactPoint(k);
      if (p.getDistance() > 0.0f) continue;  // near, not touching: the solver left it out
      RigidContact c;
      c.body_a = manifold->getBody0()->getUserIndex();
      c.body_b = manifold->getBody1()->getUserIndex();
      c.point = from_bt(p.getPositionWorldOnB());
      c.normal = from_bt(p.m_normalWorldOnB);
      c.depth = -p.getDistance();
      c.impulse = p.getAppliedImpulse();
      contacts.push_back(c);
    }
  }
}

void RigidWorld::step(float dt, Vec3 gravity, const std::vector<Vec3>& force,
                      const std::vector<Vec3>& torque) {
  Impl& m = *impl_;
  m.warning.clear();
  m.contacts.clear();
  m.times = RigidStepTimes{};
  if (!(dt > 0.0f) || !std::isfinite(dt)) {
    m.warn("rigid world: step dt " + std::to_string(dt) + " s is not > 0; the step is skipped");
    return;
  }
  if (dt > kMaxStep) {
    m.warn("rigid world: step dt " + std::to_string(dt) + " s is clamped to " +
           std::to_string(kMaxStep) + " s");
    dt = kMaxStep;
  }
  if (!finite(gravity)) {
    m.warn("rigid world: gravity is not finite; taken as zero");
    gravity = Vec3{0, 0, 0};
  }
  const Clock::time_point t0 = Clock::now();
  const int n = static_cast<int>(m.bodies.size());
  if (m.dispatch->dispatcher.getNumManifolds() != 0) {  // (never seen): start afresh
    m.warn("rigid world: contacts outlived the last step; the collision tables are rebuilt");
    m.dispatch = std::make_unique<Dispatch>();
  }
  const int objects = static_cast<int>(m.walls.size() + m.statics.size()) + n;
  auto scratch = std::make_unique<Scratch>(*m.dispatch, std::max(objects, 1));
  Scratch& s = *scratch;
  btContactSolverInfo& info = s.world.getSolverInfo();
  info.m_numIterations = m.settings.iterations;
  info.m_splitImpulse = 1;  // every overlap is pushed out by split impulse (no energy gained)
  info.m_splitImpulsePenetrationThreshold = 0.0f;
  info.m_erp2 = m.settings.split_erp;
  info.m_linearSlop = m.settings.slop;
  if (m.settings.randomize_order) {
    info.m_solverMode |= SOLVER_RANDMIZE_ORDER;
    s.solver.setRandSeed(state_hash(m.bodies));
  }
  s.world.setGravity(to_bt(gravity));
  for (const Static& wall : m.walls) m.add_static(s, wall);
  for (const Static& c : m.statics) m.add_static(s, c);

  std::vector<btRigidBody*> bt_bodies(n, nullptr);
  std::vector<std::pair<btVector3, btVector3>> loads(n);  // force, torque
  for (int i = 0; i < n; ++i) {
    Body& b = m.bodies[i];
    const auto name = [i] { return "rigid body " + std::to_string(i) + ": "; };
    std::string p = b.def.kinematic ? material_problem(b.def.material) : body_def_problem(b.def);
    if (p.empty() && !b.shape.built_from(b.def.geometry)) {
      p = geometry_problem(b.def.geometry);
      if (p.empty()) b.shape.build(b.def.geometry, true);
    }
    if (p.empty() && !(finite(b.state.pose.position) && finite(b.state.pose.orientation)))
      p = "its pose is not finite";
    if (!p.empty()) {
      m.warn(name() + p + "; left out of the step");
      continue;
    }
    if (!finite(b.state.motion.velocity) || !finite(b.state.motion.angular_velocity)) {
      m.warn(name() + "its velocity is not finite; set to zero");
      b.state.motion = RigidMotion{{0, 0, 0}, {0, 0, 0}};
    }
    b.state.pose.orientation = quat_normalized(b.state.pose.orientation);
    m.to_plane(b.state);
    Vec3 f = i < static_cast<int>(force.size()) ? force[i] : Vec3{0, 0, 0};
    Vec3 t = i < static_cast<int>(torque.size()) ? torque[i] : Vec3{0, 0, 0};
    if (!finite(f) || !finite(t)) {
      m.warn(name() + "the force or torque on it is not finite; taken as zero");
      f = t = Vec3{0, 0, 0};
    }
    if (i == m.grab_body && !b.def.kinematic) {
      GrabBody g{b.state.pose, b.state.motion, b.def.mass, b.def.inertia, m.dims == 2};
      const Vec3 pull = grab_force(m.grab, g, dt, gravity, f, t);
      f += pull;
      t += cross(rotate(b.state.pose.orientation, m.grab.local_point), pull);
    }
    bt_bodies[i] = m.add_body(s, i);
    loads[i] = {to_bt(f), to_bt(t)};
  }
  m.times.build_ms = ms_since(t0);

  const Clock::time_point t1 = Clock::now();
  const int substeps = m.settings.substeps;
  const float h = dt / static_cast<float>(substeps);
  for (int sub = 0; sub < substeps; ++sub) {
    for (int i = 0; i < n; ++i) {
      btRigidBody* body = bt_bodies[i];
      if (!body) continue;
      if (!m.bodies[i].def.kinematic) {
        body->applyCentralForce(loads[i].first);
        body->applyTorque(loads[i].second);
      } else if (sub > 0) {  // where its velocities have taken it
        btTransform x;
        btTransformUtil::integrateTransform(body->getWorldTransform(), body->getLinearVelocity(),
                                            body->getAngularVelocity(), h, x);
        body->setWorldTransform(x);
      }
    }
    s.world.step_once(h);
  }
  m.times.simulate_ms = ms_since(t1);

  const Clock::time_point t2 = Clock::now();
  for (int i = 0; i < n; ++i) {
    if (!bt_bodies[i]) continue;
    Body& b = m.bodies[i];
    RigidBodyState& st = b.state;
    if (b.def.kinematic) {  // by its own velocities, exactly
      st.pose.position += st.motion.velocity * dt;
      const Vec3 w = st.motion.angular_velocity;
      const float speed = std::sqrt(length2(w));
      if (speed > 0.0f)
        st.pose.orientation =
            quat_normalized(quat_from_axis_angle(w / speed, speed * dt) * st.pose.orientation);
      continue;
    }
    const btRigidBody& body = *bt_bodies[i];
    const btTransform& x = body.getCenterOfMassTransform();
    const btQuaternion q = x.getRotation();
    RigidBodyState next;
    next.pose.position = from_bt(x.getOrigin());
    next.pose.orientation = Quat{q.w(), q.x(), q.y(), q.z()};
    next.motion.velocity = from_bt(body.getLinearVelocity());
    next.motion.angular_velocity = from_bt(body.getAngularVelocity());
    if (!finite(next)) {
      m.warn("rigid body " + std::to_string(i) +
             ": the step gave a state that is not finite; "
             "it is held where it was");
      st.motion = RigidMotion{{0, 0, 0}, {0, 0, 0}};
      continue;
    }
    st = next;
    m.to_plane(st);
  }
  m.read_contacts(s);
  scratch.reset();
  m.times.teardown_ms = ms_since(t2);
}

}  // namespace tp
