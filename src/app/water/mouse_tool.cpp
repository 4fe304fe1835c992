#include "app/water/mouse_tool.h"

#include <algorithm>

namespace tp {

namespace {
Vec3 to_vec3(const glm::vec3& v) { return Vec3{v.x, v.y, v.z}; }
glm::vec3 to_glm(const Vec3& v) { return glm::vec3(v.x, v.y, v.z); }
}  // namespace

MouseForce MouseTool::update(const Pick& pick, int mouse_mode, bool held,
                             const glm::vec3& origin, const glm::vec3& direction,
                             const glm::vec3& eye, const glm::vec3& forward,
                             double frame_seconds) {
  MouseForce force{0, Vec3{0, 0, 0}, Vec3{0, 0, 0}};
  if (!held) {
    dragging_ = false;
    active_ = false;
    return force;
  }
  const bool drag_mode = mouse_mode == int(MouseMode::Drag);
  if (drag_mode && dragging_) {
    // Follow the cursor on the grab plane: the ray point whose view depth is depth_.
    const float along = glm::dot(direction, forward);
    if (along > 1e-4f) {
      const glm::vec3 next = origin + direction * (depth_ / along);
      glm::vec3 velocity(0.0f);
      if (frame_seconds > 0.0) velocity = (next - point_) / float(frame_seconds);
      const float speed = glm::length(velocity);
      if (speed > kMaxDragSpeed) velocity *= kMaxDragSpeed / speed;
      point_ = next;
      force = MouseForce{1, to_vec3(point_), to_vec3(velocity)};
    } else {
      force = MouseForce{1, to_vec3(point_), Vec3{0, 0, 0}};  // cursor behind the plane
    }
    active_ = true;
    return force;
  }
  const std::optional<Vec3> hit = pick(Ray{to_vec3(origin), to_vec3(direction)});
  if (!hit) {
    // A miss with no grab under way: no force. (A held drag-mode button that sweeps into
    // the water grabs it then, below.)
    active_ = false;
    return force;
  }
  point_ = to_glm(*hit);
  if (drag_mode) {
    dragging_ = true;
    depth_ = glm::dot(point_ - eye, forward);
  }
  active_ = true;
  return MouseForce{1, *hit, Vec3{0, 0, 0}};
}

}  // namespace tp
