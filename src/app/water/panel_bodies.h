// The panel's Bodies section: the scene's rigid bodies as the latest state has them, one
// row each (shape, density, position, speed), the one the mouse holds highlighted. Part of
// the panel (panel.cpp draws it); needs imgui.h through panel_style.h in its .cpp only.
#pragma once

#include <string>
#include <vector>

#include "app/window/panel_files.h"
#include "sim/bodies/body_spec.h"
#include "sim/bodies/body_waterline.h"

namespace tp {

// "box 0.40 x 0.20 x 0.40 m", "sphere r 0.12 m", "capsule r 0.05 m, 0.30 m long": the
// shape and its size (full sizes; a capsule's length is its cylinder's).
std::string body_shape_text(const BodySpec& body);

// A body's density [kg/m^3]: the scene's, or the one its mass gives (mass / volume).
float body_density(const BodySpec& body, int dimensions);

// What the section asks the mode to do this frame (one thing at most): body `index` to a
// new density, removed, a new body added (`body`: shape, size, density; the mode places it
// above the water at the view's centre), or a mesh file loaded as a new body or collider.
struct BodyRequest {
  enum Kind { None, Density, Remove, Add, LoadMesh } kind = None;
  int index = -1;
  float density = 0.0f;  ///< [kg/m^3] Density, Add, LoadMesh
  BodySpec body;         ///< Add
  std::string mesh_file; ///< LoadMesh
  float mesh_scale = 1.0f;
  bool kinematic = false;  ///< LoadMesh: a collider that stays where it is put
};

// The section's fields that live from frame to frame.
struct BodyPanel {
  int add_shape = 1;            ///< 0 sphere, 1 box, 2 capsule
  float add_size = 0.15f;       ///< [m] diameter, side or length
  float add_density = 500.0f;   ///< [kg/m^3]
  char mesh_file[256] = "assets/meshes/duck.obj";
  float mesh_scale = 1.0f;
  bool mesh_collider = false;
  std::string status;           ///< the last edit's outcome: why it failed, or a note
  bool status_is_note = false;  ///< it worked, and status says what was adjusted
  BodyRequest request;          ///< this frame's, for the mode
  std::vector<BodyWaterline> lines;  ///< each body's draft as last read off the water
  double lines_at = -1.0;            ///< [s] ImGui's clock when (read 4 times a second)
  int editing = -1;             ///< the body whose density field is held (-1: none)
  float editing_density = 0.0f; ///< [kg/m^3] its value while held
};

// The water the drafts are read from (sim/bodies/body_waterline.h): the state's particle
// positions on the CPU, none when they stay on the GPU.
struct BodyWater {
  const Vec4* particles = nullptr;
  size_t count = 0;
  float spacing = 0.0f;  ///< [m]
};

// The section's contents, one row a body: its shape (size, place and whether it is
// kinematic in the tooltip), its density as a slider (applied when let go), its mass, its
// draft (the water's surface beside it less its lowest point: more than its height when it
// is wholly under water), its speed (a body on an axle: its rate of turn) and a button that
// removes it; `grabbed` (-1 none) is highlighted. Below, Add (a shape, its size and
// density) and Load mesh (an OBJ or PLY file, its scale, as a body or a collider). The
// widgets are noted in `log` ("body density 0", "body draft 0" or "body no draft 0", "body
// remove 0", "body add", "mesh path", "mesh collider", "mesh load") for the window tests.
void bodies_section(const std::vector<BodySpec>& bodies, int grabbed, int dimensions, const BodyWater& water,
                    BodyPanel& panel, WidgetLog& log);

}  // namespace tp
