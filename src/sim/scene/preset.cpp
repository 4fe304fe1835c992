#include "sim/scene/preset.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/io/json_text.h"
#include "sim/water/params.h"
#include "util/atomic_file.h"

namespace tp {

namespace {

using nlohmann::json;

constexpr char kVersionKey[] = "tidepool_preset";
constexpr char kParamsKey[] = "params";

// Shortest decimal that reads back (as a double, then a float) to exactly `v`.
std::string float_text(float v) {
  char text[32];
  for (int digits = 6; digits <= 9; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, double(v));
    if (float(std::strtod(text, nullptr)) == v) break;
  }
  return text;
}

// One parameter's JSON value as set_param_from_text's text, or a PresetError. Numbers must
// be JSON numbers; a choice is its name (or its index, as on the command line).
std::string value_text(const ParamInfo& info, const json& v, const std::string& file) {
  const std::string path = file + ": params." + info.name;
  if (!info.choices.empty()) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
    throw PresetError(path + " must be " + param_range_text(info) + ", not " + describe(v));
  }
  if (!v.is_number())
    throw PresetError(path + " must be a number in " + param_range_text(info) + ", not " +
                      describe(v));
  return v.dump();  // the shortest text that reads back to exactly the file's number
}

}  // namespace

Preset parse_preset(const std::string& text, const std::string& source) {
  const std::string file = "preset file '" + printable(source, 300) + "'";
  if (text.size() > kMaxPresetBytes)
    throw PresetError(file + " is larger than the " + std::to_string(kMaxPresetBytes >> 20) +
                      " MB a preset file may be");
  const size_t deep = too_deep_at(text, kMaxPresetDepth);
  if (deep != std::string::npos)
    throw PresetError(file + ": JSON nested more than " + std::to_string(kMaxPresetDepth) +
                      " levels deep at " + line_column(text, deep) + " (a preset needs 2)");
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    const size_t at = e.byte > 0 ? size_t(e.byte) - 1 : 0;  // e.byte counts from 1
    throw PresetError(file + ": JSON syntax error at " + line_column(text, at) + ": " +
                      printable(json_detail(e.what()), 200));
  } catch (const json::exception& e) {  // e.g. a number beyond a double's range
    throw PresetError(file + ": JSON error: " + printable(json_detail(e.what()), 200));
  }
  if (!doc.is_object())
    throw PresetError(file + ": the top level must be an object {\"" + kVersionKey +
                      "\": 1, \"params\": {...}}, not " + describe(doc));
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (it.key() != kVersionKey && it.key() != kParamsKey)
      throw PresetError(file + ": " + printable(it.key()) +
                        " is not a known key (expected one of: params, " + kVersionKey + ")");
  const auto version = doc.find(kVersionKey);
  if (version == doc.end())
    throw PresetError(file + ": " + kVersionKey + " is missing (this is not a Tidepool preset " +
                      "file, which starts {\"" + kVersionKey + "\": 1, \"params\": ...})");
  if (!version->is_number_integer() && !version->is_number_unsigned())
    throw PresetError(file + ": " + kVersionKey + " must be " + std::to_string(kPresetVersion) +
                      ", not " + describe(*version));
  if (version->get<int64_t>() != kPresetVersion)
    throw PresetError(file + ": " + kVersionKey + " must be " + std::to_string(kPresetVersion) +
                      ", not " + version->dump() +
                      (version->get<int64_t>() > kPresetVersion
                           ? " (written by a newer Tidepool; this one reads version 1)"
                           : ""));
  const auto params = doc.find(kParamsKey);
  if (params == doc.end()) throw PresetError(file + ": params is missing");
  if (!params->is_object())
    throw PresetError(file + ": params must be an object of parameter: value, not " +
                      describe(*params));

  Preset preset;
  preset.source = source;
  SimParams probe = default_params();
  for (auto it = params->begin(); it != params->end(); ++it) {
    const ParamInfo* info = find_param(it.key());
    if (!info)
      throw PresetError(file + ": params." + printable(it.key()) +
                        " is not a parameter (valid keys: " + param_keys_list() + ")");
    const std::string value = value_text(*info, *it, file);
    std::string error;
    if (!set_param_from_text(probe, info->name, value, &error))
      throw PresetError(file + ": params." + error);  // error starts with the key's name
    preset.params.emplace_back(info->name, value);
  }
  return preset;
}

Preset load_preset_file(const std::string& path) {
  const std::string file = "preset file '" + printable(path, 300) + "'";
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    throw PresetError(file + " cannot be opened: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw PresetError(file + " is not a file");
  if (uint64_t(st.st_size) > kMaxPresetBytes)
    throw PresetError(file + " is larger than the " + std::to_string(kMaxPresetBytes >> 20) +
                      " MB a preset file may be");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw PresetError(file + " cannot be opened: " + std::strerror(errno));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_preset(buffer.str(), path);
}

void apply_preset(const Preset& preset, SimParams& params) {
  const std::string file = "preset file '" + printable(preset.source, 300) + "'";
  SimParams result = params;
  for (const auto& [key, value] : preset.params) {
    std::string error;
    if (!set_param_from_text(result, key, value, &error))
      throw PresetError(file + ": params." + error);
  }
  // Each value is in its range; what is left are conflicts between them.
  SimParams checked = result;
  const std::vector<std::string> notes = clamp_params(checked);
  if (!notes.empty())
    throw PresetError(file + ": params." + notes.front().substr(0, notes.front().find(';')));
  params = result;
}

std::string preset_json(const SimParams& params) {
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
  for (const ParamInfo& info : param_table()) {
    if (!info.choices.empty()) {
      const int k = params.*info.integer;
      if (k >= 0 && k < int(info.choices.size())) values[info.name] = info.choices[size_t(k)];
      else values[info.name] = k;  // out of range: written as is, refused when read
    } else if (info.integer) {
      values[info.name] = params.*info.integer;
    } else {
      // The shortest text of the float, as a double: what reads back to the same float.
      values[info.name] = std::strtod(float_text(params.*info.real).c_str(), nullptr);
    }
  }
  nlohmann::ordered_json doc;
  doc[kVersionKey] = kPresetVersion;
  doc[kParamsKey] = values;
  return doc.dump(2) + "\n";
}

bool save_preset_file(const std::string& path, const SimParams& params, std::string* error) {
  return write_file_atomic(path, preset_json(params), error);
}

}  // namespace tp
