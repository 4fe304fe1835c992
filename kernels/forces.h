// Body forces shared by every solver: gravity and the user's mouse.
#pragma once

#include "sim_params.h"

namespace tp {

// Gravity plus the mouse force on a particle at x with velocity v.
// Mouse: a smooth bump of radius R around the picked point, weight w = (1 - d/R)^2.
// Push/pull accelerate along the radial direction (away / towards the point) with
// magnitude strength * w; drag relaxes the particle's velocity towards the point's
// velocity at rate strength * w (so the fluid is carried along the mouse's motion).
// V is Vec3, or a block of lanes' (kernels/lanes.h): beyond the radius the weight is zero.
template <class V>
TP_HD TP_INLINE V body_acceleration(const V& x, const V& v, const StepConstants& c) {
  using R = decltype(x.x);
  auto uniform = [](Vec3 u) { return V{R(u.x), R(u.y), R(u.z)}; };
  V a = uniform(Vec3{c.p.gravity_x, c.p.gravity_y, c.p.gravity_z});
  const float radius = c.p.mouse_radius;
  if (!c.mouse.active || radius <= 0.0f) return a;
  const V d = x - uniform(c.mouse.point);
  const R dist = length(d);
  const R q = 1.0f - dist / radius;
  const R w = select(dist < radius, q * q * c.p.mouse_strength, R(0.0f));
  if (c.p.mouse_mode == int(MouseMode::Drag)) {
    a += (uniform(c.mouse.velocity) - v) * w;
  } else {
    const R zero(0.0f), one(1.0f);
    const V dir = select(dist > 1e-6f, d * (1.0f / dist), V{zero, one, zero});
    a += dir * (c.p.mouse_mode == int(MouseMode::Push) ? w : -w);
  }
  return a;
}

}  // namespace tp
