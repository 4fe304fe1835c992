// Bullet's collision shape of a body or static collider (for rigid_world.cpp; Bullet's types
// are only named here): built from a BodyGeometry, then immutable (Bullet reads it, never
// writes it), so it may live from step to step while the world around it is rebuilt.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/bodies/rigid_body.h"

class btCollisionShape;
class btTriangleIndexVertexArray;

namespace tp {

class CollisionShape {
 public:
  CollisionShape();
  ~CollisionShape();
  CollisionShape(CollisionShape&&) noexcept;
  CollisionShape& operator=(CollisionShape&&) noexcept;

  // A sound geometry (geometry_problem() is empty). A mesh is a GImpact mesh when `dynamic`
  // (concave, moving), a BVH triangle mesh otherwise (static, need not be closed). The
  // geometry is kept: its mesh arrays are the shape's triangles, except a moving mesh's of
  // more than kContactTriangles, which meets other bodies through a coarser copy.
  void build(const BodyGeometry& geometry, bool dynamic);
  bool built_from(const BodyGeometry& geometry) const;  ///< the same shape and sizes or arrays
  size_t contact_triangles() const;  ///< a mesh's triangles as Bullet sees them (0: not a mesh)
  btCollisionShape* get() const { return shape_.get(); }

 private:
  BodyGeometry geometry_;
  // A moving mesh's contact surface when coarser than its own (rigid_shape.cpp).
  std::vector<Vec3> contact_vertices_;
  std::vector<uint32_t> contact_indices_;
  std::unique_ptr<btTriangleIndexVertexArray> mesh_;
  std::unique_ptr<btCollisionShape> shape_;  // (destroyed before the mesh it reads)
};

}  // namespace tp
