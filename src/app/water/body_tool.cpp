#include "app/water/body_tool.h"

#include "sim/runner/sim_runner.h"

namespace tp {

namespace {
glm::vec3 to_glm(const Vec3& v) { return glm::vec3(v.x, v.y, v.z); }
Vec3 to_vec3(const glm::vec3& v) { return Vec3{v.x, v.y, v.z}; }
}  // namespace

std::vector<BodyDraw> body_draws(const std::vector<BodySpec>& bodies, int highlighted) {
  std::vector<BodyDraw> draws;
  draws.reserve(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) {
    const BodySpec& b = bodies[i];
    BodyDraw d;
    d.kind = b.shape == int(BodyShapeKind::Sphere)    ? int(BodyKind::Sphere)
             : b.shape == int(BodyShapeKind::Capsule) ? int(BodyKind::Capsule)
                                                      : int(BodyKind::Box);
    d.position = to_glm(b.pose.position);
    const Quat& q = b.pose.orientation;
    d.orientation = glm::vec4(q.w, q.x, q.y, q.z);
    d.half_extent = to_glm(b.half_extent);
    d.radius = b.radius;
    d.half_height = b.half_height;
    d.highlighted = int(i) == highlighted;
    draws.push_back(d);
  }
  return draws;
}

std::optional<Simulation::BodyHit> BodyDrag::pick(const std::vector<BodySpec>& bodies, const glm::vec3& origin,
                                                  const glm::vec3& direction, float nearer) {
  const std::optional<Simulation::BodyHit> hit = pick_bodies(bodies, Ray{to_vec3(origin), to_vec3(direction)});
  if (!hit || !(hit->distance < nearer) || bodies[size_t(hit->index)].kinematic) return std::nullopt;
  return hit;
}

BodyDrag::Frame BodyDrag::update(const std::vector<BodySpec>& bodies, bool held, bool hover,
                                 const glm::vec3& origin, const glm::vec3& direction, const glm::vec3& eye,
                                 const glm::vec3& forward, float nearer) {
  const bool pressed = held && !was_held_;
  was_held_ = held;
  Frame frame;
  if (index_ >= 0 && (!held || index_ >= int(bodies.size()))) {  // released, or it went away
    index_ = -1;
    frame.release = true;
  }
  if (pressed) {
    if (const std::optional<Simulation::BodyHit> hit = pick(bodies, origin, direction, nearer)) {
      index_ = hit->index;
      depth_ = glm::dot(to_glm(hit->point) - eye, forward);
      frame.grab = Grab{hit->index, hit->local, hit->point};
      frame.highlighted = index_;
      return frame;
    }
  }
  if (index_ >= 0) {
    frame.highlighted = index_;
    // The cursor ray's point at the grab depth; a ray (nearly) parallel to the plane or
    // pointing away from it leaves the target where it was.
    const float along = glm::dot(direction, forward);
    if (along > 1e-4f)
      frame.move = to_vec3(origin + direction * ((depth_ - glm::dot(origin - eye, forward)) / along));
    return frame;
  }
  if (hover && !held) {
    if (const std::optional<Simulation::BodyHit> hit = pick(bodies, origin, direction, nearer))
      frame.highlighted = hit->index;
  }
  return frame;
}

}  // namespace tp
