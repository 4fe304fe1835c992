// The water's surface as a triangle mesh (src/sim/mesh/surface_mesh.h builds it): what the
// simulation hands to the exporter and the tests, on the host, with its settings and the
// time its phases took.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common.h"

namespace tp {

struct MeshSettings {
  float cell = 0.5f;          ///< lattice cell size, in particle spacings
  float iso = 0.5f;           ///< surface level of the normalised field (1 inside water at rest)
  bool anisotropic = true;    ///< Yu & Turk 2013 kernels (false: isotropic, centres unsmoothed)
  float radius = 1.5f;        ///< neighbour radius of the covariance, in kernel supports h
  float smoothing = 0.0f;     ///< centre smoothing lambda (Yu & Turk Eq. 6; it shrinks the water)
  float k_r = 4.0f;           ///< largest axis ratio of a stretched kernel
  float k_n = 0.5f;           ///< axis scale of a kernel with few neighbours
  float min_neighbors = 25.0f; ///< N_eps for neighbours within 2h, scaled by the volume at `radius`
  bool velocity = false;      ///< also interpolate the water's velocity to the vertices
};

struct MeshTimes {
  double kernels_ms = 0.0;  ///< sorting the particles and shaping their kernels
  double field_ms = 0.0;    ///< the scalar field on the lattice
  double cubes_ms = 0.0;    ///< marching cubes: counts, scans, vertices, triangles
  double total() const { return kernels_ms + field_ms + cubes_ms; }
};

struct TriangleMesh {
  std::vector<Vec3> position;  ///< [m]
  std::vector<Vec3> normal;    ///< unit, out of the water
  std::vector<Vec3> velocity;  ///< [m/s] (empty unless MeshSettings::velocity)
  std::vector<uint32_t> index; ///< 3 per triangle, counter-clockwise seen from outside
  size_t triangle_count() const { return index.size() / 3; }
};

// The lattice the field and the cubes ran on, for reports and tests.
struct MeshLatticeInfo {
  Int3 dims{0, 0, 0};
  Vec3 dx{0.0f, 0.0f, 0.0f};
  float reach = 0.0f;  ///< [m] largest kernel half extent
};

}  // namespace tp
