// Bodies for tests: a box or a sphere at a place, upright and at rest (BodySpec's defaults
// for the rest: 500 kg/m^3, dynamic).
#pragma once

#include "sim/bodies/body_spec.h"

namespace tp::test {

inline BodySpec box_at(Vec3 centre, Vec3 half) {
  BodySpec b;
  b.shape = int(BodyShapeKind::Box);
  b.half_extent = half;
  b.pose.position = centre;
  return b;
}

inline BodySpec sphere_at(Vec3 centre, float radius) {
  BodySpec b;
  b.shape = int(BodyShapeKind::Sphere);
  b.radius = radius;
  b.pose.position = centre;
  return b;
}

}  // namespace tp::test
