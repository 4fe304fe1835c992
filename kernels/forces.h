// Body forces shared by every solver: gravity and the user's mouse.
#pragma once

#include "sim_params.h"

namespace tp {

// Gravity plus the mouse force on a particle at x with velocity v.
// Mouse: a smooth bump of radius R around the picked point, weight w = (1 - d/R)^2.
// Push/pull accelerate along the radial direction (away / towards the point) with
// magnitude strength * w; drag relaxes the particle's velocity towards the point's
// velocity at rate strength * w (so the fluid is carried along the mouse's motion).
TP_HD TP_INLINE Vec3 body_acceleration(Vec3 x, Vec3 v, const StepConstants& c) {
  Vec3 a{c.p.gravity_x, c.p.gravity_y, c.p.gravity_z};
  if (!c.mouse.active) return a;
  const float radius = c.p.mouse_radius;
  const Vec3 d = x - c.mouse.point;
  const float dist = length(d);
  if (dist >= radius || radius <= 0.0f) return a;
  const float q = 1.0f - dist / radius;
  const float w = q * q * c.p.mouse_strength;
  if (c.p.mouse_mode == int(MouseMode::Drag)) {
    a += (c.mouse.velocity - v) * w;
  } else {
    const Vec3 dir = dist > 1e-6f ? d / dist : Vec3{0.0f, 1.0f, 0.0f};
    a += dir * (c.p.mouse_mode == int(MouseMode::Push) ? w : -w);
  }
  return a;
}

}  // namespace tp
