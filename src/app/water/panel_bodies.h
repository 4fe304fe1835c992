// The panel's Bodies section: the scene's rigid bodies as the latest state has them, one
// row each (shape, density, position, speed), the one the mouse holds highlighted. Part of
// the panel (panel.cpp draws it); needs imgui.h through panel_style.h in its .cpp only.
#pragma once

#include <string>
#include <vector>

#include "sim/bodies/body_spec.h"

namespace tp {

// "box 0.40 x 0.20 x 0.40 m", "sphere r 0.12 m", "capsule r 0.05 m, 0.30 m long": the
// shape and its size (full sizes; a capsule's length is its cylinder's).
std::string body_shape_text(const BodySpec& body);

// A body's density [kg/m^3]: the scene's, or the one its mass gives (mass / volume).
float body_density(const BodySpec& body, int dimensions);

// The section's contents; `grabbed` (-1 none) is highlighted.
void bodies_section(const std::vector<BodySpec>& bodies, int grabbed, int dimensions);

}  // namespace tp
