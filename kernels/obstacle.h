// Rigid obstacles (spheres and axis-aligned boxes) that the fluid flows around. Their
// surfaces are sampled with boundary samples like the tank's walls (Akinci et al. 2012,
// "Versatile rigid-fluid coupling for incompressible SPH"), which carry the obstacle's
// velocity, so a moving obstacle pushes and drags the fluid. This header holds the shapes
// and the hard guarantee: a particle that the solver left inside an obstacle is moved out
// to its surface, and its velocity into the obstacle is removed (relative to the
// obstacle's own).
#pragma once

#include "common.h"

namespace tp {

enum class ShapeKind : int { Box = 0, Sphere = 1 };

constexpr int kMaxObstacles = 8;

struct ObstacleShape {
  int kind;          ///< ShapeKind
  Vec3 center;       ///< [m]
  Vec3 half_extent;  ///< [m] box: half its size along x, y, z
  float radius;      ///< [m] sphere
  Vec3 velocity;     ///< [m/s] of its latest move (0 when at rest)
};

// Half the size of the obstacle's bounding box [m].
TP_HD TP_INLINE Vec3 obstacle_half_size(const ObstacleShape& o) {
  return o.kind == int(ShapeKind::Sphere) ? Vec3{o.radius, o.radius, o.radius} : o.half_extent;
}

// Signed distance from x to the shape's surface [m]: negative inside. For a box, the
// exact Euclidean distance outside and the distance to the nearest face inside.
TP_HD TP_INLINE float obstacle_distance(const ObstacleShape& o, Vec3 x) {
  const Vec3 d = x - o.center;
  if (o.kind == int(ShapeKind::Sphere)) return length(d) - o.radius;
  const Vec3 q{fabsf(d.x) - o.half_extent.x, fabsf(d.y) - o.half_extent.y,
               fabsf(d.z) - o.half_extent.z};
  const Vec3 outside{maxf(q.x, 0.0f), maxf(q.y, 0.0f), maxf(q.z, 0.0f)};
  return length(outside) + minf(maxf(q.x, maxf(q.y, q.z)), 0.0f);
}

// Outward unit normal of the surface point nearest to x (x inside or near the shape).
TP_HD TP_INLINE Vec3 obstacle_normal(const ObstacleShape& o, Vec3 x) {
  const Vec3 d = x - o.center;
  if (o.kind == int(ShapeKind::Sphere)) {
    const float len = length(d);
    return len > 1e-12f ? d / len : Vec3{0.0f, 1.0f, 0.0f};
  }
  const Vec3 q{fabsf(d.x) - o.half_extent.x, fabsf(d.y) - o.half_extent.y,
               fabsf(d.z) - o.half_extent.z};
  if (q.x > 0.0f || q.y > 0.0f || q.z > 0.0f) {  // outside: towards x from the box
    const Vec3 outside{d.x > 0.0f ? maxf(q.x, 0.0f) : -maxf(q.x, 0.0f),
                       d.y > 0.0f ? maxf(q.y, 0.0f) : -maxf(q.y, 0.0f),
                       d.z > 0.0f ? maxf(q.z, 0.0f) : -maxf(q.z, 0.0f)};
    return outside / maxf(length(outside), 1e-12f);
  }
  // Inside: the nearest face's normal.
  if (q.x >= q.y && q.x >= q.z) return Vec3{d.x >= 0.0f ? 1.0f : -1.0f, 0.0f, 0.0f};
  if (q.y >= q.z) return Vec3{0.0f, d.y >= 0.0f ? 1.0f : -1.0f, 0.0f};
  return Vec3{0.0f, 0.0f, d.z >= 0.0f ? 1.0f : -1.0f};
}

// Moves x out of every obstacle it is within `margin` of the surface of (or inside), onto
// the surface plus the margin, and takes away the part of v that moves into the obstacle
// faster than the obstacle itself. in/out: x, v.
TP_HD TP_INLINE void push_out_of_obstacles(Vec3& x, Vec3& v, const ObstacleShape* obstacles,
                                           int count, float margin) {
  for (int k = 0; k < count; ++k) {
    const ObstacleShape& o = obstacles[k];
    const float dist = obstacle_distance(o, x);
    if (dist >= margin) continue;
    const Vec3 n = obstacle_normal(o, x);
    x = x + n * (margin - dist);
    const float vn = dot(v - o.velocity, n);
    if (vn < 0.0f) v = v - n * vn;
  }
}

}  // namespace tp
