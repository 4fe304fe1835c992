// PLY (Turk's polygon file format) for meshes: the header's elements and properties, then the
// body in ascii or binary (either byte order). The vertices' x, y, z (any numeric type) and
// the faces' vertex lists (any integer count and index types) are kept, everything else is
// read past. Every read is checked against the bytes left, and every count against what the
// bytes left could hold before anything is allocated, so a damaged file is a message.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "sim/bodies/triangle_mesh.h"

namespace tp {
namespace {

enum class Scalar { Int8, Uint8, Int16, Uint16, Int32, Uint32, Float32, Float64 };

bool scalar_of(const std::string& word, Scalar* s) {
  static const struct {
    const char* name;
    Scalar scalar;
  } names[] = {
      {"char", Scalar::Int8},      {"int8", Scalar::Int8},       {"uchar", Scalar::Uint8},
      {"uint8", Scalar::Uint8},    {"short", Scalar::Int16},     {"int16", Scalar::Int16},
      {"ushort", Scalar::Uint16},  {"uint16", Scalar::Uint16},   {"int", Scalar::Int32},
      {"int32", Scalar::Int32},    {"uint", Scalar::Uint32},     {"uint32", Scalar::Uint32},
      {"float", Scalar::Float32},  {"float32", Scalar::Float32}, {"double", Scalar::Float64},
      {"float64", Scalar::Float64}};
  for (const auto& n : names) {
    if (word == n.name) {
      *s = n.scalar;
      return true;
    }
  }
  return false;
}

size_t size_of(Scalar s) {
  switch (s) {
    case Scalar::Int8:
    case Scalar::Uint8:
      return 1;
    case Scalar::Int16:
    case Scalar::Uint16:
      return 2;
    case Scalar::Int32:
    case Scalar::Uint32:
    case Scalar::Float32:
      return 4;
    case Scalar::Float64:
      return 8;
  }
  return 1;
}

bool is_integer(Scalar s) { return s != Scalar::Float32 && s != Scalar::Float64; }

struct Property {
  std::string name;
  Scalar type = Scalar::Float32;  ///< the value's, or a list's items'
  bool list = false;
  Scalar count_type = Scalar::Uint8;  ///< a list's length
};

struct Element {
  std::string name;
  uint64_t count = 0;
  std::vector<Property> properties;
};

enum class Format { Ascii, BinaryLittle, BinaryBig };

struct Header {
  Format format = Format::Ascii;
  std::vector<Element> elements;
  size_t body = 0;  ///< where the data starts
};

// The header, up to and including the end_header line.
bool read_header(std::string_view bytes, const std::string& name, Header* h, std::string* error) {
  const auto fail = [&](const std::string& why) {
    if (error) *error = name + ": malformed PLY file (" + why + ")";
    return false;
  };
  size_t at = 0;
  bool has_format = false;
  for (int line_number = 1;; ++line_number) {
    const size_t end = bytes.find('\n', at);
    if (end == std::string_view::npos) return fail("the header has no end_header line");
    std::string line(bytes.substr(at, end - at));
    at = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::istringstream words(line);
    std::string word;
    words >> word;
    const std::string where = "header line " + std::to_string(line_number);
    if (line_number == 1) {
      if (word != "ply") return fail("it does not start with 'ply'");
      continue;
    }
    if (word.empty() || word == "comment" || word == "obj_info") continue;
    if (word == "end_header") break;
    if (word == "format") {
      std::string kind, version;
      words >> kind >> version;
      if (kind == "ascii")
        h->format = Format::Ascii;
      else if (kind == "binary_little_endian")
        h->format = Format::BinaryLittle;
      else if (kind == "binary_big_endian")
        h->format = Format::BinaryBig;
      else
        return fail(where + ": unknown format '" + kind + "'");
      has_format = true;
    } else if (word == "element") {
      Element e;
      long long count = -1;
      if (!(words >> e.name >> count) || count < 0)
        return fail(where + ": element needs a name and a count");
      e.count = uint64_t(count);
      h->elements.push_back(e);
    } else if (word == "property") {
      if (h->elements.empty()) return fail(where + ": a property before any element");
      Property p;
      std::string type;
      words >> type;
      if (type == "list") {
        std::string count_type, item_type;
        words >> count_type >> item_type >> p.name;
        p.list = true;
        if (!scalar_of(count_type, &p.count_type) || !is_integer(p.count_type) ||
            !scalar_of(item_type, &p.type)) {
          return fail(where + ": unknown list types '" + count_type + " " + item_type + "'");
        }
      } else {
        words >> p.name;
        if (!scalar_of(type, &p.type)) return fail(where + ": unknown type '" + type + "'");
      }
      if (p.name.empty()) return fail(where + ": a property without a name");
      h->elements.back().properties.push_back(p);
    } else {
      return fail(where + ": unknown keyword '" + word + "'");
    }
  }
  if (!has_format) return fail("the header has no format line");
  h->body = at;
  return true;
}

// The body's values, one at a time, in the file's format.
class Cursor {
 public:
  Cursor(std::string_view bytes, Format format) : bytes_(bytes), format_(format) {}

  size_t left() const { return bytes_.size() - at_; }

  bool read(Scalar type, double* out) {
    return format_ == Format::Ascii ? read_text(out) : read_binary(type, out);
  }

  // The fewest bytes a value of `type` takes (a digit and a space in ascii).
  size_t least(Scalar type) const { return format_ == Format::Ascii ? 2 : size_of(type); }

 private:
  bool read_text(double* out) {
    while (at_ < bytes_.size() && std::isspace(static_cast<unsigned char>(bytes_[at_]))) ++at_;
    size_t end = at_;
    while (end < bytes_.size() && !std::isspace(static_cast<unsigned char>(bytes_[end]))) ++end;
    if (end == at_ || end - at_ > 64) return false;
    const std::string token(bytes_.substr(at_, end - at_));
    char* stop = nullptr;
    *out = std::strtod(token.c_str(), &stop);
    if (stop != token.c_str() + token.size()) return false;
    at_ = end;
    return true;
  }

  bool read_binary(Scalar type, double* out) {
    const size_t n = size_of(type);
    if (left() < n) return false;
    uint64_t raw = 0;
    for (size_t k = 0; k < n; ++k) {
      const uint64_t byte = uint8_t(bytes_[at_ + (format_ == Format::BinaryBig ? n - 1 - k : k)]);
      raw |= byte << (8 * k);
    }
    at_ += n;
    switch (type) {
      case Scalar::Int8:
        *out = double(int8_t(uint8_t(raw)));
        break;
      case Scalar::Uint8:
        *out = double(uint8_t(raw));
        break;
      case Scalar::Int16:
        *out = double(int16_t(uint16_t(raw)));
        break;
      case Scalar::Uint16:
        *out = double(uint16_t(raw));
        break;
      case Scalar::Int32:
        *out = double(int32_t(uint32_t(raw)));
        break;
      case Scalar::Uint32:
        *out = double(uint32_t(raw));
        break;
      case Scalar::Float32: {
        float f;
        const uint32_t bits = uint32_t(raw);
        std::memcpy(&f, &bits, 4);
        *out = double(f);
        break;
      }
      case Scalar::Float64:
        std::memcpy(out, &raw, 8);
        break;
    }
    return true;
  }

  std::string_view bytes_;
  Format format_;
  size_t at_ = 0;
};

// The fewest bytes one item of `e` takes: its scalars, and each list's count.
size_t least_bytes(const Element& e, const Cursor& c) {
  size_t n = 0;
  for (const Property& p : e.properties) n += c.least(p.list ? p.count_type : p.type);
  return n;
}

class PlyBody {
 public:
  PlyBody(const Header& h, std::string_view bytes, const std::string& name, std::string* error)
      : cursor_(bytes.substr(h.body), h.format), header_(h), name_(name), error_(error) {}

  bool read(TriangleSoup* mesh) {
    const Element* vertex = nullptr;
    for (const Element& e : header_.elements) {
      if (e.name == "vertex") vertex = &e;
    }
    if (vertex == nullptr) return fail("it has no vertex element");
    vertex_count_ = vertex->count;
    for (const Element& e : header_.elements) {
      if (e.count > 0 && e.count > cursor_.left() / std::max<size_t>(1, least_bytes(e, cursor_))) {
        return fail("its " + std::to_string(e.count) + " " + e.name + " items cannot fit in the " +
                    std::to_string(cursor_.left()) +
                    " bytes after the header (the file is cut short)");
      }
      if (e.name == "vertex") {
        if (!read_vertices(e, mesh)) return false;
      } else if (e.name == "face") {
        if (!read_faces(e, mesh)) return false;
      } else if (!skip(e)) {
        return false;
      }
    }
    return true;
  }

 private:
  bool fail(const std::string& why) {
    if (error_) *error_ = name_ + ": malformed PLY file (" + why + ")";
    return false;
  }
  bool cut_short(const Element& e, uint64_t item) {
    return fail("it ends inside " + e.name + " " + std::to_string(item + 1) + " of " +
                std::to_string(e.count) + " (the file is cut short or a value is not a number)");
  }

  bool read_list_count(const Property& p, const Element& e, uint64_t item, uint64_t* count) {
    double c = 0.0;
    if (!cursor_.read(p.count_type, &c)) return cut_short(e, item);
    if (!(c >= 0.0 && c == std::floor(c) && c <= 1e9)) {
      return fail(e.name + " " + std::to_string(item + 1) + " has a list of length " +
                  std::to_string(c));
    }
    *count = uint64_t(c);
    if (*count > cursor_.left() / cursor_.least(p.type) + 1) return cut_short(e, item);
    return true;
  }

  bool read_vertices(const Element& e, TriangleSoup* mesh) {
    int axis_of[3] = {-1, -1, -1};
    for (size_t k = 0; k < e.properties.size(); ++k) {
      const Property& p = e.properties[k];
      const int axis = p.name == "x" ? 0 : p.name == "y" ? 1 : p.name == "z" ? 2 : -1;
      if (axis >= 0 && !p.list) axis_of[axis] = int(k);
    }
    if (axis_of[0] < 0 || axis_of[1] < 0 || axis_of[2] < 0) {
      return fail("its vertices have no x, y and z properties");
    }
    mesh->vertices.reserve(size_t(e.count));
    for (uint64_t v = 0; v < e.count; ++v) {
      double xyz[3] = {0.0, 0.0, 0.0};
      for (size_t k = 0; k < e.properties.size(); ++k) {
        const Property& p = e.properties[k];
        double value = 0.0;
        if (p.list) {
          if (!skip_list(p, e, v)) return false;
          continue;
        }
        if (!cursor_.read(p.type, &value)) return cut_short(e, v);
        for (int a = 0; a < 3; ++a) {
          if (axis_of[a] == int(k)) xyz[a] = value;
        }
      }
      mesh->vertices.push_back(Vec3{float(xyz[0]), float(xyz[1]), float(xyz[2])});
    }
    return true;
  }

  bool read_faces(const Element& e, TriangleSoup* mesh) {
    int list = -1;
    for (size_t k = 0; k < e.properties.size(); ++k) {
      const Property& p = e.properties[k];
      if (p.list && (p.name == "vertex_indices" || p.name == "vertex_index")) list = int(k);
    }
    if (list < 0) return fail("its faces have no vertex_indices list");
    if (!is_integer(e.properties[size_t(list)].type))
      return fail("its faces' vertex indices are not integers");
    mesh->triangles.reserve(size_t(e.count));
    std::vector<uint32_t> corners;
    for (uint64_t f = 0; f < e.count; ++f) {
      for (size_t k = 0; k < e.properties.size(); ++k) {
        const Property& p = e.properties[k];
        double value = 0.0;
        if (int(k) != list) {
          if (p.list ? !skip_list(p, e, f) : !cursor_.read(p.type, &value))
            return p.list ? false : cut_short(e, f);
          continue;
        }
        uint64_t count = 0;
        if (!read_list_count(p, e, f, &count)) return false;
        if (count < 3)
          return fail("face " + std::to_string(f + 1) + " has " + std::to_string(count) +
                      " corners (a face needs 3 or more)");
        corners.clear();
        for (uint64_t c = 0; c < count; ++c) {
          if (!cursor_.read(p.type, &value)) return cut_short(e, f);
          if (!(value >= 0.0 && value < double(vertex_count_))) {
            return fail("face " + std::to_string(f + 1) + " refers to vertex " +
                        std::to_string(int64_t(value)) + " of " + std::to_string(vertex_count_) +
                        " (they count from 0)");
          }
          corners.push_back(uint32_t(value));
        }
        for (size_t c = 1; c + 1 < corners.size(); ++c) {
          mesh->triangles.push_back({corners[0], corners[c], corners[c + 1]});
        }
      }
    }
    return true;
  }

  bool skip_list(const Property& p, const Element& e, uint64_t item) {
    uint64_t count = 0;
    if (!read_list_count(p, e, item, &count)) return false;
    double ignored = 0.0;
    for (uint64_t c = 0; c < count; ++c) {
      if (!cursor_.read(p.type, &ignored)) return cut_short(e, item);
    }
    return true;
  }

  bool skip(const Element& e) {
    double ignored = 0.0;
    for (uint64_t item = 0; item < e.count; ++item) {
      for (const Property& p : e.properties) {
        if (p.list ? !skip_list(p, e, item) : !cursor_.read(p.type, &ignored))
          return p.list ? false : cut_short(e, item);
      }
    }
    return true;
  }

  Cursor cursor_;
  const Header& header_;
  const std::string& name_;
  std::string* error_;
  uint64_t vertex_count_ = 0;
};

}  // namespace

std::optional<TriangleSoup> parse_ply(std::string_view bytes, const std::string& name,
                                      std::string* error) {
  Header header;
  if (!read_header(bytes, name, &header, error)) return std::nullopt;
  TriangleSoup mesh;
  PlyBody body(header, bytes, name, error);
  if (!body.read(&mesh)) return std::nullopt;
  return mesh;
}

}  // namespace tp
