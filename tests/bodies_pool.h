// The bodies tests' shared pool (tests/test_bodies*.cpp).
#pragma once

#include <string>

#include "sim_helpers.h"

namespace tp::test {

// A tank of still water `depth` deep with one body in it (JSON of its entry).
inline Scene pool_with_body(int dimensions, float spacing, float depth, const std::string& body, Vec3 tank_hi = {0.6f, 0.6f, 0.3f}) {
  const Vec3 lo{-tank_hi.x, 0.0f, -tank_hi.z};
  auto v = [](Vec3 a) {
    return "[" + std::to_string(a.x) + "," + std::to_string(a.y) + "," + std::to_string(a.z) + "]";
  };
  const std::string json = "{\"dimensions\": " + std::to_string(dimensions) + ", \"tank\": {\"min\": " + v(lo) +
                           ", \"max\": " + v(tank_hi) + "}, \"particle_spacing\": " + std::to_string(spacing) +
                           ", \"fluid_blocks\": [{\"min\": " + v(lo) + ", \"max\": " + v(Vec3{tank_hi.x, depth, tank_hi.z}) +
                           "}], \"bodies\": [" + body + "]}";
  return parse_scene(json, "test");
}

inline SolverKind solver_named(const std::string& name) {
  return name == "pbf"      ? SolverKind::Pbf
         : name == "pcisph" ? SolverKind::Pcisph
         : name == "dfsph"  ? SolverKind::Dfsph
                            : SolverKind::Wcsph;
}

inline Vec3 fluid_momentum(const Snapshot& snap, float mass) {
  double p[3] = {0, 0, 0};
  for (const Vec4& v : snap.velocity) {
    p[0] += v.x;
    p[1] += v.y;
    p[2] += v.z;
  }
  return Vec3{float(p[0] * mass), float(p[1] * mass), float(p[2] * mass)};
}

}  // namespace tp::test
