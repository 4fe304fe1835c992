// The tank's hard guarantee: whatever the solver did, no particle leaves the tank.
// Boundary samples (density.h, wcsph.h) keep the fluid at rest density against the walls;
// this clamp only catches what gets through them (a huge time step, a violent mouse).
#pragma once

#include "body_coupling.h"
#include "obstacle.h"
#include "sim_params.h"

namespace tp {

// Moves x out of the obstacles (see obstacle.h), then projects it into the tank, shrunk
// (in 2D: into the tank's rectangle, and onto the plane z = tank_lo.z = tank_hi.z),
// by a small margin; at each face or obstacle the particle touches, its velocity meets the
// wall (wall_contact: the part into it reflected by wall_restitution, the tangential part
// reduced by wall_friction; both 0: the part into the wall removed, the rest kept). Non-finite positions are sent to the
// tank's centre with zero velocity, so that a NaN can never escape; the function then
// returns true so that the caller counts it (a NaN is a bug to report, not to hide).
// in/out: x, v; out (when not null): what pushing it out of a body changed of v; in (when
// not null): where the particle's move began, along which a mesh body's thin walls are
// looked for (push_out_of_bodies).
TP_HD TP_INLINE bool clamp_to_tank(Vec3& x, Vec3& v, const StepConstants& c, BodyPush* push = nullptr,
                                   const Vec3* from = nullptr) {
  const float margin = 0.01f * c.spacing;
  const Vec3 lo = c.tank_lo + Vec3{margin, margin, margin};
  const Vec3 hi = c.tank_hi - Vec3{margin, margin, margin};
  if (push) *push = BodyPush{Vec3{0.0f, 0.0f, 0.0f}, -1};
  if (!is_finite(x) || !is_finite(v)) {
    x = (lo + hi) * 0.5f;
    v = Vec3{0.0f, 0.0f, 0.0f};
    return true;
  }
  const float friction = c.p.wall_friction, restitution = c.p.wall_restitution;
  push_out_of_obstacles(x, v, c.obstacles, c.obstacle_count, margin, lo, hi, friction, restitution);
  // Bodies: their samples lie half a spacing inside their surface (body_coupling.h), and
  // the water may overlap the surface by up to a quarter spacing before this catches it.
  // (At the surface itself, water pressed against a moving body would be caught every
  // step and take the body's velocity from the clamp, momentum the body never gives.)
  const Vec3 v_before = v;
  const int body = push_out_of_bodies(x, v, c.bodies, -0.25f * c.spacing, friction, restitution,
                                      from && is_finite(*from) ? from : nullptr, c.spacing, c.dt);
  if (push && body >= 0) *push = BodyPush{v - v_before, body};
  if (x.x < lo.x) { x.x = lo.x; v = wall_contact(v, Vec3{1, 0, 0}, Vec3{0, 0, 0}, friction, restitution); }
  if (x.x > hi.x) { x.x = hi.x; v = wall_contact(v, Vec3{-1, 0, 0}, Vec3{0, 0, 0}, friction, restitution); }
  if (x.y < lo.y) { x.y = lo.y; v = wall_contact(v, Vec3{0, 1, 0}, Vec3{0, 0, 0}, friction, restitution); }
  if (x.y > hi.y) { x.y = hi.y; v = wall_contact(v, Vec3{0, -1, 0}, Vec3{0, 0, 0}, friction, restitution); }
  if (c.dimensions == 2) {
    // In the plane (kernels/dimension.h): its forces have no z, so this only undoes what
    // came from outside the physics (a mouse point or an obstacle off the plane).
    x.z = c.tank_lo.z;
    v.z = 0.0f;
    return false;
  }
  if (x.z < lo.z) { x.z = lo.z; v = wall_contact(v, Vec3{0, 0, 1}, Vec3{0, 0, 0}, friction, restitution); }
  if (x.z > hi.z) { x.z = hi.z; v = wall_contact(v, Vec3{0, 0, -1}, Vec3{0, 0, 0}, friction, restitution); }
  return false;
}

// The speed limit (a safety net against explosions, see SimParams::speed_limit).
TP_HD TP_INLINE Vec3 limit_speed(Vec3 v, const StepConstants& c) {
  const float speed2 = dot(v, v);
  return speed2 > c.p.speed_limit * c.p.speed_limit ? v * (c.p.speed_limit / sqrtf(speed2)) : v;
}

// The tank clamp on particle i's move from its stored position to x, with v; both are then
// stored; with `pushes` (not null), the clamp's push out of a body too (BodyPush: dv in
// xyz, the body in w, -1 for none). Returns true when the state was not finite (and has
// been reset by the clamp).
TP_HD TP_INLINE bool clamp_and_store(uint i, Vec3 x, Vec3 v, Vec4* position, Vec4* velocity, Vec4* pushes,
                                     const StepConstants& c) {
  BodyPush push;
  const Vec3 from = xyz(position[i]);  // where the move began
  const bool reset = clamp_to_tank(x, v, c, &push, &from);
  position[i] = make_vec4(x, position[i].w);
  velocity[i] = make_vec4(v, velocity[i].w);
  if (pushes) pushes[i] = make_vec4(push.dv, float(push.body));
  return reset;
}

// Symplectic Euler [BT07, Sec. 4]: v += dt a; x += dt v; then the speed limit and the tank
// clamp (clamp_and_store). in/out: position, velocity of particle i; in: acceleration;
// out: the clamp's body push. Returns true when the particle's state was not finite.
TP_HD TP_INLINE bool integrate_particle(uint i, Vec4* position, Vec4* velocity,
                                        const Vec4* acceleration, const StepConstants& c, Vec4* pushes = nullptr) {
  const Vec3 v = limit_speed(xyz(velocity[i]) + xyz(acceleration[i]) * c.dt, c);
  return clamp_and_store(i, xyz(position[i]) + v * c.dt, v, position, velocity, pushes, c);
}

// The end of a position-based step (PBF): the particle moves to its corrected predicted
// position x*, with the velocity the solver computed, then the speed limit and the tank
// clamp as above. in/out: position, velocity of particle i; in: the new position; out: the
// clamp's body push. Returns true when the state was not finite (and has been reset).
TP_HD TP_INLINE bool commit_particle(uint i, Vec4* position, Vec4* velocity,
                                     const Vec4* new_position, const StepConstants& c, Vec4* pushes = nullptr) {
  return clamp_and_store(i, xyz(new_position[i]), limit_speed(xyz(velocity[i]), c), position, velocity, pushes, c);
}

}  // namespace tp
