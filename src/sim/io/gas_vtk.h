// A gas simulation's fields as a VTK image (legacy format, binary): ParaView and VisIt open
// it as a uniform grid with point data at the cell centres: density, temperature, the dye
// colour (r, g, b as a vector) and the velocity (at the centres), and the simulated time.
#pragma once

#include <string>

#include "sim/gas/gas_sim.h"

namespace tp {

bool write_gas_vtk(const std::string& path, const GasSimulation& gas, double time, std::string* error);

}  // namespace tp
