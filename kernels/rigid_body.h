// A rigid body as kernels see it: its pose (a unit quaternion for the orientation, the
// centre of mass for the position), its motion (the velocity of a point fixed to it is
// v + w x r) and its shape (signed distance and normal in its own frame). Shared by the host's rigid-body code (src/sim/bodies) and the per-sample
// kernels of the fluid coupling.
#pragma once

#include "boxes8.h"
#include "common.h"
#include "distance_field.h"

namespace tp {

// The most bodies a scene may hold (the per-body sums of a step have room for as many).
constexpr size_t kMaxBodies = 64;

// A unit quaternion w + xi + yj + zk: the rotation from the body's frame to the world's.
struct Quat {
  float w, x, y, z;
};

TP_HD TP_INLINE Quat quat_identity() { return Quat{1.0f, 0.0f, 0.0f, 0.0f}; }
TP_HD TP_INLINE Quat quat_conjugate(Quat q) { return Quat{q.w, -q.x, -q.y, -q.z}; }
TP_HD TP_INLINE Quat operator*(Quat a, Quat b) {
  return Quat{a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
              a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
TP_HD TP_INLINE Quat quat_normalized(Quat q) {
  const float n = sqrtf(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  if (!(n > 1e-20f)) return quat_identity();
  const float s = 1.0f / n;
  return Quat{q.w * s, q.x * s, q.y * s, q.z * s};
}
// The rotation by `angle` [rad] about the unit axis.
TP_HD TP_INLINE Quat quat_from_axis_angle(Vec3 axis, float angle) {
  const float s = sinf(0.5f * angle);
  return Quat{cosf(0.5f * angle), axis.x * s, axis.y * s, axis.z * s};
}
// q v q*, for a unit q.
TP_HD TP_INLINE Vec3 rotate(Quat q, Vec3 v) {
  const Vec3 u{q.x, q.y, q.z};
  const Vec3 t = cross(u, v) * 2.0f;
  return v + t * q.w + cross(u, t);
}
TP_HD TP_INLINE Vec3 rotate_inverse(Quat q, Vec3 v) { return rotate(quat_conjugate(q), v); }

// Where a body is: its centre of mass and its orientation.
struct RigidPose {
  Vec3 position;  ///< [m] the centre of mass in the world
  Quat orientation;
};
TP_HD TP_INLINE Vec3 to_world(const RigidPose& pose, Vec3 local) {
  return pose.position + rotate(pose.orientation, local);
}
TP_HD TP_INLINE Vec3 to_local(const RigidPose& pose, Vec3 world) {
  return rotate_inverse(pose.orientation, world - pose.position);
}

// How it moves: the velocity of its centre of mass and its angular velocity (world frame).
struct RigidMotion {
  Vec3 velocity;          ///< [m/s]
  Vec3 angular_velocity;  ///< [rad/s]
};
// The velocity of the body's point at world position x.
TP_HD TP_INLINE Vec3 point_velocity(const RigidPose& pose, const RigidMotion& motion, Vec3 x) {
  return motion.velocity + cross(motion.angular_velocity, x - pose.position);
}

// Mesh: a closed triangle mesh (3D only), whose shape the kernels read from its signed
// distance field (distance_field.h) in the body's frame.
enum class BodyShapeKind : int { Sphere = 0, Box = 1, Capsule = 2, Mesh = 3 };

// A body as the kernels see it: its shape in its own frame (centred on its centre of mass)
// and where it is and how it moves now.
struct SolidBody {
  int shape;          ///< BodyShapeKind
  float radius;       ///< [m] sphere, capsule
  Vec3 half_extent;   ///< [m] box
  float half_height;  ///< [m] capsule: half the length of its cylinder, along local y
  float bound;        ///< [m] radius of a sphere about the centre that holds the shape
  DistanceFieldView field;  ///< mesh: its distance field (in the memory of whoever reads it)
  RigidPose pose;
  RigidMotion motion;
  Vec3 half_box;  ///< [m] half the box along the world's axes about the centre that holds it (solid_half_box)
};

// Half the size of the smallest box along the world's axes, about the body's centre, that
// holds its shape at its pose (the bound's cube for a mesh, whose field is not read here).
// Tighter than the bound sphere for a flat box: a point beyond it along any axis by more
// than m is farther than m from the surface (solid_distance > m), for any m.
TP_HD TP_INLINE Vec3 solid_half_box(const SolidBody& b) {
  const Quat q = b.pose.orientation;
  const auto spread = [&](Vec3 local) {
    const Vec3 w = rotate(q, local);
    return Vec3{fabsf(w.x), fabsf(w.y), fabsf(w.z)};
  };
  Vec3 half{b.bound, b.bound, b.bound};
  if (b.shape == int(BodyShapeKind::Sphere)) {
    half = Vec3{b.radius, b.radius, b.radius};
  } else if (b.shape == int(BodyShapeKind::Capsule)) {
    half = spread(Vec3{0.0f, b.half_height, 0.0f}) + Vec3{b.radius, b.radius, b.radius};
  } else if (b.shape == int(BodyShapeKind::Box)) {
    half = spread(Vec3{b.half_extent.x, 0.0f, 0.0f}) + spread(Vec3{0.0f, b.half_extent.y, 0.0f}) +
           spread(Vec3{0.0f, 0.0f, b.half_extent.z});
  }
  return Vec3{fminf(half.x, b.bound), fminf(half.y, b.bound), fminf(half.z, b.bound)};
}

// Whether the point at `rel` from the body's centre is beyond its half box by more than m
// along some axis (then its distance to the surface is more than m).
TP_HD TP_INLINE bool beyond_half_box(const SolidBody& b, Vec3 rel, float m) {
  return fabsf(rel.x) > b.half_box.x + m || fabsf(rel.y) > b.half_box.y + m || fabsf(rel.z) > b.half_box.z + m;
}

// Signed distance [m] from a point p in the body's frame to its surface (negative inside):
// exact for the sphere and the capsule, for the box exact outside and the distance to the
// nearest face inside, for a mesh its distance field's trilinear value.
TP_HD TP_INLINE float solid_distance(const SolidBody& b, Vec3 p) {
  if (b.shape == int(BodyShapeKind::Sphere)) return length(p) - b.radius;
  if (b.shape == int(BodyShapeKind::Mesh)) return sdf_sample(b.field, p);
  if (b.shape == int(BodyShapeKind::Capsule)) {
    const Vec3 axis_point{0.0f, clampf(p.y, -b.half_height, b.half_height), 0.0f};
    return length(p - axis_point) - b.radius;
  }
  const Vec3 q{fabsf(p.x) - b.half_extent.x, fabsf(p.y) - b.half_extent.y, fabsf(p.z) - b.half_extent.z};
  const Vec3 outside{maxf(q.x, 0.0f), maxf(q.y, 0.0f), maxf(q.z, 0.0f)};
  return length(outside) + minf(maxf(q.x, maxf(q.y, q.z)), 0.0f);
}

// The outward unit normal at the surface point nearest to p (body frame).
TP_HD TP_INLINE Vec3 solid_normal(const SolidBody& b, Vec3 p) {
  if (b.shape == int(BodyShapeKind::Mesh)) {
    const Vec3 g = sdf_gradient(b.field, p);
    return dot(g, g) > 0.0f ? g : Vec3{0.0f, 1.0f, 0.0f};
  }
  Vec3 d = p;
  if (b.shape == int(BodyShapeKind::Capsule)) d.y = p.y - clampf(p.y, -b.half_height, b.half_height);
  if (b.shape != int(BodyShapeKind::Box)) {
    const float len = length(d);
    return len > 1e-12f ? d / len : Vec3{0.0f, 1.0f, 0.0f};
  }
  const Vec3 q{fabsf(p.x) - b.half_extent.x, fabsf(p.y) - b.half_extent.y, fabsf(p.z) - b.half_extent.z};
  if (q.x > 0.0f || q.y > 0.0f || q.z > 0.0f) {
    const Vec3 out{p.x > 0.0f ? maxf(q.x, 0.0f) : -maxf(q.x, 0.0f), p.y > 0.0f ? maxf(q.y, 0.0f) : -maxf(q.y, 0.0f),
                   p.z > 0.0f ? maxf(q.z, 0.0f) : -maxf(q.z, 0.0f)};
    return out / maxf(length(out), 1e-12f);
  }
  if (q.x >= q.y && q.x >= q.z) return Vec3{p.x >= 0.0f ? 1.0f : -1.0f, 0.0f, 0.0f};
  if (q.y >= q.z) return Vec3{0.0f, p.y >= 0.0f ? 1.0f : -1.0f, 0.0f};
  return Vec3{0.0f, 0.0f, p.z >= 0.0f ? 1.0f : -1.0f};
}

// The bodies as the clamp reads them (StepConstants::bodies): an array in the backend's
// memory, where they are at the end of the step.
struct BodyArrayView {
  const SolidBody* body;
  int count;
  // Boxes along the world's axes that hold the bodies where they are (body k's half box,
  // solid_half_box, in box k % kBoxes with the others of that slot), each with the fastest
  // point speed [m/s] of its bodies: near_body_slots. boxes.count of them are set (0: test
  // every body). The clamp runs on every particle every step, and testing each of eight
  // bodies there cost as much as the clamp itself (PBF, 2026-12-03).
  static constexpr int kBoxes = Boxes8::kCount;
  Boxes8 boxes;
  float speed[kBoxes];
};

// The boxes of bodies[0, n) into v (boxes and speed; body and count are left).
TP_HD TP_INLINE void set_body_boxes(BodyArrayView* v, const SolidBody* bodies, int n) {
  clear_boxes(&v->boxes);
  for (int k = 0; k < BodyArrayView::kBoxes; ++k) v->speed[k] = 0.0f;
  for (int k = 0; k < n; ++k) {
    const SolidBody& b = bodies[k];
    const int slot = k % BodyArrayView::kBoxes;
    const float speed = length(b.motion.velocity) + length(b.motion.angular_velocity) * b.bound;
    grow_box(&v->boxes, slot, b.pose.position - b.half_box, b.pose.position + b.half_box);
    v->speed[slot] = fmaxf(v->speed[slot], speed);
  }
}

// The slots of bodies (bit k: box k, BodyArrayView::kBoxes) whose bodies may come within
// `reach` of the segment from a to b, having moved for dt at up to their boxes' speeds: 0
// when none can (the bodies' loops may stop there), and a body whose slot's bit is clear
// may be skipped (body_in_slots). With no boxes set, every bit. The clamp asks it for every
// particle at every step (boxes_met: one pass of 8 lanes on the CPU).
TP_HD TP_INLINE uint near_body_slots(const BodyArrayView& bodies, Vec3 a, Vec3 b, float reach, float dt) {
  if (bodies.count == 0) return 0u;
  if (bodies.boxes.count == 0) return ~0u;
  const Vec3 lo{a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z};
  const Vec3 hi{a.x < b.x ? b.x : a.x, a.y < b.y ? b.y : a.y, a.z < b.z ? b.z : a.z};
  return boxes_met(bodies.boxes, lo, hi, reach, bodies.speed, dt);
}

// Whether body k's slot is among `slots` (near_body_slots).
TP_HD TP_INLINE bool body_in_slots(uint slots, int k) {
  return ((slots >> (k % BodyArrayView::kBoxes)) & 1u) != 0u;
}

}  // namespace tp
