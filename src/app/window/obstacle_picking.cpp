#include "app/window/obstacle_picking.h"

#include <algorithm>
#include <cmath>

namespace tp {

namespace {
glm::vec3 to_glm(const Vec3& v) { return glm::vec3(v.x, v.y, v.z); }
}  // namespace

std::optional<float> ray_sphere(const glm::vec3& origin, const glm::vec3& direction,
                                const glm::vec3& center, float radius) {
  if (!(radius > 0.0f)) return std::nullopt;
  // |o + t d - c|^2 = r^2 with |d| = 1: t^2 + 2 b t + c = 0.
  const glm::vec3 oc = origin - center;
  const float b = glm::dot(oc, direction);
  const float c = glm::dot(oc, oc) - radius * radius;
  const float disc = b * b - c;
  if (disc < 0.0f) return std::nullopt;
  const float root = std::sqrt(disc);
  const float enter = -b - root, leave = -b + root;
  if (enter >= 0.0f) return enter;
  if (leave >= 0.0f) return leave;  // the origin is inside
  return std::nullopt;
}

std::optional<float> ray_box(const glm::vec3& origin, const glm::vec3& direction,
                             const glm::vec3& center, const glm::vec3& half_extent) {
  if (!(half_extent.x > 0.0f && half_extent.y > 0.0f && half_extent.z > 0.0f)) return std::nullopt;
  float enter = -INFINITY, leave = INFINITY;
  for (int axis = 0; axis < 3; ++axis) {
    const float o = origin[axis] - center[axis], d = direction[axis], h = half_extent[axis];
    if (std::fabs(d) < 1e-12f) {
      // Parallel to this pair of planes: inside between them for ever, or never.
      if (o < -h || o > h) return std::nullopt;
      continue;
    }
    float t0 = (-h - o) / d, t1 = (h - o) / d;
    if (t0 > t1) std::swap(t0, t1);
    enter = std::max(enter, t0);
    leave = std::min(leave, t1);
    if (enter > leave) return std::nullopt;
  }
  if (enter >= 0.0f) return enter;
  if (leave >= 0.0f) return leave;  // the origin is inside
  return std::nullopt;
}

std::optional<ObstacleHit> pick_obstacle(const glm::vec3& origin, const glm::vec3& direction,
                                         const std::vector<ObstacleShape>& obstacles) {
  std::optional<ObstacleHit> nearest;
  for (size_t i = 0; i < obstacles.size(); ++i) {
    const ObstacleShape& o = obstacles[i];
    const std::optional<float> t =
        o.kind == int(ShapeKind::Sphere)
            ? ray_sphere(origin, direction, to_glm(o.center), o.radius)
            : ray_box(origin, direction, to_glm(o.center), to_glm(o.half_extent));
    if (t && (!nearest || *t < nearest->distance)) nearest = ObstacleHit{int(i), *t};
  }
  return nearest;
}

std::vector<ObstacleDraw> obstacle_draws(const std::vector<ObstacleShape>& obstacles,
                                         int highlighted) {
  std::vector<ObstacleDraw> draws;
  draws.reserve(obstacles.size());
  for (size_t i = 0; i < obstacles.size(); ++i) {
    const ObstacleShape& o = obstacles[i];
    ObstacleDraw d;
    d.kind = o.kind == int(ShapeKind::Sphere) ? int(ObstacleKind::Sphere) : int(ObstacleKind::Box);
    d.center = to_glm(o.center);
    d.half_extent = to_glm(o.half_extent);
    d.radius = o.radius;
    d.highlighted = int(i) == highlighted;
    draws.push_back(d);
  }
  return draws;
}

ObstacleDrag::Frame ObstacleDrag::update(const std::vector<ObstacleShape>& obstacles, bool held,
                                         bool hover, const glm::vec3& origin,
                                         const glm::vec3& direction, const glm::vec3& eye,
                                         const glm::vec3& forward) {
  const bool pressed = held && !was_held_;
  was_held_ = held;
  Frame frame;
  if (!held || index_ >= int(obstacles.size())) index_ = -1;  // released, or it went away
  if (pressed) {
    if (const std::optional<ObstacleHit> hit = pick_obstacle(origin, direction, obstacles)) {
      const glm::vec3 grab = origin + direction * hit->distance;
      index_ = hit->index;
      depth_ = glm::dot(grab - eye, forward);
      offset_ = to_glm(obstacles[size_t(index_)].center) - grab;
    }
  }
  if (index_ >= 0) {
    frame.highlighted = index_;
    // The cursor ray's point at the grab depth; a ray (nearly) parallel to the plane or
    // pointing away from it leaves the obstacle where it is.
    const float along = glm::dot(direction, forward);
    if (along > 1e-4f) {
      const glm::vec3 point =
          origin + direction * ((depth_ - glm::dot(origin - eye, forward)) / along);
      frame.move = Move{index_, point + offset_};
    }
    return frame;
  }
  if (hover && !held) {
    if (const std::optional<ObstacleHit> hit = pick_obstacle(origin, direction, obstacles))
      frame.highlighted = hit->index;
  }
  return frame;
}

}  // namespace tp
