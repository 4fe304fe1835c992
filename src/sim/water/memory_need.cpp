#include "sim/water/memory_need.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace tp {

namespace {

// Bytes per fluid particle. The particle arrays (src/sim/water/fluid_state.h): position,
// velocity, acceleration, position and pressure term, velocity and inverse density,
// predicted, aux, spare, and the step start's position and velocity (10 x 16 B) and id,
// pressure, DFSPH's divergence impulse, density, scratch, spare id, spare float, best
// pressure, target density, the step start's id (10 x 4 B).
constexpr double kParticleArrays = 10 * 16 + 10 * 4;
// Arrays sized by the live count, which grow by a quarter when they must: the grid's cell,
// rank and order (3 x 4 B), the fluid and boundary neighbour lists at their first size
// (48 + 1 and 40 + 1 slots of 4 B, a count each), the vector search's coordinates
// (3 x 4 B), the diffuse spawner's normal, count and expected count (16 + 4 + 4 B), and
// the diffuse particles' vector search's columns of the fluid (6 x 4 B, CPU).
constexpr double kPerLiveParticle = 1.25 * (3 * 4 + (49 * 4 + 4) + (41 * 4 + 4) + 3 * 4 + 24 + 24);
// Per boundary sample (NeighborLists::samples): its place in the order and its list of
// fluid particles at the first size (24 + 1 slots, a count), grown by a quarter. Only the
// samples next to fluid are listed, but on a GPU how many there are stays on the device
// (no wait for it), so the lists are laid out for every sample (the CPU's for the listed
// ones: the bound holds for both).
constexpr double kPerListedSample = 1.25 * (4 + 25 * 4 + 4);
// Copies that live for a moment: a reset's initial state and its host copies (2 x 16 + 16
// + 4 B, plus the lattice's candidates, 16 B), or a snapshot for a PLY frame or a state
// file (id, position, velocity, density, pressure, order: 48 B) with the frame's 28 B rows.
constexpr double kTransient = 80;
// Per boundary sample: sample, spare, velocity, where it will be (PCISPH's loop: 4 x 16 B),
// pressure, the grid's cell, rank and order, the active flag and its scan (6 x 4 B), the
// initial state's copy (16 B), the walls' coordinates for the vector search (3 x 4 B), and
// an obstacle sample's body coordinates, world position and owner (2 x 16 + 4 B) and PBF's
// force on it while listed (16 B).
constexpr double kPerBoundarySample = 4 * 16 + 6 * 4 + 16 + 3 * 4 + 36 + 16;
// Per diffuse particle: position, velocity and the compaction's two targets (4 x 16 B),
// a flag grown by a quarter, the CUDA path's staging copy (16 B) and a snapshot's copy,
// the CPU's vector search's result and its sort (16 + 8 B).
constexpr double kPerDiffuse = 4 * 16 + 5 + 16 + 32 + 24;


}  // namespace

uint64_t estimate_memory_bytes(uint64_t fluid, uint64_t boundary, uint64_t cells, uint64_t diffuse,
                               bool growing) {
  // Emitters grow the particle arrays by half again when they run out, so the last growth
  // can overshoot the limit by up to a half.
  const double arrays = (growing ? 1.5 : 1.0) * kParticleArrays;
  const double bytes = double(fluid) * (arrays + kPerLiveParticle + kTransient) +
                       double(boundary) * kPerBoundarySample + double(cells) * 2 * 4 +
                       double(boundary) * kPerListedSample +
                       double(diffuse) * kPerDiffuse;
  return uint64_t(std::min(bytes, 1e19));
}

double grid_cells(Vec3 lo, Vec3 hi, float s) {
  // Cells of h = 2 spacings over the tank and a border of boundary samples on each side.
  const Vec3 e = hi - lo;
  return (e.x / (2.0 * s) + 4) * (e.y / (2.0 * s) + 4) * (e.z / (2.0 * s) + 4);
}

uint64_t diffuse_cap_for(const SimParams& params, BackendKind backend) {
  if (params.diffuse_cap > 0) return uint64_t(params.diffuse_cap);
  return backend == BackendKind::Cuda ? 2000000u : 50000u;
}

std::string keep_diffuse_cap_in_memory(SimParams& params, int previous_setting, BackendKind backend,
                                       uint64_t budget) {
  SimParams previous = params;
  previous.diffuse_cap = previous_setting;
  const uint64_t from = diffuse_cap_for(previous, backend), to = diffuse_cap_for(params, backend);
  if (to <= from) return "";
  try {
    require_memory(double(to - from) * kPerDiffuse, budget ? budget : memory_budget_bytes(backend),
                   "diffuse_cap " + count_text(double(to)) + " (spray, foam and bubble particles)",
                   "kept " + count_text(double(from)));
  } catch (const SceneError& e) {
    params.diffuse_cap = previous_setting;
    return e.what();
  }
  return "";
}

}  // namespace tp
