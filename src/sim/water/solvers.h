// The whole particle simulation, every solver's phases with it, for the translation units
// that instantiate the driver. A new method adds its line to kernels/solver_list.h and its
// header to simulation_step.h.
#pragma once

#include "sim/water/simulation_output.h"
#include "sim/water/simulation_state.h"
#include "sim/water/simulation_step.h"
