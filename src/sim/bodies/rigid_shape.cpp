// Collision shapes of the rigid world (rigid_shape.h).
#include "sim/bodies/rigid_shape.h"

#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <btBulletCollisionCommon.h>

#include <algorithm>

#include "sim/bodies/triangle_mesh.h"

namespace tp {
namespace {

// Bullet rounds a box's edges by its collision margin (keeping its outer size) and GJK
// works on the rounded shape: Bullet's 4 cm default is half the height of a small box.
float box_margin(Vec3 h) { return std::min(0.004f, 0.1f * std::min(h.x, std::min(h.y, h.z))); }
constexpr float kMeshMargin = 0.001f;  // [m] a dynamic mesh's triangles, inflated by this

// GImpact finds a moving mesh's contacts triangle pair by triangle pair, afresh each step:
// a duck of 4,816 triangles resting on a box cost the step 6.5 ms (PBF at real time, 4,000
// particles, one thread). Above this many triangles, a moving mesh meets other bodies through
// a copy with its vertices clustered (cluster_vertices), the cubes grown until it fits; the
// water still meets the full surface (its field and samples).
constexpr size_t kContactTriangles = 600;

// The clustered copy: cubes from 1/32 of the longest side, a quarter larger each round.
TriangleSoup contact_surface(const BodyGeometry& g) {
  TriangleSoup full;
  full.vertices = *g.mesh_vertices;
  full.triangles.resize(g.mesh_indices->size() / 3);
  for (size_t t = 0; t < full.triangles.size(); ++t)
    full.triangles[t] = {(*g.mesh_indices)[3 * t], (*g.mesh_indices)[3 * t + 1], (*g.mesh_indices)[3 * t + 2]};
  Vec3 lo, hi;
  mesh_bounds(full, &lo, &hi);
  float cell = std::max(hi.x - lo.x, std::max(hi.y - lo.y, hi.z - lo.z)) / 32.0f;
  TriangleSoup coarse = cluster_vertices(full, cell);
  for (int round = 0; round < 16 && coarse.triangles.size() > kContactTriangles; ++round) {
    cell *= 1.25f;
    coarse = cluster_vertices(full, cell);
  }
  return coarse.triangles.size() >= 4 ? coarse : full;  // (a mesh too small to cluster stays)
}

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

size_t CollisionShape::contact_triangles() const {
  if (geometry_.shape != BodyShape::Mesh || !mesh_) return 0;
  return contact_indices_.empty() ? geometry_.mesh_indices->size() / 3 : contact_indices_.size() / 3;
}

void CollisionShape::build(const BodyGeometry& g, bool dynamic) {
  shape_.reset();
  mesh_.reset();
  contact_vertices_.clear();
  contact_indices_.clear();
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
      const std::vector<Vec3>* vertices = g.mesh_vertices.get();
      const std::vector<uint32_t>* indices = g.mesh_indices.get();
      if (dynamic && indices->size() / 3 > kContactTriangles) {
        const TriangleSoup coarse = contact_surface(g);
        contact_vertices_ = coarse.vertices;
        contact_indices_.clear();
        for (const auto& t : coarse.triangles) contact_indices_.insert(contact_indices_.end(), t.begin(), t.end());
        vertices = &contact_vertices_;
        indices = &contact_indices_;
      }
      btIndexedMesh part;
      part.m_numTriangles = static_cast<int>(indices->size() / 3);
      part.m_triangleIndexBase = reinterpret_cast<const unsigned char*>(indices->data());
      part.m_triangleIndexStride = 3 * sizeof(uint32_t);
      part.m_numVertices = static_cast<int>(vertices->size());
      part.m_vertexBase = reinterpret_cast<const unsigned char*>(vertices->data());
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
