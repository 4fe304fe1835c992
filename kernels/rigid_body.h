// A rigid body's pose and motion as kernels see them: a unit quaternion for the orientation,
// the centre of mass for the position, and the velocity of a point fixed to the body
// (v + w x r). Shared by the host's rigid-body code (src/sim/bodies) and the per-sample
// kernels of the fluid coupling.
#pragma once

#include "common.h"

namespace tp {

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

}  // namespace tp
