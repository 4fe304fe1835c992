// The one JSON reader of Tidepool's files (scenes and their gas part, presets, the header
// of water state files). It reads the file and parses its text behind guards (size,
// nesting depth, syntax errors with their line and column), then walks the document with
// key-path errors: "scene file 'x.json': fluid_blocks[0].velocity[1] must be a number in
// [-100, 100], not 250". Each file names itself and throws its own error type; the words
// of every check are here, once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common.h"

namespace tp {

// What a kind of JSON file may be, and how its refusals are worded.
struct JsonFileRules {
  uint64_t max_bytes = 0;  ///< larger files are refused unread
  /// The words after the file's name for a file of `bytes` bytes above max_bytes: "is
  /// larger than the 1 MB a preset file may be".
  std::string (*too_large)(uint64_t bytes) = nullptr;
  int max_depth = 0;       ///< arrays and objects inside each other
  const char* needs = "";  ///< the depth the format needs, for that refusal: "a scene needs 4"
  /// nlohmann's own words of a syntax error cut to this many bytes (npos: as they are).
  size_t detail_limit = std::string::npos;
  /// A number beyond a double's range: say where it is (presets have said only what).
  bool locate_range_errors = true;
};

class JsonReader {
 public:
  using json = nlohmann::json;
  // Throws the file's own error type with a finished message. It must not return (if it
  // does, the message goes out as a std::runtime_error).
  using Raise = void (*)(const std::string& message);

  // `file` begins every message: "scene file 'x.json'".
  JsonReader(std::string file, Raise raise) : file_(std::move(file)), raise_(raise) {}

  // ---- The file and its text ----
  // The text of the file at `path`: "<file> cannot be opened: <why>", "<file> is not a
  // file" or too_large when it is over max_bytes (known before reading it).
  std::string read_file(const std::string& path, const JsonFileRules& rules) const;
  // The document in `text`. Too large, nested too deep (found without parsing: a deep
  // document would exhaust the stack of a recursive reader), a syntax error or a number
  // beyond a double's range: refused with where it is in the text.
  json parse(const std::string& text, const JsonFileRules& rules) const;

  // ---- Refusals ----
  // "<file>: <path> <what>": fail("fluid_blocks[0].radius", "is missing").
  [[noreturn]] void fail(const std::string& path, const std::string& what) const;
  // "<file>: <sentence>", for what concerns the file as a whole.
  [[noreturn]] void refuse(const std::string& sentence) const;

  // ---- Key paths and keys ----
  // "path.key", or "key" at the top level.
  static std::string join(const std::string& path, const std::string& key);
  // "path[k]".
  static std::string item(const std::string& path, size_t k);
  // The value at obj[key], or nullptr (also when obj is not an object).
  static const json* find(const json& obj, const char* key);
  // The value at obj[key]; "<path.key> is missing" without it.
  const json& need(const json& obj, const std::string& path, const char* key) const;
  // obj is an object of the `allowed` keys only ("is not a known key (expected one of: ...)").
  void only_keys(const json& obj, const std::string& path,
                 const std::set<std::string>& allowed) const;
  // Refuses obj[key], when there, with `why` (a key that another key's choice rules out).
  void refuse_key(const json& obj, const std::string& path, const char* key,
                  const std::string& why) const;

  // ---- Values of files people write: each refusal says the range and what was found ----
  // A finite number in [min, max].
  double number(const json& v, const std::string& path, double min, double max) const;
  // A number > 0 and at most `max` (`max_is` says what that limit is, if not a constant).
  double positive(const json& v, const std::string& path, double max,
                  const std::string& max_is = "") const;
  // A whole number in [min, max] (1e5 is accepted, 0.5 is not).
  uint64_t whole(const json& v, const std::string& path, uint64_t min, uint64_t max) const;
  // Three numbers in [-limit, limit].
  Vec3 vec3(const json& v, const std::string& path, double limit = 1e4) const;
  // obj's "min" and "max" corners, with min < max on every axis.
  void box(const json& obj, const std::string& path, Vec3* lo, Vec3* hi) const;
  std::string text(const json& v, const std::string& path) const;
  // One of the given names; returns its index.
  int choice(const json& v, const std::string& path, const std::vector<std::string>& names) const;
  // An array of at most `max_count` elements (`what` names them in the message).
  const json& array(const json& v, const std::string& path, const std::string& what,
                    size_t max_count) const;

  // ---- Values of files Tidepool writes (state files): a refusal names the kind only ----
  double finite_number(const json& v, const std::string& path) const;
  uint64_t count(const json& v, const std::string& path) const;  // a whole number >= 0
  bool flag(const json& v, const std::string& path) const;
  Vec3 finite_vec3(const json& v, const std::string& path) const;
  const json& list(const json& v, const std::string& path) const;  // an array
  // The same, of the key that obj must have ("path.key").
  double finite_number(const json& obj, const std::string& path, const char* key) const {
    return finite_number(need(obj, path, key), join(path, key));
  }
  uint64_t count(const json& obj, const std::string& path, const char* key) const {
    return count(need(obj, path, key), join(path, key));
  }
  bool flag(const json& obj, const std::string& path, const char* key) const {
    return flag(need(obj, path, key), join(path, key));
  }
  Vec3 finite_vec3(const json& obj, const std::string& path, const char* key) const {
    return finite_vec3(need(obj, path, key), join(path, key));
  }
  const json& list(const json& obj, const std::string& path, const char* key) const {
    return list(need(obj, path, key), join(path, key));
  }

 private:
  // "<file> <predicate>": the file itself cannot be read.
  [[noreturn]] void refuse_file(const std::string& predicate) const;
  [[noreturn]] void raise(const std::string& message) const;

  std::string file_;
  Raise raise_;
};

}  // namespace tp
