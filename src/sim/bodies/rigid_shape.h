// Bullet's collision shape of a body or static collider (for rigid_world.cpp; Bullet's types
// are only named here): built from a BodyGeometry, then immutable (Bullet reads it, never
// writes it), so it may live from step to step while the world around it is rebuilt.
#pragma once

#include <memory>

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
  // geometry is kept: its mesh arrays are the shape's triangles.
  void build(const BodyGeometry& geometry, bool dynamic);
  bool built_from(const BodyGeometry& geometry) const;  ///< the same shape and sizes or arrays
  btCollisionShape* get() const { return shape_.get(); }

 private:
  BodyGeometry geometry_;
  std::unique_ptr<btTriangleIndexVertexArray> mesh_;
  std::unique_ptr<btCollisionShape> shape_;  // (destroyed before the mesh it reads)
};

}  // namespace tp
