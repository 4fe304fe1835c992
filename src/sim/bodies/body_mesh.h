// A closed triangle mesh made a rigid body's shape (BodySpec::mesh): read once from its OBJ or
// PLY file, turned outward, moved into its principal frame (centre of mass at the origin,
// axes along the principal axes of inertia, as every body's frame is), with what the water
// and the contacts need of it: its signed distance field (the tank clamp's hard guarantee,
// kernels/distance_field.h), its mass properties per unit density and its triangles for
// Bullet. Immutable once built: bodies, state copies and resets share it.
#pragma once

#include <memory>
#include <string>

#include "sim/bodies/distance_field.h"
#include "sim/bodies/rigid_body.h"
#include "sim/bodies/triangle_mesh.h"

namespace tp {

struct BodyMesh {
  std::string file;  ///< the path it was read from (absolute)
  std::string name;  ///< the file's name, for messages
  float scale = 1.0f;
  TriangleSoup mesh;       ///< [m] in the principal frame
  BodyGeometry geometry;   ///< the same triangles, for the contacts
  float volume = 0.0f;     ///< [m^3]
  Vec3 unit_inertia{0, 0, 0};  ///< [m^5] principal moments per unit density (times it: kg m^2)
  Vec3 centroid{0, 0, 0};      ///< [m] the centre of mass in the file's frame
  Quat principal_to_file{1, 0, 0, 0};
  DistanceField field;  ///< in the principal frame
  Vec3 lo{0, 0, 0}, hi{0, 0, 0};  ///< the box around the principal-frame mesh
  float bound = 0.0f;             ///< [m] the farthest vertex from the centre of mass
};

// The mesh in `path` scaled by `scale`, made a body's shape, its distance field built at 64
// cells along its longest side (the build's time printed on stderr: "tidepool: cup.obj:
// 2,800 triangles, distance field 43 x 64 x 43 in 0.21 s"). Meshes already built for the
// same file and scale are shared (a cache in memory). Nothing, and a sentence naming the file
// in *error, for a file that cannot be read or parsed, a mesh that is not closed (its open
// edges named), or one with no volume.
std::shared_ptr<const BodyMesh> load_body_mesh(const std::string& path, float scale, std::string* error);

// The pose of a mesh body whose file's origin is placed at `origin` and whose file's axes
// are turned by `rotation` (as a scene places it), and back.
RigidPose mesh_body_pose(const BodyMesh& mesh, Vec3 origin, Quat rotation);
void mesh_file_pose(const BodyMesh& mesh, const RigidPose& pose, Vec3* origin, Quat* rotation);

}  // namespace tp
