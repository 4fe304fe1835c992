// Closed, outward-facing triangle meshes of simple solids, made in code: for the tests and
// benchmarks of the mesh colliders (against the shapes' exact distances and mass properties),
// and for a primitive body that wants its surface as a mesh.
#pragma once

#include "sim/bodies/triangle_mesh.h"

namespace tp {

// A box centred on the origin, each face split into `divisions` x `divisions` squares (two
// triangles each).
TriangleSoup make_box_mesh(Vec3 half_extents, int divisions = 1);

// A sphere centred on the origin: `rings` bands of latitude (>= 2) by `segments` around y
// (>= 3), single vertices at the poles; 2 segments (rings - 1) triangles.
TriangleSoup make_sphere_mesh(float radius, int rings, int segments);

// A torus about y: the circle of radius `tube` swept around the circle of radius `radius` in
// the x-z plane; `around` x `tube_segments` quads, 2 around tube_segments triangles.
TriangleSoup make_torus_mesh(float radius, float tube, int around, int tube_segments);

}  // namespace tp
