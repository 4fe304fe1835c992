// Edits of a running simulation's rigid bodies while the water goes on as it was: a body
// added, one removed, a new density. The state is captured, its list of bodies changed and
// restored (Simulation::capture, restore), so the particles, the other bodies and the
// coupling's latest forces carry on exactly (but for the water a new body displaces:
// add_body); a grab is let go. Each returns "" or the
// sentence why not (a body check_body refuses, too many bodies, an unknown index), and
// then the simulation is as it was.
#pragma once

#include <string>

#include "sim/water/simulation.h"

namespace tp {

// The water inside the new body (or within 0.4 spacings of its surface) goes, as when a
// scene places a body in water: put where the water is, it displaces it.
std::string add_body(Simulation& sim, const BodySpec& body);
std::string remove_body(Simulation& sim, int index);
// The density [kg/m^3] of body `index` (its mass follows; a mass given instead is dropped).
std::string set_body_density(Simulation& sim, int index, float density);

}  // namespace tp
