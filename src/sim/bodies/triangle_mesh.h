// Triangle meshes for colliders and bodies: read from OBJ (tinyobjloader, triangulated) or PLY
// (ascii, binary_little_endian; our own reader, ply_reader.cpp), their vertices welded by
// position so that the surface's closedness can be checked (check_closed). A collider must
// be a closed surface: the caller refuses the others with closed_mesh_problem's sentence.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels/common.h"

namespace tp {

// Triangles as three indices into the vertices, counter-clockwise seen from outside (the
// right-hand normal points out of the solid).
struct TriangleSoup {
  std::vector<Vec3> vertices;                      ///< [m]
  std::vector<std::array<uint32_t, 3>> triangles;  ///< indices into vertices
};

// The mesh in `path` (.obj or .ply, by the extension, either case), its coordinates multiplied
// by `scale`, with its vertices welded (weld_vertices). Nothing, and a sentence naming the file
// in *error, for a missing or unreadable file, a malformed one, one without triangles, and
// coordinates that are not finite. `scale` must be finite and > 0.
std::optional<TriangleSoup> load_triangle_mesh(const std::string& path, float scale,
                                               std::string* error);

// The same for the text of a file (`name` is the file's name in messages; its extension says
// the format). What load_triangle_mesh does after reading the bytes.
std::optional<TriangleSoup> parse_triangle_mesh(std::string_view bytes, const std::string& name,
                                                float scale, std::string* error);

// PLY, as read by ply_reader.cpp: the vertices' x, y, z and the faces' vertex lists, polygons
// split into fans. Nothing, and a sentence starting with `name`, for anything malformed.
std::optional<TriangleSoup> parse_ply(std::string_view bytes, const std::string& name,
                                      std::string* error);

// Vertices at the same position made one (a file's per-face copies, written for normals or
// texture coordinates); then triangles with a repeated vertex, which have no area, dropped.
// Returns the number of triangles dropped.
size_t weld_vertices(TriangleSoup* mesh);

// Closedness: every undirected edge shared by exactly two triangles that run along it in
// opposite directions (a closed, consistently oriented, edge-manifold surface).
struct MeshCheck {
  size_t open_edges = 0;         ///< edges of one triangle only (the boundary of a hole)
  size_t nonmanifold_edges = 0;  ///< edges of three or more triangles
  size_t misoriented_edges = 0;  ///< edges of two triangles running the same way along them
  std::vector<std::pair<Vec3, Vec3>> first_open;  ///< up to 3 open edges, as their end points
  std::vector<std::pair<Vec3, Vec3>> first_bad;   ///< up to 3 of the other two kinds
  bool closed() const {
    return open_edges == 0 && nonmanifold_edges == 0 && misoriented_edges == 0;
  }
};
MeshCheck check_closed(const TriangleSoup& mesh);

// The sentence that refuses a mesh that is not closed, naming the file (`name`) and what is
// wrong, e.g. "cup.obj: not closed: 12 open edges (first at (0.1, 0.2, 0)-(0.1, 0.3, 0)); a
// collider must be a closed surface". Empty for a closed mesh.
std::string closed_mesh_problem(const std::string& name, const MeshCheck& check);

// A point as "(x, y, z)" with few digits, for messages.
std::string describe_point(Vec3 p);

// The box around the vertices.
void mesh_bounds(const TriangleSoup& mesh, Vec3* lo, Vec3* hi);

// A coarser copy of the surface for contacts between bodies (vertex clustering, Rossignac
// and Borrel 1993): the vertices in each cube of side `cell` (a grid from the mesh's lower
// corner) become one, at their mean; triangles that lose an edge, and repeats of a kept
// one, are dropped. Every vertex moves by less than the cube's diagonal; the result need
// not be closed or manifold (Bullet's GImpact does not ask it to be). `cell` > 0.
TriangleSoup cluster_vertices(const TriangleSoup& mesh, float cell);

}  // namespace tp
