#include "app/preset.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/params.h"
#include "util/atomic_file.h"

namespace tp {

namespace {

using nlohmann::json;

constexpr char kVersionKey[] = "tidepool_preset";
constexpr char kParamsKey[] = "params";

// Text from the file as one short printable line (keys and values are quoted in messages).
std::string printable(const std::string& s, size_t limit = 60) {
  std::string out;
  for (size_t k = 0; k < s.size(); ++k) {
    if (out.size() >= limit) return out + "...";
    const unsigned char c = static_cast<unsigned char>(s[k]);
    if (c < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
      out += escaped;
    } else {
      out += char(c);
    }
  }
  return out;
}

// Shortest decimal that reads back (as a double, then a float) to exactly `v`.
std::string float_text(float v) {
  char text[32];
  for (int digits = 6; digits <= 9; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, double(v));
    if (float(std::strtod(text, nullptr)) == v) break;
  }
  return text;
}

std::string describe(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case json::value_t::string:
      return "the string \"" + printable(v.get_ref<const std::string&>(), 40) + "\"";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    default:
      return v.dump();
  }
}

// Where brackets outside strings first nest deeper than `limit` (byte offset), or npos.
// Checked before parsing: a parser that recurses per level must not meet 100,000 of them.
size_t too_deep_at(const std::string& text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (in_string) {
      if (c == '\\') ++k;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return k;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string::npos;
}

std::string line_and_column(const std::string& text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t k = 0; k < offset && k < text.size(); ++k) {
    if (text[k] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error
// while parsing object - unexpected '}'; expected string literal" as "unexpected '}';
// expected string literal (while parsing object)".
std::string parse_error_detail(const std::string& what) {
  std::string detail = what.substr(what.find("] ") == std::string::npos ? 0 : what.find("] ") + 2);
  const size_t colon = detail.find(": ");
  if (detail.rfind("parse error", 0) == 0 && colon != std::string::npos)
    detail = detail.substr(colon + 2);
  const std::string syntax = "syntax error while parsing ";
  const size_t dash = detail.find(" - ");
  if (detail.rfind(syntax, 0) == 0 && dash != std::string::npos)
    detail = detail.substr(dash + 3) + " (while parsing " +
             detail.substr(syntax.size(), dash - syntax.size()) + ")";
  return printable(detail, 200);
}

// One parameter's JSON value as set_param_from_text's text, or a PresetError. Numbers must
// be JSON numbers; a choice is its name (or its index, as on the command line).
std::string value_text(const ParamInfo& info, const json& v, const std::string& file) {
  const std::string path = file + ": params." + info.name;
  if (!info.choices.empty()) {
    std::string names;
    for (const char* c : info.choices) names += (names.empty() ? "" : ", ") + std::string(c);
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
    throw PresetError(path + " must be one of " + names + ", not " + describe(v));
  }
  if (!v.is_number())
    throw PresetError(path + " must be a number, not " + describe(v));
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
                      " levels deep at " + line_and_column(text, deep) + " (a preset needs 2)");
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    const size_t at = e.byte > 0 ? size_t(e.byte) - 1 : 0;  // e.byte counts from 1
    throw PresetError(file + ": JSON syntax error at " + line_and_column(text, at) + ": " +
                      parse_error_detail(e.what()));
  } catch (const json::exception& e) {  // e.g. a number beyond a double's range
    throw PresetError(file + ": JSON error: " + parse_error_detail(e.what()));
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
