// A table of a parameter struct's fields (name, label, unit, range, default, tooltip) and
// what every user of such a table needs: defaults, clamping with notes, setting from text
// (--set, scene files, presets), range text for messages and tooltips. One template for the
// particles' SimParams (sim/water/params.h) and the gas's GasParams (sim/gas/gas_params.h).
#pragma once

#include <climits>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace tp {

template <class P>
struct FieldInfo {
  using RealField = float P::*;
  using IntField = int P::*;
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

  double get(const P& p) const { return real ? double(p.*real) : double(p.*integer); }
  // Stores v as the field's type. An int field saturates at the ends of int (NaN, which it
  // cannot hold, stores the lowest int): either way clamping then sees an invalid value.
  void set(P& p, double v) const {
    if (real)
      p.*real = float(v);
    else
      p.*integer = std::isnan(v) || v <= double(INT_MIN) ? INT_MIN : v >= double(INT_MAX) ? INT_MAX : int(v);
  }
};

// Table rows: a float with its unit, a whole number, a choice among names (an int enum).
template <class P>
FieldInfo<P> real_field(const char* name, const char* label, const char* unit, float P::*field, double min,
                        double max, double fallback, bool log, const char* help) {
  return FieldInfo<P>{name, label, unit, help, field, nullptr, min, max, fallback, log, {}};
}
template <class P>
FieldInfo<P> whole_field(const char* name, const char* label, int P::*field, double min, double max,
                         double fallback, const char* help) {
  return FieldInfo<P>{name, label, "", help, nullptr, field, min, max, fallback, false, {}};
}
template <class P>
FieldInfo<P> choice_field(const char* name, const char* label, int P::*field, double fallback,
                          std::vector<const char*> choices, const char* help) {
  const double max = double(choices.size()) - 1.0;
  return FieldInfo<P>{name, label, "", help, nullptr, field, 0.0, max, fallback, false, choices};
}

namespace param_text {

inline std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

template <class P>
std::string bounds(const FieldInfo<P>& info) {
  return "[" + number(info.min) + ", " + number(info.max) + "]";
}

// Whether v (as the field stores it) is a valid value of the field. Floats compare with the
// bounds as floats, or a value set to exactly the maximum (0.001 stored as 0.0010000000475)
// would count as above it.
template <class P>
bool in_range(const FieldInfo<P>& info, double v) {
  if (!(std::fabs(v) < 1e38)) return false;  // NaN, infinite, or beyond a float
  if (info.real) return float(v) >= float(info.min) && float(v) <= float(info.max);
  return v >= info.min && v <= info.max;
}

}  // namespace param_text

template <class P>
const FieldInfo<P>* find_field(const std::vector<FieldInfo<P>>& table, const std::string& name) {
  for (const FieldInfo<P>& info : table)
    if (name == info.name) return &info;
  return nullptr;
}

template <class P>
P default_fields(const std::vector<FieldInfo<P>>& table) {
  P p{};
  for (const FieldInfo<P>& info : table) info.set(p, info.fallback);
  return p;
}

// "[0, 0.1] m^2/s", "[1, 200], whole", "one of push pull drag (or 0 to 2)".
template <class P>
std::string field_range_text(const FieldInfo<P>& info) {
  if (!info.choices.empty()) {
    std::string names;
    for (const char* c : info.choices) names += (names.empty() ? "" : " ") + std::string(c);
    return "one of " + names + " (or 0 to " + param_text::number(info.max) + ")";
  }
  if (info.integer) return param_text::bounds(info) + ", whole";
  return param_text::bounds(info) + (info.unit[0] ? std::string(" ") + info.unit : std::string());
}

template <class P>
std::string field_keys_list(const std::vector<FieldInfo<P>>& table) {
  std::string keys;
  for (const FieldInfo<P>& info : table) keys += (keys.empty() ? "" : ", ") + std::string(info.name);
  return keys;
}

// Brings every field into its valid range. A NaN or infinite value, and a choice that names
// no choice, is refused: the field keeps its value in `previous` (the default, if that is
// not valid either). A finite number outside the range is clamped to the nearer end. One
// note per changed field, naming it and its range.
template <class P>
std::vector<std::string> clamp_fields(const std::vector<FieldInfo<P>>& table, P& p, const P& previous) {
  using param_text::number;
  std::vector<std::string> notes;
  for (const FieldInfo<P>& info : table) {
    const double v = info.get(p);
    if (param_text::in_range(info, v)) continue;
    double fixed;
    std::string why;
    if (!std::isfinite(v) || !info.choices.empty()) {
      const double before = info.get(previous);
      fixed = param_text::in_range(info, before) ? before : info.fallback;
      why = std::string(std::isnan(v) ? "is not a number" : !std::isfinite(v) ? "is infinite" : "names no choice") +
            "; kept " + number(fixed);
    } else {
      fixed = v < info.min ? info.min : info.max;
      why = std::string(v < info.min ? "is below the minimum" : "is above the maximum") + "; clamped to " +
            number(fixed);
    }
    info.set(p, fixed);
    notes.push_back(std::string(info.name) + ": " + number(v) + " " + why + " (valid " + field_range_text(info) +
                    ")");
  }
  return notes;
}

// Sets a field from text: a number, or for enum fields one of its choice names. Values
// outside the range, NaN and infinities are refused with a sentence in *error (for an
// unknown key, the list of valid keys).
template <class P>
bool set_field_from_text(const std::vector<FieldInfo<P>>& table, P& p, const std::string& key,
                         const std::string& value, std::string* error) {
  const FieldInfo<P>* info = find_field(table, key);
  if (!info) {
    *error = "unknown parameter '" + key + "'; valid keys: " + field_keys_list(table);
    return false;
  }
  for (size_t k = 0; k < info->choices.size(); ++k) {
    if (value == info->choices[k]) {
      info->set(p, double(k));
      return true;
    }
  }
  const char* begin = value.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  const std::string range = field_range_text(*info);
  const bool number = !value.empty() && end != begin && *end == '\0';
  if (!info->choices.empty() && (!number || !param_text::in_range(*info, v) || v != std::floor(v))) {
    *error = std::string(info->name) + ": '" + value + "' is not valid; expected " + range;
    return false;
  }
  if (!number || !std::isfinite(v)) {
    *error = std::string(info->name) + ": '" + value + "' is not valid; expected a number in " + range;
    return false;
  }
  if (info->integer && param_text::in_range(*info, v) && v != std::floor(v)) {
    *error = std::string(info->name) + ": " + value + " must be a whole number in " + param_text::bounds(*info);
    return false;
  }
  if (!param_text::in_range(*info, v)) {
    *error = std::string(info->name) + ": " + value + " is outside its valid range " + range;
    return false;
  }
  info->set(p, v);
  return true;
}

}  // namespace tp
