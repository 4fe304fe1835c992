// Rigid bodies in the water (issue 36): momentum between the water, its bodies and its
// walls, on the CPU backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "bodies_pool.h"
#include "sim/water/body_edits.h"

namespace tp::test {
namespace {

// Action equals reaction, each step: with nothing else acting on the water (no gravity, no
// viscosity, XSPH or vorticity confinement, which are not momentum-conserving among the
// fluid, and no wall near), the water's momentum changes in a step by exactly minus the
// force the bodies received from it that step times the step: the force is the sum of the
// fluid's own pair terms, taken from the samples' side. (gather_body_forces in
// src/sim/water/shared_phases.h; the body moves by it in the next step.)
// "pbf_realtime": PBF with the realtime quality's iterations (three, warm started, the
// last damped by pbf_final_weight 0.5): the bodies take only the damped share of the last
// pass, as the water moves by only that (before they took all of it, the water's answer
// fell short of the body's impulse by about a sixth, and a flat box of 1,200 kg/m^3 hung
// at the surface for seconds, 2026-12-06).
TEST(Bodies, TheFluidsMomentumChangeIsMinusTheBodysImpulseEachStep) {
  const float s = 0.02f;
  for (const std::string run : {"wcsph", "pcisph", "pbf", "pbf_realtime", "dfsph"}) {
    SCOPED_TRACE(run);
    const bool realtime = run == "pbf_realtime";
    const char* solver = realtime ? "pbf" : run.c_str();
    const std::string json =
        "{\"dimensions\": 3, \"tank\": {\"min\": [-1, 0, -1], \"max\": [1, 2, 1]}, \"particle_spacing\": 0.02,"
        " \"fluid_spheres\": [{\"center\": [0, 1, 0], \"radius\": 0.2}],"
        " \"bodies\": [{\"shape\": \"sphere\", \"position\": [-0.3, 1, 0], \"radius\": 0.1, \"density\": 1000,"
        " \"velocity\": [0.75, 0, 0]}]}";
    const Scene scene = parse_scene(json, "test");
    auto sim = cpu_sim(scene, s);
    SimParams& p = sim->params();
    p.solver = int(solver_named(solver));
    p.gravity_x = p.gravity_y = p.gravity_z = 0.0f;
    p.viscosity = 0.0f;
    p.pbf_xsph = 0.0f;
    p.pbf_vorticity = 0.0f;
    p.surface_tension = p.adhesion = 0.0f;
    p.wall_slip = 1.0f;
    if (realtime) {
      p.pbf_iterations = 3;
      p.pbf_tolerance = 0.0f;
      p.pbf_warm_start = 0.5f;
      p.pbf_final_weight = 0.5f;
    }
    int checked = 0, exact = 0;
    float largest = 0.0f;
    double total = 0.0, mismatch = 0.0;
    for (int step = 0; step < 60; ++step) {
      const Vec3 before = fluid_momentum(sim->snapshot(), sim->mass());
      const double dt = sim->step();
      const Vec3 after = fluid_momentum(sim->snapshot(), sim->mass());
      const SimState st = sim->capture();  // the force gathered in this step
      ASSERT_EQ(st.body_force.size(), 1u);
      const Vec3 impulse = st.body_force[0] * float(dt);
      const Vec3 change = after - before;
      const float size = length(impulse);
      largest = std::max(largest, size);
      if (size < 1e-6f) continue;
      ++checked;
      const float off = length(change + impulse);
      total += size;
      mismatch += off;
      if (off <= 1e-2f * size + 1e-7f) ++exact;
    }
    std::printf("[ momentum ] %s: %d of %d steps within 1 %%, %.2f %% off over the run\n", run.c_str(), exact, checked,
                100.0 * mismatch / total);
    // Within 1 %: PBF's momentum is read from positions (v = dx / dt), whose float
    // rounding at 1 m is 1e-7 m against corrections of 1e-5 m. Where the tank clamp's hard
    // guarantee pushes water out of the body (boundary.h), the body takes that momentum
    // back (RigidBodies::take_back_pushes): before it did, PCISPH had 2 steps of 59 beyond
    // 1 % and 0.55 % over the run; now none. PBF still has 2 (0.20 % over the run).
    EXPECT_GE(exact, checked * 9 / 10);
    EXPECT_LT(mismatch, 0.005 * total);
    EXPECT_GT(checked, 20) << "the body met the water in too few steps";
    EXPECT_GT(largest, 1e-4f);
  }
}

// Momentum with gravity (issue 36, section 4): a ball of 0.15 m and 500 kg/m^3 thrown
// into a still pool 1 x 0.5 m and 0.3 m deep, sideways at 1 m/s and down at 0.5 m/s, the
// tank's walls free-slip (they push only along their normals). Gravity and the floor act
// only along y, so for 0.2 s after the ball meets the water the water's and the ball's
// momentum along x and z together stay what the throw gave, within 5 % of it, but for
// what the side walls trade with the water. A pool settled for a second still rings and
// trades its walls more sideways momentum than the throw holds: a twin of the pool without
// the ball, run from the same state at the same fixed steps, gave that trade, but not the
// walls' answer to the ball itself, which in a closed tank of nearly incompressible water
// is not small (the water the ball displaces is pushed against them at once): 48 to 115 %
// off. So the walls' own impulse is measured (the water's force on the tank's samples,
// Simulation::wall_fluid_force, over each step; PBF's: its walls' moves, summed while
// measure_walls is on) and taken off: within 0.25 to 1.7 % on every solver
// (docs/bodies.md). The twin's figure is printed for comparison.
TEST(Bodies, AThrownBallAndThePoolKeepTheirSidewaysMomentum) {
  const float s = 0.025f;
  for (const char* solver : {"wcsph", "pcisph", "pbf", "dfsph"}) {
    SCOPED_TRACE(solver);
    const std::string json =
        "{\"dimensions\": 3, \"tank\": {\"min\": [-0.5, 0, -0.25], \"max\": [0.5, 0.8, 0.25]},"
        " \"particle_spacing\": 0.025, \"fluid_blocks\": [{\"min\": [-0.5, 0, -0.25], \"max\": [0.5, 0.3, 0.25]}],"
        " \"bodies\": []}";
    const Scene scene = parse_scene(json, "test");
    auto sim = cpu_sim(scene, s);
    sim->params().solver = int(solver_named(solver));
    sim->params().wall_slip = 1.0f;  // free slip: the floor and walls push only along their normals
    while (sim->simulated_time() < 1.0) sim->step();
    auto twin = cpu_sim(scene, s);
    twin->params() = sim->params();
    twin->restore(sim->capture());
    sim->measure_walls(true);  // PBF's walls push by moving the water: summed only when asked
    const float dt = std::string(solver) == "wcsph" ? 0.0002f : 0.0005f;
    for (Simulation* run : {sim.get(), twin.get()}) run->params().dt_min = run->params().dt_max = dt;
    const Vec3 still = fluid_momentum(twin->snapshot(), twin->mass());
    BodySpec ball;
    ball.shape = int(BodyShapeKind::Sphere);
    ball.radius = 0.075f;
    ball.density = 500.0f;
    ball.pose.position = Vec3{-0.05f, 0.39f, 0.0f};
    ball.motion.velocity = Vec3{1.0f, -0.5f, 0.0f};
    ASSERT_EQ(add_body(*sim, ball), "");
    const float ball_mass = body_mass(ball, 3).mass;
    const Vec3 thrown = ball.motion.velocity * ball_mass;
    double met = -1.0;
    float worst = 0.0f, worst_raw = 0.0f, worst_walls = 0.0f;
    // The walls' own impulse on the water: minus the water's force on the tank's samples
    // (PBF: minus the momentum its walls' moves gave), summed over the steps
    // (Simulation::wall_fluid_force).
    const Vec3 everywhere_lo{-9.0f, -9.0f, -9.0f}, everywhere_hi{9.0f, 9.0f, 9.0f};
    Vec3 wall_impulse{0.0f, 0.0f, 0.0f};
    bool measured = false;
    const Vec3 start = fluid_momentum(sim->snapshot(), sim->mass()) + thrown;
    while (met < 0.0 || sim->simulated_time() < met + 0.2) {
      const double step = sim->step();
      twin->step();
      if (const auto f = sim->wall_fluid_force(everywhere_lo, everywhere_hi)) {
        wall_impulse = wall_impulse - *f * float(step);
        measured = true;
      }
      if (met < 0.0 && length(sim->body_fluid_force(0)) > 0.0f) met = sim->simulated_time();
      const Vec3 p = fluid_momentum(sim->snapshot(), sim->mass()) + sim->bodies()[0].motion.velocity * ball_mass;
      const Vec3 walls = fluid_momentum(twin->snapshot(), twin->mass()) - still;
      worst = std::max(worst, std::max(std::fabs(p.x - walls.x - thrown.x), std::fabs(p.z - walls.z - thrown.z)));
      worst_raw = std::max(worst_raw, std::max(std::fabs(p.x - thrown.x - still.x), std::fabs(p.z - still.z)));
      if (met >= 0.0)
        worst_walls = std::max(worst_walls, std::max(std::fabs(p.x - start.x - wall_impulse.x),
                                                     std::fabs(p.z - start.z - wall_impulse.z)));
      ASSERT_LT(sim->simulated_time(), 1.5) << "the ball never met the water";
    }
    const BodySpec end = sim->bodies()[0];
    std::printf("[ thrown ] %s: ball %.3f kg met the water %.3f s after the throw; over the next 0.2 s water and "
                "ball off by at most %.2f %% of the throw's momentum (%.2f %% without the twin's wall trade taken "
                "off); the ball now at x %.3f, y %.3f, %.2f m/s along x\n",
                solver, ball_mass, met - 1.0, 100.0 * worst / thrown.x, 100.0 * worst_raw / thrown.x,
                end.pose.position.x, end.pose.position.y, end.motion.velocity.x);
    if (measured)
      std::printf("[ thrown ] %s: with the walls' own impulse (%.4f, %.4f) N s taken off: off by at most %.2f %%\n",
                  solver, wall_impulse.x, wall_impulse.z, 100.0 * worst_walls / thrown.x);
    // The 5 % against the walls' measured impulse: the pressure solvers' walls push
    // with their pressure, PBF's by moving the water (its samples' share of the
    // corrections and the projection into the tank).
    EXPECT_TRUE(measured) << "no wall force was read";
    EXPECT_LT(worst_walls, 0.05f * thrown.x) << "water and ball against the throw and the walls' impulse";
    EXPECT_LT(end.motion.velocity.x, 0.9f) << "the water slowed the ball";
  }
}

// The walls hold a resting pool's weight: the walls' force (Simulation::wall_fluid_force),
// averaged over 0.5 s after 1 s of settling, against the water's weight, on every solver,
// in 2D and 3D; and the floor's share of it (the floor's samples; PBF: the floor's layer
// of water). PBF's walls push the water by moving it (pbf_wall_share: the walls' samples'
// share of each correction pass and the projection into the tank), so its force is read
// only for steps taken while measure_walls is on, and not otherwise.
TEST(Bodies, TheWallsHoldTheRestingPoolsWeight) {
  for (const char* solver : {"pbf", "wcsph", "pcisph", "dfsph"})
    for (int dimensions : {2, 3}) {
      SCOPED_TRACE(std::string(solver) + " " + std::to_string(dimensions) + "D");
      const bool pbf = std::string(solver) == "pbf";
      const float s = dimensions == 2 ? 0.01f : 0.025f;
      const Scene scene = pool_with_body(dimensions, s, 0.2f, "", Vec3{0.3f, 0.4f, 0.2f});
      auto sim = cpu_sim(scene, s);
      sim->params().solver = int(solver_named(solver));
      while (sim->simulated_time() < 1.0) sim->step();
      const Vec3 lo{-9.0f, -9.0f, -9.0f}, hi{9.0f, 9.0f, 9.0f};
      const Vec3 floor_hi{9.0f, pbf ? s : 0.0f, 9.0f};
      if (pbf) {
        EXPECT_FALSE(sim->wall_fluid_force(lo, hi).has_value()) << "PBF's walls are read only when asked";
      }
      sim->measure_walls(true);
      Vec3 impulse{0.0f, 0.0f, 0.0f}, floor{0.0f, 0.0f, 0.0f};
      double time = 0.0;
      while (time < 0.5) {
        const double dt = sim->step();
        const auto f = sim->wall_fluid_force(lo, hi), on_floor = sim->wall_fluid_force(lo, floor_hi);
        ASSERT_TRUE(f.has_value() && on_floor.has_value()) << "a step taken while measuring";
        impulse = impulse + *f * float(dt);
        floor = floor + *on_floor * float(dt);
        time += dt;
      }
      const double weight = double(sim->particle_count()) * sim->mass() * 9.81;
      std::printf("[ walls %dD ] %s: the walls' force on average (%.4f, %.4f, %.4f) N, the floor's %.4f N, against the "
                  "water's weight %.4f N\n",
                  dimensions, solver, impulse.x / time, impulse.y / time, impulse.z / time, floor.y / time, weight);
      EXPECT_NEAR(-impulse.y / time, weight, 0.005 * weight) << "the walls hold the water's weight";
      EXPECT_LT(std::fabs(impulse.x / time), 0.01 * weight);
      EXPECT_LT(std::fabs(impulse.z / time), 0.01 * weight);
      sim->measure_walls(false);
      sim->step();
      if (pbf) {
        EXPECT_FALSE(sim->wall_fluid_force(lo, hi).has_value()) << "a step taken without measuring";
      }
    }
}

}  // namespace
}  // namespace tp::test
