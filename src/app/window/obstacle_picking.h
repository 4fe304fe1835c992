// Picking and moving rigid obstacles with the mouse (ctrl + left drag): the cursor's ray
// against each obstacle's exact shape, nearest hit first, and a drag that carries the
// grabbed obstacle in the plane through the grab point facing the camera (as the mouse
// tool's drag mode carries the water), keeping the grab point under the cursor.
#pragma once

#include <glm/glm.hpp>

#include <optional>
#include <vector>

#include "kernels/obstacle.h"
#include "render/render_types.h"

namespace tp {

// Distance along the ray (`direction` of unit length) to where it enters the sphere; from
// inside, to where it leaves it (the surface seen from there). None: a miss, or the sphere
// lies wholly behind the origin.
std::optional<float> ray_sphere(const glm::vec3& origin, const glm::vec3& direction,
                                const glm::vec3& center, float radius);

// The same for an axis-aligned box, by the slab method (Kay and Kajiya 1986): the ray is
// inside the box where it is inside all three pairs of parallel planes at once.
std::optional<float> ray_box(const glm::vec3& origin, const glm::vec3& direction,
                             const glm::vec3& center, const glm::vec3& half_extent);

struct ObstacleHit {
  int index = -1;         ///< into the list given
  float distance = 0.0f;  ///< [m] along the ray
};

// The obstacle the ray meets first, if any.
std::optional<ObstacleHit> pick_obstacle(const glm::vec3& origin, const glm::vec3& direction,
                                         const std::vector<ObstacleShape>& obstacles);

// What the renderer draws: the shapes, with `highlighted` (an index, -1 none) marked.
std::vector<ObstacleDraw> obstacle_draws(const std::vector<ObstacleShape>& obstacles,
                                         int highlighted);

// The ctrl + left drag, frame by frame. A press picks the obstacle under the cursor (a
// press on empty space picks nothing, and stays nothing until released); while held, the
// grabbed obstacle's new centre is the cursor ray's point on the grab plane plus the
// offset from the grab point to the centre at the press.
class ObstacleDrag {
 public:
  struct Move {
    int index = -1;
    glm::vec3 center{0.0f};  ///< [m] where the obstacle's centre should be now
  };
  struct Frame {
    int highlighted = -1;      ///< the obstacle to draw highlighted, -1 none
    std::optional<Move> move;  ///< while dragging: the move to make this frame
  };

  // `held`: the left button is down, on a press made with ctrl (over the scene, not the
  // panel). `hover`: ctrl is held and the cursor is over the scene; then the obstacle
  // under it is highlighted, to show what a press would grab. The ray is the cursor's
  // (unit direction); `eye` and `forward` (unit) the camera's.
  Frame update(const std::vector<ObstacleShape>& obstacles, bool held, bool hover,
               const glm::vec3& origin, const glm::vec3& direction, const glm::vec3& eye,
               const glm::vec3& forward);

  bool dragging() const { return index_ >= 0; }
  int index() const { return index_; }  ///< the grabbed obstacle, -1 none

 private:
  bool was_held_ = false;
  int index_ = -1;
  float depth_ = 0.0f;      ///< [m] the grab point's distance along the view direction
  glm::vec3 offset_{0.0f};  ///< [m] from the grab point to the centre
};

}  // namespace tp
