// A rigid body as a scene, a state file and the panel describe it: its shape, what it
// weighs, whether the water moves it, where it is and how it moves. The simulation samples
// its surface for the fluid (kernels/body_coupling.h) and integrates it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/rigid_body.h"
#include "sim/bodies/body_mesh.h"

namespace tp {

struct BodySpec {
  int shape = int(BodyShapeKind::Box);  ///< BodyShapeKind
  float radius = 0.1f;                  ///< [m] sphere, capsule
  Vec3 half_extent{0.1f, 0.1f, 0.1f};   ///< [m] box
  float half_height = 0.1f;             ///< [m] capsule: half its cylinder's length (local y)
  std::shared_ptr<const BodyMesh> mesh;  ///< mesh (3D only): the file's shape, principal frame
  int axle = -1;  ///< 0, 1, 2: pinned at its centre of mass, turning about the world's x, y or z only
  float density = 500.0f;               ///< [kg/m^3]; the mass follows from it
  float mass = 0.0f;                    ///< [kg] when > 0: the mass, and the density follows
  bool kinematic = false;               ///< moved by its velocity (or the user), never by the water
  float friction = 0.5f;                ///< [1] against other bodies and the tank
  float restitution = 0.1f;             ///< [1]
  RigidPose pose{{0.0f, 0.5f, 0.0f}, {1.0f, 0.0f, 0.0f, 0.0f}};
  RigidMotion motion{{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
};

// What a body weighs and how it turns. In 2D (the plane z = const) per metre of depth:
// the mass is the density times the shape's cut through its centre's plane, and only the
// moment about z counts.
struct BodyMass {
  float volume;   ///< [m^3] (2D: [m^2], the cut's area)
  float mass;     ///< [kg] (2D: [kg/m])
  Vec3 inertia;   ///< [kg m^2] principal moments about the centre of mass, body frame
};
BodyMass body_mass(const BodySpec& body, int dimensions);

// The body as the kernels see it (its shape and bound; pose and motion as given).
SolidBody solid_of(const BodySpec& body);

// Whether fluid at world point `x` is displaced by a body (its `solid`, solid_of, at `pose`):
// inside it or closer than kDisplacedMargin spacings to its surface. A body placed where the
// water is (a scene's load, the panel's Add) takes the place of that water instead of
// bursting out of it.
constexpr float kDisplacedMargin = 0.4f;
inline bool displaces(const SolidBody& solid, const RigidPose& pose, Vec3 x, float spacing) {
  return solid_distance(solid, to_local(pose, x)) < kDisplacedMargin * spacing;
}

// What the shape is called in files and on screen: "sphere", "box", "capsule", "mesh".
const char* shape_name(const BodySpec& body);

// Points on the body's surface, in its own frame, about `spacing` apart: a layer inset by
// half a spacing from the surface the fluid rests on (the tank's walls and the obstacles
// also start half a spacing behind their faces). In 2D the outline of the cut through
// z = 0. Each point's w is the sum of W over the points of the same body around it on the
// same side of it (itself included; not a thin wall's far face, whose normals point the
// other way), from which body_sample_volume() makes its volume.
std::vector<Vec4> body_surface_samples(const BodySpec& body, float spacing, int dimensions);

// The ratio body_sample_volume() takes: the sum of W over one layer of an evenly spaced
// lattice (a plane in 3D, a line in 2D) over that of the full lattice, for h = 2 spacings.
float body_sample_flat_ratio(float spacing, int dimensions);

// Where a ray (origin o, unit direction d) first meets the body's surface: the distance
// along it, or a negative number when it misses (sphere tracing on solid_distance).
float ray_hit(const SolidBody& body, Vec3 o, Vec3 d);

// The body's smallest size across [m] (a box's shortest side, a sphere's or capsule's
// diameter, a mesh's box's shortest side): check_body wants two particle spacings in it.
float body_smallest_side(const BodySpec& body, int dimensions);

// The sentence for a body no simulation can take ("" when it is fine): shapes under two
// spacings across, densities outside [50, 20000] kg/m^3, non-finite values. `name` says
// which body ("bodies[2]").
std::string check_body(const BodySpec& body, float spacing, int dimensions, const std::string& name);

}  // namespace tp
