// A closed mesh's signed distance field on a regular grid (kernels/distance_field.h reads it):
// at every node the exact distance to the surface (TriangleBvh's closest point) with the sign
// of the angle-weighted pseudonormal of the closest feature (Baerentzen & Aanaes 2005, "Signed
// distance computation using the angle weighted pseudonormal", IEEE TVCG 11(3)): the face's
// normal, an edge's the sum of its two faces' normals, a vertex's the sum of its faces'
// normals weighted by their angles at it. For a closed, consistently oriented mesh,
// (p - closest) . pseudonormal < 0 exactly when p is inside.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kernels/distance_field.h"
#include "sim/bodies/triangle_bvh.h"

namespace tp {

// The exact signed distance to a closed mesh at any point (negative inside).
class SignedDistance {
 public:
  explicit SignedDistance(const TriangleSoup& mesh);

  // `hint`: in, a triangle to measure first (TriangleBvh::kNoHint: none); out, the closest.
  float operator()(Vec3 p, uint32_t* hint = nullptr) const;
  const TriangleBvh& bvh() const { return bvh_; }

 private:
  TriangleBvh bvh_;
  std::vector<Vec3> face_normal_;    ///< per triangle, unit
  std::vector<Vec3> edge_normal_;    ///< per triangle and edge k (3 t + k): the two faces' sum
  std::vector<Vec3> vertex_normal_;  ///< per vertex: angle-weighted sum
  std::vector<std::array<uint32_t, 3>> triangles_;
};

struct DistanceFieldSettings {
  float cell_size = 0.0f;  ///< [m] the nodes' spacing; <= 0: from `resolution`
  int resolution = 64;     ///< nodes along the mesh's longest side, margin included
  int margin_cells = 3;    ///< cells of the grid beyond the mesh's box on every side (>= 1)
};

struct DistanceField {
  std::vector<float> value;  ///< [m] (z * dims.y + y) * dims.x + x; negative inside
  Int3 dims{0, 0, 0};
  Vec3 origin{0, 0, 0};   ///< [m] node (0, 0, 0), in the mesh's frame
  float cell = 0.0f;      ///< [m]
  double build_ms = 0.0;  ///< the build's wall-clock time
  DistanceFieldView view() const { return DistanceFieldView{value.data(), dims, origin, cell}; }
};

// The field of a closed mesh (check_closed first: the sign means nothing for an open one),
// over its box widened by the margin. OpenMP-parallel over the grid's rows. Nothing, and a
// sentence in *error, for an empty mesh or settings that make no grid or too large a one
// (more than 2^26 nodes).
std::optional<DistanceField> build_distance_field(const TriangleSoup& mesh,
                                                  const DistanceFieldSettings& settings,
                                                  std::string* error);

}  // namespace tp
