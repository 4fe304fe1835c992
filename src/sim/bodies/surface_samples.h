// Points on a body's surface about `spacing` apart, in the body's own frame, for the fluid
// coupling (the boundary samples that the water feels and that carry its forces to the body).
// Deterministic: the same shape and spacing give the same points in the same order.
//
// Primitives are sampled by construction: a sphere and a capsule (about y) as rings around
// their axis, staggered, at about 0.95 spacing along the profile and along each ring; a box
// face by face as a grid of at most `spacing` per side, shared edges and corners once. Their
// samples are at least 0.75 spacing apart (0.8 for spheres and capsules) and every surface
// point is within 0.75 spacing of one, for a radius of at least 0.8 spacing and box sides of
// at least 3 spacings (a shorter side gets fewer, wider divisions, keeping the 0.75 apart).
// A mesh is sampled by thinning dense candidates (rows about spacing / 10 apart on every
// triangle) greedily: first keeping those at least 0.85 spacing from every kept one, then
// adding those still more than 0.75 spacing from all, so that no two are closer than 0.75
// spacing and no candidate is farther than 0.75 from a sample. Distances are straight lines:
// the two sides of a wall thinner than the spacing share their samples.
#pragma once

#include <vector>

#include "sim/bodies/triangle_mesh.h"

namespace tp {

std::vector<Vec3> sample_mesh_surface(const TriangleSoup& mesh, float spacing);

// 3D: centred on the origin.
std::vector<Vec3> sample_sphere(float radius, float spacing);
std::vector<Vec3> sample_box(Vec3 half_extents, float spacing);
// A cylinder of `radius` along y from -half_height to half_height, capped by hemispheres.
std::vector<Vec3> sample_capsule(float radius, float half_height, float spacing);

// 2D: the outlines in the plane z = 0 of the shapes above cut by it, `spacing` apart along the
// outline (the sides' lengths divided evenly, a rectangle's corners among the points).
std::vector<Vec3> sample_circle(float radius, float spacing);
std::vector<Vec3> sample_rectangle(float half_x, float half_y, float spacing);
std::vector<Vec3> sample_stadium(float radius, float half_height, float spacing);

}  // namespace tp
