#include "sim/bodies/body_waterline.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

namespace tp {

namespace {

// The farthest the body reaches from its centre horizontally [m] (a bound).
float horizontal_reach(const BodySpec& b) {
  const Quat q = b.pose.orientation;
  auto reach_of = [&](Vec3 local) {
    const Vec3 w = rotate(q, local);
    return std::sqrt(w.x * w.x + w.z * w.z);
  };
  if (b.shape == int(BodyShapeKind::Sphere)) return b.radius;
  if (b.shape == int(BodyShapeKind::Capsule)) return b.radius + reach_of(Vec3{0.0f, b.half_height, 0.0f});
  Vec3 lo{-b.half_extent.x, -b.half_extent.y, -b.half_extent.z}, hi = b.half_extent;
  if (b.shape == int(BodyShapeKind::Mesh) && b.mesh) lo = b.mesh->lo, hi = b.mesh->hi;
  float most = 0.0f;
  for (int c = 0; c < 8; ++c)
    most = std::max(most, reach_of(Vec3{c & 1 ? hi.x : lo.x, c & 2 ? hi.y : lo.y, c & 4 ? hi.z : lo.z}));
  return most;
}

}  // namespace

void body_vertical_extent(const BodySpec& b, float* lowest, float* highest) {
  const Quat q = b.pose.orientation;
  const float y = b.pose.position.y;
  float half = 0.0f;
  if (b.shape == int(BodyShapeKind::Sphere)) {
    half = b.radius;
  } else if (b.shape == int(BodyShapeKind::Capsule)) {
    half = b.radius + std::fabs(rotate(q, Vec3{0.0f, b.half_height, 0.0f}).y);
  } else {
    Vec3 lo{-b.half_extent.x, -b.half_extent.y, -b.half_extent.z}, hi = b.half_extent;
    if (b.shape == int(BodyShapeKind::Mesh) && b.mesh) lo = b.mesh->lo, hi = b.mesh->hi;
    float top = -1e30f, bottom = 1e30f;
    for (int c = 0; c < 8; ++c) {
      const float cy = rotate(q, Vec3{c & 1 ? hi.x : lo.x, c & 2 ? hi.y : lo.y, c & 4 ? hi.z : lo.z}).y;
      top = std::max(top, cy);
      bottom = std::min(bottom, cy);
    }
    *lowest = y + bottom;
    *highest = y + top;
    return;
  }
  *lowest = y - half;
  *highest = y + half;
}

BodyWaterline body_waterline(const BodySpec& body, const Vec4* particles, size_t n, float spacing, int dimensions) {
  BodyWaterline out;
  if (!particles || n == 0 || !(spacing > 0.0f)) return out;
  const Vec3 c = body.pose.position;
  const float inner = horizontal_reach(body) + 0.5f * spacing, outer = inner + 3.5f * spacing;
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
