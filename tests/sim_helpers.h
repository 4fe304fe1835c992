// Small helpers shared by the physics tests: scenes from inline JSON, CPU simulations.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "sim/io/particle_io.h"
#include "sim/water/params.h"
#include "sim/scene/fidelity.h"
#include "sim/scene/quality.h"
#include "sim/scene/scene.h"
#include "sim/water/simulation.h"

namespace tp::test {

// A box of water [block_lo, block_hi] in a tank [tank_lo, tank_hi]; in 2D (dimensions 2)
// in the plane through the tank's middle in z.
inline Scene box_scene(Vec3 tank_lo, Vec3 tank_hi, Vec3 block_lo, Vec3 block_hi, float spacing,
                       int dimensions = 3) {
  auto v = [](Vec3 a) {
    return "[" + std::to_string(a.x) + "," + std::to_string(a.y) + "," + std::to_string(a.z) + "]";
  };
  const std::string json = "{\"dimensions\": " + std::to_string(dimensions) + ", \"tank\": {\"min\": " + v(tank_lo) + ", \"max\": " + v(tank_hi) +
                           "}, \"particle_spacing\": " + std::to_string(spacing) +
                           ", \"fluid_blocks\": [{\"min\": " + v(block_lo) + ", \"max\": " +
                           v(block_hi) + "}]}";
  return parse_scene(json, "test");
}

// A CPU simulation of `scene` at the accurate quality (sim/scene/quality.h: the preset the
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

// surge_front (the tip of the surge): sim/scene/fidelity.h.

// Koshizuka & Oka's dam break: S. Koshizuka and Y. Oka, "Moving-particle semi-implicit
// method for fragmentation of incompressible fluid", Nuclear Science and Engineering 123
// (1996) 421-434, Fig. 7 (a water column L = 0.146 m wide, 2L tall, released into a tank
// 4L long). Surge front Z/L against T = t sqrt(2 g / L), as digitised in PySPH's example
// data (pysph/examples/db_exp_data.py).
struct FrontPoint {
  double T, Z;
};
inline const FrontPoint kKoshizukaOka[] = {{0.0, 1.0},     {0.381, 1.111}, {0.769, 1.252},
                                    {1.153, 1.505}, {1.537, 1.892}, {1.935, 2.241},
                                    {2.323, 2.615}, {2.719, 3.003}, {3.096, 3.624}};

// The RMS relative error of a surge-front curve (T, Z/L, in time order) against
// kKoshizukaOka, interpolated linearly between its points; prints the comparison.
inline double koshizuka_oka_rms(const std::vector<FrontPoint>& curve, const char* label, uint particles,
                                uint64_t steps) {
  const auto at = [&](double T) {  // linear interpolation between steps
    size_t k = 1;
    while (k + 1 < curve.size() && curve[k].T < T) ++k;
    const FrontPoint a = curve[k - 1], b = curve[k];
    return a.Z + (b.Z - a.Z) * std::clamp((T - a.T) / (b.T - a.T), 0.0, 1.0);
  };
  double sum2 = 0.0;
  std::printf("%s dam break (%u particles, %llu steps): T = t sqrt(2g/L), front Z/L\n", label, particles,
              (unsigned long long)steps);
  std::printf("    T     experiment  simulation  error\n");
  for (const FrontPoint& p : kKoshizukaOka) {
    const double z = at(p.T), e = (z - p.Z) / p.Z;
    sum2 += e * e;
    std::printf("  %5.3f     %5.3f      %5.3f    %+5.1f %%  %s\n", p.T, p.Z, z, 100.0 * e,
                std::string(size_t(std::clamp(z * 10.0, 0.0, 60.0)), '#').c_str());
  }
  const double rms = std::sqrt(sum2 / std::size(kKoshizukaOka));
  std::printf("  RMS relative error %.1f %%\n", 100.0 * rms);
  return rms;
}

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

// What the resting-column tests measure over 1.5 s of a settling column of spacing s,
// sampled every 10 steps: the mean density error and the bottom layer's pressure against
// rho0 g depth (depth below the top layer plus half a spacing) over 0.5-1.5 s, and the mean
// kinetic energy over 0.1-0.4 s and over 1.2-1.5 s.
struct ColumnRecord {
  double error = 0.0, ratio = 0.0, energy_early = 0.0, energy_late = 0.0;
  double fall_energy = 0.0;  // [J, or J/m in 2D] every particle falling one spacing: M g s
  // The column has come to rest: its late kinetic energy a fifth of what the release gave
  // it, or, for a solver that releases it calmly (DFSPH's early energy is a quarter of
  // PCISPH's, and its late one the same), under 0.5 % of fall_energy.
  double rest_bound() const { return std::max(0.2 * energy_early, 0.005 * fall_energy); }
};
inline ColumnRecord settle_column(Simulation& sim, float s) {
  const double rho0 = sim.params().rest_density;
  ColumnRecord r;
  r.fall_energy = double(sim.particle_count()) * sim.mass() * 9.81 * s;
  int samples = 0, early = 0, late = 0;
  for (int step = 0; sim.stats().simulated_time < 1.5; ++step) {
    sim.step();
    const double t = sim.stats().simulated_time;
    if (step % 10) continue;
    const Snapshot snap = sim.snapshot();
    const double energy = kinetic_energy(snap, sim.mass());
    if (t > 0.1 && t < 0.4) r.energy_early += energy, ++early;
    if (t > 1.2) r.energy_late += energy, ++late;
    if (t < 0.5) continue;
    r.error += sim.stats().last_density_error;
    float top = 0.0f;
    for (const Vec4& x : snap.position) top = std::max(top, x.y);
    const float surface = top + 0.5f * s;
    double p_sum = 0.0, expected_sum = 0.0;
    for (size_t i = 0; i < snap.position.size(); ++i) {
      if (snap.position[i].y > s) continue;
      p_sum += snap.pressure[i];
      expected_sum += rho0 * 9.81 * (surface - snap.position[i].y);
    }
    r.ratio += p_sum / expected_sum;
    ++samples;
  }
  r.error /= samples;
  r.ratio /= samples;
  r.energy_early /= early;
  r.energy_late /= late;
  return r;
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
