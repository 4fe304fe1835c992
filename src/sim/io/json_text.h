// Turning JSON text and values into one-line messages (scene files, presets, state
// files): where in the text, what was found, quoted safely.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "kernels/common.h"

namespace tp {

// `s` as one readable line: control characters written as \n or \xNN, and at most
// `limit` bytes, then "...". Messages quote keys and values from a file through this.
std::string printable(const std::string& s, size_t limit = 60);
// A number as messages write it, as an ostream writes a double: six significant digits,
// "0.5", "1e+07".
std::string number_text(double v);
// "[x, y, z]", each as number_text writes it.
std::string vec3_text(Vec3 v);
// "line L, column C" (from 1) of the byte at `offset` (from 0).
std::string line_column(const std::string& text, size_t offset);
// Where arrays and objects are first nested deeper than `limit`, found without parsing
// (nlohmann's parser recurses once per level, so a deep file would overflow the stack).
// Brackets inside strings do not count. std::string::npos when the text is shallow enough.
size_t too_deep_at(const std::string& text, int limit);
// nlohmann's exception message without its "[json.exception...] parse error at line L,
// column C: " prefix, e.g. "unexpected '}'; expected '[', '{', or a literal (while parsing
// value)".
std::string json_detail(const std::string& what);
// What a JSON value is, for "must be ..., not <this>": "null", "the string \"x\"", "an
// array of 2 elements", "an object", or the number.
std::string describe_json(const nlohmann::json& v);

}  // namespace tp
