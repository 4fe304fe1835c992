// Mesh files: binary PLY (the format ParaView, Blender and Houdini all read, with normals
// and a velocity per vertex) and Wavefront OBJ (text, on request). See docs/export.md.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sim/io/mesh_io.h"
#include "util/atomic_file.h"

namespace tp {

bool write_mesh_ply(const std::string& path, const TriangleMesh& m, std::string* error, double time) {
  const size_t n = m.position.size(), t = m.triangle_count();
  const bool vel = m.velocity.size() == n && n > 0;
  std::string header = "ply\nformat binary_little_endian 1.0\ncomment Tidepool water surface\n";
  if (time >= 0.0) {
    char line[64];
    std::snprintf(line, sizeof(line), "comment time %.9g s\n", time);
    header += line;
  }
  header += "element vertex " + std::to_string(n) +
            "\nproperty float x\nproperty float y\nproperty float z\n"
            "property float nx\nproperty float ny\nproperty float nz\n";
  if (vel) header += "property float vx\nproperty float vy\nproperty float vz\n";
  header += "element face " + std::to_string(t) + "\nproperty list uchar uint vertex_indices\nend_header\n";
  const size_t row = (vel ? 9 : 6) * sizeof(float), face = 1 + 3 * sizeof(uint32_t);
  std::vector<char> bytes(header.begin(), header.end());
  bytes.resize(header.size() + n * row + t * face);
  char* out = bytes.data() + header.size();
  for (size_t i = 0; i < n; ++i) {
    const float r[9] = {m.position[i].x, m.position[i].y, m.position[i].z, m.normal[i].x, m.normal[i].y,
                        m.normal[i].z, vel ? m.velocity[i].x : 0.0f, vel ? m.velocity[i].y : 0.0f,
                        vel ? m.velocity[i].z : 0.0f};
    std::memcpy(out, r, row);
    out += row;
  }
  for (size_t k = 0; k < t; ++k) {
    *out++ = 3;
    std::memcpy(out, &m.index[3 * k], 3 * sizeof(uint32_t));
    out += 3 * sizeof(uint32_t);
  }
  return write_file_atomic(path, bytes.data(), bytes.size(), error);
}

bool write_mesh_obj(const std::string& path, const TriangleMesh& m, std::string* error) {
  std::string text = "# Tidepool water surface: " + std::to_string(m.position.size()) + " vertices, " +
                     std::to_string(m.triangle_count()) + " triangles\n";
  text.reserve(m.position.size() * 64 + m.index.size() * 12);
  char line[128];
  for (const Vec3& p : m.position) {
    std::snprintf(line, sizeof(line), "v %.7g %.7g %.7g\n", p.x, p.y, p.z);
    text += line;
  }
  for (const Vec3& nrm : m.normal) {
    std::snprintf(line, sizeof(line), "vn %.6g %.6g %.6g\n", nrm.x, nrm.y, nrm.z);
    text += line;
  }
  for (size_t k = 0; k + 2 < m.index.size(); k += 3) {
    const unsigned a = m.index[k] + 1, b = m.index[k + 1] + 1, c = m.index[k + 2] + 1;  // 1-based
    std::snprintf(line, sizeof(line), "f %u//%u %u//%u %u//%u\n", a, a, b, b, c, c);
    text += line;
  }
  return write_file_atomic(path, text, error);
}

bool read_mesh_ply(const std::string& path, TriangleMesh* m, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = path + ": " + why;
    return false;
  };
  std::ifstream f(path, std::ios::binary);
  if (!f) return fail("cannot open");
  std::string line;
  size_t vertices = 0, faces = 0, properties = 0;
  bool in_vertex = false, binary = false;
  while (std::getline(f, line)) {
    if (line == "end_header") break;
    std::istringstream s(line);
    std::string word, kind;
    s >> word;
    if (word == "format") binary = line.find("binary_little_endian") != std::string::npos;
    if (word == "element") {
      s >> kind;
      in_vertex = kind == "vertex";
      (kind == "vertex" ? vertices : faces) = 0;
      if (kind == "vertex") s >> vertices;
      else if (kind == "face") s >> faces;
    }
    if (word == "property" && in_vertex) ++properties;
  }
  if (!f || !binary) return fail("not a binary little-endian PLY");
  if (properties != 6 && properties != 9) return fail("expected 6 or 9 float vertex properties");
  std::vector<float> rows(vertices * properties);
  f.read(reinterpret_cast<char*>(rows.data()), std::streamsize(rows.size() * sizeof(float)));
  m->position.resize(vertices);
  m->normal.resize(vertices);
  m->velocity.resize(properties == 9 ? vertices : 0);
  for (size_t i = 0; i < vertices; ++i) {
    const float* r = &rows[i * properties];
    m->position[i] = Vec3{r[0], r[1], r[2]};
    m->normal[i] = Vec3{r[3], r[4], r[5]};
    if (properties == 9) m->velocity[i] = Vec3{r[6], r[7], r[8]};
  }
  m->index.resize(faces * 3);
  for (size_t k = 0; k < faces; ++k) {
    unsigned char count = 0;
    f.read(reinterpret_cast<char*>(&count), 1);
    if (count != 3) return fail("a face that is not a triangle");
    f.read(reinterpret_cast<char*>(&m->index[3 * k]), 3 * sizeof(uint32_t));
  }
  if (!f) return fail("truncated");
  for (uint32_t i : m->index)
    if (i >= vertices) return fail("a face names a vertex that does not exist");
  return true;
}

}  // namespace tp
