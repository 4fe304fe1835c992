// Grabbing rigid bodies with the mouse (ctrl + left drag on a body): the cursor's ray picks
// the body it meets first (in the latest published state), a press holds that point of
// it with the simulation's mouse joint (Simulation::grab_body, through the runner), and
// while the button is held the joint's target is the cursor ray's point on the plane
// through the grab point facing the camera (as an obstacle drag carries its obstacle);
// the release lets go. Pure logic: the window's flags and the ray come in, the requests
// for the runner and the body to highlight go out.
#pragma once

#include <cmath>
#include <optional>
#include <vector>

#include <glm/glm.hpp>

#include "render/render_types.h"
#include "sim/bodies/body_spec.h"
#include "sim/water/simulation.h"

namespace tp {

// What the renderer draws of the bodies: shape and pose of each, `highlighted` (an index,
// -1 none) marked.
std::vector<BodyDraw> body_draws(const std::vector<BodySpec>& bodies, int highlighted);

// Where the panel puts a new body (Add, Load mesh): above the water at `centre` (the view's
// centre: its x and z; in 2D x, on the plane z = `plane_z`), kept inside the tank by its
// reach, near the tank's top; a collider (a kinematic body) stands on the tank's floor
// instead, where the water meets it. When another body stands in the way (their bounding
// spheres' columns overlap: dropped there, the new one would land on it and throw it), the
// nearest clear place on rings around the centre, a reach apart, 8 directions each (in 2D
// left and right); the centre when none is clear. The body's orientation as given.
Vec3 new_body_place(const BodySpec& body, const std::vector<BodySpec>& others, Vec3 centre, Vec3 tank_lo,
                    Vec3 tank_hi, int dimensions, float plane_z);

class BodyDrag {
 public:
  struct Grab {
    int index = -1;
    Vec3 local{0, 0, 0};   ///< [m] the grabbed point in the body's frame
    Vec3 target{0, 0, 0};  ///< [m] where it is pulled to (the point itself at the press)
  };
  struct Frame {
    int highlighted = -1;         ///< the body to draw highlighted, -1 none
    std::optional<Grab> grab;     ///< a press on a body: grab it
    std::optional<Vec3> move;     ///< while held: the joint's target this frame
    bool release = false;         ///< the button came up (or the body went away): let go
  };

  // `held`: the left button is down, on a press made with ctrl over the scene (and no
  // obstacle is being dragged). `hover`: ctrl is held over the scene; then the body
  // under the cursor is highlighted, to show what a press would grab. The ray is the
  // cursor's (unit direction); `eye` and `forward` (unit) the camera's. `nearer`: the
  // distance along the ray to something else a press would take (an obstacle): a body
  // behind it is neither highlighted nor grabbed. Kinematic bodies are not grabbed
  // (the water and the user never move them) but still hide the bodies behind them.
  Frame update(const std::vector<BodySpec>& bodies, bool held, bool hover, const glm::vec3& origin,
               const glm::vec3& direction, const glm::vec3& eye, const glm::vec3& forward,
               float nearer = INFINITY);

  bool dragging() const { return index_ >= 0; }
  int index() const { return index_; }  ///< the grabbed body, -1 none
  // Under the cursor, grabbable and in front of `nearer`: the hit, else none.
  static std::optional<Simulation::BodyHit> pick(const std::vector<BodySpec>& bodies, const glm::vec3& origin,
                                                 const glm::vec3& direction, float nearer);

 private:
  bool was_held_ = false;
  int index_ = -1;
  float depth_ = 0.0f;  ///< [m] the grab point's distance along the view direction
};

}  // namespace tp
