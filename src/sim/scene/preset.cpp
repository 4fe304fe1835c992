#include "sim/scene/preset.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "sim/io/json_reader.h"
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

[[noreturn]] void throw_preset_error(const std::string& message) { throw PresetError(message); }

std::string preset_too_large(uint64_t) {
  return "is larger than the " + std::to_string(kMaxPresetBytes >> 20) + " MB a preset file may be";
}
// What a preset file may be. (Its syntax errors have said at most 200 bytes of the
// parser's words, and of a number beyond a double's range only what it is.)
const JsonFileRules kPresetFile = {kMaxPresetBytes, preset_too_large, kMaxPresetDepth, "a preset needs 2", 200, false};

// One parameter's JSON value as set_param_from_text's text, or a PresetError. Numbers must
// be JSON numbers; a choice is its name (or its index, as on the command line).
std::string value_text(const JsonReader& r, const ParamInfo& info, const json& v) {
  const std::string path = std::string("params.") + info.name;
  if (!info.choices.empty()) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
    r.fail(path, "must be " + param_range_text(info) + ", not " + describe_json(v));
  }
  if (!v.is_number()) r.fail(path, "must be a number in " + param_range_text(info) + ", not " + describe_json(v));
  return v.dump();  // the shortest text that reads back to exactly the file's number
}

}  // namespace

Preset parse_preset(const std::string& text, const std::string& source) {
  const JsonReader r("preset file '" + printable(source, 300) + "'", throw_preset_error);
  const json doc = r.parse(text, kPresetFile);
  if (!doc.is_object())
    r.fail("the top level", std::string("must be an object {\"") + kVersionKey + "\": 1, \"params\": {...}}, not " +
                                describe_json(doc));
  r.only_keys(doc, "", {kParamsKey, kVersionKey});
  const json* version = JsonReader::find(doc, kVersionKey);
  if (!version)
    r.fail(kVersionKey, std::string("is missing (this is not a Tidepool preset file, which starts {\"") +
                            kVersionKey + "\": 1, \"params\": ...})");
  if (!version->is_number_integer() && !version->is_number_unsigned())
    r.fail(kVersionKey, "must be " + std::to_string(kPresetVersion) + ", not " + describe_json(*version));
  if (version->get<int64_t>() != kPresetVersion)
    r.fail(kVersionKey, "must be " + std::to_string(kPresetVersion) + ", not " + version->dump() +
                            (version->get<int64_t>() > kPresetVersion
                                 ? " (written by a newer Tidepool; this one reads version 1)"
                                 : ""));
  const json& params = r.need(doc, "", kParamsKey);
  if (!params.is_object())
    r.fail(kParamsKey, "must be an object of parameter: value, not " + describe_json(params));

  Preset preset;
  preset.source = source;
  SimParams probe = default_params();
  for (auto it = params.begin(); it != params.end(); ++it) {
    const ParamInfo* info = find_param(it.key());
    if (!info)
      r.fail(JsonReader::join(kParamsKey, printable(it.key())),
             "is not a parameter (valid keys: " + param_keys_list() + ")");
    const std::string value = value_text(r, *info, *it);
    std::string error;
    if (!set_param_from_text(probe, info->name, value, &error))
      r.refuse(std::string(kParamsKey) + "." + error);  // error starts with the key's name
    preset.params.emplace_back(info->name, value);
  }
  return preset;
}

Preset load_preset_file(const std::string& path) {
  const JsonReader r("preset file '" + printable(path, 300) + "'", throw_preset_error);
  return parse_preset(r.read_file(path, kPresetFile), path);
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
