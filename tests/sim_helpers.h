// Small helpers shared by the physics tests: scenes from inline JSON, CPU simulations.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "sim/io.h"
#include "sim/params.h"
#include "sim/quality.h"
#include "sim/scene.h"
#include "sim/simulation.h"

namespace tp::test {

// A box of water [block_lo, block_hi] in a tank [tank_lo, tank_hi].
inline Scene box_scene(Vec3 tank_lo, Vec3 tank_hi, Vec3 block_lo, Vec3 block_hi, float spacing) {
  auto v = [](Vec3 a) {
    return "[" + std::to_string(a.x) + "," + std::to_string(a.y) + "," + std::to_string(a.z) + "]";
  };
  const std::string json = "{\"tank\": {\"min\": " + v(tank_lo) + ", \"max\": " + v(tank_hi) +
                           "}, \"particle_spacing\": " + std::to_string(spacing) +
                           ", \"fluid_blocks\": [{\"min\": " + v(block_lo) + ", \"max\": " +
                           v(block_hi) + "}]}";
  return parse_scene(json, "test");
}

// A CPU simulation of `scene` at the accurate quality (sim/quality.h: the preset the
// validation tests run; the parameter table's defaults), then the scene's own parameters.
inline std::unique_ptr<Simulation> cpu_sim(const Scene& scene, float spacing) {
  auto sim = make_simulation(BackendKind::Cpu);
  apply_quality(sim->params(), Quality::Accurate, BackendKind::Cpu);
  apply_scene_params(scene, sim->params());
  sim->reset(build_initial_state(scene, spacing));
  return sim;
}

// A PublishTarget over host memory (what publish() writes, to read back).
class HostTarget final : public PublishTarget {
 public:
  std::vector<Vec4> values;
  int maps = 0;
  Vec4* map_host(size_t count) override {
    values.assign(count, Vec4{-7, -7, -7, -7});
    ++maps;
    return values.data();
  }
  void unmap() override {}
};

inline double kinetic_energy(const Snapshot& s, float mass) {
  double e = 0.0;
  for (const Vec4& v : s.velocity) e += 0.5 * mass * length2(xyz(v));
  return e;
}

// The smallest signed distance from any fluid particle to any obstacle's surface [m]
// (negative: a particle inside one).
inline float closest_to_obstacles(const Snapshot& s, const std::vector<ObstacleShape>& obstacles) {
  float d = INFINITY;
  for (const Vec4& p : s.position)
    for (const ObstacleShape& o : obstacles) d = std::min(d, obstacle_distance(o, xyz(p)));
  return d;
}

inline ParticleCheck check(Simulation& sim) {
  return check_particles(sim.snapshot(), sim.tank_lo(), sim.tank_hi());
}

// Particles (in the same id order) whose position differs by more than dx or velocity by
// more than dv.
inline int count_differing(const Snapshot& a, const Snapshot& b, float dx, float dv) {
  int differ = 0;
  for (size_t i = 0; i < a.position.size() && i < b.position.size(); ++i)
    if (length(xyz(a.position[i]) - xyz(b.position[i])) > dx ||
        length(xyz(a.velocity[i]) - xyz(b.velocity[i])) > dv)
      ++differ;
  return differ;
}

}  // namespace tp::test
