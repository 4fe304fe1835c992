// An orbit camera around a target point: right drag orbits, middle drag pans, the wheel
// zooms. Angles follow the scene files: yaw about +y (0 looks along -z), pitch above the
// horizon, both in degrees.
//
// In 2D (set_plane: a simulation in the plane z = const) the camera looks square-on at the
// plane (yaw 0, pitch 0, along -z) through a narrow field of view, does not orbit (both
// drags pan), and zooms about the plane point under the cursor. It stays a perspective
// camera: a plane perpendicular to the view axis is imaged by a perspective projection as
// an exact orthographic view (every point of it at the same depth, so one uniform scale),
// and the sphere impostors and the screen-space surface cast their rays from the eye
// through a perspective projection (glm::ortho would break them). The narrow field of view
// keeps the particles near the image's edges round (a sphere off axis projects as an
// ellipse, more so in a wide view).
#pragma once

#include <glm/glm.hpp>

#include "sim/scene/scene.h"

namespace tp {

// Where an orbit camera is: what a session records of the view (app/water's replay).
struct CameraPose {
  glm::vec3 target{0.0f};
  float distance = 1.0f, yaw = 0.0f, pitch = 0.0f;
};

class OrbitCamera {
 public:
  explicit OrbitCamera(const CameraSetup& setup);

  // 2D: looks square-on at the plane z = `plane_z` (the target moves onto it), in which the
  // tank spans [lo, hi] (x, y). The scene's distance stays, pushed back while need be so
  // that the whole tank fits the view beside the panel (fit_plane), until the first zoom
  // or pan.
  void set_plane(float plane_z, const glm::vec3& tank_lo, const glm::vec3& tank_hi);
  bool two_d() const { return two_d_; }

  void orbit(double dx_pixels, double dy_pixels);  ///< nothing in 2D
  // Moves the target so the point under the cursor follows it (approximately, at the
  // target's depth; exactly in 2D, where the plane is at the target's depth). Window size in
  // window coordinates.
  void pan(double dx_pixels, double dy_pixels, double window_width, double window_height);
  void zoom(double wheel_steps);
  // The wheel at a cursor position: in 2D the plane point under the cursor stays under it;
  // in 3D the same as zoom().
  void zoom_at(double wheel_steps, double cursor_x, double cursor_y, double window_width,
               double window_height);
  // 2D, until the first zoom or pan: the distance that fits the tank (with a margin) into the
  // view of this aspect beside the panel (the screen shift), or the scene's when that is
  // further. Nothing in 3D.
  void fit_plane(float aspect);

  CameraPose pose() const { return CameraPose{target_, distance_, yaw_, pitch_}; }
  // Puts the camera where `pose` says (clamped as the drags are; in 2D the plane stays
  // square-on and the distance is the pose's from then on).
  void set_pose(const CameraPose& pose);

  glm::vec3 eye() const;
  glm::vec3 target() const { return target_; }
  float distance() const { return distance_; }
  glm::vec3 forward() const;  ///< unit view direction
  glm::mat4 view() const;
  glm::mat4 projection(float aspect) const;

  // The world-space ray through a cursor position in window coordinates (which on HiDPI
  // screens differ from framebuffer pixels: pass glfwGetWindowSize's size).
  void ray(double cursor_x, double cursor_y, double window_width, double window_height,
           glm::vec3* origin, glm::vec3* direction) const;

  // Moves the image centre right by this fraction of the window's half width (an
  // off-axis projection), so the scene centres in the space beside the panel.
  void set_screen_shift(float ndc_x) { shift_ = ndc_x; }

 private:
  float fov_y_radians(float aspect) const;

  glm::vec3 target_;
  float distance_, yaw_, pitch_;
  float fov_y_ = 45.0f;
  float shift_ = 0.0f;
  // 2D: the plane, the tank's extent in it, the scene's distance, and whether the
  // distance still follows the window (no zoom yet).
  bool two_d_ = false;
  bool fitting_ = false;
  float scene_distance_ = 0.0f;
  glm::vec2 tank_lo_{0.0f}, tank_hi_{0.0f};
};

// The field of view of the 2D camera [deg]: narrow, so that discs near the image's edges
// stay round, wide enough that the eye is not absurdly far (depth precision).
inline constexpr float kPlaneFovDegrees = 15.0f;

// Where a ray meets the plane z = plane_z: false when it runs parallel to it or the plane
// is behind its origin.
bool ray_plane_z(const glm::vec3& origin, const glm::vec3& direction, float plane_z, glm::vec3* hit);

}  // namespace tp
