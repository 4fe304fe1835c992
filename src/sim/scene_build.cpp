// Scenes into particles: the fluid's volume, the lattice of fluid and boundary particles at a
// spacing, and the memory that needs (checked before anything is allocated).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/scene.h"

namespace tp {

namespace {

std::string fmt(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// The block clipped to the tank, or an empty box.
bool clip(const FluidBlock& b, const Scene& s, Vec3* lo, Vec3* hi) {
  *lo = Vec3{std::max(b.lo.x, s.tank_lo.x), std::max(b.lo.y, s.tank_lo.y), std::max(b.lo.z, s.tank_lo.z)};
  *hi = Vec3{std::min(b.hi.x, s.tank_hi.x), std::min(b.hi.y, s.tank_hi.y), std::min(b.hi.z, s.tank_hi.z)};
  return lo->x < hi->x && lo->y < hi->y && lo->z < hi->z;
}

}  // namespace

double fluid_volume(const Scene& s) {
  double v = 0.0;
  for (const FluidBlock& b : s.blocks) {
    Vec3 lo, hi;
    if (clip(b, s, &lo, &hi)) v += double(hi.x - lo.x) * (hi.y - lo.y) * (hi.z - lo.z);
  }
  return v;
}

float spacing_for_count(const Scene& s, uint64_t count) {
  if (count == 0) return s.spacing;
  return float(std::cbrt(fluid_volume(s) / double(count)));
}

uint64_t estimate_memory_bytes(uint64_t fluid, uint64_t boundary, uint64_t cells) {
  // Fluid: position, velocity, acceleration, spare (4 x 16 B), id and spare id, density,
  // pressure, scratch, cell, rank, order (8 x 4 B), plus host-side set-up copies (2 x 16 B).
  // Boundary: sample and spare (2 x 16 B), cell, rank, order (3 x 4 B), set-up copy.
  // Grids: two cell_start arrays.
  return fluid * (4 * 16 + 8 * 4 + 2 * 16) + boundary * (2 * 16 + 3 * 4 + 16) + cells * 2 * 4;
}

InitialState build_initial_state(const Scene& scene, float s, uint64_t memory_bytes) {
  if (!(s > 0.0f) || !std::isfinite(s)) throw SceneError("particle spacing must be a positive number");
  const Vec3 lo = scene.tank_lo;
  const Vec3 extent = scene.tank_hi - scene.tank_lo;
  // Whole spacings per axis; the tank's max faces move in by less than one spacing.
  const double nxd = std::floor(extent.x / s + 1e-4), nyd = std::floor(extent.y / s + 1e-4),
               nzd = std::floor(extent.z / s + 1e-4);
  if (nxd < 2 || nyd < 2 || nzd < 2) {
    const double largest = std::min({extent.x, extent.y, extent.z}) / 2.0;
    throw SceneError("particle spacing " + fmt(s) + " m is too coarse for the tank, which needs at "
                     "least two particles across every axis: use at least about " +
                     fmt(std::ceil(fluid_volume(scene) / (largest * largest * largest))) + " particles");
  }
  const double fluid_estimate = fluid_volume(scene) / (double(s) * s * s);
  const double layers = 2.0;
  const double boundary_estimate = (nxd + 2 * layers) * (nyd + 2 * layers) * (nzd + 2 * layers) - nxd * nyd * nzd;
  const double cells = (nxd / 2 + 4) * (nyd / 2 + 4) * (nzd / 2 + 4);
  const double need = double(estimate_memory_bytes(uint64_t(std::min(fluid_estimate, 1e18)),
                                                   uint64_t(std::min(boundary_estimate, 1e18)),
                                                   uint64_t(std::min(cells, 1e18))));
  const std::string request = "about " + fmt(std::round(fluid_estimate)) + " particles at spacing " +
                              fmt(s) + " m would need " + fmt(std::ceil(need / 1e6)) + " MB of memory";
  if (fluid_estimate > double(kMaxParticles))
    throw SceneError(request + ", more than Tidepool supports (" + fmt(double(kMaxParticles)) +
                     " particles); use fewer particles");
  if (cells > 1.5e9)
    throw SceneError("the tank is too large for particle spacing " + fmt(s) + " m: its neighbour grid "
                     "would need " + fmt(cells) + " cells; use a larger spacing (fewer particles) or "
                     "a smaller tank");
  const double available = memory_bytes ? double(memory_bytes)
                                        : double(sysconf(_SC_AVPHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
  if (available > 0 && need > 0.8 * available)
    throw SceneError(request + ", but only " + fmt(std::round(available / 1e6)) +
                     " MB is free; use fewer particles");

  const int nx = int(nxd), ny = int(nyd), nz = int(nzd);
  InitialState st;
  st.spacing = s;
  st.tank_lo = lo;
  st.tank_hi = lo + Vec3{float(nx) * s, float(ny) * s, float(nz) * s};
  auto point = [&](int i, int j, int k) {
    return Vec3{lo.x + (float(i) + 0.5f) * s, lo.y + (float(j) + 0.5f) * s, lo.z + (float(k) + 0.5f) * s};
  };
  // Fluid: lattice points inside any block (once, even where blocks overlap).
  std::vector<uint8_t> taken(size_t(nx) * ny * nz, 0);
  for (const FluidBlock& b : scene.blocks) {
    Vec3 blo, bhi;
    if (!clip(b, scene, &blo, &bhi)) continue;
    const int i0 = std::max(0, int(std::ceil((blo.x - lo.x) / s - 0.5f))), i1 = std::min(nx - 1, int(std::floor((bhi.x - lo.x) / s - 0.5f)));
    const int j0 = std::max(0, int(std::ceil((blo.y - lo.y) / s - 0.5f))), j1 = std::min(ny - 1, int(std::floor((bhi.y - lo.y) / s - 0.5f)));
    const int k0 = std::max(0, int(std::ceil((blo.z - lo.z) / s - 0.5f))), k1 = std::min(nz - 1, int(std::floor((bhi.z - lo.z) / s - 0.5f)));
    for (int k = k0; k <= k1; ++k)
      for (int j = j0; j <= j1; ++j)
        for (int i = i0; i <= i1; ++i) {
          uint8_t& t = taken[(size_t(k) * ny + j) * nx + i];
          if (t) continue;
          t = 1;
          st.fluid.push_back(make_vec4(point(i, j, k), 0.0f));
          st.velocity.push_back(make_vec4(b.velocity, 0.0f));
        }
  }
  if (st.fluid.empty())
    throw SceneError("particle spacing " + fmt(s) + " m is too coarse: no particle fits in the fluid blocks");
  // Boundary: the lattice continued two layers beyond every face (edges and corners too).
  // w = 0 asks the simulation for the lattice volume.
  const int L = int(layers);
  for (int k = -L; k < nz + L; ++k)
    for (int j = -L; j < ny + L; ++j)
      for (int i = -L; i < nx + L; ++i) {
        const bool inside = i >= 0 && i < nx && j >= 0 && j < ny && k >= 0 && k < nz;
        if (!inside) st.boundary.push_back(make_vec4(point(i, j, k), 0.0f));
      }
  return st;
}

}  // namespace tp
