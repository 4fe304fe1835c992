// The rigid world's step (src/sim/bodies/rigid_world.h) timed in its parts, for 8 and 64
// boxes resting in stacks on the tank floor (after 1 s of settling, so every box touches
// its neighbours): the Bullet world rebuilt from our state (build), Bullet's step
// (simulate: collisions from scratch, solver, integration) and reading back and tearing
// down (teardown). Beside it, the same scene in one persistent Bullet world with the same
// settings (warm-started, contacts kept between steps: what the rebuild gives up for exact
// replay), stepped with stepSimulation; the difference is what the rebuild costs. "drift"
// is the farthest any box moved during the timed steps. One thread (Bullet's discrete world
// runs on one). docs/bodies.md records the figures.
//   build/bin/tp_bench_rigid [steps]
#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "sim/bodies/rigid_world.h"

namespace {

using tp::Vec3;
using Clock = std::chrono::steady_clock;

constexpr float kDt = 0.002f;
const Vec3 kHalf{0.05f, 0.03f, 0.05f};
constexpr float kDensity = 500.0f;

// Box k of n: side x side columns (side 2 for 8 boxes, 4 for 64), n / side^2 high, stacked
// on the floor, or "apart" (a lattice of 0.2 m in the air, gravity off: floating, as in water,
// where a step is all rebuild and no contact).
Vec3 place(int k, int n, bool apart) {
  const int side = n >= 64 ? 4 : 2;
  const int i = k % side, j = (k / side) % side, layer = k / (side * side);
  const float y = apart ? 0.2f + 0.2f * layer : kHalf.y * (2 * layer + 1);
  return Vec3{0.2f + 0.2f * i, y, 0.2f + 0.2f * j};
}

float farthest(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  float d = 0.0f;
  for (size_t k = 0; k < a.size(); ++k) d = std::max(d, std::sqrt(tp::length2(a[k] - b[k])));
  return d;
}

struct Result {
  double build = 0, simulate = 0, teardown = 0, total = 0;  // [ms per step]
  double contacts = 0;
  float drift = 0;  // [m]
};

Result rebuilt(int n, bool apart, int iterations, int steps) {
  tp::RigidWorld world;
  world.set_tank({0, 0, 0}, {1, 1, 1}, 3);
  tp::RigidSolverSettings settings;
  settings.iterations = iterations;
  world.set_solver(settings);
  const tp::RigidBodyDef def = tp::uniform_body(tp::box_geometry(kHalf), kDensity);
  for (int k = 0; k < n; ++k) {
    tp::RigidBodyState s;
    s.pose.position = place(k, n, apart);
    world.add_body(def, s);
  }
  const Vec3 gravity{0.0f, apart ? 0.0f : -9.81f, 0.0f};
  for (int k = 0; k < 500; ++k) world.step(kDt, gravity);
  std::vector<Vec3> start(n), now(n);
  for (int k = 0; k < n; ++k) start[k] = world.state(k).pose.position;
  Result r;
  for (int step = 0; step < steps; ++step) {
    world.step(kDt, gravity);
    const tp::RigidStepTimes& t = world.times();
    r.build += t.build_ms;
    r.simulate += t.simulate_ms;
    r.teardown += t.teardown_ms;
    r.contacts += world.contact_stats().count;
    for (int k = 0; k < n; ++k) now[k] = world.state(k).pose.position;
    r.drift = std::max(r.drift, farthest(start, now));
  }
  r.build /= steps, r.simulate /= steps, r.teardown /= steps, r.contacts /= steps;
  r.total = r.build + r.simulate + r.teardown;
  return r;
}

// The same boxes, floor, materials and solver settings in one Bullet world kept for the run.
Result persistent(int n, bool apart, int iterations, int steps) {
  btDefaultCollisionConfiguration config;
  btCollisionDispatcher dispatcher(&config);
  btSimpleBroadphase broadphase(n + 1);  // as the rigid world's (faster than the tree here too)
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &config);
  world.setGravity(btVector3(0, apart ? 0.0f : -9.81f, 0));
  btContactSolverInfo& info = world.getSolverInfo();
  const tp::RigidSolverSettings settings;
  info.m_numIterations = iterations;
  info.m_splitImpulse = 1;
  info.m_splitImpulsePenetrationThreshold = 0.0f;
  info.m_erp2 = settings.split_erp;
  info.m_linearSlop = settings.slop;
  info.m_solverMode |= SOLVER_RANDMIZE_ORDER;
  const float friction = std::sqrt(tp::BodyMaterial{}.friction);
  const float restitution = std::sqrt(tp::BodyMaterial{}.restitution);
  btBoxShape floor_shape(btVector3(1.5f, 0.5f, 1.5f));  // as set_tank's floor
  floor_shape.setMargin(0.004f);
  btCollisionObject floor;
  floor.setCollisionShape(&floor_shape);
  floor.setWorldTransform(btTransform(btQuaternion::getIdentity(), btVector3(0.5f, -0.5f, 0.5f)));
  floor.setFriction(friction);
  floor.setRestitution(restitution);
  floor.setContactProcessingThreshold(0.0f);
  world.addCollisionObject(&floor, btBroadphaseProxy::StaticFilter,
                           btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter);
  btBoxShape box(btVector3(kHalf.x, kHalf.y, kHalf.z));
  box.setMargin(std::min(0.004f, 0.1f * kHalf.y));
  const tp::RigidBodyDef def = tp::uniform_body(tp::box_geometry(kHalf), kDensity);
  std::vector<std::unique_ptr<btRigidBody>> bodies;
  for (int k = 0; k < n; ++k) {
    btRigidBody::btRigidBodyConstructionInfo ci(
        def.mass, nullptr, &box, btVector3(def.inertia.x, def.inertia.y, def.inertia.z));
    const Vec3 p = place(k, n, apart);
    ci.m_startWorldTransform = btTransform(btQuaternion::getIdentity(), btVector3(p.x, p.y, p.z));
    ci.m_friction = friction;
    ci.m_restitution = restitution;
    bodies.push_back(std::make_unique<btRigidBody>(ci));
    bodies.back()->setContactProcessingThreshold(0.0f);
    world.addRigidBody(bodies.back().get());
    bodies.back()->forceActivationState(DISABLE_DEACTIVATION);
  }
  const auto positions = [&] {
    std::vector<Vec3> out;
    for (const auto& b : bodies) {
      const btVector3 p = b->getCenterOfMassPosition();
      out.push_back(Vec3{p.x(), p.y(), p.z()});
    }
    return out;
  };
  for (int k = 0; k < 500; ++k) world.stepSimulation(kDt, 0);
  const std::vector<Vec3> start = positions();
  Result r;
  for (int step = 0; step < steps; ++step) {
    const Clock::time_point t0 = Clock::now();
    world.stepSimulation(kDt, 0);
    r.simulate += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    for (int i = 0; i < dispatcher.getNumManifolds(); ++i)
      r.contacts += dispatcher.getManifoldByIndexInternal(i)->getNumContacts();
    r.drift = std::max(r.drift, farthest(start, positions()));
  }
  for (auto& b : bodies) world.removeRigidBody(b.get());
  world.removeCollisionObject(&floor);
  r.simulate /= steps, r.contacts /= steps;
  r.total = r.simulate;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2000;
  std::printf("rigid world, dt %.1f ms, %d timed steps after 1 s of settling (ms per step)\n",
              kDt * 1e3f, steps);
  std::printf("%7s %6s %10s %11s %9s %8s %8s %8s %8s %8s %9s\n", "scene", "bodies", "iterations",
              "world", "contacts", "build", "simulate", "teardown", "total", "rebuild",
              "drift[mm]");
  for (const bool apart : {false, true}) {
    for (const int n : {8, 64}) {
      for (const int iterations : {10, 20, 40}) {
        if (apart && iterations != 40) continue;  // (no contact: the solver has nothing to do)
        const char* scene = apart ? "apart" : "stacked";
        const Result kept = persistent(n, apart, iterations, steps);
        const Result r = rebuilt(n, apart, iterations, steps);
        std::printf("%7s %6d %10d %11s %9.1f %8.4f %8.4f %8.4f %8.4f %8s %9.3f\n", scene, n,
                    iterations, "persistent", kept.contacts, 0.0, kept.simulate, 0.0, kept.total,
                    "", kept.drift * 1e3f);
        std::printf("%7s %6d %10d %11s %9.1f %8.4f %8.4f %8.4f %8.4f %+7.0f%% %9.3f\n", scene, n,
                    iterations, "rebuilt", r.contacts, r.build, r.simulate, r.teardown, r.total,
                    100.0 * (r.total / kept.total - 1.0), r.drift * 1e3f);
      }
    }
  }
  return 0;
}
