#include "sim/scene/scene.h"

#include "sim/gas/gas_params.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <cmath>
#include <dirent.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "sim/io/json_text.h"
#include "sim/water/params.h"

namespace tp {

using nlohmann::json;

namespace {

std::string fmt(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string fmt(Vec3 v) { return "[" + fmt(v.x) + ", " + fmt(v.y) + ", " + fmt(v.z) + "]"; }

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

bool inside(Vec3 p, Vec3 lo, Vec3 hi) {
  return p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y && p.z >= lo.z && p.z <= hi.z;
}

// Reads values at key paths and fails with "scene file 'x': <path> must be ..., not ...".
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw SceneError(printable("scene file '" + source_ + "': " + path + " " + what, 4000));
  }

  void only_keys(const json& obj, const std::string& path, std::set<std::string> allowed) const {
    if (!obj.is_object())
      fail(path.empty() ? "the top level" : path, "must be an object, not " + describe(obj));
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (allowed.count(it.key())) continue;
      std::string list;
      for (const std::string& k : allowed) list += (list.empty() ? "" : ", ") + k;
      fail(join(path, printable(it.key(), 60)),
           "is not a known key (expected one of: " + list + ")");
    }
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  // The value at obj[key] (obj is an object), or nullptr.
  static const json* find(const json& obj, const char* key) {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  const json& need(const json& obj, const std::string& path, const char* key) const {
    const json* v = find(obj, key);
    if (!v) fail(join(path, key), "is missing");
    return *v;
  }

  double number(const json& v, const std::string& path, double min, double max) const {
    if (!v.is_number()) fail(path, "must be a number, not " + describe(v));
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < min || d > max)
      fail(path, "must be a number in [" + fmt(min) + ", " + fmt(max) + "], not " + describe(v));
    return d;
  }

  // A number > 0 and at most `max` (`max_is` says what that limit is, if not a constant).
  double positive(const json& v, const std::string& path, double max,
                  const std::string& max_is = "") const {
    if (!v.is_number()) fail(path, "must be a number > 0, not " + describe(v));
    const double d = v.get<double>();
    const std::string expected = "must be a number > 0 and at most " + fmt(max) +
                                 (max_is.empty() ? "" : " (" + max_is + ")");
    if (!std::isfinite(d) || !(d > 0.0) || d > max) fail(path, expected + ", not " + describe(v));
    // Stored as a float (and halved, for box sizes): 1e-300 would become 0.
    if (d < 1e-30) fail(path, expected + ", not " + describe(v) + ", which is too small to hold");
    return d;
  }

  // A whole number in [min, max] (1e5 is accepted, 0.5 is not).
  uint64_t whole(const json& v, const std::string& path, uint64_t min, uint64_t max) const {
    const std::string expected =
        "must be a whole number in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    if (!v.is_number()) fail(path, expected + ", not " + describe(v));
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      if (u < min || u > max) fail(path, expected + ", not " + describe(v));
      return u;
    }
    const double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || d < double(min) || d > double(max))
      fail(path, expected + ", not " + describe(v));
    return uint64_t(d);
  }

  Vec3 vec3(const json& v, const std::string& path, double limit = 1e4) const {
    if (!v.is_array() || v.size() != 3)
      fail(path, "must be an array of 3 numbers, not " + describe(v));
    Vec3 out;
    out.x = float(number(v[0], path + "[0]", -limit, limit));
    out.y = float(number(v[1], path + "[1]", -limit, limit));
    out.z = float(number(v[2], path + "[2]", -limit, limit));
    return out;
  }

  std::string text(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "must be a string, not " + describe(v));
    return v.get<std::string>();
  }

  // One of the given names; returns its index.
  int choice(const json& v, const std::string& path, const std::vector<std::string>& names) const {
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "\"" : ", \"") + n + "\"";
    if (v.is_string())
      for (size_t k = 0; k < names.size(); ++k)
        if (v.get_ref<const std::string&>() == names[k]) return int(k);
    fail(path, "must be one of " + list + ", not " + describe(v));
  }

  // An array of at most `max_count` elements (`what` names them in the message).
  const json& array(const json& v, const std::string& path, const std::string& what,
                    size_t max_count) const {
    if (!v.is_array()) fail(path, "must be an array of " + what + ", not " + describe(v));
    if (v.size() > max_count)
      fail(path, "must hold at most " + std::to_string(max_count) + " " + what + ", not " +
                     std::to_string(v.size()));
    return v;
  }

  // min/max corners with min < max on every axis.
  void box(const json& obj, const std::string& path, Vec3* lo, Vec3* hi) const {
    *lo = vec3(need(obj, path, "min"), join(path, "min"));
    *hi = vec3(need(obj, path, "max"), join(path, "max"));
    if (!(lo->x < hi->x && lo->y < hi->y && lo->z < hi->z))
      fail(join(path, "max"),
           "must be greater than min on every axis, not " + fmt(*hi) + " with min " + fmt(*lo));
  }

  // A point that must lie inside the tank (faces included).
  Vec3 point_in_tank(const json& v, const std::string& path, const Scene& s) const {
    const Vec3 p = vec3(v, path);
    if (!inside(p, s.tank_lo, s.tank_hi))
      fail(path, "must be inside the tank (" + fmt(s.tank_lo) + " to " + fmt(s.tank_hi) +
                     "), not " + fmt(p));
    return p;
  }

  // A key that the object's shape does not use.
  void not_for_shape(const json& obj, const std::string& path, const char* key,
                     const std::string& why) const {
    if (find(obj, key)) fail(join(path, key), why);
  }

 private:
  std::string source_;
};

std::string item(const std::string& path, size_t k) { return path + "[" + std::to_string(k) + "]"; }

float largest_side(const Scene& s) {
  const Vec3 e = s.tank_hi - s.tank_lo;
  return std::max({e.x, e.y, e.z});
}

void read_fluid(const Reader& r, const json& doc, Scene& s) {
  if (const json* blocks = Reader::find(doc, "fluid_blocks")) {
    r.array(*blocks, "fluid_blocks", "boxes", kMaxSceneItems);
    for (size_t k = 0; k < blocks->size(); ++k) {
      const std::string path = item("fluid_blocks", k);
      const json& b = (*blocks)[k];
      r.only_keys(b, path, {"min", "max", "velocity"});
      FluidBlock block;
      r.box(b, path, &block.lo, &block.hi);
      if (const json* v = Reader::find(b, "velocity"))
        block.velocity = r.vec3(*v, path + ".velocity", 100);
      s.blocks.push_back(block);
    }
  }
  if (const json* spheres = Reader::find(doc, "fluid_spheres")) {
    r.array(*spheres, "fluid_spheres", "spheres", kMaxSceneItems);
    for (size_t k = 0; k < spheres->size(); ++k) {
      const std::string path = item("fluid_spheres", k);
      const json& b = (*spheres)[k];
      r.only_keys(b, path, {"center", "radius", "velocity"});
      FluidSphere sphere;
      sphere.center = r.vec3(r.need(b, path, "center"), path + ".center");
      sphere.radius = float(r.positive(r.need(b, path, "radius"), path + ".radius", 1e4));
      if (const json* v = Reader::find(b, "velocity"))
        sphere.velocity = r.vec3(*v, path + ".velocity", 100);
      s.spheres.push_back(sphere);
    }
  }
}

Emitter read_emitter(const Reader& r, const json& e, const std::string& path, const Scene& s) {
  r.only_keys(
      e, path,
      {"position", "velocity", "shape", "radius", "width", "height", "rate", "start", "stop"});
  Emitter em;
  em.position = r.point_in_tank(r.need(e, path, "position"), path + ".position", s);
  em.velocity = r.vec3(r.need(e, path, "velocity"), path + ".velocity", kMaxEmitterSpeed);
  const double speed = length(em.velocity);
  if (!(speed >= kMinEmitterSpeed && speed <= kMaxEmitterSpeed))
    r.fail(path + ".velocity", "must have a length (the speed of the water) in [" +
                                   fmt(kMinEmitterSpeed) + ", " + fmt(kMaxEmitterSpeed) +
                                   "] m/s, not " + fmt(speed));
  em.shape = 0;
  if (const json* shape = Reader::find(e, "shape"))
    em.shape = r.choice(*shape, path + ".shape", {"disk", "rectangle"});
  const float largest = largest_side(s);
  if (em.shape == 0) {
    const std::string why =
        "does not apply to a disk emitter (a disk has a radius; width and height are for "
        "\"shape\": \"rectangle\")";
    r.not_for_shape(e, path, "width", why);
    r.not_for_shape(e, path, "height", why);
    em.radius = float(r.positive(r.need(e, path, "radius"), path + ".radius", largest,
                                 "the tank's largest side"));
  } else {
    r.not_for_shape(e, path, "radius",
                    "does not apply to a rectangle emitter (a rectangle has width and height; "
                    "radius is for \"shape\": \"disk\")");
    em.width = float(
        r.positive(r.need(e, path, "width"), path + ".width", largest, "the tank's largest side"));
    em.height = float(r.positive(r.need(e, path, "height"), path + ".height", largest,
                                 "the tank's largest side"));
  }
  if (const json* v = Reader::find(e, "rate"))
    em.rate = float(r.number(*v, path + ".rate", 0, 1e9));
  if (const json* v = Reader::find(e, "start"))
    em.start = float(r.number(*v, path + ".start", 0, 1e6));
  if (const json* v = Reader::find(e, "stop")) {
    const float stop = float(r.number(*v, path + ".stop", -1, 1e6));
    if (stop >= 0 && !(stop > em.start))  // compared as stored: floats
      r.fail(path + ".stop", "must be later than start (" + fmt(em.start) +
                                 " s), or -1 for never, not " + describe(*v));
    em.stop = stop < 0 ? -1.0f : stop;
  }
  return em;
}

ObstacleShape read_obstacle(const Reader& r, const json& o, const std::string& path,
                            const Scene& s) {
  r.only_keys(o, path, {"shape", "center", "radius", "size"});
  ObstacleShape shape{};
  const int kind = r.choice(r.need(o, path, "shape"), path + ".shape", {"sphere", "box"});
  shape.center = r.point_in_tank(r.need(o, path, "center"), path + ".center", s);
  const float largest = largest_side(s);
  if (kind == 0) {
    shape.kind = int(ShapeKind::Sphere);
    r.not_for_shape(o, path, "size",
                    "does not apply to a sphere obstacle (a sphere has a radius; size is for "
                    "\"shape\": \"box\")");
    shape.radius = float(r.positive(r.need(o, path, "radius"), path + ".radius", largest,
                                    "the tank's largest side"));
  } else {
    shape.kind = int(ShapeKind::Box);
    r.not_for_shape(
        o, path, "radius",
        "does not apply to a box obstacle (a box has a size; radius is for \"shape\": \"sphere\")");
    const json& size = r.need(o, path, "size");
    if (!size.is_array() || size.size() != 3)
      r.fail(path + ".size", "must be an array of 3 numbers, not " + describe(size));
    float half[3];
    for (int a = 0; a < 3; ++a)
      half[a] = 0.5f * float(r.positive(size[a], item(path + ".size", a), 2 * largest,
                                        "twice the tank's largest side"));
    shape.half_extent = Vec3{half[0], half[1], half[2]};
  }
  return shape;
}

void read_flow(const Reader& r, const json& doc, Scene& s) {
  if (const json* emitters = Reader::find(doc, "emitters")) {
    r.array(*emitters, "emitters", "emitters", kMaxEmitters);
    for (size_t k = 0; k < emitters->size(); ++k)
      s.emitters.push_back(read_emitter(r, (*emitters)[k], item("emitters", k), s));
  }
  if (const json* outflows = Reader::find(doc, "outflows")) {
    r.array(*outflows, "outflows", "boxes", kMaxOutflows);
    for (size_t k = 0; k < outflows->size(); ++k) {
      const std::string path = item("outflows", k);
      r.only_keys((*outflows)[k], path, {"min", "max"});
      Outflow out;
      r.box((*outflows)[k], path, &out.lo, &out.hi);
      const bool overlaps = out.lo.x < s.tank_hi.x && out.hi.x > s.tank_lo.x &&
                            out.lo.y < s.tank_hi.y && out.hi.y > s.tank_lo.y &&
                            out.lo.z < s.tank_hi.z && out.hi.z > s.tank_lo.z;
      if (!overlaps)
        r.fail(path, "must overlap the tank (" + fmt(s.tank_lo) + " to " + fmt(s.tank_hi) +
                         "), not " + fmt(out.lo) + " to " + fmt(out.hi));
      s.outflows.push_back(out);
    }
  }
  if (const json* obstacles = Reader::find(doc, "obstacles")) {
    r.array(*obstacles, "obstacles", "obstacles", size_t(kMaxObstacles));
    for (size_t k = 0; k < obstacles->size(); ++k)
      s.obstacles.push_back(read_obstacle(r, (*obstacles)[k], item("obstacles", k), s));
  }
  if (const json* v = Reader::find(doc, "max_particles")) {
    s.max_particles = r.whole(*v, "max_particles", 0, kMaxParticles);
    if (s.max_particles != 0 && s.max_particles < kMinMaxParticles)
      r.fail("max_particles", "must be 0 (automatic) or a whole number in [" +
                                  std::to_string(kMinMaxParticles) + ", " +
                                  std::to_string(kMaxParticles) + "], not " + describe(*v));
  }
}

void read_camera(const Reader& r, const json& c, CameraSetup& camera) {
  r.only_keys(c, "camera", {"target", "distance", "yaw", "pitch"});
  if (const json* v = Reader::find(c, "target")) camera.target = r.vec3(*v, "camera.target");
  if (const json* v = Reader::find(c, "distance"))
    camera.distance = float(r.number(*v, "camera.distance", 0.01, 1e4));
  if (const json* v = Reader::find(c, "yaw"))
    camera.yaw = float(r.number(*v, "camera.yaw", -360, 360));
  if (const json* v = Reader::find(c, "pitch"))
    camera.pitch = float(r.number(*v, "camera.pitch", -89, 89));
}

// Parameter overrides at `path` ("params", "gas.params"): each value as text, checked by
// `set` (a parameter table's setter on a copy of the defaults), kept in order.
template <class Set>
std::vector<std::pair<std::string, std::string>> read_overrides(const Reader& r, const json& p, const std::string& path,
                                                                Set set) {
  if (!p.is_object()) r.fail(path, "must be an object of parameter: value, not " + describe(p));
  std::vector<std::pair<std::string, std::string>> out;
  for (auto it = p.begin(); it != p.end(); ++it) {
    const std::string key_path = path + "." + printable(it.key(), 60);
    std::string value;
    if (it->is_number())
      value = fmt(it->get<double>());
    else if (it->is_string())
      value = it->get<std::string>();
    else
      r.fail(key_path, "must be a number (or a name, for choices), not " + describe(*it));
    std::string error;
    if (!set(it.key(), value, &error)) r.fail(key_path, "is invalid: " + error);
    out.emplace_back(it.key(), value);
  }
  return out;
}

void read_params(const Reader& r, const json& p, Scene& s) {
  s.params = read_overrides(r, p, "params", [](const std::string& key, const std::string& value, std::string* error) {
    SimParams probe = default_params();
    return set_param_from_text(probe, key, value, error);
  });
}

// The sides by name, in GasGrid order.
const std::vector<std::string>& side_names() {
  static const std::vector<std::string> names = {"left", "right", "bottom", "top", "back", "front"};
  return names;
}

GasSource read_gas_source(const Reader& r, const json& o, const std::string& path, const Scene& s) {
  r.only_keys(o, path, {"center", "radius", "density", "temperature", "color", "velocity", "pull"});
  GasSource src;
  src.centre = r.point_in_tank(r.need(o, path, "center"), path + ".center", s);
  src.radius = float(r.positive(r.need(o, path, "radius"), path + ".radius", largest_side(s), "the tank's largest side"));
  if (const json* v = Reader::find(o, "density")) src.density = float(r.number(*v, path + ".density", 0, 1e4));
  if (const json* v = Reader::find(o, "temperature"))
    src.temperature = float(r.number(*v, path + ".temperature", -1e4, 1e4));
  if (const json* v = Reader::find(o, "color")) src.colour = r.vec3(*v, path + ".color", 1.0);
  if (const json* v = Reader::find(o, "velocity")) src.velocity = r.vec3(*v, path + ".velocity", 100.0);
  if (const json* v = Reader::find(o, "pull")) src.pull = float(r.number(*v, path + ".pull", 0, 1e4));
  return src;
}

void read_gas(const Reader& r, const json& g, Scene& s) {
  r.only_keys(g, "gas", {"dimensions", "cells", "open_sides", "walls", "wall_velocity", "sources", "smoke_blocks", "params"});
  GasScene& gas = s.gas;
  s.is_gas = true;
  if (const json* v = Reader::find(g, "dimensions")) gas.dimensions = int(r.whole(*v, "gas.dimensions", 2, 3));
  if (const json* v = Reader::find(g, "cells")) gas.cells = int(r.whole(*v, "gas.cells", 4, 1024));
  if (const json* v = Reader::find(g, "open_sides")) {
    r.array(*v, "gas.open_sides", "side names", 6);
    for (size_t k = 0; k < v->size(); ++k) {
      const int side = r.choice((*v)[k], item("gas.open_sides", k), side_names());
      if (gas.dimensions == 2 && side >= 4)
        r.fail(item("gas.open_sides", k), "cannot be \"back\" or \"front\" in 2D (the plane has no depth)");
      gas.open |= 1u << side;
    }
  }
  if (const json* v = Reader::find(g, "walls")) gas.no_slip = r.choice(*v, "gas.walls", {"free-slip", "no-slip"});
  if (const json* v = Reader::find(g, "wall_velocity")) {
    if (!v->is_object()) r.fail("gas.wall_velocity", "must be an object of side: [x, y, z], not " + describe(*v));
    for (auto it = v->begin(); it != v->end(); ++it) {
      const std::string path = "gas.wall_velocity." + printable(it.key(), 60);
      int side = -1;
      for (size_t k = 0; k < side_names().size(); ++k)
        if (it.key() == side_names()[k]) side = int(k);
      if (side < 0) r.fail(path, "is not a side (expected one of: left, right, bottom, top, back, front)");
      gas.wall_velocity[side] = r.vec3(*it, path, 100.0);
    }
  }
  if (const json* v = Reader::find(g, "sources")) {
    r.array(*v, "gas.sources", "sources", 16);
    for (size_t k = 0; k < v->size(); ++k) gas.sources.push_back(read_gas_source(r, (*v)[k], item("gas.sources", k), s));
  }
  if (const json* v = Reader::find(g, "smoke_blocks")) {
    r.array(*v, "gas.smoke_blocks", "boxes", 64);
    for (size_t k = 0; k < v->size(); ++k) {
      const std::string path = item("gas.smoke_blocks", k);
      const json& o = (*v)[k];
      r.only_keys(o, path, {"min", "max", "density", "temperature", "color"});
      SmokeBlock b;
      r.box(o, path, &b.lo, &b.hi);
      if (const json* d = Reader::find(o, "density")) b.density = float(r.number(*d, path + ".density", 0, 1e4));
      if (const json* d = Reader::find(o, "temperature")) b.temperature = float(r.number(*d, path + ".temperature", -1e4, 1e4));
      if (const json* d = Reader::find(o, "color")) b.colour = r.vec3(*d, path + ".color", 1.0);
      gas.blocks.push_back(b);
    }
  }
  if (const json* p = Reader::find(g, "params"))
    gas.params = read_overrides(r, *p, "gas.params", [](const std::string& key, const std::string& value, std::string* error) {
      GasParams probe = default_gas_params();
      return set_gas_param_from_text(probe, key, value, error);
    });
}

Scene read_scene(const json& doc, const std::string& source) {
  Reader r(source);
  r.only_keys(doc, "",
              {"name", "description", "dimensions", "tank", "particle_spacing", "fluid_blocks", "fluid_spheres",
               "emitters", "outflows", "obstacles", "max_particles", "camera", "params", "gas"});
  Scene s;
  s.source = source;
  if (const json* v = Reader::find(doc, "name")) s.name = r.text(*v, "name");
  if (const json* v = Reader::find(doc, "description")) s.description = r.text(*v, "description");

  const json& tank = r.need(doc, "", "tank");
  r.only_keys(tank, "tank", {"min", "max"});
  r.box(tank, "tank", &s.tank_lo, &s.tank_hi);
  if (const json* v = Reader::find(doc, "dimensions")) s.dimensions = int(r.whole(*v, "dimensions", 2, 3));
  if (const json* v = Reader::find(doc, "particle_spacing"))
    s.spacing = float(r.number(*v, "particle_spacing", 1e-4, 10.0));

  read_fluid(r, doc, s);
  read_flow(r, doc, s);
  if (const json* v = Reader::find(doc, "camera")) read_camera(r, *v, s.camera);
  if (const json* v = Reader::find(doc, "params")) read_params(r, *v, s);
  if (const json* v = Reader::find(doc, "gas")) {
    if (Reader::find(doc, "dimensions")) s.gas.dimensions = s.dimensions;  // gas.dimensions may still say
    read_gas(r, *v, s);
    for (const char* water : {"fluid_blocks", "fluid_spheres", "emitters", "outflows", "params"})
      if (Reader::find(doc, water))
        r.fail(water, "is for water; a gas scene (with \"gas\") has smoke_blocks and sources in \"gas\" "
                      "and its parameters in gas.params");
    return s;
  }

  if (s.emitters.empty() && fluid_volume(s) <= 0.0) {
    if (s.blocks.empty() && s.spheres.empty())
      r.fail("fluid_blocks",
             "is missing: the scene has no water (give fluid_blocks, fluid_spheres or emitters)");
    r.fail(s.blocks.empty() ? "fluid_spheres" : "fluid_blocks",
           "do not overlap the tank and there are no emitters: the scene has no water");
  }
  return s;
}

}  // namespace

Scene parse_scene(const std::string& text, const std::string& source) {
  const std::string file = "scene file '" + printable(source, 300) + "'";
  if (text.size() > kMaxSceneBytes)
    throw SceneError(file + " is " + fmt(std::ceil(double(text.size()) / 1e5) / 10) +
                     " MB, more than the " + std::to_string(kMaxSceneBytes >> 20) +
                     " MB a scene file may be");
  const size_t deep = too_deep_at(text, kMaxSceneDepth);
  if (deep != std::string::npos)
    throw SceneError(file + ": JSON nested more than " + std::to_string(kMaxSceneDepth) +
                     " levels deep at " + line_column(text, deep) + " (a scene needs 4)");
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte counts from 1 and points at the character that could not be read.
    const size_t at = e.byte > 0 ? size_t(e.byte) - 1 : 0;
    throw SceneError(file + ": JSON syntax error at " + line_column(text, at) + ": " +
                     json_detail(e.what()));
  } catch (const json::exception& e) {  // a number beyond double's range: find it
    const std::string what = e.what();
    const size_t quote = what.find('\'');
    const size_t at = quote == std::string::npos
                          ? std::string::npos
                          : token_at(text, what.substr(quote + 1, what.rfind('\'') - quote - 1));
    throw SceneError(file + ": JSON error" +
                     (at == std::string::npos ? "" : " at " + line_column(text, at)) + ": " +
                     json_detail(what));
  }
  try {
    return read_scene(doc, source);
  } catch (const json::exception& e) {  // a wrong type that the Reader missed: a bug, but a message
    throw SceneError(file + ": unexpected JSON content (" + json_detail(e.what()) + ")");
  }
}

Scene load_scene_file(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    throw SceneError("scene file '" + path + "' cannot be opened: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw SceneError("scene file '" + path + "' is not a file");
  if (uint64_t(st.st_size) > kMaxSceneBytes)
    throw SceneError("scene file '" + path + "' is " +
                     fmt(std::ceil(double(st.st_size) / 1e5) / 10) + " MB, more than the " +
                     std::to_string(kMaxSceneBytes >> 20) + " MB a scene file may be");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError("scene file '" + path + "' cannot be opened: " + std::strerror(errno));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_scene(buffer.str(), path);
}

std::vector<std::string> list_scenes(const std::string& dir, SceneKind kind) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string f = e->d_name;
      if (f.size() > 5 && f.compare(f.size() - 5, 5, ".json") == 0)
        names.push_back(f.substr(0, f.size() - 5));
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  if (kind == SceneKind::Any) return names;
  std::vector<std::string> kept;
  for (const std::string& name : names) {
    bool gas = false;
    try {
      gas = load_scene_file(dir + "/" + name + ".json").is_gas;
    } catch (const SceneError&) {
      continue;  // (a broken file is no scene of either kind)
    }
    if (gas == (kind == SceneKind::Gas)) kept.push_back(name);
  }
  return kept;
}

Scene find_scene(const std::string& name_or_path, const std::string& dir) {
  const bool is_path =
      name_or_path.find('/') != std::string::npos ||
      (name_or_path.size() > 5 && name_or_path.compare(name_or_path.size() - 5, 5, ".json") == 0);
  if (is_path) return load_scene_file(name_or_path);
  const std::string path = dir + "/" + name_or_path + ".json";
  if (access(path.c_str(), R_OK) != 0) {
    std::string known;
    for (const std::string& n : list_scenes(dir)) known += (known.empty() ? "" : ", ") + n;
    throw SceneError("no scene named '" + name_or_path +
                     "' (available: " + (known.empty() ? "none found in " + dir : known) + ")");
  }
  Scene s = load_scene_file(path);
  if (s.name.empty()) s.name = name_or_path;
  return s;
}

void apply_scene_params(const Scene& scene, SimParams& params) {
  for (const auto& [key, value] : scene.params) {
    std::string error;
    if (!set_param_from_text(params, key, value, &error))
      throw SceneError("scene file '" + scene.source + "': params." + key +
                       " is invalid: " + error);
  }
}

}  // namespace tp
