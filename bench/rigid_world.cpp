// The rigid world's step (src/sim/bodies/rigid_world.h) timed in its parts, for 8 and 64
// boxes resting in stacks on the tank floor (after 1 s of settling, so every box touches
// its neighbours): the Bullet world rebuilt from our state (build), Bullet's step
// (simulate: collisions, solver, integration) and reading back and tearing down
// (teardown). build + teardown is what the exact replay costs over a persistent world.
// One thread (Bullet's discrete world runs on one). docs/bodies.md records the figures.
//   build/bin/tp_bench_rigid [steps]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sim/bodies/rigid_world.h"

namespace {

using tp::Vec3;

// n boxes in a side x side grid of columns, n / side^2 high, on the floor of a 1 m tank.
tp::RigidWorld pile(int n, int iterations) {
  tp::RigidWorld world;
  world.set_tank({0, 0, 0}, {1, 1, 1}, 3);
  tp::RigidSolverSettings settings;
  settings.iterations = iterations;
  world.set_solver(settings);
  const int side = n >= 64 ? 4 : 2;
  const Vec3 half{0.05f, 0.03f, 0.05f};
  const tp::RigidBodyDef def = tp::uniform_body(tp::box_geometry(half), 500.0f);
  for (int k = 0; k < n; ++k) {
    const int i = k % side, j = (k / side) % side, layer = k / (side * side);
    tp::RigidBodyState s;
    s.pose.position = Vec3{0.2f + 0.2f * i, half.y * (2 * layer + 1), 0.2f + 0.2f * j};
    world.add_body(def, s);
  }
  return world;
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2000;
  const float dt = 0.002f;
  const Vec3 gravity{0.0f, -9.81f, 0.0f};
  std::printf("rigid world, dt %.1f ms, %d timed steps after 1 s of settling (ms per step)\n",
              dt * 1e3f, steps);
  std::printf("%6s %10s %9s %9s %9s %9s %9s %9s\n", "bodies", "iterations", "contacts", "build",
              "simulate", "teardown", "total", "rebuild%");
  for (const int n : {8, 64}) {
    for (const int iterations : {10, 20, 40}) {
      tp::RigidWorld world = pile(n, iterations);
      for (int k = 0; k < 500; ++k) world.step(dt, gravity);
      tp::RigidStepTimes sum;
      long contacts = 0;
      for (int k = 0; k < steps; ++k) {
        world.step(dt, gravity);
        const tp::RigidStepTimes& t = world.times();
        sum.build_ms += t.build_ms;
        sum.simulate_ms += t.simulate_ms;
        sum.teardown_ms += t.teardown_ms;
        contacts += world.contact_stats().count;
      }
      const double total = sum.total();
      std::printf("%6d %10d %9.1f %9.4f %9.4f %9.4f %9.4f %8.1f%%\n", n, iterations,
                  static_cast<double>(contacts) / steps, sum.build_ms / steps,
                  sum.simulate_ms / steps, sum.teardown_ms / steps, total / steps,
                  100.0 * (sum.build_ms + sum.teardown_ms) / total);
    }
  }
  return 0;
}
