#include "sim/scene/scene.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <cmath>
#include <nlohmann/json.hpp>

#include "sim/gas/gas_params.h"
#include "sim/io/json_reader.h"
#include "sim/io/json_text.h"
#include "sim/water/params.h"

namespace tp {

using nlohmann::json;

namespace {

[[noreturn]] void throw_scene_error(const std::string& message) { throw SceneError(message); }
// Messages about values quote the file's keys and values: one line, at most 4000 bytes.
[[noreturn]] void throw_scene_value_error(const std::string& message) {
  throw SceneError(printable(message, 4000));
}

// What a scene file may be.
std::string scene_too_large(uint64_t bytes) {
  return "is " + number_text(std::ceil(double(bytes) / 1e5) / 10) + " MB, more than the " +
         std::to_string(kMaxSceneBytes >> 20) + " MB a scene file may be";
}
const JsonFileRules kSceneFile = {kMaxSceneBytes, scene_too_large, kMaxSceneDepth, "a scene needs 4"};

bool inside(Vec3 p, Vec3 lo, Vec3 hi) {
  return p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y && p.z >= lo.z && p.z <= hi.z;
}

// A point that must lie inside the tank (faces included).
Vec3 point_in_tank(const JsonReader& r, const json& v, const std::string& path, const Scene& s) {
  const Vec3 p = r.vec3(v, path);
  if (!inside(p, s.tank_lo, s.tank_hi))
    r.fail(path, "must be inside the tank (" + vec3_text(s.tank_lo) + " to " + vec3_text(s.tank_hi) + "), not " +
                     vec3_text(p));
  return p;
}

float largest_side(const Scene& s) {
  const Vec3 e = s.tank_hi - s.tank_lo;
  return std::max({e.x, e.y, e.z});
}

void read_fluid(const JsonReader& r, const json& doc, Scene& s) {
  if (const json* blocks = JsonReader::find(doc, "fluid_blocks")) {
    r.array(*blocks, "fluid_blocks", "boxes", kMaxSceneItems);
    for (size_t k = 0; k < blocks->size(); ++k) {
      const std::string path = JsonReader::item("fluid_blocks", k);
      const json& b = (*blocks)[k];
      r.only_keys(b, path, {"min", "max", "velocity"});
      FluidBlock block;
      r.box(b, path, &block.lo, &block.hi);
      if (const json* v = JsonReader::find(b, "velocity"))
        block.velocity = r.vec3(*v, path + ".velocity", 100);
      s.blocks.push_back(block);
    }
  }
  if (const json* spheres = JsonReader::find(doc, "fluid_spheres")) {
    r.array(*spheres, "fluid_spheres", "spheres", kMaxSceneItems);
    for (size_t k = 0; k < spheres->size(); ++k) {
      const std::string path = JsonReader::item("fluid_spheres", k);
      const json& b = (*spheres)[k];
      r.only_keys(b, path, {"center", "radius", "velocity"});
      FluidSphere sphere;
      sphere.center = r.vec3(r.need(b, path, "center"), path + ".center");
      sphere.radius = float(r.positive(r.need(b, path, "radius"), path + ".radius", 1e4));
      if (const json* v = JsonReader::find(b, "velocity"))
        sphere.velocity = r.vec3(*v, path + ".velocity", 100);
      s.spheres.push_back(sphere);
    }
  }
}

Emitter read_emitter(const JsonReader& r, const json& e, const std::string& path, const Scene& s) {
  r.only_keys(
      e, path,
      {"position", "velocity", "shape", "radius", "width", "height", "rate", "start", "stop"});
  Emitter em;
  em.position = point_in_tank(r, r.need(e, path, "position"), path + ".position", s);
  em.velocity = r.vec3(r.need(e, path, "velocity"), path + ".velocity", kMaxEmitterSpeed);
  const double speed = length(em.velocity);
  if (!(speed >= kMinEmitterSpeed && speed <= kMaxEmitterSpeed))
    r.fail(path + ".velocity", "must have a length (the speed of the water) in [" +
                                   number_text(kMinEmitterSpeed) + ", " + number_text(kMaxEmitterSpeed) +
                                   "] m/s, not " + number_text(speed));
  em.shape = 0;
  if (const json* shape = JsonReader::find(e, "shape"))
    em.shape = r.choice(*shape, path + ".shape", {"disk", "rectangle"});
  const float largest = largest_side(s);
  if (em.shape == 0) {
    const std::string why =
        "does not apply to a disk emitter (a disk has a radius; width and height are for "
        "\"shape\": \"rectangle\")";
    r.refuse_key(e, path, "width", why);
    r.refuse_key(e, path, "height", why);
    em.radius = float(r.positive(r.need(e, path, "radius"), path + ".radius", largest,
                                 "the tank's largest side"));
  } else {
    r.refuse_key(e, path, "radius",
                    "does not apply to a rectangle emitter (a rectangle has width and height; "
                    "radius is for \"shape\": \"disk\")");
    em.width = float(
        r.positive(r.need(e, path, "width"), path + ".width", largest, "the tank's largest side"));
    em.height = float(r.positive(r.need(e, path, "height"), path + ".height", largest,
                                 "the tank's largest side"));
  }
  if (const json* v = JsonReader::find(e, "rate"))
    em.rate = float(r.number(*v, path + ".rate", 0, 1e9));
  if (const json* v = JsonReader::find(e, "start"))
    em.start = float(r.number(*v, path + ".start", 0, 1e6));
  if (const json* v = JsonReader::find(e, "stop")) {
    const float stop = float(r.number(*v, path + ".stop", -1, 1e6));
    if (stop >= 0 && !(stop > em.start))  // compared as stored: floats
      r.fail(path + ".stop", "must be later than start (" + number_text(em.start) +
                                 " s), or -1 for never, not " + describe_json(*v));
    em.stop = stop < 0 ? -1.0f : stop;
  }
  return em;
}

ObstacleShape read_obstacle(const JsonReader& r, const json& o, const std::string& path,
                            const Scene& s) {
  r.only_keys(o, path, {"shape", "center", "radius", "size"});
  ObstacleShape shape{};
  const int kind = r.choice(r.need(o, path, "shape"), path + ".shape", {"sphere", "box"});
  shape.center = point_in_tank(r, r.need(o, path, "center"), path + ".center", s);
  const float largest = largest_side(s);
  if (kind == 0) {
    shape.kind = int(ShapeKind::Sphere);
    r.refuse_key(o, path, "size",
                    "does not apply to a sphere obstacle (a sphere has a radius; size is for "
                    "\"shape\": \"box\")");
    shape.radius = float(r.positive(r.need(o, path, "radius"), path + ".radius", largest,
                                    "the tank's largest side"));
  } else {
    shape.kind = int(ShapeKind::Box);
    r.refuse_key(
        o, path, "radius",
        "does not apply to a box obstacle (a box has a size; radius is for \"shape\": \"sphere\")");
    const json& size = r.need(o, path, "size");
    if (!size.is_array() || size.size() != 3)
      r.fail(path + ".size", "must be an array of 3 numbers, not " + describe_json(size));
    float half[3];
    for (int a = 0; a < 3; ++a)
      half[a] = 0.5f * float(r.positive(size[a], JsonReader::item(path + ".size", a), 2 * largest,
                                        "twice the tank's largest side"));
    shape.half_extent = Vec3{half[0], half[1], half[2]};
  }
  return shape;
}

// A unit quaternion from "orientation" [w, x, y, z], or from "rotation" [x, y, z] in
// degrees (turned about x, then y, then z).
Quat read_orientation(const JsonReader& r, const json& b, const std::string& path) {
  if (const json* q = JsonReader::find(b, "orientation")) {
    r.refuse_key(b, path, "rotation", "does not go with orientation (give one of the two)");
    if (!q->is_array() || q->size() != 4)
      r.fail(path + ".orientation", "must be an array of 4 numbers [w, x, y, z], not " + describe_json(*q));
    float c[4];
    for (int a = 0; a < 4; ++a) c[a] = float(r.number((*q)[a], JsonReader::item(path + ".orientation", a), -1e3, 1e3));
    const Quat out{c[0], c[1], c[2], c[3]};
    if (!(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3] > 1e-12f))
      r.fail(path + ".orientation", "must not be all zeros (a quaternion of length 1 is a rotation)");
    return quat_normalized(out);
  }
  if (const json* v = JsonReader::find(b, "rotation")) {
    const Vec3 deg = r.vec3(*v, path + ".rotation", 1e5);
    const float k = 3.14159265f / 180.0f;
    return quat_normalized(quat_from_axis_angle(Vec3{0, 0, 1}, deg.z * k) *
                           quat_from_axis_angle(Vec3{0, 1, 0}, deg.y * k) *
                           quat_from_axis_angle(Vec3{1, 0, 0}, deg.x * k));
  }
  return quat_identity();
}

BodySpec read_body(const JsonReader& r, const json& b, const std::string& path, const Scene& s) {
  r.only_keys(b, path, {"shape", "position", "size", "radius", "length", "density", "mass", "kinematic",
                        "rotation", "orientation", "velocity", "angular_velocity", "friction", "restitution",
                        "file", "scale", "axle"});
  BodySpec body;
  const float largest = largest_side(s);
  body.shape = r.choice(r.need(b, path, "shape"), path + ".shape", {"sphere", "box", "capsule", "mesh"});
  body.pose.position = point_in_tank(r, r.need(b, path, "position"), path + ".position", s);
  if (body.shape != int(BodyShapeKind::Mesh)) {
    r.refuse_key(b, path, "file", "is for a mesh body (\"shape\": \"mesh\")");
    r.refuse_key(b, path, "scale", "is for a mesh body (\"shape\": \"mesh\")");
  }
  if (const json* v = JsonReader::find(b, "axle")) body.axle = r.choice(*v, path + ".axle", {"x", "y", "z"});
  if (body.shape == int(BodyShapeKind::Mesh)) {
    for (const char* key : {"size", "radius", "length"})
      r.refuse_key(b, path, key, "does not apply to a mesh (its file gives its shape; \"scale\" its size)");
    if (s.dimensions == 2) r.fail(path + ".shape", "mesh bodies are 3D only (a 2D scene takes sphere, box, capsule)");
    const std::string file = find_beside(r.text(r.need(b, path, "file"), path + ".file"),
                                         std::filesystem::path(s.source).parent_path().string());
    float scale = 1.0f;
    if (const json* v = JsonReader::find(b, "scale")) scale = float(r.positive(*v, path + ".scale", 1e4, "10,000"));
    std::string error;
    body.mesh = load_body_mesh(file, scale, &error);
    if (!body.mesh) r.fail(path + ".file", "cannot be used: " + error);
    const Vec3 e = body.mesh->hi - body.mesh->lo;
    const float longest = std::max(e.x, std::max(e.y, e.z));
    if (longest > 2.0f * largest || longest < 0.01f * largest) {
      std::ostringstream m;
      m << path << ": the mesh " << body.mesh->name << " is " << longest << " m long in a tank " << largest
        << " m long: give \"scale\" (files in millimetres want 0.001)";
      r.refuse(m.str());
    }
  } else if (body.shape == int(BodyShapeKind::Box)) {
    r.refuse_key(b, path, "radius", "does not apply to a box (a box has a size)");
    r.refuse_key(b, path, "length", "does not apply to a box (a box has a size)");
    const json& size = r.need(b, path, "size");
    if (!size.is_array() || size.size() != 3)
      r.fail(path + ".size", "must be an array of 3 numbers, not " + describe_json(size));
    float half[3];
    for (int a = 0; a < 3; ++a)
      half[a] = 0.5f * float(r.positive(size[a], JsonReader::item(path + ".size", a), largest, "the tank's largest side"));
    body.half_extent = Vec3{half[0], half[1], half[2]};
  } else {
    r.refuse_key(b, path, "size", "does not apply to a sphere or a capsule (they have a radius)");
    body.radius = float(r.positive(r.need(b, path, "radius"), path + ".radius", largest, "the tank's largest side"));
    if (body.shape == int(BodyShapeKind::Capsule))
      body.half_height =
          0.5f * float(r.number(r.need(b, path, "length"), path + ".length", 0.0, double(largest)));
    else
      r.refuse_key(b, path, "length", "does not apply to a sphere (a capsule has a length)");
  }
  const json* density = JsonReader::find(b, "density");
  const json* mass = JsonReader::find(b, "mass");
  if (density && mass) r.fail(path, "gives both density and mass: give one (the other follows from the shape)");
  if (density) body.density = float(r.number(*density, path + ".density", 50, 20000));
  if (mass) body.mass = float(r.positive(*mass, path + ".mass", 1e7, "10,000 tonnes"));
  if (const json* v = JsonReader::find(b, "kinematic")) {
    if (!v->is_boolean()) r.fail(path + ".kinematic", "must be true or false, not " + describe_json(*v));
    body.kinematic = v->get<bool>();
  }
  body.pose.orientation = read_orientation(r, b, path);
  // A mesh is placed by its file's origin and axes; its body frame is its principal frame.
  if (body.mesh) body.pose = mesh_body_pose(*body.mesh, body.pose.position, body.pose.orientation);
  if (const json* v = JsonReader::find(b, "velocity")) body.motion.velocity = r.vec3(*v, path + ".velocity", 100);
  if (const json* v = JsonReader::find(b, "angular_velocity"))
    body.motion.angular_velocity = r.vec3(*v, path + ".angular_velocity", 1000);
  if (const json* v = JsonReader::find(b, "friction")) body.friction = float(r.number(*v, path + ".friction", 0, 2));
  if (const json* v = JsonReader::find(b, "restitution"))
    body.restitution = float(r.number(*v, path + ".restitution", 0, 1));
  const std::string why = check_body(body, s.spacing, s.dimensions, path);
  if (!why.empty()) r.refuse(why);
  return body;
}

void read_flow(const JsonReader& r, const json& doc, Scene& s) {
  if (const json* emitters = JsonReader::find(doc, "emitters")) {
    r.array(*emitters, "emitters", "emitters", kMaxEmitters);
    for (size_t k = 0; k < emitters->size(); ++k)
      s.emitters.push_back(read_emitter(r, (*emitters)[k], JsonReader::item("emitters", k), s));
  }
  if (const json* outflows = JsonReader::find(doc, "outflows")) {
    r.array(*outflows, "outflows", "boxes", kMaxOutflows);
    for (size_t k = 0; k < outflows->size(); ++k) {
      const std::string path = JsonReader::item("outflows", k);
      r.only_keys((*outflows)[k], path, {"min", "max"});
      Outflow out;
      r.box((*outflows)[k], path, &out.lo, &out.hi);
      const bool overlaps = out.lo.x < s.tank_hi.x && out.hi.x > s.tank_lo.x &&
                            out.lo.y < s.tank_hi.y && out.hi.y > s.tank_lo.y &&
                            out.lo.z < s.tank_hi.z && out.hi.z > s.tank_lo.z;
      if (!overlaps)
        r.fail(path, "must overlap the tank (" + vec3_text(s.tank_lo) + " to " + vec3_text(s.tank_hi) +
                         "), not " + vec3_text(out.lo) + " to " + vec3_text(out.hi));
      s.outflows.push_back(out);
    }
  }
  if (const json* obstacles = JsonReader::find(doc, "obstacles")) {
    r.array(*obstacles, "obstacles", "obstacles", size_t(kMaxObstacles));
    for (size_t k = 0; k < obstacles->size(); ++k)
      s.obstacles.push_back(read_obstacle(r, (*obstacles)[k], JsonReader::item("obstacles", k), s));
  }
  if (const json* bodies = JsonReader::find(doc, "bodies")) {
    r.array(*bodies, "bodies", "bodies", kMaxBodies);
    for (size_t k = 0; k < bodies->size(); ++k)
      s.bodies.push_back(read_body(r, (*bodies)[k], JsonReader::item("bodies", k), s));
  }
  if (const json* v = JsonReader::find(doc, "max_particles")) {
    s.max_particles = r.whole(*v, "max_particles", 0, kMaxParticles);
    if (s.max_particles != 0 && s.max_particles < kMinMaxParticles)
      r.fail("max_particles", "must be 0 (automatic) or a whole number in [" +
                                  std::to_string(kMinMaxParticles) + ", " +
                                  std::to_string(kMaxParticles) + "], not " + describe_json(*v));
  }
}

void read_camera(const JsonReader& r, const json& c, CameraSetup& camera) {
  r.only_keys(c, "camera", {"target", "distance", "yaw", "pitch"});
  if (const json* v = JsonReader::find(c, "target")) camera.target = r.vec3(*v, "camera.target");
  if (const json* v = JsonReader::find(c, "distance"))
    camera.distance = float(r.number(*v, "camera.distance", 0.01, 1e4));
  if (const json* v = JsonReader::find(c, "yaw"))
    camera.yaw = float(r.number(*v, "camera.yaw", -360, 360));
  if (const json* v = JsonReader::find(c, "pitch"))
    camera.pitch = float(r.number(*v, "camera.pitch", -89, 89));
}

// Parameter overrides at `path` ("params", "gas.params"): each value as text, checked by
// `set` (a parameter table's setter on a copy of the defaults), kept in order.
template <class Set>
std::vector<std::pair<std::string, std::string>> read_overrides(const JsonReader& r, const json& p,
                                                                const std::string& path, Set set) {
  if (!p.is_object()) r.fail(path, "must be an object of parameter: value, not " + describe_json(p));
  std::vector<std::pair<std::string, std::string>> out;
  for (auto it = p.begin(); it != p.end(); ++it) {
    const std::string key_path = path + "." + printable(it.key(), 60);
    std::string value;
    if (it->is_number())
      value = number_text(it->get<double>());
    else if (it->is_string())
      value = it->get<std::string>();
    else
      r.fail(key_path, "must be a number (or a name, for choices), not " + describe_json(*it));
    std::string error;
    if (!set(it.key(), value, &error)) r.fail(key_path, "is invalid: " + error);
    out.emplace_back(it.key(), value);
  }
  return out;
}

void read_params(const JsonReader& r, const json& p, Scene& s) {
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

GasSource read_gas_source(const JsonReader& r, const json& o, const std::string& path, const Scene& s) {
  r.only_keys(o, path, {"center", "radius", "density", "temperature", "color", "velocity", "pull"});
  GasSource src;
  src.center = point_in_tank(r, r.need(o, path, "center"), path + ".center", s);
  src.radius = float(r.positive(r.need(o, path, "radius"), path + ".radius", largest_side(s), "the tank's largest side"));
  if (const json* v = JsonReader::find(o, "density")) src.density = float(r.number(*v, path + ".density", 0, 1e4));
  if (const json* v = JsonReader::find(o, "temperature"))
    src.temperature = float(r.number(*v, path + ".temperature", -1e4, 1e4));
  if (const json* v = JsonReader::find(o, "color")) src.color = r.vec3(*v, path + ".color", 1.0);
  if (const json* v = JsonReader::find(o, "velocity")) src.velocity = r.vec3(*v, path + ".velocity", 100.0);
  if (const json* v = JsonReader::find(o, "pull")) src.pull = float(r.number(*v, path + ".pull", 0, 1e4));
  return src;
}

void read_gas(const JsonReader& r, const json& g, Scene& s) {
  r.only_keys(g, "gas", {"dimensions", "cells", "open_sides", "walls", "wall_velocity", "sources", "smoke_blocks", "params"});
  GasScene& gas = s.gas;
  s.is_gas = true;
  if (const json* v = JsonReader::find(g, "dimensions")) gas.dimensions = int(r.whole(*v, "gas.dimensions", 2, 3));
  if (const json* v = JsonReader::find(g, "cells")) gas.cells = int(r.whole(*v, "gas.cells", 4, 1024));
  if (const json* v = JsonReader::find(g, "open_sides")) {
    r.array(*v, "gas.open_sides", "side names", 6);
    for (size_t k = 0; k < v->size(); ++k) {
      const int side = r.choice((*v)[k], JsonReader::item("gas.open_sides", k), side_names());
      if (gas.dimensions == 2 && side >= 4)
        r.fail(JsonReader::item("gas.open_sides", k), "cannot be \"back\" or \"front\" in 2D (the plane has no depth)");
      gas.open |= 1u << side;
    }
  }
  if (const json* v = JsonReader::find(g, "walls")) gas.no_slip = r.choice(*v, "gas.walls", {"free-slip", "no-slip"});
  if (const json* v = JsonReader::find(g, "wall_velocity")) {
    if (!v->is_object()) r.fail("gas.wall_velocity", "must be an object of side: [x, y, z], not " + describe_json(*v));
    for (auto it = v->begin(); it != v->end(); ++it) {
      const std::string path = "gas.wall_velocity." + printable(it.key(), 60);
      int side = -1;
      for (size_t k = 0; k < side_names().size(); ++k)
        if (it.key() == side_names()[k]) side = int(k);
      if (side < 0) r.fail(path, "is not a side (expected one of: left, right, bottom, top, back, front)");
      gas.wall_velocity[side] = r.vec3(*it, path, 100.0);
    }
  }
  if (const json* v = JsonReader::find(g, "sources")) {
    r.array(*v, "gas.sources", "sources", 16);
    for (size_t k = 0; k < v->size(); ++k)
      gas.sources.push_back(read_gas_source(r, (*v)[k], JsonReader::item("gas.sources", k), s));
  }
  if (const json* v = JsonReader::find(g, "smoke_blocks")) {
    r.array(*v, "gas.smoke_blocks", "boxes", 64);
    for (size_t k = 0; k < v->size(); ++k) {
      const std::string path = JsonReader::item("gas.smoke_blocks", k);
      const json& o = (*v)[k];
      r.only_keys(o, path, {"min", "max", "density", "temperature", "color"});
      SmokeBlock b;
      r.box(o, path, &b.lo, &b.hi);
      if (const json* d = JsonReader::find(o, "density")) b.density = float(r.number(*d, path + ".density", 0, 1e4));
      if (const json* d = JsonReader::find(o, "temperature"))
        b.temperature = float(r.number(*d, path + ".temperature", -1e4, 1e4));
      if (const json* d = JsonReader::find(o, "color")) b.color = r.vec3(*d, path + ".color", 1.0);
      gas.blocks.push_back(b);
    }
  }
  if (const json* p = JsonReader::find(g, "params"))
    gas.params = read_overrides(r, *p, "gas.params", [](const std::string& key, const std::string& value, std::string* error) {
      GasParams probe = default_gas_params();
      return set_gas_param_from_text(probe, key, value, error);
    });
}

Scene read_scene(const json& doc, const std::string& source) {
  const JsonReader r("scene file '" + source + "'", throw_scene_value_error);
  r.only_keys(doc, "",
              {"name", "description", "dimensions", "tank", "particle_spacing", "fluid_blocks", "fluid_spheres",
               "emitters", "outflows", "obstacles", "bodies", "max_particles", "camera", "params", "gas"});
  Scene s;
  s.source = source;
  if (const json* v = JsonReader::find(doc, "name")) s.name = r.text(*v, "name");
  if (const json* v = JsonReader::find(doc, "description")) s.description = r.text(*v, "description");

  const json& tank = r.need(doc, "", "tank");
  r.only_keys(tank, "tank", {"min", "max"});
  r.box(tank, "tank", &s.tank_lo, &s.tank_hi);
  if (const json* v = JsonReader::find(doc, "dimensions")) s.dimensions = int(r.whole(*v, "dimensions", 2, 3));
  if (const json* v = JsonReader::find(doc, "particle_spacing"))
    s.spacing = float(r.number(*v, "particle_spacing", 1e-4, 10.0));

  read_fluid(r, doc, s);
  read_flow(r, doc, s);
  if (const json* v = JsonReader::find(doc, "camera")) read_camera(r, *v, s.camera);
  if (const json* v = JsonReader::find(doc, "params")) read_params(r, *v, s);
  if (const json* v = JsonReader::find(doc, "gas")) {
    if (JsonReader::find(doc, "dimensions")) s.gas.dimensions = s.dimensions;  // gas.dimensions may still say
    read_gas(r, *v, s);
    for (const char* water : {"fluid_blocks", "fluid_spheres", "emitters", "outflows", "params"})
      if (JsonReader::find(doc, water))
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
  const json doc = JsonReader(file, throw_scene_error).parse(text, kSceneFile);
  try {
    return read_scene(doc, source);
  } catch (const json::exception& e) {  // a wrong type that the reader missed: a bug, but a message
    throw SceneError(file + ": unexpected JSON content (" + json_detail(e.what()) + ")");
  }
}

Scene load_scene_file(const std::string& path) {
  return parse_scene(JsonReader("scene file '" + path + "'", throw_scene_error).read_file(path, kSceneFile), path);
}

std::string find_beside(const std::string& file, const std::string& dir) {
  namespace fs = std::filesystem;
  const fs::path given(file);
  if (given.is_absolute()) return file;
  std::error_code ec;
  for (const fs::path& base : {fs::path(dir), fs::path(dir).parent_path()})
    if (fs::exists(base / given, ec)) return (base / given).string();
  return (fs::path(dir) / given).string();
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
    // The kind is the JSON's "gas" key: the file is read as JSON, not built as a scene
    // (which would load a mesh body's file and build its distance field).
    bool gas = false;
    try {
      const std::string path = dir + "/" + name + ".json";
      const JsonReader r("scene file '" + path + "'", throw_scene_error);
      const json doc = r.parse(r.read_file(path, kSceneFile), kSceneFile);
      gas = doc.is_object() && doc.contains("gas");
    } catch (const SceneError&) {
      continue;  // (a file that is no JSON is no scene of either kind)
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
