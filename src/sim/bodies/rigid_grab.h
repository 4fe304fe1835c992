// The mouse joint of the rigid world (Box2D's b2MouseJoint, Catto's soft constraint, in 3D):
// the force that pulls a body's point towards a target during one step, as a spring of a
// given frequency and damping ratio for the body's mass, solved implicitly, at most a given
// force. Box2D solves it among the contacts; here it is solved alone, before them, on the
// velocity the step's gravity and external force give, and handed to Bullet as a force at
// the point, so the contacts then see it as they see gravity. Alone, one solve is exact (the
// constraint is linear), so no warm start or iteration is needed.
#pragma once

#include <cmath>

#include "kernels/rigid_body.h"

namespace tp {

struct GrabSpring {
  Vec3 local_point{0.0f, 0.0f, 0.0f};  ///< [m] body frame
  Vec3 target{0.0f, 0.0f, 0.0f};       ///< [m] world
  float frequency_hz = 5.0f;           ///< [Hz] > 0
  float damping_ratio = 0.7f;          ///< >= 0 (1: critical)
  float max_force = 0.0f;              ///< [N]
};

struct GrabBody {
  RigidPose pose;
  RigidMotion motion;
  float mass;    ///< [kg]
  Vec3 inertia;  ///< [kg m^2] principal moments, body frame
  bool planar;   ///< 2D: moves in x, y and turns about z only
};

// I^-1 x, with I the body's inertia tensor in the world frame.
inline Vec3 grab_inverse_inertia(const GrabBody& b, Vec3 x) {
  const Vec3 local = rotate_inverse(b.pose.orientation, x);
  return rotate(b.pose.orientation,
                Vec3{local.x / b.inertia.x, local.y / b.inertia.y, local.z / b.inertia.z});
}

// The change of velocity of the body's point at offset r from its centre of mass when the
// impulse p acts there (in 2D the out-of-plane parts are masked, as Bullet's factors do).
inline Vec3 grab_response(const GrabBody& b, Vec3 r, Vec3 p) {
  if (b.planar) p.z = 0.0f;
  Vec3 torque = cross(r, p);
  if (b.planar) torque.x = torque.y = 0.0f;
  return p / b.mass + cross(grab_inverse_inertia(b, torque), r);
}

// [N] the joint's force on the body's point for a step of dt under gravity [m/s^2] and the
// external force [N] and torque [N m] on the body.
inline Vec3 grab_force(const GrabSpring& g, const GrabBody& b, float dt, Vec3 gravity, Vec3 force,
                       Vec3 torque) {
  const Vec3 zero{0.0f, 0.0f, 0.0f};
  if (!(g.max_force > 0.0f) || !(g.frequency_hz > 0.0f) || !(dt > 0.0f) || !(b.mass > 0.0f))
    return zero;
  const float omega = 2.0f * 3.14159265358979f * g.frequency_hz;
  const float k = b.mass * omega * omega;                   // [N/m]
  const float d = 2.0f * b.mass * g.damping_ratio * omega;  // [N s/m]
  const float gamma = 1.0f / (dt * (d + dt * k));           // softness [1/kg]
  const float beta = dt * k * gamma;                        // [1/s]: position error to velocity
  const Vec3 r = rotate(b.pose.orientation, g.local_point);
  Vec3 target = g.target;
  if (b.planar) target.z = b.pose.position.z + r.z;
  const Vec3 error = b.pose.position + r - target;
  Vec3 v = b.motion.velocity + (gravity + force / b.mass) * dt;
  if (b.planar) torque.x = torque.y = 0.0f;
  const Vec3 w = b.motion.angular_velocity + grab_inverse_inertia(b, torque) * dt;
  if (b.planar) v.z = 0.0f;
  const Vec3 rhs = -(v + cross(w, r) + error * beta);
  // (K + gamma E) P = rhs, K's columns the responses to unit impulses; Cramer's rule.
  const Vec3 c0 = grab_response(b, r, Vec3{1, 0, 0}) + Vec3{gamma, 0, 0};
  const Vec3 c1 = grab_response(b, r, Vec3{0, 1, 0}) + Vec3{0, gamma, 0};
  const Vec3 c2 = grab_response(b, r, Vec3{0, 0, 1}) + Vec3{0, 0, gamma};
  const float det = dot(c0, cross(c1, c2));
  if (!(std::fabs(det) > 0.0f) || !std::isfinite(det)) return zero;
  Vec3 impulse =
      Vec3{dot(rhs, cross(c1, c2)), dot(c0, cross(rhs, c2)), dot(c0, cross(c1, rhs))} / det;
  const float max_impulse = g.max_force * dt;
  const float size = std::sqrt(length2(impulse));
  if (!std::isfinite(size)) return zero;
  if (size > max_impulse) impulse = impulse * (max_impulse / size);
  return impulse / dt;
}

}  // namespace tp
