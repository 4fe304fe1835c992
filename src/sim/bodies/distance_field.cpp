#include "sim/bodies/distance_field.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace tp {
namespace {

Vec3 normalized_or_zero(Vec3 v) {
  const float n = length(v);
  return n > 0.0f ? v * (1.0f / n) : Vec3{0.0f, 0.0f, 0.0f};
}

// The angle between u and v (atan2 of |u x v| and u . v: accurate near 0 and pi).
float angle_between(Vec3 u, Vec3 v) { return std::atan2(length(cross(u, v)), dot(u, v)); }

constexpr size_t kMaxNodes = size_t(1) << 26;

}  // namespace

SignedDistance::SignedDistance(const TriangleSoup& mesh) : bvh_(mesh), triangles_(mesh.triangles) {
  const size_t n = mesh.triangles.size();
  face_normal_.resize(n);
  vertex_normal_.assign(mesh.vertices.size(), Vec3{0.0f, 0.0f, 0.0f});
  for (size_t t = 0; t < n; ++t) {
    const std::array<uint32_t, 3>& tri = mesh.triangles[t];
    const Vec3 p[3] = {mesh.vertices[tri[0]], mesh.vertices[tri[1]], mesh.vertices[tri[2]]};
    const Vec3 normal = normalized_or_zero(cross(p[1] - p[0], p[2] - p[0]));
    face_normal_[t] = normal;
    for (int k = 0; k < 3; ++k) {
      const float angle = angle_between(p[(k + 1) % 3] - p[k], p[(k + 2) % 3] - p[k]);
      vertex_normal_[tri[size_t(k)]] += normal * angle;
    }
  }
  // Each edge's triangles together (sorted by the edge's ends), their normals summed.
  struct Use {
    uint32_t lo, hi, slot;  ///< slot: 3 t + k
  };
  std::vector<Use> uses;
  uses.reserve(3 * n);
  for (size_t t = 0; t < n; ++t) {
    for (int k = 0; k < 3; ++k) {
      const uint32_t a = mesh.triangles[t][size_t(k)], b = mesh.triangles[t][size_t((k + 1) % 3)];
      uses.push_back(Use{std::min(a, b), std::max(a, b), uint32_t(3 * t + size_t(k))});
    }
  }
  std::sort(uses.begin(), uses.end(), [](const Use& a, const Use& b) {
    return a.lo != b.lo ? a.lo < b.lo : (a.hi != b.hi ? a.hi < b.hi : a.slot < b.slot);
  });
  edge_normal_.resize(3 * n);
  for (size_t at = 0; at < uses.size();) {
    size_t end = at;
    Vec3 sum{0.0f, 0.0f, 0.0f};
    while (end < uses.size() && uses[end].lo == uses[at].lo && uses[end].hi == uses[at].hi) {
      sum += face_normal_[uses[end].slot / 3];
      ++end;
    }
    for (size_t u = at; u < end; ++u) edge_normal_[uses[u].slot] = sum;
    at = end;
  }
}

float SignedDistance::operator()(Vec3 p, uint32_t* hint) const {
  const ClosestPoint c = bvh_.closest_point(p, hint ? *hint : TriangleBvh::kNoHint);
  if (hint) *hint = c.triangle;
  Vec3 normal = face_normal_[c.triangle];
  switch (c.feature) {
    case TriangleFeature::Face:
      break;
    case TriangleFeature::Edge:
      normal = edge_normal_[3 * size_t(c.triangle) + c.index];
      break;
    case TriangleFeature::Vertex:
      normal = vertex_normal_[triangles_[c.triangle][c.index]];
      break;
  }
  return dot(p - c.point, normal) < 0.0f ? -c.distance : c.distance;
}

std::optional<DistanceField> build_distance_field(const TriangleSoup& mesh,
                                                  const DistanceFieldSettings& settings,
                                                  std::string* error) {
  const auto fail = [&](const std::string& why) -> std::optional<DistanceField> {
    if (error) *error = "distance field: " + why;
    return std::nullopt;
  };
  const auto start = std::chrono::steady_clock::now();
  if (mesh.triangles.empty()) return fail("the mesh has no triangles");
  if (settings.margin_cells < 1) return fail("the margin must be at least one cell");
  Vec3 lo, hi;
  mesh_bounds(mesh, &lo, &hi);
  if (!is_finite(lo) || !is_finite(hi)) return fail("the mesh has coordinates that are not finite");
  const Vec3 extent = hi - lo;
  const float longest = maxf(extent.x, maxf(extent.y, extent.z));
  const int margin = settings.margin_cells;
  float cell = settings.cell_size;
  if (!(cell > 0.0f)) {
    const int inner = settings.resolution - 1 - 2 * margin;
    if (inner < 1) {
      return fail("a resolution of " + std::to_string(settings.resolution) + " nodes leaves no " +
                  "room inside a margin of " + std::to_string(margin) + " cells");
    }
    cell = longest / float(inner);
  }
  if (!(cell > 0.0f) || !std::isfinite(cell))
    return fail("the mesh has no extent (a point or empty)");
  const auto nodes_along = [&](float e) {
    // (less a hair, so that a side of exactly k cells is not rounded up to k + 1)
    return int(std::ceil(double(e) / double(cell) - 1e-4)) + 1 + 2 * margin;
  };
  const double total =
      double(nodes_along(extent.x)) * nodes_along(extent.y) * nodes_along(extent.z);
  if (!(total <= double(kMaxNodes))) {
    return fail("a cell of " + std::to_string(cell) + " m over the mesh's box makes " +
                std::to_string(uint64_t(total)) + " nodes (at most " + std::to_string(kMaxNodes) +
                ")");
  }
  DistanceField field;
  field.cell = cell;
  field.dims = Int3{std::max(2, nodes_along(extent.x)), std::max(2, nodes_along(extent.y)),
                    std::max(2, nodes_along(extent.z))};
  const Vec3 centre = (lo + hi) * 0.5f;
  field.origin =
      centre - Vec3{float(field.dims.x - 1), float(field.dims.y - 1), float(field.dims.z - 1)} *
                   (0.5f * cell);
  field.value.resize(size_t(field.dims.x) * size_t(field.dims.y) * size_t(field.dims.z));

  const SignedDistance distance(mesh);
  const Int3 dims = field.dims;
  const Vec3 origin = field.origin;
  float* value = field.value.data();
  // A row along x per iteration: its nodes in order, each starting from the triangle closest
  // to the one before (the bound that prunes most of the tree at once).
#pragma omp parallel for collapse(2) schedule(dynamic, 4)
  for (int k = 0; k < dims.z; ++k) {
    for (int j = 0; j < dims.y; ++j) {
      uint32_t hint = TriangleBvh::kNoHint;
      float* row = value + (size_t(k) * size_t(dims.y) + size_t(j)) * size_t(dims.x);
      for (int i = 0; i < dims.x; ++i) {
        const Vec3 p = origin + Vec3{float(i), float(j), float(k)} * cell;
        row[i] = distance(p, &hint);
      }
    }
  }
  field.build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return field;
}

}  // namespace tp
