#include "sim/bodies/triangle_mesh.h"

#include <tiny_obj_loader.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <unordered_map>

#include "util/paths.h"

namespace tp {
namespace {

bool fail(std::string* error, const std::string& message) {
  if (error) *error = message;
  return false;
}

// The coordinates of every 'v' line, checked before tinyobjloader reads them: its own number
// parser reads a word it does not know ("nan", "1,5") as 0, silently.
bool check_obj_vertices(std::string_view bytes, const std::string& name, std::string* error) {
  size_t at = 0;
  for (int line = 1; at < bytes.size(); ++line) {
    size_t end = bytes.find('\n', at);
    if (end == std::string_view::npos) end = bytes.size();
    const std::string_view text = bytes.substr(at, end - at);
    at = end + 1;
    if (text.size() < 2 || text[0] != 'v' || !std::isspace(static_cast<unsigned char>(text[1]))) {
      continue;
    }
    size_t from = 1;
    for (int k = 0; k < 3; ++k) {
      while (from < text.size() && std::isspace(static_cast<unsigned char>(text[from]))) ++from;
      size_t to = from;
      while (to < text.size() && !std::isspace(static_cast<unsigned char>(text[to]))) ++to;
      if (to == from) {
        return fail(error, name + ": line " + std::to_string(line) + ": a vertex needs x, y and z");
      }
      const std::string word(text.substr(from, to - from));
      from = to;
      char* stop = nullptr;
      const double value = std::strtod(word.c_str(), &stop);
      if (stop != word.c_str() + word.size() || !std::isfinite(value)) {
        return fail(error, name + ": line " + std::to_string(line) + ": '" + word +
                               "' is not a finite number");
      }
    }
  }
  return true;
}

// OBJ through tinyobjloader: every shape's faces, triangulated (the loader splits polygons;
// anything it leaves with more than three corners is split into a fan here).
std::optional<TriangleSoup> parse_obj(std::string_view bytes, const std::string& name,
                                      std::string* error) {
  if (!check_obj_vertices(bytes, name, error)) return std::nullopt;
  tinyobj::ObjReaderConfig config;
  config.triangulate = true;
  config.vertex_color = false;
  tinyobj::ObjReader reader;
  // No material file is read: the mesh's shape is all a collider needs.
  if (!reader.ParseFromString(std::string(bytes), std::string(), config)) {
    std::string why = reader.Error();
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
    fail(error, name + ": malformed OBJ file" + (why.empty() ? std::string() : " (" + why + ")"));
    return std::nullopt;
  }
  const tinyobj::attrib_t& attrib = reader.GetAttrib();
  TriangleSoup mesh;
  const size_t vertex_count = attrib.vertices.size() / 3;
  mesh.vertices.reserve(vertex_count);
  for (size_t v = 0; v < vertex_count; ++v) {
    mesh.vertices.push_back(
        Vec3{attrib.vertices[3 * v], attrib.vertices[3 * v + 1], attrib.vertices[3 * v + 2]});
  }
  for (const tinyobj::shape_t& shape : reader.GetShapes()) {
    const std::vector<tinyobj::index_t>& index = shape.mesh.indices;
    size_t at = 0;
    for (size_t f = 0; f < shape.mesh.num_face_vertices.size(); ++f) {
      const size_t corners = shape.mesh.num_face_vertices[f];
      if (at + corners > index.size()) {
        fail(error, name + ": malformed OBJ file (face " + std::to_string(f + 1) + " of '" +
                        shape.name + "' is cut short)");
        return std::nullopt;
      }
      for (size_t c = 0; c < corners; ++c) {
        const int v = index[at + c].vertex_index;
        if (v < 0 || size_t(v) >= vertex_count) {
          fail(error, name + ": malformed OBJ file (a face refers to vertex " +
                          std::to_string(v + 1) + " of " + std::to_string(vertex_count) + ")");
          return std::nullopt;
        }
      }
      for (size_t c = 1; c + 1 < corners; ++c) {
        mesh.triangles.push_back({uint32_t(index[at].vertex_index),
                                  uint32_t(index[at + c].vertex_index),
                                  uint32_t(index[at + c + 1].vertex_index)});
      }
      at += corners;
    }
  }
  return mesh;
}

struct PositionKey {
  uint32_t bits[3];
  bool operator==(const PositionKey& o) const {
    return bits[0] == o.bits[0] && bits[1] == o.bits[1] && bits[2] == o.bits[2];
  }
};
struct PositionHash {
  size_t operator()(const PositionKey& k) const {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t b : k.bits) h = (h ^ b) * 1099511628211ull;
    return size_t(h ^ (h >> 29));
  }
};
PositionKey key_of(Vec3 p) {
  // + 0.0f: -0 and +0 are the same position.
  const float c[3] = {p.x + 0.0f, p.y + 0.0f, p.z + 0.0f};
  PositionKey k;
  std::memcpy(k.bits, c, sizeof c);
  return k;
}

}  // namespace

std::string describe_point(Vec3 p) {
  char text[96];
  std::snprintf(text, sizeof text, "(%.4g, %.4g, %.4g)", double(p.x), double(p.y), double(p.z));
  return text;
}

void mesh_bounds(const TriangleSoup& mesh, Vec3* lo, Vec3* hi) {
  Vec3 a{0.0f, 0.0f, 0.0f}, b{0.0f, 0.0f, 0.0f};
  if (!mesh.vertices.empty()) a = b = mesh.vertices[0];
  for (const Vec3& v : mesh.vertices) {
    a = Vec3{minf(a.x, v.x), minf(a.y, v.y), minf(a.z, v.z)};
    b = Vec3{maxf(b.x, v.x), maxf(b.y, v.y), maxf(b.z, v.z)};
  }
  *lo = a;
  *hi = b;
}

size_t weld_vertices(TriangleSoup* mesh) {
  std::unordered_map<PositionKey, uint32_t, PositionHash> first;
  first.reserve(mesh->vertices.size());
  std::vector<uint32_t> remap(mesh->vertices.size());
  std::vector<Vec3> kept;
  kept.reserve(mesh->vertices.size());
  for (size_t v = 0; v < mesh->vertices.size(); ++v) {
    const auto [it, added] = first.emplace(key_of(mesh->vertices[v]), uint32_t(kept.size()));
    if (added) kept.push_back(mesh->vertices[v]);
    remap[v] = it->second;
  }
  mesh->vertices.swap(kept);
  size_t dropped = 0, out = 0;
  for (const std::array<uint32_t, 3>& t : mesh->triangles) {
    const std::array<uint32_t, 3> w{remap[t[0]], remap[t[1]], remap[t[2]]};
    if (w[0] == w[1] || w[1] == w[2] || w[0] == w[2]) {
      ++dropped;
      continue;
    }
    mesh->triangles[out++] = w;
  }
  mesh->triangles.resize(out);
  return dropped;
}

std::optional<TriangleSoup> parse_triangle_mesh(std::string_view bytes, const std::string& name,
                                                float scale, std::string* error) {
  if (!(std::isfinite(scale) && scale > 0.0f)) {
    fail(error,
         name + ": the scale must be a finite number > 0 (got " + std::to_string(scale) + ")");
    return std::nullopt;
  }
  const std::string ext = lower_extension(name);
  std::optional<TriangleSoup> mesh;
  if (ext == "obj") {
    mesh = parse_obj(bytes, name, error);
  } else if (ext == "ply") {
    mesh = parse_ply(bytes, name, error);
  } else {
    fail(error, name + ": unknown mesh format '." + ext + "' (a mesh is an .obj or a .ply file)");
    return std::nullopt;
  }
  if (!mesh) return std::nullopt;
  for (size_t v = 0; v < mesh->vertices.size(); ++v) {
    Vec3& p = mesh->vertices[v];
    p = p * scale;
    if (!is_finite(p)) {
      fail(error, name + ": vertex " + std::to_string(v + 1) + " has a coordinate that is not a " +
                      "finite number " + describe_point(p));
      return std::nullopt;
    }
  }
  weld_vertices(&*mesh);
  if (mesh->triangles.empty()) {
    fail(error, name + ": no triangles (a mesh needs faces with area)");
    return std::nullopt;
  }
  return mesh;
}

std::optional<TriangleSoup> load_triangle_mesh(const std::string& path, float scale,
                                               std::string* error) {
  std::error_code code;
  if (std::filesystem::is_directory(path, code)) {
    fail(error, path + ": is a folder, not a mesh file");
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fail(error, path + ": cannot open the mesh file (" + std::strerror(errno) + ")");
    return std::nullopt;
  }
  std::string bytes;
  try {  // (a read error inside the stream buffer throws, whatever the stream's mask)
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::exception& e) {
    fail(error, path + ": cannot read the mesh file (" + e.what() + ")");
    return std::nullopt;
  }
  if (in.bad()) {
    fail(error, path + ": cannot read the mesh file");
    return std::nullopt;
  }
  return parse_triangle_mesh(bytes, path, scale, error);
}

MeshCheck check_closed(const TriangleSoup& mesh) {
  // Every triangle's three directed edges, keyed by their undirected pair: sorted, an edge's
  // uses lie together.
  struct Use {
    uint32_t lo, hi;
    bool forward;  ///< runs lo -> hi
  };
  std::vector<Use> uses;
  uses.reserve(mesh.triangles.size() * 3);
  for (const std::array<uint32_t, 3>& t : mesh.triangles) {
    for (int e = 0; e < 3; ++e) {
      const uint32_t a = t[e], b = t[(e + 1) % 3];
      uses.push_back(Use{std::min(a, b), std::max(a, b), a < b});
    }
  }
  std::sort(uses.begin(), uses.end(), [](const Use& a, const Use& b) {
    return a.lo != b.lo ? a.lo < b.lo : (a.hi != b.hi ? a.hi < b.hi : a.forward < b.forward);
  });
  MeshCheck check;
  const auto ends = [&](const Use& u) {
    return std::make_pair(mesh.vertices[u.lo], mesh.vertices[u.hi]);
  };
  for (size_t at = 0; at < uses.size();) {
    size_t end = at + 1;
    size_t forward = uses[at].forward ? 1 : 0;
    while (end < uses.size() && uses[end].lo == uses[at].lo && uses[end].hi == uses[at].hi) {
      forward += uses[end].forward ? 1 : 0;
      ++end;
    }
    const size_t count = end - at;
    if (count == 1) {
      ++check.open_edges;
      if (check.first_open.size() < 3) check.first_open.push_back(ends(uses[at]));
    } else if (count > 2 || forward != 1) {
      ++(count > 2 ? check.nonmanifold_edges : check.misoriented_edges);
      if (check.first_bad.size() < 3) check.first_bad.push_back(ends(uses[at]));
    }
    at = end;
  }
  return check;
}

std::string closed_mesh_problem(const std::string& name, const MeshCheck& check) {
  if (check.closed()) return std::string();
  std::ostringstream out;
  out << name << ": not closed: ";
  const char* sep = "";
  const auto edge = [](const std::pair<Vec3, Vec3>& e) {
    return describe_point(e.first) + "-" + describe_point(e.second);
  };
  if (check.open_edges > 0) {
    out << check.open_edges << " open edge" << (check.open_edges == 1 ? "" : "s") << " (first at "
        << edge(check.first_open.front()) << ")";
    sep = ", ";
  }
  if (check.nonmanifold_edges > 0) {
    out << sep << check.nonmanifold_edges << " edge" << (check.nonmanifold_edges == 1 ? "" : "s")
        << " shared by more than two triangles";
    sep = ", ";
  }
  if (check.misoriented_edges > 0) {
    out << sep << check.misoriented_edges << " edge" << (check.misoriented_edges == 1 ? "" : "s")
        << " between triangles facing opposite ways";
  }
  if (check.open_edges == 0 && !check.first_bad.empty()) {
    out << " (first at " << edge(check.first_bad.front()) << ")";
  }
  out << "; a collider must be a closed surface";
  return out.str();
}

TriangleSoup cluster_vertices(const TriangleSoup& mesh, float cell) {
  TriangleSoup out;
  if (mesh.vertices.empty() || !(cell > 0.0f)) return out;
  Vec3 lo, hi;
  mesh_bounds(mesh, &lo, &hi);
  // (Cube indices are packed 21 bits an axis: a cell that fine keeps the mesh as it is.)
  const float extent = std::max(hi.x - lo.x, std::max(hi.y - lo.y, hi.z - lo.z));
  if (!(extent / cell < float(1 << 20))) return mesh;
  const auto cube = [&](Vec3 v) {
    const uint64_t i = uint64_t(std::max(0.0f, std::floor((v.x - lo.x) / cell)));
    const uint64_t j = uint64_t(std::max(0.0f, std::floor((v.y - lo.y) / cell)));
    const uint64_t k = uint64_t(std::max(0.0f, std::floor((v.z - lo.z) / cell)));
    return (i << 42) | (j << 21) | k;  // (2^21 cubes a side is far beyond any use)
  };
  std::unordered_map<uint64_t, uint32_t> index;
  std::vector<uint32_t> remap(mesh.vertices.size());
  std::vector<Vec3> sum;
  std::vector<uint32_t> count;
  for (size_t v = 0; v < mesh.vertices.size(); ++v) {
    const auto [it, added] = index.emplace(cube(mesh.vertices[v]), uint32_t(sum.size()));
    if (added) {
      sum.push_back(Vec3{0.0f, 0.0f, 0.0f});
      count.push_back(0);
    }
    remap[v] = it->second;
    sum[it->second] = sum[it->second] + mesh.vertices[v];
    ++count[it->second];
  }
  out.vertices.resize(sum.size());
  for (size_t c = 0; c < sum.size(); ++c) out.vertices[c] = sum[c] * (1.0f / float(count[c]));
  std::unordered_map<uint64_t, char> seen;  // kept triangles, by their sorted corners
  for (const std::array<uint32_t, 3>& t : mesh.triangles) {
    const std::array<uint32_t, 3> w{remap[t[0]], remap[t[1]], remap[t[2]]};
    if (w[0] == w[1] || w[1] == w[2] || w[0] == w[2]) continue;
    // Corners that the means made collinear: no area, no normal (Bullet would divide by 0).
    const Vec3 a = out.vertices[w[0]], b = out.vertices[w[1]], c = out.vertices[w[2]];
    if (!(length(cross(b - a, c - a)) > 1e-6f * cell * cell)) continue;
    std::array<uint64_t, 3> sorted{w[0], w[1], w[2]};
    std::sort(sorted.begin(), sorted.end());
    const bool packable = out.vertices.size() < (size_t(1) << 21);  // (else repeats stay)
    if (packable && !seen.emplace((sorted[0] << 42) | (sorted[1] << 21) | sorted[2], 1).second) continue;
    out.triangles.push_back(w);
  }
  return out;
}

}  // namespace tp
