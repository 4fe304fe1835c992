// A rigid body as kernels see it: its pose (a unit quaternion for the orientation, the
// centre of mass for the position), its motion (the velocity of a point fixed to it is
// v + w x r) and its shape (signed distance and normal in its own frame). Shared by the host's rigid-body code (src/sim/bodies) and the per-sample
// kernels of the fluid coupling.
#pragma once

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
};

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
};

}  // namespace tp
