// The neighbour loops written once for one particle and for a block of lanes
// (kernels/lanes.h): on a build with AVX-512 or AVX2 the CPU backend runs them 16 or 8
// particles at a time, while CUDA runs the same source one particle a thread. These tests
// run every solver both ways on the CPU and compare, so that the path CUDA takes is
// checked here too, and the lanes' loads and stores at a block's ragged end.
#include <gtest/gtest.h>

#include <map>

#include "sim/backend/backend_cpu.h"
#include "sim_helpers.h"

namespace tp {
namespace {

using test::cpu_sim;

// Water falling into a corner onto a sphere: walls, an obstacle, a splash. 2,197
// particles, not a multiple of 16 or 8, so the last block of lanes is partial.
Scene lane_scene() {
  return parse_scene(R"({
    "tank": {"min": [0, 0, 0], "max": [0.5, 0.6, 0.3]},
    "particle_spacing": 0.02,
    "fluid_blocks": [{"min": [0.0, 0.2, 0.0], "max": [0.25, 0.45, 0.25]}],
    "obstacles": [{"shape": "sphere", "center": [0.3, 0.08, 0.15], "radius": 0.07}]
  })", "lanes");
}

// Restores the CPU backend's lane switch however a test ends.
struct LaneSwitch {
  bool saved = CpuBackend::lanes_enabled();
  ~LaneSwitch() { CpuBackend::set_lanes(saved); }
};

struct Difference {
  double position = 0.0, velocity = 0.0, density = 0.0, moved = 0.0;
};

// Particles by id: the grid's order may differ where rounding put a particle on the other
// side of a cell face.
Difference compare(const Snapshot& a, const Snapshot& b, const Snapshot& start) {
  std::map<uint, size_t> in_b, in_start;
  for (size_t k = 0; k < b.id.size(); ++k) in_b[b.id[k]] = k;
  for (size_t k = 0; k < start.id.size(); ++k) in_start[start.id[k]] = k;
  Difference d;
  for (size_t k = 0; k < a.id.size(); ++k) {
    const size_t m = in_b.at(a.id[k]);
    d.position = std::max(d.position, double(length(xyz(a.position[k]) - xyz(b.position[m]))));
    d.velocity = std::max(d.velocity, double(length(xyz(a.velocity[k]) - xyz(b.velocity[m]))));
    d.density = std::max(d.density, double(std::fabs(a.density[k] - b.density[m])));
    const size_t s = in_start.at(a.id[k]);
    d.moved = std::max(d.moved, double(length(xyz(a.position[k]) - xyz(start.position[s]))));
  }
  return d;
}

// From the same state, one step with the loops in lanes (16 or 8 particles) and one with them
// one at a time, every 8 steps of water falling onto a sphere in a corner (6 checks for
// PCISPH and PBF, 30 for WCSPH's shorter steps). Rounding differs (the same sums in the
// same order, fused differently), so the results agree to about 6e-8 m and 1e-3 kg/m^3
// (the same path twice agrees exactly); a wrong neighbour, a lost lane or a stale store at
// the ragged end differs by a whole pair's term (one neighbour adds about 30 kg/m^3 to a
// density). One step at a time, because a splash amplifies rounding differences: run side
// by side for 40 PBF steps they grow from 6e-8 m to 2e-4 m, doubling every four steps.
TEST(Lanes, EverySolverGivesTheResultsOfTheOneParticleLoops) {
  if (!TP_LANE_WIDTH) GTEST_SKIP() << "this build has neither AVX-512 nor AVX2 (TIDEPOOL_NATIVE=OFF or the CPU lacks them): every loop runs one particle at a time, nothing to compare";
  LaneSwitch restore;
  const Scene scene = lane_scene();
  const std::pair<const char*, int> runs[] = {{"wcsph", 240}, {"pcisph", 48}, {"pbf", 48}, {"dfsph", 48}};
  for (const auto& [solver, steps] : runs) {
    SCOPED_TRACE(solver);
    auto sim = cpu_sim(scene, scene.spacing);
    std::string error;
    ASSERT_TRUE(set_param_from_text(sim->params(), "solver", solver, &error)) << error;
    sim->params().diffuse = 0;  // spray and foam run one particle at a time either way
    // The mouse pushing into the block: one more term every solver's loops carry.
    sim->params().mouse_mode = 0;
    sim->params().mouse_strength = 20.0f;
    sim->set_mouse(MouseForce{1, Vec3{0.12f, 0.3f, 0.12f}, Vec3{0.0f, 0.0f, 0.0f}});
    ASSERT_EQ(sim->particle_count() % 16, 5u);
    const Snapshot start = sim->snapshot();
    Difference worst;
    int checks = 0;
    for (int step = 0; step < steps; ++step) {
      if (step % 8 != 0) {
        CpuBackend::set_lanes(true);
        sim->step();
        continue;
      }
      // Both from a restored state: a restore is not quite the run it was taken from (the
      // previous step's speeds, which set the time step, are not part of it).
      const SimState before = sim->capture();
      sim->restore(before);
      CpuBackend::set_lanes(false);
      sim->step();
      const Snapshot scalar = sim->snapshot();
      sim->restore(before);
      CpuBackend::set_lanes(true);
      sim->step();
      const Difference d = compare(sim->snapshot(), scalar, start);
      worst.position = std::max(worst.position, d.position);
      worst.velocity = std::max(worst.velocity, d.velocity);
      worst.density = std::max(worst.density, d.density);
      worst.moved = d.moved;
      ++checks;
    }
    std::printf("%s: %d one-step checks over %.3f s (largest move %.3f m): the lanes and the one-particle loops differ by at most %.2e m, %.2e m/s, %.2e kg/m^3\n",
                solver, checks, sim->stats().simulated_time, worst.moved, worst.position, worst.velocity, worst.density);
    EXPECT_GT(worst.moved, 2.0 * scene.spacing) << "the water should have moved for the comparison to mean anything";
    EXPECT_LT(worst.position, 1e-5 * scene.spacing);
    EXPECT_LT(worst.velocity, 1e-4);
    EXPECT_LT(worst.density, 0.01);
  }
}

// Spray, foam and bubbles: their spawning (the normals and potentials, in lanes where the
// build has them) and the search of the fluid at each of them (the CPU's vector search,
// src/sim/water/diffuse_sample.h), against the one-particle loops CUDA runs. From the same
// state, each of 24 steps of a splash both ways (an update every step, spawning once a
// 60 Hz frame): the same particles are born and they move the same but for rounding.
TEST(Lanes, SprayFoamAndBubblesSpawnAndMoveAsInTheOneParticleLoops) {
  if (!TP_LANE_WIDTH) GTEST_SKIP() << "this build has neither AVX-512 nor AVX2: every loop runs one particle at a time, nothing to compare";
  LaneSwitch restore;
  const Scene scene = lane_scene();
  auto sim = cpu_sim(scene, scene.spacing);
  std::string error;
  ASSERT_TRUE(set_param_from_text(sim->params(), "solver", "pbf", &error)) << error;
  sim->params().diffuse = 1;
  sim->params().diffuse_interval = 0.001f;  // (at most one update a step: every step)
  sim->params().diffuse_trapped_rate = sim->params().diffuse_crest_rate = 1500.0f;
  CpuBackend::set_lanes(true);
  for (double t = 0.0; t < 0.25;) t += sim->step();  // into the splash on the sphere
  ASSERT_GT(sim->diffuse_count(), 50u) << "a splash to compare";
  uint64_t born = 0;
  size_t compared = 0;
  double worst = 0.0;
  for (int step = 0; step < 24; ++step) {
    const SimState before = sim->capture();
    sim->restore(before);
    CpuBackend::set_lanes(false);
    const uint64_t spawned = sim->stats_as_stepped().diffuse.spawned;
    sim->step();
    const std::vector<DiffuseParticle> scalar = sim->diffuse_snapshot();
    const uint64_t scalar_born = sim->stats_as_stepped().diffuse.spawned - spawned;
    sim->restore(before);
    CpuBackend::set_lanes(true);
    sim->step();
    const std::vector<DiffuseParticle> lanes = sim->diffuse_snapshot();
    EXPECT_EQ(sim->stats_as_stepped().diffuse.spawned - spawned, scalar_born) << "step " << step;
    born += scalar_born;
    ASSERT_EQ(lanes.size(), scalar.size()) << "step " << step;
    for (size_t k = 0; k < lanes.size(); ++k) {
      EXPECT_EQ(lanes[k].kind, scalar[k].kind);
      worst = std::max(worst, double(length(lanes[k].position - scalar[k].position)));
      ++compared;
    }
  }
  std::printf("24 steps: %llu born, %zu diffuse particles compared; positions differ by at most %.2e m\n",
              (unsigned long long)born, compared, worst);
  EXPECT_GT(born, 100u) << "spawning should have run for the comparison to mean anything";
  EXPECT_LT(worst, 1e-3 * scene.spacing);
}

}  // namespace
}  // namespace tp
