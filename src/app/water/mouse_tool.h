// Turns the cursor into the simulation's mouse force. Push and pull act at the first fluid
// point under the cursor, each frame. Drag grabs the fluid point under the cursor on press
// and moves it on the plane at that depth (view direction), so a drag that leaves the
// fluid keeps its depth; the force carries the point's velocity.
#pragma once

#include <functional>
#include <optional>

#include <glm/glm.hpp>

#include "kernels/sim_params.h"
#include "sim/water/simulation.h"

namespace tp {

class MouseTool {
 public:
  static constexpr float kMaxDragSpeed = 20.0f;  ///< [m/s] a fast flick, not a teleport

  // One frame: `held` is the left button (a scene drag), the ray is the cursor's, `eye`
  // and `forward` the camera's. `frame_seconds` is the simulated time that the cursor's
  // motion since the last frame is spread over (the last frame's): dividing by simulated
  // rather than wall time keeps the water with the cursor when the simulation runs in slow
  // motion. 0 (paused) gives a drag velocity of zero.
  // `pick` finds the first fluid point on a ray (Simulation::pick, or pick_points over a
  // published state when the simulation runs on its own thread); `mouse_mode` is the
  // parameter's value (MouseMode).
  using Pick = std::function<std::optional<Vec3>(const Ray&)>;
  MouseForce update(const Pick& pick, int mouse_mode, bool held, const glm::vec3& origin,
                    const glm::vec3& direction, const glm::vec3& eye, const glm::vec3& forward,
                    double frame_seconds);
  // The same with the simulation's own pick and parameters.
  MouseForce update(Simulation& sim, bool held, const glm::vec3& origin, const glm::vec3& direction,
                    const glm::vec3& eye, const glm::vec3& forward, double frame_seconds) {
    return update([&sim](const Ray& ray) { return sim.pick(ray); }, sim.params().mouse_mode, held,
                  origin, direction, eye, forward, frame_seconds);
  }

  // Where the last force acted (for the marker); only meaningful when it was active.
  bool active() const { return active_; }
  glm::vec3 point() const { return point_; }

 private:
  bool dragging_ = false;  ///< a drag-mode grab under way
  float depth_ = 0.0f;     ///< [m] grabbed point's distance along the view direction
  glm::vec3 point_{0.0f};
  bool active_ = false;
};

}  // namespace tp
