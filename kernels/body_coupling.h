// Rigid bodies in the water, the fluid's side (two-way coupling after Akinci et al. 2012,
// "Versatile rigid-fluid coupling for incompressible SPH"). A body's surface carries
// boundary samples like the tank's and the obstacles' (particles.h, BoundaryView), each
// with its own volume V_b (psi_b = rho0 V_b, body_sample_volume below) and the velocity of
// the body's point where it sits (v + w x r). The fluid feels them in the solvers' own
// boundary terms; this header holds the other half:
//   - the force the fluid puts on one sample, gathered from the fluid particles around it
//     with the very pair terms the fluid's loops add (the same function of the same
//     numbers), so that the body receives exactly minus what the fluid receives;
//   - the body's shape as the tank clamp sees it (the hard guarantee: no particle stays
//     inside a body).
#pragma once

#include "common.h"
#include "obstacle.h"
#include "particles.h"
#include "rigid_body.h"
#include "sim_params.h"
#include "sph_terms.h"

namespace tp {

// How a body's velocity answers the fluid within a solve it is coupled inside (DFSPH's
// bodies, src/sim/water/dfsph.h): the change of its velocity and angular velocity that a
// force and a torque about its centre give it over dt, as its move would (impulse over
// mass; the torque's impulse through its inertia, in the world frame), and the share of
// that change it takes per iteration. Zero for a kinematic body; for a body on an axle
// only the turn about it; in 2D only the plane's.
struct BodyResponse {
  Vec3 inverse_mass;        ///< [1/kg] per axis (0 where it cannot move)
  Vec3 inverse_inertia[3];  ///< [1/(kg m^2)] the rows of the world frame's inverse inertia
  Vec3 fall;                ///< [m/s^2] gravity, for a body free to fall (else 0)
  float share;              ///< of the change taken per iteration (RigidBodies::in_solve_share)
};
TP_HD TP_INLINE Vec3 response_velocity(const BodyResponse& r, Vec3 force, float dt) {
  return Vec3{r.inverse_mass.x * force.x, r.inverse_mass.y * force.y, r.inverse_mass.z * force.z} * dt;
}
TP_HD TP_INLINE Vec3 response_turn(const BodyResponse& r, Vec3 torque, float dt) {
  return Vec3{dot(r.inverse_inertia[0], torque), dot(r.inverse_inertia[1], torque), dot(r.inverse_inertia[2], torque)} *
         dt;
}

// What the clamp gave one particle as it pushed it out of a body: the change of its
// velocity and which body pushed (the last, when several did; -1: none). The body takes the
// momentum back (RigidBodies::take_back_pushes), so that the clamp's push is an exchange.
struct BodyPush {
  Vec3 dv;
  int body;
};

// Where a particle's move from `from` to `to` first gets deeper than `margin` into a mesh
// body's solid (b's frame: from, to), into *entry; false when it never does. The field
// alone cannot tell which side of a wall thinner than a step the particle came from: one
// that lands past a thin wall's middle is nearer its far face, and pushing it out along
// the field's gradient puts it through. Nor is the field's gradient to be trusted deep in
// such a wall: sampled every 0.4 spacings or so, the field rounds off the wall's middle, and
// a point 0.3 spacings into a wall one spacing thick can find its gradient pointing out of
// the far face (a jet into a lid one spacing thick went through it so, 2026-11-29). So the
// move is looked along at steps of a fifth of a spacing, and the step that first goes
// beyond the margin is halved down to where it crosses it: the entry is just past the
// margin, where the gradient is that of the face the particle came through, and the push
// from there goes back out of that face. From a start already beyond the margin (water the
// body moved onto, or a rounding past it) the entry is where the move first goes deeper
// than the start, unless the start is deeper than 0.4 spacings: then the push alone decides.
// A move that stays further from the surface than its length is not looked along.
TP_HD TP_INLINE bool first_entry_on_path(const SolidBody& b, Vec3 from, Vec3 to, float margin, float spacing,
                                         Vec3* entry) {
  const Vec3 d = to - from;
  const float len = length(d);
  if (!(len > 0.0f)) return false;
  const float start = solid_distance(b, from);
  if (start < margin - 0.15f * spacing) return false;  // deep already: the push alone decides
  if (start - len >= margin) return false;  // (the field changes by no more than the distance)
  // Not deeper than the margin, nor than a start beyond it: a move out of the wall or along
  // it is the push's to finish (judged along the path: at its end, past a thin wall's
  // middle, the field would say "out" for a move through).
  const float limit = fminf(margin, start);
  constexpr int kMostLooks = 32;  // (a move of more than 6 spacings is looked along more coarsely)
  const float step = 0.2f * spacing;
  const int looks = len / step < float(kMostLooks) ? int(ceilf(len / step)) : kMostLooks;
  float lo = 0.0f;  // the last point looked at that is not beyond the limit
  for (int k = 1; k <= looks; ++k) {
    float hi = float(k) / float(looks);
    if (solid_distance(b, from + d * hi) >= limit) {
      lo = hi;
      continue;
    }
    for (int halving = 0; halving < 6; ++halving) {
      const float mid = 0.5f * (lo + hi);
      if (solid_distance(b, from + d * mid) < limit) hi = mid;
      else lo = mid;
    }
    *entry = from + d * hi;
    return true;
  }
  return false;
}

// Whether a slide from `entry` to `to` along the face it entered (normal `face`, b's frame)
// stays on that face: the field's normal at points a fifth of a spacing apart along it (and
// at its end) within about 25 degrees of the face's. In the corner block where two walls
// meet (a side wall and a floor one spacing thick) the field reads only the depth to the
// nearer face, so a slide down the side wall through the floor's thickness never looks
// deeper; the field's normal there turns toward the other face (its grid rounds the
// corner), and that is what tells (docs/bodies.md, "A way through a thin wall").
TP_HD TP_INLINE bool slide_keeps_face(const SolidBody& b, Vec3 entry, Vec3 to, Vec3 face, float spacing) {
  const Vec3 d = to - entry;
  const float len = length(d);
  const int looks = len > 0.0f ? int(ceilf(fminf(len / (0.2f * spacing), 32.0f))) : 0;
  for (int k = 1; k <= looks; ++k)
    if (dot(solid_normal(b, entry + d * (float(k) / float(looks))), face) < 0.9f) return false;
  return true;
}

// Where a particle that started a step of dt at `start` stood relative to body b as the
// body saw it then, in the body's pose now (at the step's end): the start carried by the
// body's motion over the step.
TP_HD TP_INLINE Vec3 carried_by_body(const SolidBody& b, Vec3 start, float dt) {
  return start + point_velocity(b.pose, b.motion, start) * dt;
}

// Moves x out of every body it is inside or within `margin` of, onto its surface plus the
// margin, and meets v with the body's surface there (wall_contact, relative to the
// velocity of the body's point). With `from` (where the particle started its move of dt,
// not null), a mesh body's wall is looked for along the move first (first_entry_on_path),
// so that a wall thinner than the move is not passed through. in/out: x, v. Returns the last
// body that moved it, or -1.
TP_HD TP_INLINE int push_out_of_bodies(Vec3& x, Vec3& v, const BodyArrayView& bodies, float margin,
                                       float friction, float restitution, const Vec3* from = nullptr,
                                       float spacing = 0.0f, float dt = 0.0f) {
  int pushed = -1;
  const uint slots = near_body_slots(bodies, x, from ? *from : x, fmaxf(margin, 0.0f), from ? dt : 0.0f);
  if (slots == 0u) return pushed;
  for (int k = 0; k < bodies.count; ++k) {
    if (!body_in_slots(slots, k)) continue;
    const SolidBody& b = bodies.body[k];
    const Vec3 rel = x - b.pose.position;
    const float reach = b.bound + margin;
    if (beyond_half_box(b, rel, margin) || dot(rel, rel) > reach * reach) {
      // A move that starts and ends beyond the body's bound may still cross it: only a mesh
      // is thin enough for a move to pass, and a move longer than the reach is rare.
      if (!from || b.shape != int(BodyShapeKind::Mesh)) continue;
      const Vec3 mid = (*from + x) * 0.5f - b.pose.position;
      const float half = 0.5f * length(x - *from) + reach;
      if (dot(mid, mid) > half * half) continue;
    }
    if (from && b.shape == int(BodyShapeKind::Mesh)) {
      const Vec3 p0 = rotate_inverse(b.pose.orientation, carried_by_body(b, *from, dt) - b.pose.position);
      const Vec3 p1 = rotate_inverse(b.pose.orientation, x - b.pose.position);
      Vec3 entry;
      if (first_entry_on_path(b, p0, p1, margin, spacing, &entry)) {
        // The rest of the move slides along the face it entered (its part into the face
        // dropped), unless that takes it deeper than a tenth of a spacing past where it
        // entered (an inner corner: there it stops where it entered). Stopped at the entry
        // instead, a particle lying on a face of a turning body was put back every step where
        // it began, moving with the body while its velocity along the face, never spent,
        // grew by what held it to the turning face: on a paddle wheel to 11 m/s, which cut
        // the step (CFL) to a third.
        const Vec3 face = solid_normal(b, entry);
        Vec3 rest = p1 - entry;
        const float into_face = dot(rest, face);
        if (into_face < 0.0f) rest = rest - face * into_face;
        const Vec3 slid = entry + rest;
        if (solid_distance(b, slid) >= fminf(margin, solid_distance(b, p0)) - 0.1f * spacing &&
            slide_keeps_face(b, entry, slid, face, spacing))
          entry = slid;
        x = b.pose.position + rotate(b.pose.orientation, entry);
        // Stopped where it entered: its velocity meets the face it came through (the
        // field's normal there, just past the margin, is that face's), with the wall's
        // friction and restitution; what slides along the face stays. (A particle held at
        // an inner edge with its speed into the other face kept it, and PBF's next steps
        // added to it, to 50 m/s.)
        const Vec3 wall = point_velocity(b.pose, b.motion, x);
        const Vec3 before = v;
        v = wall_contact(v, rotate(b.pose.orientation, solid_normal(b, entry)), wall, friction, restitution);
        // Still into the body within a step (an inner edge, where the rest runs into the
        // other face): then the velocity along the move that entered goes too. (The other
        // face's normal is not asked: where the rest would take the particle may be deep
        // in a thin wall, where the field's gradient may point the wrong way.)
        const Vec3 still = rotate_inverse(b.pose.orientation, x + (v - wall) * dt - b.pose.position);
        if (solid_distance(b, still) < margin) {
          const Vec3 u = rotate(b.pose.orientation, (p1 - p0) * (1.0f / length(p1 - p0)));
          const float into = dot(v - wall, u);
          if (into > 0.0f) v = v - u * into;
        }
        if (v.x != before.x || v.y != before.y || v.z != before.z) pushed = k;
      }
    }
    // A primitive's distance is exact and one move reaches the margin; a mesh's field
    // gradient is not (inner corners, where it turns), so the move is taken again from
    // where it got to, a few times.
    const int passes = b.shape == int(BodyShapeKind::Mesh) ? 4 : 1;
    for (int pass = 0; pass < passes; ++pass) {
      const Vec3 p = rotate_inverse(b.pose.orientation, x - b.pose.position);
      const float dist = solid_distance(b, p);
      if (dist >= margin) break;
      const Vec3 n = rotate(b.pose.orientation, solid_normal(b, p));
      x = x + n * (margin - dist);
      v = wall_contact(v, n, point_velocity(b.pose, b.motion, x), friction, restitution);
      pushed = k;
    }
  }
  return pushed;
}

// PBF's collision projection for bodies, as pbf_project_to_walls is for the tank's walls
// [MM13, Sec. 4]: x may come no closer to a body's surface than half a spacing, or than
// `start` (where the particle began the step) already was from the body at the step's
// start, whichever is closer. The bodies are where the step ends (PBF moves them first:
// pbf_predict), so the start is carried by each body's motion over the step's dt, as the
// clamp's is (push_out_of_bodies): a body moving into still water would otherwise find the
// water ahead of it as close as it has come, and leave it there. Without the projection the
// samples alone held the water off with lambda_i (a one-sided, relaxed constraint that
// gives under load), and the water rested 0.14 spacings from a box's faces where it rests
// half a spacing from the tank's: a box held under water
// received 5.5 % less than rho g V in 3D, and light boxes floated deep (2026-11-29). A point
// deeper than a quarter spacing inside (the clamp's margin) is left to the clamp, which
// looks along the move for a thin wall's face. out: x moved, *moved its displacement.
// Returns the last body that moved it, or -1.
TP_HD TP_INLINE int pbf_project_from_bodies(Vec3& x, const Vec3& start, const BodyArrayView& bodies,
                                            float spacing, float dt, Vec3* moved) {
  const float rest = 0.5f * spacing, deep = -0.25f * spacing;
  const Vec3 before = x;
  int last = -1;
  *moved = Vec3{0.0f, 0.0f, 0.0f};
  const uint slots = near_body_slots(bodies, x, x, rest, 0.0f);
  if (slots == 0u) return last;
  for (int k = 0; k < bodies.count; ++k) {
    if (!body_in_slots(slots, k)) continue;
    const SolidBody& b = bodies.body[k];
    const Vec3 rel = x - b.pose.position;
    const float reach = b.bound + rest;
    if (beyond_half_box(b, rel, rest) || dot(rel, rel) > reach * reach) continue;
    const Vec3 p = rotate_inverse(b.pose.orientation, rel);
    const float dist = solid_distance(b, p);
    if (dist >= rest || dist < deep) continue;
    const float from =
        solid_distance(b, rotate_inverse(b.pose.orientation, carried_by_body(b, start, dt) - b.pose.position));
    const float limit = fminf(fmaxf(from, deep), rest);
    if (dist >= limit) continue;
    x = x + rotate(b.pose.orientation, solid_normal(b, p)) * (limit - dist);
    last = k;
  }
  *moved = x - before;
  return last;
}

// The volume a body's surface sample stands for, from the sum of W over the samples of
// its own body around it (itself included): Akinci et al. 2012, Eq. 4, V_b = 1 / sum_k W_bk,
// times `flat`, the ratio that makes a flat, evenly sampled surface at spacing s weigh what
// a layer of fluid particles at that spacing would (lattice_kernel_sum of a layer over that
// of the full lattice, see body_sample_flat_ratio): a fluid particle one spacing from a flat
// sampled face then sits at rest density, as it does at the tank's walls. Where the surface
// curves or the samples thin out (edges, corners) the sum is smaller and the volume larger,
// which is Akinci's point: the fluid sees no holes and no bumps.
TP_HD TP_INLINE float body_sample_volume(float kernel_sum, float flat) {
  return kernel_sum > 0.0f ? flat / kernel_sum : 0.0f;
}

// The force [N] the fluid puts on boundary sample k of a body in the pressure solvers
// (WCSPH, PCISPH): minus the sum over the fluid particles i within h of the sample of m
// times the acceleration the sample gives i in the fluid's loops (wcsph_acceleration,
// pressure_acceleration and viscous_acceleration):
//   grad W(x_i - x_k) [-psi_k (p_i/rho_i^2 + p_k/rho0^2) + 10 nu_wall V_k (v_ik . x_ik) / (r^2 + eps)].
// The pair terms are the fluid's own functions of the same numbers, so each pair's share is
// the fluid's to the bit: action equals reaction up to the order of the sums.
// in: list q of the sample lists (the fluid within h of sample s.sample[q]), the fluid's
// position_term (positions, p/rho^2 or p/rho0^2), velocities; the sample's pressure.
TP_HD TP_INLINE Vec3 body_sample_pressure_force(uint q, const SampleLists& s, const FluidView& f,
                                                const BoundaryView& b, const StepConstants& c) {
  const uint k = s.sample[q];
  const Vec4 sample = b.sample[k];
  const Vec3 xk = xyz(sample);
  const float volume = sample.w;
  const float psi = c.p.rest_density * volume;
  const float pk = b.pressure[k];
  const Vec3 vk = xyz(b.velocity[k]);
  const CubicKernel& W = c.kernel;
  const float eps = 0.01f * W.h * W.h;
  const float inv_rho0_2 = 1.0f / (c.p.rest_density * c.p.rest_density);
  const float nu_wall = wall_viscosity(c);
  Vec3 a_sum{0.0f, 0.0f, 0.0f};
  for_each_listed_w(s.fluid, q, f.position_term, xk, W.h, [&](uint i, const Vec3& xki, float r, float pi_term) {
    const Vec3 xik = -xki;
    const Vec3 vi = xyz(f.velocity[i]);
    const float term = boundary_pressure_pair(psi, pi_term, pk, inv_rho0_2) +
                       viscosity_pair(nu_wall, volume, dot(vi - vk, xik), 1.0f / (r * r + eps));
    a_sum += W.grad(xik, r) * term;
  });
  return a_sum * (-c.mass);
}

// PBF's: the fluid particle i moves by dx_ik = grad W(x*_i - x_k) psi_k lambda_i / rho0
// in an iteration (pbf_correction), a momentum m dx_ik / dt the body gives it; the force on
// the sample is minus the sum of m dx_ik / dt^2 over i. in: list q (built on the predicted
// positions), the predicted positions with lambda in w. (I: a list's index, or a block of
// lanes of them: 16 or 8 samples at once on the CPU; q must be below the lists' count.)
template <class I>
TP_HD TP_INLINE Vec3Of<I> body_sample_pbf_force(I q, const SampleLists& s, const Vec4* predicted_lambda,
                                                const BoundaryView& b, const StepConstants& c) {
  using R = RealOf<I>;
  using V = Vec3Of<I>;
  const auto sample = load_xyzw(b.sample, load_index(s.sample, q));
  const CubicKernel& W = c.kernel;
  const R psi = sample.w * c.p.rest_density;
  V dx_sum{R(0.0f), R(0.0f), R(0.0f)};
  for_each_listed_w(s.fluid, q, predicted_lambda, sample.xyz, W.h, [&](IndexOf<I>, const V& xki, R r, R li) {
    dx_sum += W.grad(-xki, r) * (psi * li);
  });
  return dx_sum * (-c.mass / (c.p.rest_density * c.dt * c.dt));
}

}  // namespace tp
