// An orbit camera around a target point: right drag orbits, middle drag pans, the wheel
// zooms. Angles follow the scene files: yaw about +y (0 looks along -z), pitch above the
// horizon, both in degrees.
#pragma once

#include <glm/glm.hpp>

#include "sim/scene.h"

namespace tp {

class OrbitCamera {
 public:
  explicit OrbitCamera(const CameraSetup& setup);

  void orbit(double dx_pixels, double dy_pixels);
  // Moves the target so the point under the cursor follows it (approximately, at the
  // target's depth). Window size in window coordinates.
  void pan(double dx_pixels, double dy_pixels, double window_width, double window_height);
  void zoom(double wheel_steps);

  glm::vec3 eye() const;
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
};

}  // namespace tp
