#include "sim/io/json_text.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace tp {

using nlohmann::json;

std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string vec3_text(Vec3 v) {
  return "[" + number_text(v.x) + ", " + number_text(v.y) + ", " + number_text(v.z) + "]";
}

// `s` as one readable line: control characters written as \n or \xNN, and at most
// `limit` bytes, then "...". Messages quote keys and values from the file through this.
std::string printable(const std::string& s, size_t limit) {
  std::string out;
  for (size_t k = 0; k < s.size() && out.size() < limit; ++k) {
    const unsigned char c = static_cast<unsigned char>(s[k]);
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      const char* hex = "0123456789abcdef";
      out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
    } else {
      out += char(c);
    }
  }
  if (out.size() >= limit && out.size() < s.size()) out += "...";
  return out;
}

// Line and column (from 1) of the byte at `offset` (from 0).
std::string line_column(const std::string& text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t line = 1, line_start = 0;
  for (size_t k = 0; k < offset; ++k)
    if (text[k] == '\n') {
      ++line;
      line_start = k + 1;
    }
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1);
}

// Where arrays and objects are first nested deeper than `limit`, found without parsing
// (nlohmann's parser recurses once per level, so a deep file would overflow the stack).
// Brackets inside strings do not count. std::string::npos when the text is shallow enough.
size_t too_deep_at(const std::string& text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (in_string) {
      if (c == '\\')
        ++k;  // the escaped character cannot end the string
      else if (c == '"')
        in_string = false;
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

// nlohmann's message without its "[json.exception...] parse error at line L, column C: "
// prefix, e.g. "unexpected '}'; expected '[', '{', or a literal (while parsing value)".
std::string json_detail(const std::string& what) {
  std::string detail = what;
  const size_t tag = detail.find("] ");
  if (tag != std::string::npos) detail = detail.substr(tag + 2);
  if (detail.compare(0, 11, "parse error") == 0) {
    const size_t colon = detail.find(": ");
    if (colon != std::string::npos) detail = detail.substr(colon + 2);
  }
  const std::string syntax = "syntax error while parsing ";
  if (detail.compare(0, syntax.size(), syntax) == 0) {
    const size_t dash = detail.find(" - ");
    if (dash != std::string::npos)
      detail = detail.substr(dash + 3) + " (while parsing " +
               detail.substr(syntax.size(), dash - syntax.size()) + ")";
  }
  return printable(detail, 300);
}

// What a JSON value is, for "must be ..., not <this>".
std::string describe_json(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case json::value_t::string:
      return "the string \"" + printable(v.get_ref<const std::string&>(), 40) + "\"";
    case json::value_t::array:
      return "an array of " + std::to_string(v.size()) + (v.size() == 1 ? " element" : " elements");
    case json::value_t::object:
      return "an object";
    case json::value_t::number_integer:
      return std::to_string(v.get<int64_t>());
    case json::value_t::number_unsigned:
      return std::to_string(v.get<uint64_t>());
    case json::value_t::number_float:
      return number_text(v.get<double>());
    default:
      return "a value of an unexpected kind";
  }
}

}  // namespace tp
