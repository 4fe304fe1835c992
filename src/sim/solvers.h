// Every solver's phases, for the two translation units that instantiate the driver.
// A new method adds its line to kernels/solver_list.h and its header here.
#pragma once

#include "sim/diffuse.h"
#include "sim/scene_objects.h"
#include "sim/sim_output.h"
#include "sim/sim_state.h"
#include "sim/pbf.h"
#include "sim/pcisph.h"
#include "sim/simulation_impl.h"
#include "sim/step_guard.h"
#include "sim/wcsph.h"
