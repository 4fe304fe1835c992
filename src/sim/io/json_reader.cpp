#include "sim/io/json_reader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sim/io/json_text.h"

namespace tp {

using nlohmann::json;

namespace {

// Where `token` first appears outside strings as a whole token, or std::string::npos.
size_t token_at(const std::string& text, const std::string& token) {
  if (token.empty()) return std::string::npos;
  bool in_string = false;
  for (size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (in_string) {
      if (c == '\\')
        ++k;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (text.compare(k, token.size(), token) == 0 &&
               (k == 0 || (text[k - 1] != '\0' && std::strchr(" \t\r\n[{:,", text[k - 1])))) {
      return k;
    }
  }
  return std::string::npos;
}

}  // namespace

// ---- The file and its text ----

std::string JsonReader::read_file(const std::string& path, const JsonFileRules& rules) const {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    refuse_file(std::string("cannot be opened: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) refuse_file("is not a file");
  if (uint64_t(st.st_size) > rules.max_bytes) refuse_file(rules.too_large(uint64_t(st.st_size)));
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse_file(std::string("cannot be opened: ") + std::strerror(errno));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

json JsonReader::parse(const std::string& text, const JsonFileRules& rules) const {
  if (text.size() > rules.max_bytes) refuse_file(rules.too_large(text.size()));
  const size_t deep = too_deep_at(text, rules.max_depth);
  if (deep != std::string::npos)
    refuse("JSON nested more than " + std::to_string(rules.max_depth) + " levels deep at " +
           line_column(text, deep) + " (" + rules.needs + ")");
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte counts from 1 and points at the character that could not be read.
    const size_t at = e.byte > 0 ? size_t(e.byte) - 1 : 0;
    refuse("JSON syntax error at " + line_column(text, at) + ": " +
           printable(json_detail(e.what()), rules.detail_limit));
  } catch (const json::exception& e) {  // a number beyond a double's range: find it
    const std::string what = e.what();
    const size_t quote = what.find('\'');
    const size_t at = !rules.locate_range_errors || quote == std::string::npos
                          ? std::string::npos
                          : token_at(text, what.substr(quote + 1, what.rfind('\'') - quote - 1));
    refuse("JSON error" + (at == std::string::npos ? "" : " at " + line_column(text, at)) + ": " +
           printable(json_detail(what), rules.detail_limit));
  }
}

// ---- Refusals ----

void JsonReader::fail(const std::string& path, const std::string& what) const {
  raise(file_ + ": " + path + " " + what);
}

void JsonReader::refuse(const std::string& sentence) const { raise(file_ + ": " + sentence); }

void JsonReader::refuse_file(const std::string& predicate) const { raise(file_ + " " + predicate); }

void JsonReader::raise(const std::string& message) const {
  raise_(message);
  throw std::runtime_error(message);
}

// ---- Key paths and keys ----

std::string JsonReader::join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string JsonReader::item(const std::string& path, size_t k) {
  return path + "[" + std::to_string(k) + "]";
}

const json* JsonReader::find(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

const json& JsonReader::need(const json& obj, const std::string& path, const char* key) const {
  const json* v = find(obj, key);
  if (!v) fail(join(path, key), "is missing");
  return *v;
}

void JsonReader::only_keys(const json& obj, const std::string& path,
                           const std::set<std::string>& allowed) const {
  if (!obj.is_object())
    fail(path.empty() ? "the top level" : path, "must be an object, not " + describe_json(obj));
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (allowed.count(it.key())) continue;
    std::string list;
    for (const std::string& k : allowed) list += (list.empty() ? "" : ", ") + k;
    fail(join(path, printable(it.key(), 60)), "is not a known key (expected one of: " + list + ")");
  }
}

void JsonReader::refuse_key(const json& obj, const std::string& path, const char* key,
                            const std::string& why) const {
  if (find(obj, key)) fail(join(path, key), why);
}

// ---- Values of files people write ----

double JsonReader::number(const json& v, const std::string& path, double min, double max) const {
  if (!v.is_number()) fail(path, "must be a number, not " + describe_json(v));
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < min || d > max)
    fail(path, "must be a number in [" + number_text(min) + ", " + number_text(max) + "], not " +
                   describe_json(v));
  return d;
}

double JsonReader::positive(const json& v, const std::string& path, double max,
                            const std::string& max_is) const {
  if (!v.is_number()) fail(path, "must be a number > 0, not " + describe_json(v));
  const double d = v.get<double>();
  const std::string expected = "must be a number > 0 and at most " + number_text(max) +
                               (max_is.empty() ? "" : " (" + max_is + ")");
  if (!std::isfinite(d) || !(d > 0.0) || d > max) fail(path, expected + ", not " + describe_json(v));
  // Stored as a float (and halved, for box sizes): 1e-300 would become 0.
  if (d < 1e-30) fail(path, expected + ", not " + describe_json(v) + ", which is too small to hold");
  return d;
}

uint64_t JsonReader::whole(const json& v, const std::string& path, uint64_t min,
                           uint64_t max) const {
  const std::string expected =
      "must be a whole number in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (!v.is_number()) fail(path, expected + ", not " + describe_json(v));
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u < min || u > max) fail(path, expected + ", not " + describe_json(v));
    return u;
  }
  const double d = v.get<double>();
  if (!std::isfinite(d) || d != std::floor(d) || d < double(min) || d > double(max))
    fail(path, expected + ", not " + describe_json(v));
  return uint64_t(d);
}

Vec3 JsonReader::vec3(const json& v, const std::string& path, double limit) const {
  if (!v.is_array() || v.size() != 3)
    fail(path, "must be an array of 3 numbers, not " + describe_json(v));
  Vec3 out;
  out.x = float(number(v[0], path + "[0]", -limit, limit));
  out.y = float(number(v[1], path + "[1]", -limit, limit));
  out.z = float(number(v[2], path + "[2]", -limit, limit));
  return out;
}

void JsonReader::box(const json& obj, const std::string& path, Vec3* lo, Vec3* hi) const {
  *lo = vec3(need(obj, path, "min"), join(path, "min"));
  *hi = vec3(need(obj, path, "max"), join(path, "max"));
  if (!(lo->x < hi->x && lo->y < hi->y && lo->z < hi->z))
    fail(join(path, "max"), "must be greater than min on every axis, not " + vec3_text(*hi) +
                                " with min " + vec3_text(*lo));
}

std::string JsonReader::text(const json& v, const std::string& path) const {
  if (!v.is_string()) fail(path, "must be a string, not " + describe_json(v));
  return v.get<std::string>();
}

int JsonReader::choice(const json& v, const std::string& path,
                       const std::vector<std::string>& names) const {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "\"" : ", \"") + n + "\"";
  if (v.is_string())
    for (size_t k = 0; k < names.size(); ++k)
      if (v.get_ref<const std::string&>() == names[k]) return int(k);
  fail(path, "must be one of " + list + ", not " + describe_json(v));
}

const json& JsonReader::array(const json& v, const std::string& path, const std::string& what,
                              size_t max_count) const {
  if (!v.is_array()) fail(path, "must be an array of " + what + ", not " + describe_json(v));
  if (v.size() > max_count)
    fail(path, "must hold at most " + std::to_string(max_count) + " " + what + ", not " +
                   std::to_string(v.size()));
  return v;
}

// ---- Values of files Tidepool writes ----

double JsonReader::finite_number(const json& v, const std::string& path) const {
  if (!v.is_number()) fail(path, "must be a number");
  const double d = v.get<double>();
  if (!std::isfinite(d)) fail(path, "must be finite");
  return d;
}

uint64_t JsonReader::count(const json& v, const std::string& path) const {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (!v.is_number_integer() || v.get<int64_t>() < 0)
    fail(path, "must be a count (a whole number >= 0)");
  return uint64_t(v.get<int64_t>());
}

bool JsonReader::flag(const json& v, const std::string& path) const {
  if (!v.is_boolean()) fail(path, "must be true or false");
  return v.get<bool>();
}

Vec3 JsonReader::finite_vec3(const json& v, const std::string& path) const {
  if (!v.is_array() || v.size() != 3 || !v[0].is_number() || !v[1].is_number() || !v[2].is_number())
    fail(path, "must be an array of 3 numbers");
  // As floats: a double beyond a float's range becomes infinite, and is refused.
  const Vec3 out{v[0].get<float>(), v[1].get<float>(), v[2].get<float>()};
  if (!is_finite(out)) fail(path, "must be finite");
  return out;
}

const json& JsonReader::list(const json& v, const std::string& path) const {
  if (!v.is_array()) fail(path, "must be an array");
  return v;
}

}  // namespace tp
