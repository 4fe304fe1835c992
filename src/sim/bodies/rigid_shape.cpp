// Collision shapes of the rigid world (rigid_shape.h).
#include "sim/bodies/rigid_shape.h"

#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <btBulletCollisionCommon.h>

#include <algorithm>

namespace tp {
namespace {

// Bullet rounds a box's edges by its collision margin (keeping its outer size) and GJK
// works on the rounded shape: Bullet's 4 cm default is half the height of a small box.
float box_margin(Vec3 h) { return std::min(0.004f, 0.1f * std::min(h.x, std::min(h.y, h.z))); }
constexpr float kMeshMargin = 0.001f;  // [m] a dynamic mesh's triangles, inflated by this

}  // namespace

CollisionShape::CollisionShape() = default;
CollisionShape::~CollisionShape() = default;
CollisionShape::CollisionShape(CollisionShape&&) noexcept = default;
CollisionShape& CollisionShape::operator=(CollisionShape&&) noexcept = default;

bool CollisionShape::built_from(const BodyGeometry& g) const {
  const BodyGeometry& a = geometry_;
  if (!shape_ || a.shape != g.shape) return false;
  switch (g.shape) {
    case BodyShape::Sphere:
      return a.radius == g.radius;
    case BodyShape::Box:
      return a.half_extent.x == g.half_extent.x && a.half_extent.y == g.half_extent.y &&
             a.half_extent.z == g.half_extent.z;
    case BodyShape::Capsule:
      return a.radius == g.radius && a.half_height == g.half_height;
    case BodyShape::Mesh:
      return a.mesh_vertices == g.mesh_vertices && a.mesh_indices == g.mesh_indices;
  }
  return false;
}

void CollisionShape::build(const BodyGeometry& g, bool dynamic) {
  shape_.reset();
  mesh_.reset();
  geometry_ = g;
  switch (g.shape) {
    case BodyShape::Sphere:
      shape_ = std::make_unique<btSphereShape>(g.radius);
      break;
    case BodyShape::Box:
      shape_ = std::make_unique<btBoxShape>(
          btVector3(g.half_extent.x, g.half_extent.y, g.half_extent.z));
      shape_->setMargin(box_margin(g.half_extent));
      break;
    case BodyShape::Capsule:  // along local y; Bullet's height is the cylinder's length
      shape_ = std::make_unique<btCapsuleShape>(g.radius, 2.0f * g.half_height);
      break;
    case BodyShape::Mesh: {
      btIndexedMesh part;
      part.m_numTriangles = static_cast<int>(g.mesh_indices->size() / 3);
      part.m_triangleIndexBase = reinterpret_cast<const unsigned char*>(g.mesh_indices->data());
      part.m_triangleIndexStride = 3 * sizeof(uint32_t);
      part.m_numVertices = static_cast<int>(g.mesh_vertices->size());
      part.m_vertexBase = reinterpret_cast<const unsigned char*>(g.mesh_vertices->data());
      part.m_vertexStride = sizeof(Vec3);
      part.m_indexType = PHY_INTEGER;
      part.m_vertexType = PHY_FLOAT;
      mesh_ = std::make_unique<btTriangleIndexVertexArray>();
      mesh_->addIndexedMesh(part, PHY_INTEGER);
      if (dynamic) {
        auto gimpact = std::make_unique<btGImpactMeshShape>(mesh_.get());
        gimpact->setMargin(kMeshMargin);
        gimpact->updateBound();  // its tree of triangles, built once
        shape_ = std::move(gimpact);
      } else {
        shape_ = std::make_unique<btBvhTriangleMeshShape>(mesh_.get(), true, true);
      }
      break;
    }
  }
}

}  // namespace tp
