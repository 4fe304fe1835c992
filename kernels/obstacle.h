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

// The way out of a box for a point x inside it (or within `margin` of it): the face with
// the shortest way out whose far side, `margin` beyond it, is inside [lo, hi] (the tank):
// a box resting on the floor pushes a particle caught under it sideways, not into the
// floor, from which the tank's clamp would put it back inside the box. Falls back to the
// nearest face when every face is blocked. Returns the unit normal of the face.
TP_HD TP_INLINE Vec3 box_exit_normal(const ObstacleShape& o, Vec3 x, float margin, Vec3 lo, Vec3 hi) {
  const float c[3] = {o.center.x, o.center.y, o.center.z};
  const float e[3] = {o.half_extent.x, o.half_extent.y, o.half_extent.z};
  const float p[3] = {x.x, x.y, x.z};
  const float l[3] = {lo.x, lo.y, lo.z}, u[3] = {hi.x, hi.y, hi.z};
  int best_axis = -1;
  float best_sign = 1.0f, best = 3.0e38f;
  for (int a = 0; a < 3; ++a)
    for (int s = 0; s < 2; ++s) {
      const float sign = s ? -1.0f : 1.0f;
      const float face = c[a] + sign * e[a];
      const float travel = sign * (face - p[a]);  // how far x moves to reach the face
      const float beyond = face + sign * margin;
      if (beyond < l[a] || beyond > u[a]) continue;  // the tank's wall is in the way
      if (travel < best) {
        best = travel;
        best_axis = a;
        best_sign = sign;
      }
    }
  if (best_axis < 0) return obstacle_normal(o, x);
  return Vec3{best_axis == 0 ? best_sign : 0.0f, best_axis == 1 ? best_sign : 0.0f,
              best_axis == 2 ? best_sign : 0.0f};
}

// A particle's velocity v where it meets a wall of outward normal n (unit, into the fluid)
// moving at `wall`: relative to the wall, the part moving into it is sent back times
// `restitution` (0: stopped there, 1: an elastic bounce) and, while it presses on the wall
// or slides along it, the tangential part loses the share `friction` (0: kept, 1: it
// sticks). A particle already leaving the wall keeps its velocity.
TP_HD TP_INLINE Vec3 wall_contact(Vec3 v, Vec3 n, Vec3 wall, float friction, float restitution) {
  const Vec3 rel = v - wall;
  const float vn = dot(rel, n);
  if (vn >= 0.0f) return v;
  const Vec3 tangential = rel - n * vn;
  // (Written as changes to v: with both coefficients 0 this is v - n vn to the bit, the
  // contact as it was before the coefficients existed.)
  return v - n * (vn * (1.0f + restitution)) - tangential * friction;
}

// Moves x out of every obstacle it is within `margin` of the surface of (or inside), onto
// the surface plus the margin, and meets v with the obstacle's surface (wall_contact,
// relative to the obstacle's velocity); [lo, hi] is where x must stay (the tank).
// in/out: x, v.
TP_HD TP_INLINE void push_out_of_obstacles(Vec3& x, Vec3& v, const ObstacleShape* obstacles,
                                           int count, float margin, Vec3 lo, Vec3 hi,
                                           float friction = 0.0f, float restitution = 0.0f) {
  for (int k = 0; k < count; ++k) {
    const ObstacleShape& o = obstacles[k];
    const float dist = obstacle_distance(o, x);
    if (dist >= margin) continue;
    const bool in_box = o.kind == int(ShapeKind::Box) && dist < margin &&
                        fabsf(x.x - o.center.x) <= o.half_extent.x &&
                        fabsf(x.y - o.center.y) <= o.half_extent.y &&
                        fabsf(x.z - o.center.z) <= o.half_extent.z;
    Vec3 n = in_box ? box_exit_normal(o, x, margin, lo, hi) : obstacle_normal(o, x);
    const Vec3 d = x - o.center;
    if (in_box) {
      // Onto the chosen face plus the margin.
      const float depth = dot(o.half_extent, Vec3{fabsf(n.x), fabsf(n.y), fabsf(n.z)}) - dot(d, n);
      x = x + n * (depth + margin);
    } else if (o.kind == int(ShapeKind::Sphere)) {
      // Radially out, unless that crosses the tank's wall (a ball resting on the floor and
      // a particle in the wedge under it): then along the wall, out to radius + margin.
      const Vec3 out = x + n * (margin - dist);
      Vec3 m = n;
      if ((out.x < lo.x && m.x < 0.0f) || (out.x > hi.x && m.x > 0.0f)) m.x = 0.0f;
      if ((out.y < lo.y && m.y < 0.0f) || (out.y > hi.y && m.y > 0.0f)) m.y = 0.0f;
      if ((out.z < lo.z && m.z < 0.0f) || (out.z > hi.z && m.z > 0.0f)) m.z = 0.0f;
      if (length(m) < 1e-6f) m = Vec3{1.0f, 0.0f, 0.0f};  // right under the contact point
      const float len = length(m);
      if (len < 0.9999f || dot(m, n) < 0.9999f) {
        m = m / len;
        const float b = dot(d, m), r = o.radius + margin;
        const float t = -b + sqrtf(maxf(b * b - (dot(d, d) - r * r), 0.0f));
        x = x + m * t;
        n = m;
      } else {
        x = out;
      }
    } else {
      x = x + n * (margin - dist);
    }
    v = wall_contact(v, n, o.velocity, friction, restitution);
  }
}

}  // namespace tp
