// The one table of SimParams fields: name, label, unit, range, default, tooltip. The
// defaults, the clamping, the command line's --set, scene overrides and the panel all read
// it, so a field is described in exactly one place.
#pragma once

#include <string>
#include <vector>

#include "kernels/sim_params.h"

namespace tp {

using RealField = float SimParams::*;
using IntField = int SimParams::*;

struct ParamInfo {
  const char* name;     ///< key for --set and scene files, e.g. "viscosity"
  const char* label;    ///< panel label
  const char* unit;     ///< e.g. "m^2/s"; "" for dimensionless
  const char* help;     ///< tooltip: what it does, in one or two sentences
  RealField real;       ///< the field, when it is a float
  IntField integer;     ///< the field, when it is an int (an enum)
  double min, max, fallback;  ///< valid range and default
  bool logarithmic;           ///< panel slider scale
  std::vector<const char*> choices;  ///< enum names for int fields, in value order
  int solver = -1;  ///< the SolverKind this parameter belongs to; -1: shared by all

  double get(const SimParams& p) const { return real ? double(p.*real) : double(p.*integer); }
  void set(SimParams& p, double v) const {
    if (real) p.*real = float(v); else p.*integer = int(v);
  }
};

const std::vector<ParamInfo>& param_table();
const ParamInfo* find_param(const std::string& name);

SimParams default_params();

// Brings every field into its valid range (non-finite values go to the default). Returns
// one note per changed field, "stiffness: 1e+30 is above the maximum 1e+07; using 1e+07".
std::vector<std::string> clamp_params(SimParams& p);

// Sets a field from text: a number, or for enum fields one of its choice names. Values
// outside the range are refused. On failure returns false and writes a sentence to *error
// (for an unknown key, the list of valid keys).
bool set_param_from_text(SimParams& p, const std::string& key, const std::string& value,
                         std::string* error);

std::string param_keys_list();  ///< "gravity_x, gravity_y, ..."

// Solvers by name ("wcsph"), in SolverKind order; from kernels/solver_list.h.
const std::vector<const char*>& solver_names();
const char* solver_name(int kind);  ///< "wcsph"; "?" when out of range
bool parse_solver(const std::string& name, int* kind);
std::string solver_names_list();  ///< "wcsph, pcisph, pbf"

}  // namespace tp
