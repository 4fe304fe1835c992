// The one table of SimParams fields: name, label, unit, range, default, tooltip. The
// defaults, the clamping, the command line's --set, scene overrides and the panel all read
// it, so a field is described in exactly one place.
#pragma once

#include <string>
#include <vector>

#include "kernels/sim_params.h"
#include "util/param_table.h"

namespace tp {

using ParamInfo = FieldInfo<SimParams>;
using RealField = ParamInfo::RealField;
using IntField = ParamInfo::IntField;

const std::vector<ParamInfo>& param_table();
const ParamInfo* find_param(const std::string& name);

SimParams default_params();

// A field's valid values as the messages show them: "[0, 0.1] m^2/s", "[1, 200], whole",
// "one of push pull drag (or 0 to 2)". From the table, so never out of date.
std::string param_range_text(const ParamInfo& info);

// Brings every field into its valid range, after the panel (or anything else) wrote to the
// struct directly. A NaN or infinite value, and a choice that names no choice, is refused:
// the field keeps its value in `previous` (the default, if that is not valid either). A
// finite number outside the range is clamped to the nearer end. Then dt_min may not exceed
// dt_max. Returns one note per changed field, naming it and its range:
//   "viscosity: nan is not a number; kept 0.001 (valid [0, 0.1] m^2/s)"
//   "stiffness: 1e+30 is above the maximum; clamped to 1e+07 (valid [1000, 1e+07] Pa)"
std::vector<std::string> clamp_params(SimParams& p, const SimParams& previous);
std::vector<std::string> clamp_params(SimParams& p);  ///< previous: the defaults

// Sets a field from text: a number, or for enum fields one of its choice names. Values
// outside the range, NaN and infinities are refused (text comes from --set, a scene or a
// preset file: better a clear error than a run with other values than the user wrote). On failure returns false and writes a sentence to *error
// (for an unknown key, the list of valid keys).
bool set_param_from_text(SimParams& p, const std::string& key, const std::string& value,
                         std::string* error);

std::string param_keys_list();  ///< "gravity_x, gravity_y, ..."

// Solvers by name ("wcsph"), in SolverKind order; from kernels/solver_list.h.
const std::vector<const char*>& solver_names();
const char* solver_name(int kind);  ///< "wcsph"; "?" when out of range
bool parse_solver(const std::string& name, int* kind);
std::string solver_names_list();  ///< "wcsph, pcisph, pbf, dfsph"

}  // namespace tp
