// Views of the particle arrays as kernels see them: raw pointers into the backend's
// buffers (host memory on the CPU backend, device memory on CUDA), captured by value.
#pragma once

#include "boxes8.h"
#include "common.h"
#include "grid.h"
#include "lanes.h"
#include "neighbor_list.h"

namespace tp {

// Picking with the mouse. The spheres it tests are a little larger than the drawn ones
// (radius s/2), which leave gaps along the diagonals of a lattice (s/sqrt(2) from the
// nearest centre): no ray slips between particles, and the picked point stays within s/4
// of the visible surface.
constexpr float kPickRadiusSpacings = 0.75f;
// Minus the distance along the ray (origin o, unit direction d) at
// which it enters a sphere of `radius` around particle position p; -INFINITY when it
// misses or the particle is behind the origin. The largest value over the particles gives
// the first point the ray meets (a max reduction: the same on both backends).
TP_HD TP_INLINE float pick_entry(Vec3 p, Vec3 o, Vec3 d, float radius) {
  const Vec3 r = p - o;
  const float t = dot(r, d);
  if (t <= 0.0f) return -INFINITY;
  const float miss2 = dot(r, r) - t * t;
  if (miss2 > radius * radius) return -INFINITY;
  return -(t - sqrtf(fmaxf(radius * radius - miss2, 0.0f)));
}

// Fluid particles, sorted into cell order by the grid build at the start of every step.
struct FluidView {
  Vec4* position;      ///< [m] xyz position; w unused
  Vec4* velocity;      ///< [m/s] xyz velocity; w unused
  Vec4* acceleration;  ///< [m/s^2] xyz acceleration of this step; w unused
  float* density;      ///< [kg/m^3]
  float* pressure;     ///< [Pa]
  // xyz: the position (a copy), w: the pressure term (p / rho^2 for WCSPH, p / rho0^2 for
  // PCISPH), written once per pressure update for the pressure loops, which read a
  // neighbour's position and pressure in one load.
  Vec4* position_term;
  // xyz: the velocity (a copy; PBF's: the new one, from the displacement, before its
  // end-of-step pass), w: 1 / rho, written before the viscosity loops, which read a
  // neighbour's velocity and density in one load.
  Vec4* velocity_inv_density;
  float* scratch;      ///< one float per particle for per-step reductions (statistics)
  uint n;
};

// Boundary samples (Akinci et al. 2012): solid points outside the tank's inner faces and
// inside obstacles. xyz is the position, w the sample's volume V_b [m^3]; its mass seen by
// the fluid is psi_b = rho0 V_b. The tank's samples, [0, wall_n), never move and are sorted
// by `grid` once, at reset; the obstacles' samples, [wall_n, n), follow their obstacles and
// are sorted by `obstacle_grid` (whose index ranges count from wall_n) whenever one moves.
// Each step the samples next to fluid get a pressure extrapolated from it, so that the
// walls push back like the fluid they replace (see kernels/wcsph.h).
struct BoundaryView {
  const Vec4* sample;
  const Vec4* velocity;  ///< [m/s] xyz: the obstacle's velocity; 0 for the tank
  float* pressure;       ///< [Pa] this step
  GridView grid;
  GridView obstacle_grid;
  uint wall_n;
  uint n;
  NeighborList list;  ///< per fluid particle: the samples within h (at the last search)
  // A point inside [wall_clear_lo, wall_clear_hi] is at least h from every tank sample
  // (they lie outside the tank's faces); one outside [obstacle_lo, obstacle_hi] is at
  // least h from every obstacle sample. The neighbour search skips those grids there.
  Vec3 wall_clear_lo, wall_clear_hi;
  Vec3 obstacle_lo, obstacle_hi;
  // Per sample: 1 when some fluid particle lists it (a pressure is due). Valid after a
  // list build with marks, or once samples() has marked them (NeighborLists::build).
  const uint* active;
  // Tighter boxes inside that one: owner k's box (obstacles first, then the bodies),
  // widened by h, is in object box k % Boxes8::kCount, with the other owners of that
  // slot; objects.count of them are set (0: the one box above alone says). Bodies floating
  // across a pool spread that box over most of the water, and a particle in it searched
  // the objects' grid for nothing (4 % of a PBF step with eight bodies).
  Boxes8 objects;
};

// The boundary samples next to fluid (those some fluid particle lists), each with the
// fluid particles within h of it: the walls' pressure is extrapolated from them
// (kernels/wcsph.h, boundary_pressure).
struct SampleLists {
  const uint* sample;  ///< the k-th such sample (an index into BoundaryView's arrays)
  uint n;              ///< at least how many there are (a launch's size)
  NeighborList fluid;  ///< list k: the fluid particles within h of sample[k]
  const uint* listed;  ///< how many there are: read where the lists are (a GPU's memory)
};

TP_HD TP_INLINE bool inside_box(Vec3 x, Vec3 lo, Vec3 hi) {
  return x.x > lo.x && x.y > lo.y && x.z > lo.z && x.x < hi.x && x.y < hi.y && x.z < hi.z;
}

// Whether an obstacle's or a body's sample may be within h of x (false: none is). Every
// fluid particle asks at every list build (boxes_met: one pass of 8 lanes on the CPU).
TP_HD TP_INLINE bool near_objects(const BoundaryView& b, Vec3 x) {
  if (b.n <= b.wall_n || !inside_box(x, b.obstacle_lo, b.obstacle_hi)) return false;
  return b.objects.count == 0 || boxes_met(b.objects, x, x, 0.0f) != 0u;
}

// Calls f(k, x_ik, r, V_k) for every boundary sample k (an index into sample, velocity and
// pressure) within h of fluid particle i at x_i, from the particle's boundary list; V_k is
// the sample's volume (its w, read with its position).
// I is a particle index or a block of lanes, V its Vec3Of (kernels/lanes.h).
template <class I, class V, class F>
TP_HD TP_INLINE void for_each_boundary_neighbor(const BoundaryView& b, I i, const V& xi, float h, F&& f) {
  for_each_listed_w(b.list, i, b.sample, xi, h, f);
}

// Whether particle i's boundary list holds a sample of an obstacle or a body (index wall_n
// or more): i was within h of one at the last search. The search lists the tank's samples
// first and the objects' after them (NeighborLists::build), so the last entry tells; a list
// that ran out of slots is never stepped on (the step is taken again with longer lists).
TP_HD TP_INLINE bool lists_object_sample(const BoundaryView& b, uint i) {
  const NeighborList& l = b.list;
  const uint n = l.count[i];
  return n > 0 && l.index[list_slot(i, n - 1, l.slots, l.shift)] >= b.wall_n;
}

}  // namespace tp
