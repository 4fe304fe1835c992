// Diffuse particles: spray, foam and air bubbles, after Ihmsen, Akinci, Akinci and
// Teschner 2012, "Unified spray, foam and air bubbles for particle-based fluids", The
// Visual Computer 28(6) [IAAT12]. A second, light particle system that the fluid carries
// and never feels: the fluid spawns it where air is trapped, at wave crests and where it
// moves fast; each diffuse particle is then a spray droplet, foam or a bubble by how many
// fluid particles surround it, and moves accordingly.
//
// Storage (src/sim/water/diffuse.h): position Vec4 = xyz, w = lifetime left [s];
// velocity Vec4 = xyz, w = kind (a DiffuseKind as float).
#pragma once

#include "boundary.h"
#include "particles.h"
#include "sim_params.h"

namespace tp {

enum class DiffuseKind : int { Spray = 0, Foam = 1, Bubble = 2 };

// [IAAT12, Sec. 5]: fewer than 6 fluid neighbours is spray, more than 20 a bubble, foam
// between. Our support h = 2 s holds about 33 neighbours in full water, as theirs does.
constexpr int kSprayBelow = 6;
constexpr int kBubbleAbove = 20;
// A surface particle for the wave-crest potential: colour-field gradient |grad c| h above
// this (0 inside full water, about 1 and more at the surface).
constexpr float kSurfaceGradient = 0.75f;
// [IAAT12, Sec. 4.2]: the velocity must point out of the surface (v.n >= 0.6) at a crest.
constexpr float kCrestAlignment = 0.6f;

// [IAAT12, Eq. 1] the clamping function Phi(I, min, max) mapped to [0, 1]. R: float or
// lanes (kernels/lanes.h), as below.
template <class R>
TP_HD TP_INLINE R diffuse_potential(R value, float lo, float hi) {
  return minf(maxf((value - lo) * (1.0f / maxf(hi - lo, 1e-6f)), 0.0f), 1.0f);
}

// [IAAT12, Eq. 2] the radially symmetric weight W~(r) = 1 - r / h of the potentials.
template <class R>
TP_HD TP_INLINE R diffuse_weight(R r, float h) {
  return maxf(1.0f - r * (1.0f / h), 0.0f);
}

// I_k [IAAT12, Eq. 3] of a particle moving at v: its kinetic energy per unit mass, v^2 / 2,
// through Phi. V: Vec3 or lanes' vectors.
template <class V>
TP_HD TP_INLINE auto diffuse_energy_potential(const V& v, const StepConstants& c) {
  return diffuse_potential(0.5f * dot(v, v), c.p.diffuse_energy_min, c.p.diffuse_energy_max);
}

// A hash of three words to a float in [0, 1): the same on host and device, and the same
// for a particle whatever the thread order (lowbias32 of Wellons' hash prospector).
TP_HD TP_INLINE uint hash32(uint x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}
TP_HD TP_INLINE float unit_random(uint a, uint b, uint c) {
  const uint h = hash32(a * 0x9e3779b9u ^ hash32(b * 0x85ebca6bu ^ hash32(c + 0x27d4eb2fu)));
  return float(h >> 8) * (1.0f / 16777216.0f);
}

// The outward surface normal of fluid particle i from the colour field c = sum V_j W_ij
// over fluid and wall samples (walls count as water, so a particle against a wall is not
// taken for a surface): n = -grad c / |grad c|. Returns xyz = n, w = |grad c| h (the
// surface indicator, see kSurfaceGradient).
// I: a particle index or 16 lanes (kernels/lanes.h). Writes normal[i].
template <class I>
TP_HD TP_INLINE void diffuse_normal(I i, const FluidView& f, const NeighborList& nl,
                                    const BoundaryView& b, const StepConstants& c, Vec4* normal) {
  using R = RealOf<I>;
  using V = Vec3Of<I>;
  const CubicKernel& W = c.kernel;
  const V xi = load_xyz(f.position, i);
  const R zero(0.0f);
  V grad{zero, zero, zero};
  for_each_listed(nl, i, f.position, xi, W.h, [&](IndexOf<I> j, const V& xij, R r) {
    grad += W.grad(xij, r) * (c.mass / load(f.density, j));
  });
  for_each_boundary_neighbor(b, i, xi, W.h,
                    [&](IndexOf<I>, const V& xis, R r, R volume) { grad += W.grad(xis, r) * volume; });
  const R len = length(grad);
  store_xyzw(normal, i, grad * select(len > 1e-12f, -1.0f / len, zero), len * W.h);
}

// How many diffuse particles fluid particle i is expected to spawn over c.dt [IAAT12,
// Eq. 7]: n_d = I_k (k_ta I_ta + k_wc I_wc) dt, with
//   I_ta  trapped air [Eq. 2]: sum_j |v_ij| (1 - v^_ij . x^_ij) W~(x_ij)
//   I_wc  wave crest [Eq. 4-6]: for a surface particle moving outwards (v^_i . n_i >= 0.6),
//         sum_j (1 - n_i . n_j) W~(x_ij) over neighbours below it (x^_ji . n_i < 0)
//   I_k   kinetic energy [Eq. 3] per unit mass, v_i^2 / 2
// `normal` holds diffuse_normal() of every fluid particle whose I_k is not 0 and of their
// neighbours. I: a particle index or lanes (kernels/lanes.h); a block of lanes none of
// which has I_k is skipped whole.
template <class I>
TP_HD TP_INLINE RealOf<I> diffuse_expected(I i, const FluidView& f, const NeighborList& nl, const Vec4* normal,
                                           const StepConstants& c) {
  using R = RealOf<I>;
  using V = Vec3Of<I>;
  const float h = c.kernel.h;
  const R zero(0.0f);
  const V vi = load_xyz(f.velocity, i);
  const R ik = diffuse_energy_potential(vi, c);
  if (!any_lane(ik > 0.0f)) return zero;
  const V xi = load_xyz(f.position, i);
  const auto ni4 = load_xyzw(normal, i);
  const V ni = ni4.xyz;
  const R speed = length(vi);
  const auto crest = (ni4.w >= kSurfaceGradient) & (speed > 1e-6f) & (dot(vi, ni) >= kCrestAlignment * speed);
  R trapped = zero, curvature = zero;
  for_each_listed(nl, i, f.position, xi, h, [&](IndexOf<I> j, const V& xij, R r) {
    // (The particle itself, r = 0, and the lanes past a list, r = 2h, add nothing.)
    const auto pair = r > 1e-9f;
    const R w = diffuse_weight(r, h);
    const V vij = vi - load_xyz(f.velocity, j);
    const R vlen = length(vij);
    trapped += select(pair & (vlen > 1e-9f), vlen * (1.0f - dot(vij, xij) / (vlen * r)) * w, zero);
    // x^_ji . n_i < 0 <=> x_ij . n_i > 0: the neighbour lies below i along its normal.
    curvature += select(crest & pair & (dot(xij, ni) > 0.0f), (1.0f - dot(ni, load_xyz(normal, j))) * w, zero);
  });
  const R ita = diffuse_potential(trapped, c.p.diffuse_trapped_min, c.p.diffuse_trapped_max);
  const R iwc = diffuse_potential(curvature, c.p.diffuse_crest_min, c.p.diffuse_crest_max);
  return ik * (c.p.diffuse_trapped_rate * ita + c.p.diffuse_crest_rate * iwc) * c.dt;
}

// The expected count as a whole number, rounded up or down at random so that the
// expectation is right at any interval; `seed` changes every update.
TP_HD TP_INLINE uint diffuse_spawn_count(float expected, uint id, uint seed) {
  if (!(expected > 0.0f)) return 0;
  const float whole = floorf(expected);
  const uint extra = unit_random(id, seed, 0x5eedu) < expected - whole ? 1u : 0u;
  // At most 64 per particle and update, so that the scan of the counts cannot overflow
  // (up to 2^26 fluid particles) whatever the rates.
  return uint(minf(whole, 63.0f)) + extra;
}

// Whether fluid particle i spawns at all (I_k above 0), as 1 or 0: the test that
// diffuse_expected starts with, so that the two agree on every particle.
TP_HD TP_INLINE float diffuse_energetic(uint i, const FluidView& f, const StepConstants& c) {
  return diffuse_energy_potential(xyz(f.velocity[i]), c) > 0.0f ? 1.0f : 0.0f;
}

// Fluid neighbours of a point and the kernel-weighted mean of their velocity (the fluid
// velocity v~_f at a diffuse particle, [IAAT12, Eq. 9]).
struct FluidSample {
  int neighbours;
  Vec3 velocity;
};
TP_HD TP_INLINE FluidSample sample_fluid(Vec3 x, const FluidView& f, const GridView& g,
                                         const StepConstants& c) {
  if (!is_finite(x)) return FluidSample{0, Vec3{0.0f, 0.0f, 0.0f}};  // (diffuse_advance drops it)
  const CubicKernel& W = c.kernel;
  int count = 0;
  float weight = 0.0f;
  Vec3 v{0.0f, 0.0f, 0.0f};
  for_each_neighbor(g, f.position, x, W.h, [&](uint j, Vec3, float r) {
    const float w = W.w(r);
    ++count;
    weight += w;
    v += xyz(f.velocity[j]) * w;
  });
  return FluidSample{count, weight > 0.0f ? v * (1.0f / weight) : v};
}

TP_HD TP_INLINE DiffuseKind diffuse_kind(int neighbours) {
  if (neighbours < kSprayBelow) return DiffuseKind::Spray;
  if (neighbours > kBubbleAbove) return DiffuseKind::Bubble;
  return DiffuseKind::Foam;
}

// The k-th diffuse particle spawned by fluid particle i [IAAT12, Sec. 4.3]: a uniform
// point in a cylinder around the fluid particle's path this step (radius: half a spacing,
// along v_i for |v_i| dt), with the fluid particle's velocity and a foam lifetime drawn
// between the two limits. Its kind follows from its fluid neighbours.
// out: position (xyz, w = lifetime), velocity (xyz, w = kind).
TP_HD TP_INLINE void diffuse_spawn(uint i, uint k, const FluidView& f, const GridView& g,
                                   const uint* id, uint seed, const StepConstants& c,
                                   Vec4* position, Vec4* velocity) {
  const Vec3 xi = xyz(f.position[i]);
  const Vec3 vi = xyz(f.velocity[i]);
  const float speed = length(vi);
  const Vec3 axis = speed > 1e-6f ? vi * (1.0f / speed) : Vec3{0.0f, 1.0f, 0.0f};
  // Two unit vectors across the axis.
  const Vec3 helper = fabsf(axis.y) < 0.9f ? Vec3{0.0f, 1.0f, 0.0f} : Vec3{1.0f, 0.0f, 0.0f};
  const Vec3 e1 = cross(axis, helper) * (1.0f / length(cross(axis, helper)));
  const Vec3 e2 = cross(axis, e1);
  const uint key = id[i];
  const float u1 = unit_random(key, seed, 4u * k + 1u);
  const float u2 = unit_random(key, seed, 4u * k + 2u);
  const float u3 = unit_random(key, seed, 4u * k + 3u);
  const float u4 = unit_random(key, seed, 4u * k + 4u);
  const float radius = 0.5f * c.spacing * sqrtf(u1);
  const float angle = 6.28318531f * u2;
  Vec3 x = xi + e1 * (radius * cosf(angle)) + e2 * (radius * sinf(angle)) + axis * (u3 * speed * c.dt);
  Vec3 v = vi;
  clamp_to_tank(x, v, c);
  const float life = c.p.diffuse_life_min + u4 * (c.p.diffuse_life_max - c.p.diffuse_life_min);
  const DiffuseKind kind = diffuse_kind(sample_fluid(x, f, g, c).neighbours);
  *position = make_vec4(x, life);
  *velocity = make_vec4(v, float(int(kind)));
}

// One step of diffuse particle d [IAAT12, Sec. 5], after classifying it by its fluid
// neighbours now, `s`: sample_fluid() at its position (which the CPU's driver may search
// for with vector instructions):
//   spray   ballistic under gravity, with air drag: v += dt (g - k_air v)
//   foam    carried by the fluid: v = v~_f; it ages and dissolves at the end of its life
//   bubble  buoyancy and drag towards the fluid: v += dt (-k_b g) + k_d (v~_f - v), with
//           k_d here a rate, applied as 1 - exp(-k_d dt) per step, so that a bubble rises
//           at the same speed whatever the solver's time step (the paper's k_d is a share
//           per step of its fixed step)
// then x += dt (v_old + v_new) / 2 (foam: dt v~_f), kept in the tank. Spray that reaches a wall or the floor has nowhere
// to go (a droplet on a dry floor) and dies, as does anything not finite.
// Returns false when the particle is gone.
TP_HD TP_INLINE bool diffuse_advance(uint d, Vec4* position, Vec4* velocity, const FluidSample& s,
                                     const StepConstants& c) {
  Vec3 x = xyz(position[d]);
  Vec3 v = xyz(velocity[d]);
  float life = position[d].w;
  if (!is_finite(x) || !is_finite(v) || !is_finite(life)) return false;
  const DiffuseKind kind = diffuse_kind(s.neighbours);
  const Vec3 gravity{c.p.gravity_x, c.p.gravity_y, c.p.gravity_z};
  const float dt = c.dt;
  const Vec3 v_before = v;
  if (kind == DiffuseKind::Spray) {
    v += (gravity - v * c.p.diffuse_spray_drag) * dt;
  } else if (kind == DiffuseKind::Foam) {
    v = s.velocity;
    life -= dt;
  } else {
    const float drag = 1.0f - expf(-c.p.diffuse_bubble_drag * dt);
    v += gravity * (-c.p.diffuse_buoyancy * dt) + (s.velocity - v) * drag;
  }
  // The mean of the velocities before and after: exact for a constant acceleration
  // (a droplet's flight), whatever the update interval.
  x += (kind == DiffuseKind::Foam ? v : (v_before + v) * 0.5f) * dt;
  const Vec3 before = x;
  clamp_to_tank(x, v, c);
  const bool touched = before.x != x.x || before.y != x.y || before.z != x.z;
  position[d] = make_vec4(x, life);
  velocity[d] = make_vec4(v, float(int(kind)));
  if (kind == DiffuseKind::Spray && touched) return false;
  return life > 0.0f;
}

// What the renderer gets for diffuse particle d: xyz, w = kind + fade, fade in [0, 1) the
// share of its last second a particle has left (spray and bubbles do not age: 0.999).
TP_HD TP_INLINE Vec4 diffuse_published(const Vec4& position, const Vec4& velocity) {
  const float kind = velocity.w;
  const float fade = kind == float(int(DiffuseKind::Foam)) ? clampf(position.w, 0.0f, 0.999f) : 0.999f;
  return make_vec4(xyz(position), kind + fade);
}

}  // namespace tp
