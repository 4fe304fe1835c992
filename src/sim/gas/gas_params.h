// The one table of GasParams fields (util/param_table.h): the defaults, the clamping, --set
// and scene overrides for gas scenes, and the panel read it.
#pragma once

#include <string>
#include <vector>

#include "sim/gas/gas_sim.h"
#include "util/param_table.h"

namespace tp {

using GasParamInfo = FieldInfo<GasParams>;

const std::vector<GasParamInfo>& gas_param_table();
GasParams default_gas_params();
// As clamp_params (sim/water/params.h): every field into its range, one note per change.
std::vector<std::string> clamp_gas_params(GasParams& p, const GasParams& previous);
bool set_gas_param_from_text(GasParams& p, const std::string& key, const std::string& value, std::string* error);

}  // namespace tp
