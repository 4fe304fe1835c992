// A rigid body as the host sees it: its shape, mass and material (the definition, fixed
// while it lives) and its state (pose and motion, which a step changes and a state file
// saves). The mass helpers give the volume and the principal moments of inertia of each
// shape, for a body of uniform density. src/sim/bodies/rigid_world.h steps them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/rigid_body.h"

namespace tp {

enum class BodyShape : int { Sphere, Box, Capsule, Mesh };

// In the body's own frame, centred on its centre of mass, axes along its principal axes of
// inertia. Only the fields of the shape count.
struct BodyGeometry {
  BodyShape shape = BodyShape::Box;
  float radius = 0.0f;                 ///< [m] sphere, capsule
  Vec3 half_extent{0.0f, 0.0f, 0.0f};  ///< [m] box
  float half_height = 0.0f;            ///< [m] capsule: half the cylinder's length, along local y
  /// Mesh: a closed triangle mesh, already in the principal frame (centroid at the origin).
  std::shared_ptr<const std::vector<Vec3>> mesh_vertices;     ///< [m]
  std::shared_ptr<const std::vector<uint32_t>> mesh_indices;  ///< 3 per triangle
};

BodyGeometry sphere_geometry(float radius);
BodyGeometry box_geometry(Vec3 half_extent);
BodyGeometry capsule_geometry(float radius, float half_height);
BodyGeometry mesh_geometry(std::vector<Vec3> vertices, std::vector<uint32_t> indices);

// Coefficients of a surface. Where two surfaces touch, each coefficient is the geometric
// mean of the two (sqrt(a b), as Box2D's friction): equal materials keep their value, and a
// coefficient of 0 on either side wins.
struct BodyMaterial {
  float friction = 0.5f;     ///< Coulomb's mu, >= 0
  float restitution = 0.1f;  ///< in [0, 1]: the share of the normal speed kept by a bounce
};

struct RigidBodyDef {
  BodyGeometry geometry;
  float mass = 1.0f;               ///< [kg] > 0 (ignored by a kinematic body)
  Vec3 inertia{1.0f, 1.0f, 1.0f};  ///< [kg m^2] principal moments about the body's axes, > 0
  bool kinematic = false;          ///< moves only by its own velocities; pushes, is never pushed
  int axle = -1;  ///< 0, 1, 2: pinned where it is, turning about the world's x, y or z only
  BodyMaterial material;
};

struct RigidBodyState {
  RigidPose pose{{0.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f, 0.0f}};
  RigidMotion motion{{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
};

// What is wrong with a geometry, a material or a definition, as a sentence ("" when sound):
// sizes finite and in [1e-4, 1e4] m, a mesh with whole triangles whose indices are in range
// and finite vertices; mu >= 0, restitution in [0, 1]; mass and moments finite and > 0
// (unless kinematic).
std::string geometry_problem(const BodyGeometry& geometry);
std::string material_problem(const BodyMaterial& material);
std::string body_def_problem(const RigidBodyDef& def);

// ---- volumes [m^3] and principal moments of inertia [kg m^2] of uniform bodies -----------
float sphere_volume(float radius);
float box_volume(Vec3 half_extent);
float capsule_volume(float radius, float half_height);
Vec3 sphere_inertia(float mass, float radius);
Vec3 box_inertia(float mass, Vec3 half_extent);
Vec3 capsule_inertia(float mass, float radius, float half_height);  ///< axis along local y

// A closed, consistently wound (counter-clockwise seen from outside) triangle mesh of
// uniform density: its volume, centroid, and inertia tensor about the centroid (symmetric;
// xx, yy, zz, xy, xz, yz). The principal frame is where the last three vanish.
struct MeshMassProperties {
  float volume = 0.0f;                    ///< [m^3]
  Vec3 centroid{0.0f, 0.0f, 0.0f};        ///< [m]
  float inertia[6] = {0, 0, 0, 0, 0, 0};  ///< [kg m^2] for the given density
};
MeshMassProperties mesh_mass_properties(const std::vector<Vec3>& vertices,
                                        const std::vector<uint32_t>& indices, float density);
float geometry_volume(const BodyGeometry& geometry);  ///< any shape

// The definition of a uniform body of this shape and density [kg/m^3] (a mesh must be in its
// principal frame: its off-diagonal products of inertia are dropped).
RigidBodyDef uniform_body(const BodyGeometry& geometry, float density, BodyMaterial material = {});

}  // namespace tp
