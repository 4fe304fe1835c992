// Mesh files: the water's surface mesh (sim/mesh/mesh.h) written and read back.
#pragma once

#include <string>

#include "sim/mesh/mesh.h"

namespace tp {

// Binary little-endian PLY (x y z nx ny nz [vx vy vz], faces as uchar-counted uint lists)
// and Wavefront OBJ (v, vn, f v//vn), written atomically (src/util/atomic_file.h).
bool write_mesh_ply(const std::string& path, const TriangleMesh& m, std::string* error, double time = -1.0);
bool write_mesh_obj(const std::string& path, const TriangleMesh& m, std::string* error);
// Reads what write_mesh_ply wrote (and binary PLY meshes laid out the same way).
bool read_mesh_ply(const std::string& path, TriangleMesh* m, std::string* error);

}  // namespace tp
