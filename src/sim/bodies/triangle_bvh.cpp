#include "sim/bodies/triangle_bvh.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tp {
namespace {

TrianglePoint on_segment(Vec3 p, Vec3 a, Vec3 b, uint8_t edge) {
  const Vec3 ab = b - a;
  const float len2 = dot(ab, ab);
  const float t = len2 > 0.0f ? clampf(dot(p - a, ab) / len2, 0.0f, 1.0f) : 0.0f;
  if (t <= 0.0f) return TrianglePoint{a, TriangleFeature::Vertex, edge};
  if (t >= 1.0f) return TrianglePoint{b, TriangleFeature::Vertex, uint8_t((edge + 1) % 3)};
  return TrianglePoint{a + ab * t, TriangleFeature::Edge, edge};
}

// A triangle without area: the nearest of its three edges.
TrianglePoint on_degenerate(Vec3 p, Vec3 a, Vec3 b, Vec3 c) {
  const TrianglePoint e[3] = {on_segment(p, a, b, 0), on_segment(p, b, c, 1),
                              on_segment(p, c, a, 2)};
  int best = 0;
  for (int k = 1; k < 3; ++k) {
    if (length2(p - e[k].point) < length2(p - e[best].point)) best = k;
  }
  return e[best];
}

struct Box {
  Vec3 lo{std::numeric_limits<float>::max(), std::numeric_limits<float>::max(),
          std::numeric_limits<float>::max()};
  Vec3 hi{-std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
          -std::numeric_limits<float>::max()};
  void grow(Vec3 p) {
    lo = Vec3{minf(lo.x, p.x), minf(lo.y, p.y), minf(lo.z, p.z)};
    hi = Vec3{maxf(hi.x, p.x), maxf(hi.y, p.y), maxf(hi.z, p.z)};
  }
  void grow(const Box& b) {
    grow(b.lo);
    grow(b.hi);
  }
  float area() const {
    if (hi.x < lo.x) return 0.0f;
    const Vec3 e = hi - lo;
    return e.x * e.y + e.y * e.z + e.z * e.x;
  }
};

float axis(Vec3 v, int k) { return k == 0 ? v.x : (k == 1 ? v.y : v.z); }

// The squared distance from p to the box [lo, hi] (0 inside).
float box_distance2(Vec3 p, Vec3 lo, Vec3 hi) {
  const float dx = maxf(maxf(lo.x - p.x, p.x - hi.x), 0.0f);
  const float dy = maxf(maxf(lo.y - p.y, p.y - hi.y), 0.0f);
  const float dz = maxf(maxf(lo.z - p.z, p.z - hi.z), 0.0f);
  return dx * dx + dy * dy + dz * dz;
}

constexpr int kBins = 16;
constexpr uint32_t kLeafMax = 4;  ///< at most this many triangles stay in a leaf

}  // namespace

// Regions, with ab = b - a, ac = c - a and the dot products d1..d6 of ab and ac with p - a,
// p - b and p - c: corner a where p is behind both edges leaving a (d1, d2 <= 0), likewise b
// and c; edge ab where p is beyond ab's line on the far side from c and between a and b (the
// barycentric vc <= 0, d1 >= 0, d3 <= 0), likewise ca (vb) and bc (va); else the face, at
// barycentric (va, vb, vc) / (va + vb + vc).
namespace {
// (Inline in the query's loop: the function below is its public name.)
TP_INLINE TrianglePoint closest_on_triangle(Vec3 p, Vec3 a, Vec3 b, Vec3 c) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const float d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0.0f && d2 <= 0.0f) return TrianglePoint{a, TriangleFeature::Vertex, 0};
  const Vec3 bp = p - b;
  const float d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0.0f && d4 <= d3) return TrianglePoint{b, TriangleFeature::Vertex, 1};
  const float vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) {
    const float den = d1 - d3;
    return TrianglePoint{den > 0.0f ? a + ab * (d1 / den) : a, TriangleFeature::Edge, 0};
  }
  const Vec3 cp = p - c;
  const float d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0.0f && d5 <= d6) return TrianglePoint{c, TriangleFeature::Vertex, 2};
  const float vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) {
    const float den = d2 - d6;
    return TrianglePoint{den > 0.0f ? a + ac * (d2 / den) : a, TriangleFeature::Edge, 2};
  }
  const float va = d3 * d6 - d5 * d4;
  if (va <= 0.0f && d4 - d3 >= 0.0f && d5 - d6 >= 0.0f) {
    const float den = (d4 - d3) + (d5 - d6);
    return TrianglePoint{den > 0.0f ? b + (c - b) * ((d4 - d3) / den) : b, TriangleFeature::Edge,
                         1};
  }
  const float sum = va + vb + vc;  // |ab x ac|^2: no area, no face
  if (!(sum > 1e-30f * length2(ab) * length2(ac)) || !(sum > 0.0f))
    return on_degenerate(p, a, b, c);
  const float v = vb / sum, w = vc / sum;
  return TrianglePoint{a + ab * v + ac * w, TriangleFeature::Face, 0};
}
}  // namespace

TrianglePoint closest_point_on_triangle(Vec3 p, Vec3 a, Vec3 b, Vec3 c) {
  return closest_on_triangle(p, a, b, c);
}

TriangleBvh::TriangleBvh(const TriangleSoup& mesh) { build(mesh); }

void TriangleBvh::build(const TriangleSoup& mesh) {
  const size_t n = mesh.triangles.size();
  std::vector<Box> bounds(n);
  std::vector<Vec3> centre(n);
  std::vector<uint32_t> order(n);
  for (size_t t = 0; t < n; ++t) {
    for (int k = 0; k < 3; ++k) bounds[t].grow(mesh.vertices[mesh.triangles[t][size_t(k)]]);
    centre[t] = (bounds[t].lo + bounds[t].hi) * 0.5f;
    order[t] = uint32_t(t);
  }
  nodes_.clear();
  depth_ = 0;
  if (n == 0) return;
  nodes_.reserve(2 * n + 1);
  nodes_.push_back(Node{});
  struct Task {
    uint32_t node, begin, end;
    int depth;
  };
  std::vector<Task> tasks{Task{0, 0, uint32_t(n), 1}};
  while (!tasks.empty()) {
    const Task task = tasks.back();
    tasks.pop_back();
    depth_ = std::max(depth_, task.depth);
    Box box, centres;
    for (uint32_t i = task.begin; i < task.end; ++i) {
      box.grow(bounds[order[i]]);
      centres.grow(centre[order[i]]);
    }
    Node& node = nodes_[task.node];
    node.lo = box.lo;
    node.hi = box.hi;
    node.first = task.begin;
    node.count = task.end - task.begin;
    fit_slab(&node, task.begin, task.end, order, mesh);
    if (node.count <= kLeafMax) continue;
    // The binned SAH's best plane over the three axes: the cost nL area(L) + nR area(R).
    float best_cost = std::numeric_limits<float>::max();
    int best_axis = -1, best_bin = 0;
    for (int a = 0; a < 3; ++a) {
      const float lo = axis(centres.lo, a), extent = axis(centres.hi, a) - lo;
      if (!(extent > 0.0f)) continue;
      Box bin_box[kBins];
      uint32_t bin_count[kBins] = {};
      const float to_bin = float(kBins) / extent;
      for (uint32_t i = task.begin; i < task.end; ++i) {
        const int b = std::min(kBins - 1, int((axis(centre[order[i]], a) - lo) * to_bin));
        ++bin_count[b];
        bin_box[b].grow(bounds[order[i]]);
      }
      float right_area[kBins];
      uint32_t right_count[kBins];
      Box right;
      uint32_t count = 0;
      for (int b = kBins - 1; b > 0; --b) {
        right.grow(bin_box[b]);
        count += bin_count[b];
        right_area[b] = right.area();
        right_count[b] = count;
      }
      Box left;
      uint32_t left_count = 0;
      for (int b = 1; b < kBins; ++b) {  // the plane between bins b - 1 and b
        left.grow(bin_box[b - 1]);
        left_count += bin_count[b - 1];
        if (left_count == 0 || right_count[b] == 0) continue;
        const float cost = float(left_count) * left.area() + float(right_count[b]) * right_area[b];
        if (cost < best_cost) {
          best_cost = cost;
          best_axis = a;
          best_bin = b;
        }
      }
    }
    uint32_t mid;
    if (best_axis >= 0) {
      const float lo = axis(centres.lo, best_axis);
      const float to_bin = float(kBins) / (axis(centres.hi, best_axis) - lo);
      mid = uint32_t(std::partition(order.begin() + task.begin, order.begin() + task.end,
                                    [&](uint32_t t) {
                                      return std::min(kBins - 1,
                                                      int((axis(centre[t], best_axis) - lo) *
                                                          to_bin)) < best_bin;
                                    }) -
                     order.begin());
    } else {
      mid = task.begin + (task.end - task.begin) / 2;  // every centre the same: halves
    }
    const uint32_t left = uint32_t(nodes_.size());
    nodes_[task.node].first = left;  // (node may move when nodes_ grows: index it)
    nodes_[task.node].count = 0;
    nodes_.push_back(Node{});
    nodes_.push_back(Node{});
    tasks.push_back(Task{left, task.begin, mid, task.depth + 1});
    tasks.push_back(Task{left + 1, mid, task.end, task.depth + 1});
  }
  triangles_.resize(n);
  planes_.resize(n);
  original_ = order;
  slot_.assign(n, 0);
  for (size_t s = 0; s < n; ++s) {
    const std::array<uint32_t, 3>& t = mesh.triangles[order[s]];
    triangles_[s] = {mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]]};
    const Vec3 normal =
        cross(triangles_[s][1] - triangles_[s][0], triangles_[s][2] - triangles_[s][0]);
    const float area2 = length(normal);  // none: a plane through nothing, never a bound
    const Vec3 unit = area2 > 0.0f ? normal * (1.0f / area2) : Vec3{0.0f, 0.0f, 0.0f};
    planes_[s] = Vec4{unit.x, unit.y, unit.z, dot(unit, triangles_[s][0])};
    slot_[order[s]] = uint32_t(s);
  }
}

void TriangleBvh::fit_slab(Node* node, uint32_t begin, uint32_t end,
                           const std::vector<uint32_t>& order, const TriangleSoup& mesh) const {
  Vec3 sum{0.0f, 0.0f, 0.0f};  // area-weighted (twice the area) normals
  for (uint32_t i = begin; i < end; ++i) {
    const std::array<uint32_t, 3>& t = mesh.triangles[order[i]];
    const Vec3 a = mesh.vertices[t[0]];
    sum += cross(mesh.vertices[t[1]] - a, mesh.vertices[t[2]] - a);
  }
  const float n = length(sum);
  node->axis = n > 0.0f ? sum * (1.0f / n) : Vec3{1.0f, 0.0f, 0.0f};
  node->slab_lo = std::numeric_limits<float>::max();
  node->slab_hi = -std::numeric_limits<float>::max();
  for (uint32_t i = begin; i < end; ++i) {
    for (uint32_t v : mesh.triangles[order[i]]) {
      const float d = dot(node->axis, mesh.vertices[v]);
      node->slab_lo = minf(node->slab_lo, d);
      node->slab_hi = maxf(node->slab_hi, d);
    }
  }
}

TP_INLINE float TriangleBvh::bound2(const Node& node, Vec3 p) {
  const float d = dot(node.axis, p);
  const float slab = maxf(maxf(node.slab_lo - d, d - node.slab_hi), 0.0f);
  return maxf(box_distance2(p, node.lo, node.hi), slab * slab);
}

ClosestPoint TriangleBvh::closest_point(Vec3 p, uint32_t hint) const {
  ClosestPoint best;
  float best2 = std::numeric_limits<float>::infinity();
  uint32_t best_slot = kNoHint;
  TrianglePoint best_point;
  const auto visit = [&](uint32_t s) {
    // The distance to the triangle's plane first: no nearer than that, and cheaper.
    const Vec4& plane = planes_[s];
    const float above = dot(Vec3{plane.x, plane.y, plane.z}, p) - plane.w;
    if (above * above >= best2) return;
    const std::array<Vec3, 3>& t = triangles_[s];
    const TrianglePoint q = closest_on_triangle(p, t[0], t[1], t[2]);
    const float d2 = length2(p - q.point);
    if (d2 < best2) {
      best2 = d2;
      best_slot = s;
      best_point = q;
    }
  };
  if (triangles_.empty()) return best;
  if (hint < slot_.size()) visit(slot_[hint]);
  // The nodes to visit with their squared lower bounds (bound2): nearer child popped first.
  struct Entry {
    uint32_t node;
    float d2;
  };
  // Depth-first, it holds at most one entry per level of the tree and the one popped.
  Entry local[64];
  std::vector<Entry> deep;
  Entry* stack = local;
  if (depth_ + 2 > 64) {
    deep.resize(size_t(depth_) + 2);
    stack = deep.data();
  }
  int top = 0;
  stack[top++] = Entry{0, bound2(nodes_[0], p)};
  while (top > 0) {
    const Entry e = stack[--top];
    if (e.d2 >= best2) continue;
    const Node& node = nodes_[e.node];
    if (node.count > 0) {
      for (uint32_t s = node.first; s < node.first + node.count; ++s) visit(s);
      continue;
    }
    const Node& l = nodes_[node.first];
    const Node& r = nodes_[node.first + 1];
    const float dl = bound2(l, p), dr = bound2(r, p);
    if (dl <= dr) {
      if (dr < best2) stack[top++] = Entry{node.first + 1, dr};
      if (dl < best2) stack[top++] = Entry{node.first, dl};
    } else {
      if (dl < best2) stack[top++] = Entry{node.first, dl};
      if (dr < best2) stack[top++] = Entry{node.first + 1, dr};
    }
  }
  if (best_slot == kNoHint) {  // no distance was a number: p was not
    best.distance = std::numeric_limits<float>::quiet_NaN();
    return best;
  }
  best.distance = std::sqrt(best2);
  best.point = best_point.point;
  best.triangle = original_[best_slot];
  best.feature = best_point.feature;
  best.index = best_point.index;
  return best;
}

}  // namespace tp
