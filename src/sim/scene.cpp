#include "sim/scene.h"

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

#include "sim/params.h"

namespace tp {

using nlohmann::json;

namespace {

std::string fmt(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw SceneError("scene file '" + source_ + "': " + path + " " + what);
  }

  void only_keys(const json& obj, const std::string& path, std::set<std::string> allowed) const {
    if (!obj.is_object()) fail(path.empty() ? "the top level" : path, "must be an object");
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (allowed.count(it.key())) continue;
      std::string list;
      for (const std::string& k : allowed) list += (list.empty() ? "" : ", ") + k;
      fail(join(path, it.key()), "is not a known key (expected one of: " + list + ")");
    }
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  double number(const json& v, const std::string& path, double min, double max) const {
    if (!v.is_number()) fail(path, "must be a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < min || d > max)
      fail(path, "must be a number in [" + fmt(min) + ", " + fmt(max) + "], not " + fmt(d));
    return d;
  }

  Vec3 vec3(const json& v, const std::string& path, double limit = 1e4) const {
    if (!v.is_array() || v.size() != 3) fail(path, "must be an array of 3 numbers");
    Vec3 out;
    out.x = float(number(v[0], path + "[0]", -limit, limit));
    out.y = float(number(v[1], path + "[1]", -limit, limit));
    out.z = float(number(v[2], path + "[2]", -limit, limit));
    return out;
  }

  std::string text(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "must be a string");
    return v.get<std::string>();
  }

  // min/max corners with min < max on every axis.
  void box(const json& obj, const std::string& path, Vec3* lo, Vec3* hi) const {
    if (!obj.contains("min")) fail(join(path, "min"), "is missing");
    if (!obj.contains("max")) fail(join(path, "max"), "is missing");
    *lo = vec3(obj["min"], join(path, "min"));
    *hi = vec3(obj["max"], join(path, "max"));
    if (!(lo->x < hi->x && lo->y < hi->y && lo->z < hi->z))
      fail(join(path, "max"), "must be greater than min on every axis");
  }

 private:
  std::string source_;
};

}  // namespace

Scene parse_scene(const std::string& text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    const size_t cut = what.find("] ");
    if (cut != std::string::npos) what = what.substr(cut + 2);
    throw SceneError("scene file '" + source + "': JSON syntax error: " + what);
  }
  Reader r(source);
  r.only_keys(doc, "", {"name", "description", "tank", "particle_spacing", "fluid_blocks",
                        "camera", "params"});
  Scene s;
  s.source = source;
  if (doc.contains("name")) s.name = r.text(doc["name"], "name");
  if (doc.contains("description")) s.description = r.text(doc["description"], "description");

  if (!doc.contains("tank")) r.fail("tank", "is missing");
  r.only_keys(doc["tank"], "tank", {"min", "max"});
  r.box(doc["tank"], "tank", &s.tank_lo, &s.tank_hi);

  if (doc.contains("particle_spacing"))
    s.spacing = float(r.number(doc["particle_spacing"], "particle_spacing", 1e-4, 10.0));

  if (!doc.contains("fluid_blocks")) r.fail("fluid_blocks", "is missing");
  const json& blocks = doc["fluid_blocks"];
  if (!blocks.is_array() || blocks.empty())
    r.fail("fluid_blocks", "must be a non-empty array of boxes");
  for (size_t k = 0; k < blocks.size(); ++k) {
    const std::string path = "fluid_blocks[" + std::to_string(k) + "]";
    r.only_keys(blocks[k], path, {"min", "max", "velocity"});
    FluidBlock b;
    r.box(blocks[k], path, &b.lo, &b.hi);
    if (blocks[k].contains("velocity")) b.velocity = r.vec3(blocks[k]["velocity"], path + ".velocity", 100);
    s.blocks.push_back(b);
  }

  if (doc.contains("camera")) {
    const json& c = doc["camera"];
    r.only_keys(c, "camera", {"target", "distance", "yaw", "pitch"});
    if (c.contains("target")) s.camera.target = r.vec3(c["target"], "camera.target");
    if (c.contains("distance")) s.camera.distance = float(r.number(c["distance"], "camera.distance", 0.01, 1e4));
    if (c.contains("yaw")) s.camera.yaw = float(r.number(c["yaw"], "camera.yaw", -360, 360));
    if (c.contains("pitch")) s.camera.pitch = float(r.number(c["pitch"], "camera.pitch", -89, 89));
  }

  if (doc.contains("params")) {
    const json& p = doc["params"];
    if (!p.is_object()) r.fail("params", "must be an object of parameter: value");
    for (auto it = p.begin(); it != p.end(); ++it) {
      const std::string path = "params." + it.key();
      std::string value;
      if (it->is_number()) value = fmt(it->get<double>());
      else if (it->is_string()) value = it->get<std::string>();
      else r.fail(path, "must be a number (or a name, for choices)");
      SimParams probe = default_params();
      std::string error;
      if (!set_param_from_text(probe, it.key(), value, &error)) r.fail(path, "is invalid: " + error);
      s.params.emplace_back(it.key(), value);
    }
  }
  if (fluid_volume(s) <= 0.0) r.fail("fluid_blocks", "do not overlap the tank: there is no water");
  return s;
}

Scene load_scene_file(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    throw SceneError("scene file '" + path + "' cannot be opened: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw SceneError("scene file '" + path + "' is not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError("scene file '" + path + "' cannot be opened: " + std::strerror(errno));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_scene(buffer.str(), path);
}

std::vector<std::string> list_scenes(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string f = e->d_name;
      if (f.size() > 5 && f.compare(f.size() - 5, 5, ".json") == 0) names.push_back(f.substr(0, f.size() - 5));
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Scene find_scene(const std::string& name_or_path, const std::string& dir) {
  const bool is_path = name_or_path.find('/') != std::string::npos ||
                       (name_or_path.size() > 5 &&
                        name_or_path.compare(name_or_path.size() - 5, 5, ".json") == 0);
  if (is_path) return load_scene_file(name_or_path);
  const std::string path = dir + "/" + name_or_path + ".json";
  if (access(path.c_str(), R_OK) != 0) {
    std::string known;
    for (const std::string& n : list_scenes(dir)) known += (known.empty() ? "" : ", ") + n;
    throw SceneError("no scene named '" + name_or_path + "' (available: " +
                     (known.empty() ? "none found in " + dir : known) + ")");
  }
  Scene s = load_scene_file(path);
  if (s.name.empty()) s.name = name_or_path;
  return s;
}

void apply_scene_params(const Scene& scene, SimParams& params) {
  for (const auto& [key, value] : scene.params) {
    std::string error;
    if (!set_param_from_text(params, key, value, &error))
      throw SceneError("scene file '" + scene.source + "': params." + key + " is invalid: " + error);
  }
}

}  // namespace tp
