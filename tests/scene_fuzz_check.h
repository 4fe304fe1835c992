// What a scene-file mutant may lead to, checked the same way by the GoogleTest fuzz run
// (tests/test_scene_fuzz.cpp) and the libFuzzer target (tests/fuzz/fuzz_scene_loader.cpp):
// either a SceneError with a one-line message naming the file, or a scene within every
// documented range whose particles build (at twice its spacing, in 64 MB) finite, in the
// tank and out of its obstacles, or are refused for memory. Nothing else may come out.
#pragma once

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>

#include "sim/water/memory_need.h"
#include "sim/scene/gas_scene.h"
#include "sim/scene/scene.h"

namespace tp::test {

inline bool finite(Vec3 v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}
inline bool less(Vec3 a, Vec3 b) { return a.x < b.x && a.y < b.y && a.z < b.z; }
inline bool within(Vec3 p, Vec3 lo, Vec3 hi) {
  return p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y && p.z >= lo.z && p.z <= hi.z;
}
inline bool bounded(Vec3 v, float limit) {
  return finite(v) && std::fabs(v.x) <= limit && std::fabs(v.y) <= limit && std::fabs(v.z) <= limit;
}

// Why an accepted scene breaks a documented range, or "" when it is valid.
inline std::string invalid(const Scene& s) {
  if (!bounded(s.tank_lo, 1e4f) || !bounded(s.tank_hi, 1e4f) || !less(s.tank_lo, s.tank_hi))
    return "tank";
  if (!(s.spacing >= 1e-4f && s.spacing <= 10.0f)) return "particle_spacing";
  if (s.blocks.size() > kMaxSceneItems || s.spheres.size() > kMaxSceneItems)
    return "too many shapes";
  for (const FluidBlock& b : s.blocks)
    if (!bounded(b.lo, 1e4f) || !bounded(b.hi, 1e4f) || !less(b.lo, b.hi) ||
        !bounded(b.velocity, 100))
      return "block";
  for (const FluidSphere& b : s.spheres)
    if (!bounded(b.center, 1e4f) || !(b.radius > 0 && b.radius <= 1e4f) ||
        !bounded(b.velocity, 100))
      return "sphere";
  const Vec3 e = s.tank_hi - s.tank_lo;
  const float largest = std::max({e.x, e.y, e.z});
  if (s.emitters.size() > kMaxEmitters) return "too many emitters";
  for (const Emitter& m : s.emitters) {
    if (!finite(m.position) || !within(m.position, s.tank_lo, s.tank_hi)) return "emitter position";
    const float speed = length(m.velocity);
    if (!(speed >= kMinEmitterSpeed && speed <= kMaxEmitterSpeed)) return "emitter speed";
    if (m.shape == 0 && !(m.radius > 0 && m.radius <= largest)) return "emitter radius";
    if (m.shape == 1 && !(m.width > 0 && m.width <= largest && m.height > 0 && m.height <= largest))
      return "emitter size";
    if (m.shape != 0 && m.shape != 1) return "emitter shape";
    if (!(m.rate >= 0 && m.rate <= 1e9f)) return "emitter rate";
    if (!(m.start >= 0 && m.start <= 1e6f)) return "emitter start";
    if (!(m.stop == -1.0f || (m.stop > m.start && m.stop <= 1e6f))) return "emitter stop";
  }
  if (s.outflows.size() > kMaxOutflows) return "too many outflows";
  for (const Outflow& o : s.outflows)
    if (!bounded(o.lo, 1e4f) || !bounded(o.hi, 1e4f) || !less(o.lo, o.hi) ||
        !less(o.lo, s.tank_hi) || !less(s.tank_lo, o.hi))
      return "outflow";
  if (s.obstacles.size() > size_t(kMaxObstacles)) return "too many obstacles";
  for (const ObstacleShape& o : s.obstacles) {
    if (!finite(o.center) || !within(o.center, s.tank_lo, s.tank_hi)) return "obstacle center";
    if (o.kind == int(ShapeKind::Sphere) && !(o.radius > 0 && o.radius <= largest))
      return "obstacle radius";
    if (o.kind == int(ShapeKind::Box) && !(o.half_extent.x > 0 && o.half_extent.y > 0 &&
                                           o.half_extent.z > 0 && bounded(o.half_extent, largest)))
      return "obstacle size";
    if (o.kind != int(ShapeKind::Sphere) && o.kind != int(ShapeKind::Box)) return "obstacle kind";
    if (!(o.velocity.x == 0 && o.velocity.y == 0 && o.velocity.z == 0)) return "obstacle velocity";
  }
  if (s.max_particles != 0 &&
      (s.max_particles < kMinMaxParticles || s.max_particles > kMaxParticles))
    return "max_particles";
  if (s.emitters.empty() && !(fluid_volume(s) > 0)) return "no water";
  if (!bounded(s.camera.target, 1e4f) ||
      !(s.camera.distance >= 0.01f && s.camera.distance <= 1e4f) ||
      !(s.camera.yaw >= -360 && s.camera.yaw <= 360) ||
      !(s.camera.pitch >= -89 && s.camera.pitch <= 89))
    return "camera";
  return "";
}

enum class MutantOutcome { SyntaxError, ValidationError, Built, RefusedForMemory };

// Parses one mutant and, when accepted, builds its particles. Returns what is wrong, or
// "" with the outcome in *outcome.
inline std::string check_scene_mutant(const std::string& text, MutantOutcome* outcome) {
  const std::string prefix = "scene file 'fuzz.json': ";
  Scene scene;
  try {
    scene = parse_scene(text, "fuzz.json");
  } catch (const SceneError& e) {
    const std::string what = e.what();
    if (what.rfind("scene file 'fuzz.json'", 0) != 0)
      return "the message does not begin by naming the file: " + what;
    if (what.size() <= prefix.size()) return "the message says nothing: " + what;
    if (what.find_first_of("\n\r") != std::string::npos)
      return "the message is not one line: " + what;
    // (src/sim/scene/scene.cpp's last resort; the text itself may appear quoted from the input.)
    if (what.rfind(prefix + "unexpected JSON content (", 0) == 0)
      return "a wrong type reached nlohmann instead of the Reader: " + what;
    const bool syntax =
        what.find("': JSON ") != std::string::npos || what.find("' is ") != std::string::npos;
    *outcome = syntax ? MutantOutcome::SyntaxError : MutantOutcome::ValidationError;
    return "";
  } catch (const std::exception& e) {
    return std::string("parse_scene threw something else than SceneError: ") + e.what();
  }
  if (scene.is_gas) {
    // A gas scene: its grid at a few cells (the scene's own count may be a gigabyte) runs a
    // step without NaN, its obstacles and sources as given.
    try {
      GasSetup setup = gas_setup(scene, 12);
      if (!(setup.grid.dx > 0.0f) || setup.grid.cells() == 0) return "a gas grid without cells";
      auto gas = make_gas_simulation(BackendKind::Cpu);
      start_gas(*gas, scene, 12);
      gas->step();
      if (!std::isfinite(gas->stats().smoke_mass) || !std::isfinite(gas->stats().max_speed))
        return "a gas step gave NaN";
    } catch (const SceneError& e) {
      const std::string what = e.what();
      if (what.find_first_of("\n\r") != std::string::npos) return "the message is not one line: " + what;
      *outcome = MutantOutcome::ValidationError;
      return "";
    } catch (const std::exception& e) {
      return std::string("the gas scene threw something else than SceneError: ") + e.what();
    }
    *outcome = MutantOutcome::Built;
    return "";
  }
  const std::string why = invalid(scene);
  if (!why.empty()) return "accepted an invalid scene (" + why + ")";
  const float spacing = 2.0f * scene.spacing;
  constexpr uint64_t kBudget = 64'000'000;
  InitialState st;
  try {
    st = build_initial_state(scene, spacing, kBudget);
  } catch (const SceneError& e) {
    const std::string what = e.what();
    if (what.find_first_of("\n\r") != std::string::npos)
      return "the message is not one line: " + what;
    *outcome = MutantOutcome::RefusedForMemory;
    return "";
  } catch (const std::exception& e) {
    return std::string("build_initial_state threw something else than SceneError: ") + e.what();
  }
  *outcome = MutantOutcome::Built;
  if (st.fluid.empty() && scene.emitters.empty()) return "built no water and has no emitter";
  if (estimate_memory_bytes(st.fluid.size(), st.boundary.size(), 0) > kBudget)
    return "built more particles than the memory budget holds";
  if (st.emitters.size() != scene.emitters.size() || st.outflows.size() != scene.outflows.size() ||
      st.obstacles.size() != scene.obstacles.size())
    return "lost emitters, outflows or obstacles";
  for (const Vec4& p : st.fluid) {
    if (!(finite(xyz(p)) && within(xyz(p), st.tank_lo, st.tank_hi)))
      return "a particle is not finite or outside the tank";
    for (const ObstacleShape& o : st.obstacles)
      if (obstacle_distance(o, xyz(p)) < 0.49f * spacing) return "a particle is inside an obstacle";
  }
  return "";
}

}  // namespace tp::test
