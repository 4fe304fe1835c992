#include "app/window/camera.h"

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>

namespace tp {

namespace {
constexpr float kDegreesPerPixel = 0.3f;
constexpr float kMinDistance = 0.05f, kMaxDistance = 200.0f;
// 2D: room around the tank when fitting it (a fraction of its half size on each side).
constexpr float kPlaneMargin = 1.1f;
}  // namespace

bool ray_plane_z(const glm::vec3& origin, const glm::vec3& direction, float plane_z, glm::vec3* hit) {
  if (std::abs(direction.z) < 1e-6f) return false;
  const float t = (plane_z - origin.z) / direction.z;
  if (!(t > 0.0f)) return false;
  *hit = origin + direction * t;
  hit->z = plane_z;  // exactly on it, whatever the rounding
  return true;
}

OrbitCamera::OrbitCamera(const CameraSetup& setup)
    : target_(setup.target.x, setup.target.y, setup.target.z),
      distance_(std::clamp(setup.distance, kMinDistance, kMaxDistance)),
      yaw_(setup.yaw),
      pitch_(std::clamp(setup.pitch, -89.0f, 89.0f)) {}

void OrbitCamera::set_plane(float plane_z, const glm::vec3& tank_lo, const glm::vec3& tank_hi) {
  two_d_ = true;
  fitting_ = true;
  yaw_ = pitch_ = 0.0f;  // square-on, along -z: the scene's yaw and pitch do not apply
  fov_y_ = kPlaneFovDegrees;
  target_.z = plane_z;
  scene_distance_ = distance_;
  tank_lo_ = glm::vec2(tank_lo);
  tank_hi_ = glm::vec2(tank_hi);
}

void OrbitCamera::set_pose(const CameraPose& pose) {
  if (!std::isfinite(pose.target.x) || !std::isfinite(pose.target.y) || !std::isfinite(pose.target.z) ||
      !std::isfinite(pose.distance) || !std::isfinite(pose.yaw) || !std::isfinite(pose.pitch))
    return;
  target_ = pose.target;
  distance_ = std::clamp(pose.distance, kMinDistance, kMaxDistance);
  if (two_d_) {
    fitting_ = false;
    return;
  }
  yaw_ = std::fmod(pose.yaw, 360.0f);
  pitch_ = std::clamp(pose.pitch, -89.0f, 89.0f);
}

void OrbitCamera::orbit(double dx, double dy) {
  if (two_d_) return;  // the plane is always seen square-on
  // Dragging right turns the scene right, i.e. the camera moves left around the target.
  yaw_ = std::fmod(yaw_ - float(dx) * kDegreesPerPixel, 360.0f);
  pitch_ = std::clamp(pitch_ + float(dy) * kDegreesPerPixel, -89.0f, 89.0f);
}

float OrbitCamera::fov_y_radians(float aspect) const {
  // In a tall window keep at least the horizontal view of a 4:3 one, so the scene the
  // camera was set up for stays in view instead of being cropped at the sides.
  const float kMinAspect = 4.0f / 3.0f;
  const float fov = glm::radians(fov_y_);
  if (aspect > 0.0f && aspect < kMinAspect)
    return 2.0f * std::atan(std::tan(fov * 0.5f) * kMinAspect / aspect);
  return fov;
}

void OrbitCamera::pan(double dx, double dy, double window_width, double window_height) {
  if (window_width <= 0 || window_height <= 0) return;
  fitting_ = false;  // the user frames the view from now on
  // World size of one window pixel at the target's depth.
  const float fov = fov_y_radians(float(window_width / window_height));
  const float pixel = 2.0f * distance_ * std::tan(fov * 0.5f) / float(window_height);
  const glm::vec3 f = forward();
  const glm::vec3 right = glm::normalize(glm::cross(f, glm::vec3(0, 1, 0)));
  const glm::vec3 up = glm::cross(right, f);
  target_ += (-float(dx) * right + float(dy) * up) * pixel;
}

void OrbitCamera::zoom(double wheel_steps) {
  fitting_ = false;  // the user's distance from now on
  distance_ =
      std::clamp(distance_ * std::pow(0.9f, float(wheel_steps)), kMinDistance, kMaxDistance);
}

void OrbitCamera::zoom_at(double wheel_steps, double cursor_x, double cursor_y, double window_width,
                          double window_height) {
  glm::vec3 origin, direction, under;
  ray(cursor_x, cursor_y, window_width, window_height, &origin, &direction);
  const float before = distance_;
  zoom(wheel_steps);
  if (!two_d_ || !ray_plane_z(origin, direction, target_.z, &under)) return;
  // Seen square-on, a plane point's offset from the target on screen is proportional to
  // offset / distance: scaling the target's offset from the point under the cursor by the
  // distance's ratio keeps that point under the cursor.
  const float ratio = distance_ / before;
  target_.x = under.x + (target_.x - under.x) * ratio;
  target_.y = under.y + (target_.y - under.y) * ratio;
}

void OrbitCamera::fit_plane(float aspect) {
  if (!two_d_ || !fitting_ || aspect <= 0.0f) return;
  const float tan_half = std::tan(0.5f * fov_y_radians(aspect));
  const glm::vec2 center = 0.5f * (tank_lo_ + tank_hi_);
  // The tank's half size around the target (which need not be its centre), with a margin.
  const glm::vec2 half = kPlaneMargin * (0.5f * (tank_hi_ - tank_lo_) +
                                         glm::abs(glm::vec2(target_) - center));
  // Beside the panel the image centre is shifted by shift_ (NDC) and the view reaches
  // 1 - |shift| on either side of it before the window's edge or the panel.
  const float across = std::max(1.0f - std::abs(shift_), 0.25f);
  const float fit = std::max(half.y / tan_half, half.x / (tan_half * aspect * across));
  distance_ = std::clamp(std::max(scene_distance_, fit), kMinDistance, kMaxDistance);
}

glm::vec3 OrbitCamera::forward() const {
  const float yaw = glm::radians(yaw_), pitch = glm::radians(pitch_);
  return glm::vec3(-std::sin(yaw) * std::cos(pitch), -std::sin(pitch),
                   -std::cos(yaw) * std::cos(pitch));
}

glm::vec3 OrbitCamera::eye() const { return target_ - forward() * distance_; }

glm::mat4 OrbitCamera::view() const { return glm::lookAt(eye(), target_, glm::vec3(0, 1, 0)); }

glm::mat4 OrbitCamera::projection(float aspect) const {
  // Near and far follow the distance so depth precision stays good at any zoom. In 2D
  // everything lies within the particles' radius of the plane, at the target's depth: a
  // tighter range keeps the depth buffer's precision for the discs' overlaps.
  const float near = two_d_ ? distance_ * 0.5f : std::max(0.01f, distance_ * 0.01f);
  const float far = two_d_ ? distance_ * 2.0f : distance_ * 20.0f + 20.0f;
  aspect = aspect > 0.0f ? aspect : 1.0f;
  const glm::mat4 shift = glm::translate(glm::mat4(1.0f), glm::vec3(shift_, 0.0f, 0.0f));
  return shift * glm::perspective(fov_y_radians(aspect), aspect, near, far);
}

void OrbitCamera::ray(double cursor_x, double cursor_y, double window_width, double window_height,
                      glm::vec3* origin, glm::vec3* direction) const {
  const float aspect = window_height > 0 ? float(window_width / window_height) : 1.0f;
  const float x = window_width > 0 ? float(2.0 * cursor_x / window_width - 1.0) : 0.0f;
  const float y = window_height > 0 ? float(1.0 - 2.0 * cursor_y / window_height) : 0.0f;
  const glm::mat4 inverse = glm::inverse(projection(aspect) * view());
  const glm::vec4 near = inverse * glm::vec4(x, y, -1.0f, 1.0f);
  const glm::vec4 far = inverse * glm::vec4(x, y, 1.0f, 1.0f);
  *origin = eye();
  *direction = glm::normalize(glm::vec3(far) / far.w - glm::vec3(near) / near.w);
}

}  // namespace tp
