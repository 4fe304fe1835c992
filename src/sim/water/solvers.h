// The whole particle simulation, every solver's phases with it, for the translation units
// that instantiate the driver. A new method adds its line to kernels/solver_list.h and its
// header here.
#pragma once

#include "sim/water/pbf.h"
#include "sim/water/pcisph.h"
#include "sim/water/shared_phases.h"
#include "sim/water/simulation_impl.h"
#include "sim/water/simulation_output.h"
#include "sim/water/simulation_state.h"
#include "sim/water/wcsph.h"
