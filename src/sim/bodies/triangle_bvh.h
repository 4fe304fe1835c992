// A bounding volume hierarchy over a mesh's triangles (binned surface-area heuristic), for
// the exact closest point of the surface to a query point: the distance field's build asks
// it once per grid node. The query visits the nearer child first and skips every box farther
// than the best triangle found so far; a hint (the triangle nearest to the previous, close
// query point) starts it with a tight bound.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/bodies/triangle_mesh.h"

namespace tp {

// Where on a triangle (a, b, c) its closest point lies: inside, on an edge (index k: from
// corner k to corner k + 1 mod 3, so 0 = ab, 1 = bc, 2 = ca), or at a corner (index k).
enum class TriangleFeature : uint8_t { Face, Edge, Vertex };

struct TrianglePoint {
  Vec3 point;
  TriangleFeature feature = TriangleFeature::Face;
  uint8_t index = 0;  ///< the edge or corner, as above; 0 for the face
};

// The point of triangle (a, b, c) closest to p and its feature, by the Voronoi regions of the
// corners, edges and face (Ericson, Real-Time Collision Detection, 5.1.5). A degenerate
// triangle (no area) is treated as its three edges.
TrianglePoint closest_point_on_triangle(Vec3 p, Vec3 a, Vec3 b, Vec3 c);

struct ClosestPoint {
  float distance = 0.0f;  ///< [m] from the query point to `point`
  Vec3 point{0, 0, 0};
  uint32_t triangle = 0;  ///< index in the mesh's triangles
  TriangleFeature feature = TriangleFeature::Face;
  uint8_t index = 0;  ///< the edge or corner of `triangle` (TrianglePoint::index)
};

class TriangleBvh {
 public:
  static constexpr uint32_t kNoHint = 0xffffffffu;

  // The tree over the mesh's triangles (copied: the mesh need not outlive it).
  explicit TriangleBvh(const TriangleSoup& mesh);

  // The surface's point closest to p. `hint`: a triangle to measure first (kNoHint: none).
  // A p that is not finite gets a NaN distance (and triangle 0).
  ClosestPoint closest_point(Vec3 p, uint32_t hint = kNoHint) const;

  size_t node_count() const { return nodes_.size(); }
  size_t triangle_count() const { return triangles_.size(); }
  int depth() const { return depth_; }

 private:
  // Its triangles lie in the box [lo, hi] and in the slab axis . x in [slab_lo, slab_hi], the
  // axis their mean normal: for a nearly flat group, the slab is much closer to its triangles
  // than the box is (a point inside a sphere is as near to every box of its surface).
  struct Node {
    Vec3 lo;
    uint32_t first;  ///< a leaf's first slot in triangles_; an inner node's left child
    Vec3 hi;
    uint32_t count;  ///< a leaf's triangles; 0 for an inner node (right child = first + 1)
    Vec3 axis;       ///< unit
    float slab_lo, slab_hi;
  };
  void build(const TriangleSoup& mesh);
  void fit_slab(Node* node, uint32_t begin, uint32_t end, const std::vector<uint32_t>& order,
                const TriangleSoup& mesh) const;
  // The square of a lower bound on the distance from p to the node's triangles.
  static float bound2(const Node& node, Vec3 p);

  std::vector<Node> nodes_;
  std::vector<std::array<Vec3, 3>> triangles_;  ///< in leaf order
  std::vector<Vec4> planes_;                    ///< theirs: unit normal, offset (n . a)
  std::vector<uint32_t> original_;              ///< leaf slot -> mesh triangle
  std::vector<uint32_t> slot_;                  ///< mesh triangle -> leaf slot
  int depth_ = 0;
};

}  // namespace tp
