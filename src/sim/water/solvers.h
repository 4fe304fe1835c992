// Every solver's phases, for the two translation units that instantiate the driver.
// A new method adds its line to kernels/solver_list.h and its header here.
#pragma once

#include "sim/water/diffuse.h"
#include "sim/water/scene_objects.h"
#include "sim/water/sim_output.h"
#include "sim/water/sim_state.h"
#include "sim/water/pbf.h"
#include "sim/water/pcisph.h"
#include "sim/water/simulation_impl.h"
#include "sim/water/step_guard.h"
#include "sim/water/wcsph.h"
