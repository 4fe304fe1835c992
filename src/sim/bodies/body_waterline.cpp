#include "sim/bodies/body_waterline.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

namespace tp {

namespace {

// Calls f(p) for each point that bounds a box or a mesh, turned to the world's axes, relative
// to its centre: a mesh's vertices, else a box's corners. (A sphere's and a capsule's
// extents are in closed form.)
template <class F>
void for_each_turned_point(const BodySpec& b, F&& f) {
  const Quat q = b.pose.orientation;
  if (b.shape == int(BodyShapeKind::Mesh) && b.mesh && !b.mesh->mesh.vertices.empty()) {
    for (const Vec3& v : b.mesh->mesh.vertices) f(rotate(q, v));
    return;
  }
  const Vec3 h = b.half_extent;
  for (int c = 0; c < 8; ++c) f(rotate(q, Vec3{c & 1 ? h.x : -h.x, c & 2 ? h.y : -h.y, c & 4 ? h.z : -h.z}));
}

// The farthest the body reaches from its centre horizontally [m]: in x and z, in 2D in x
// alone (a 2D body's size in z means nothing).
float horizontal_reach(const BodySpec& b, int dimensions) {
  const auto across = [&](Vec3 w) { return dimensions == 2 ? std::fabs(w.x) : std::sqrt(w.x * w.x + w.z * w.z); };
  if (b.shape == int(BodyShapeKind::Capsule))
    return b.radius + across(rotate(b.pose.orientation, Vec3{0.0f, b.half_height, 0.0f}));
  if (b.shape == int(BodyShapeKind::Sphere)) return b.radius;
  float most = 0.0f;
  for_each_turned_point(b, [&](Vec3 w) { most = std::max(most, across(w)); });
  return most;
}

}  // namespace

void body_vertical_extent(const BodySpec& b, float* lowest, float* highest) {
  float bottom = 0.0f, top = 0.0f;
  if (b.shape == int(BodyShapeKind::Capsule)) {
    top = b.radius + std::fabs(rotate(b.pose.orientation, Vec3{0.0f, b.half_height, 0.0f}).y);
    bottom = -top;
  } else if (b.shape == int(BodyShapeKind::Sphere)) {
    top = b.radius;
    bottom = -top;
  } else {
    // A mesh's vertices, not its box in its principal frame turned, which reaches lower (the
    // duck's principal axes lean 24 degrees: 4.4 cm too low).
    bottom = 1e30f;
    top = -1e30f;
    for_each_turned_point(b, [&](Vec3 w) {
      bottom = std::min(bottom, w.y);
      top = std::max(top, w.y);
    });
  }
  *lowest = b.pose.position.y + bottom;
  *highest = b.pose.position.y + top;
}

BodyWaterline body_waterline(const BodySpec& body, const Vec4* particles, size_t n, float spacing, int dimensions) {
  BodyWaterline out;
  if (!particles || n == 0 || !(spacing > 0.0f)) return out;
  const Vec3 c = body.pose.position;
  const float inner = horizontal_reach(body, dimensions) + 0.5f * spacing, outer = inner + 3.5f * spacing;
  const float cell = 2.0f * spacing;
  // Each column's highest particle, keyed by its cell (x, z) around the centre.
  std::unordered_map<long long, float> top;
  for (size_t i = 0; i < n; ++i) {
    const Vec4 p = particles[i];
    const float dx = p.x - c.x, dz = dimensions == 2 ? 0.0f : p.z - c.z;
    const float r = std::sqrt(dx * dx + dz * dz);
    if (!(r >= inner && r <= outer)) continue;
    const long long key = (long long)(std::floor(dx / cell)) * 1000003LL + (long long)(std::floor(dz / cell));
    auto it = top.find(key);
    if (it == top.end()) top.emplace(key, p.y);
    else it->second = std::max(it->second, p.y);
  }
  if (top.empty()) return out;
  std::vector<float> heights;
  heights.reserve(top.size());
  for (const auto& [key, y] : top) heights.push_back(y);
  std::nth_element(heights.begin(), heights.begin() + heights.size() / 2, heights.end());
  float lowest = 0.0f, highest = 0.0f;
  body_vertical_extent(body, &lowest, &highest);
  out.found = true;
  out.surface = heights[heights.size() / 2] + 0.5f * spacing;
  out.depth = out.surface - lowest;
  out.height = highest - lowest;
  return out;
}

}  // namespace tp
