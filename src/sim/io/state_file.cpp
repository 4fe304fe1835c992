#include "sim/io/state_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "sim/io/binary_reader.h"
#include "sim/io/json_reader.h"
#include "sim/water/memory_need.h"
#include "sim/water/params.h"
#include "util/atomic_file.h"

namespace tp {

using nlohmann::json;

namespace {

const char kMagic[] = "TIDEPOOL STATE 1\n";
constexpr size_t kMagicLength = sizeof(kMagic) - 1;
constexpr uint64_t kMaxStateBytes = uint64_t(64) << 30;  // 64 GB: larger is not a state file

bool host_is_little_endian() {
  const uint32_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

json vec(Vec3 v) { return json::array({v.x, v.y, v.z}); }

void put_u64(std::string& out, uint64_t v) {
  for (int k = 0; k < 8; ++k) out.push_back(char((v >> (8 * k)) & 0xff));
}

template <class T>
void put_blob(std::string& out, const std::vector<T>& items) {
  static_assert(std::is_trivially_copyable<T>::value, "raw blob");
  put_u64(out, uint64_t(items.size()) * sizeof(T));
  out.append(reinterpret_cast<const char*>(items.data()), items.size() * sizeof(T));
}

[[noreturn]] void throw_state_error(const std::string& message) { throw std::runtime_error(message); }

}  // namespace

std::string encode_state(const SimState& s, const std::string& scene) {
  const InitialState& init = s.initial;
  json h;
  h["scene"] = scene;
  h["little_endian"] = host_is_little_endian();
  h["tank_lo"] = vec(init.tank_lo);
  h["tank_hi"] = vec(init.tank_hi);
  h["spacing"] = init.spacing;
  h["dimensions"] = init.dimensions;
  h["max_particles"] = init.max_particles;
  h["obstacles"] = json::array();
  for (const ObstacleShape& o : init.obstacles)
    h["obstacles"].push_back({{"kind", o.kind}, {"center", vec(o.center)}, {"half_extent", vec(o.half_extent)},
                              {"radius", o.radius}, {"velocity", vec(o.velocity)}});
  // Rigid bodies (issue 36), with the water's force of the latest step that their next
  // move takes (the coupling's lag). Files without them have no bodies.
  h["bodies"] = json::array();
  for (size_t k = 0; k < init.bodies.size(); ++k) {
    const BodySpec& b = init.bodies[k];
    const Quat& q = b.pose.orientation;
    json body = {{"shape", b.shape},
                 {"radius", b.radius},
                 {"half_extent", vec(b.half_extent)},
                 {"half_height", b.half_height},
                 {"density", b.density},
                 {"mass", b.mass},
                 {"kinematic", b.kinematic},
                 {"friction", b.friction},
                 {"restitution", b.restitution},
                 {"position", vec(b.pose.position)},
                 {"orientation", {q.w, q.x, q.y, q.z}},
                 {"velocity", vec(b.motion.velocity)},
                 {"angular_velocity", vec(b.motion.angular_velocity)}};
    if (b.axle >= 0) body["axle"] = b.axle;
    if (b.mesh) {  // the mesh is read again from its file (its body frame follows from it)
      body["mesh_file"] = b.mesh->file;
      body["mesh_scale"] = b.mesh->scale;
    }
    if (k < s.body_force.size() && k < s.body_torque.size()) {
      body["fluid_force"] = vec(s.body_force[k]);
      body["fluid_torque"] = vec(s.body_torque[k]);
    }
    h["bodies"].push_back(body);
  }
  h["emitters"] = json::array();
  for (const Emitter& e : init.emitters)
    h["emitters"].push_back({{"position", vec(e.position)}, {"velocity", vec(e.velocity)}, {"shape", e.shape},
                             {"radius", e.radius}, {"width", e.width}, {"height", e.height}, {"rate", e.rate},
                             {"start", e.start}, {"stop", e.stop}});
  h["outflows"] = json::array();
  for (const Outflow& o : init.outflows) h["outflows"].push_back({{"min", vec(o.lo)}, {"max", vec(o.hi)}});
  json params = json::object();
  for (const ParamInfo& p : param_table()) params[p.name] = p.get(s.params);
  h["params"] = params;
  h["obstacle_target"] = json::array();
  for (const Vec3& t : s.obstacle_target) h["obstacle_target"].push_back(vec(t));
  h["emitter_travel"] = s.emitter_travel;
  h["diffuse_time"] = s.diffuse_time;
  h["diffuse_spawn_time"] = s.diffuse_spawn_time;
  h["mass"] = s.mass;
  h["rest_density"] = s.rest_density;
  h["solver_dt_limit"] = s.solver_dt_limit;
  h["pending_measure"] = s.pending_measure;
  h["previous_solver"] = s.previous_solver;
  const bool memory = !s.divergence_impulse.empty();
  if (memory) {  // (read as optional: files from before have none)
    h["solver_memory"] = true;
    h["pressures_kept"] = s.pressures_kept;
    h["switched_at"] = s.switched_at;
    h["switched_compression"] = s.switched_compression;
    h["mouse"] = {{"active", s.mouse.active}, {"point", vec(s.mouse.point)}, {"velocity", vec(s.mouse.velocity)}};
  }
  h["next_id"] = s.next_id;
  h["time_debt"] = s.time_debt;
  h["error_sum"] = s.error_sum;
  h["measured"] = s.measured;
  h["iteration_sum"] = s.iteration_sum;
  h["iteration_steps"] = s.iteration_steps;
  const RunStats& r = s.stats;
  h["stats"] = {{"steps", r.steps},
                {"simulated_time", r.simulated_time},
                {"last_dt", r.last_dt},
                {"density_error_mean", r.density_error_mean},
                {"density_error_max", r.density_error_max},
                {"last_density_error", r.last_density_error},
                {"max_speed", r.max_speed},
                {"last_max_speed", r.last_max_speed},
                {"stiffness_in_use", r.stiffness_in_use},
                {"nonfinite_resets", r.nonfinite_resets},
                {"last_iterations", r.last_iterations},
                {"last_solver_error", r.last_solver_error},
                {"mean_iterations", r.mean_iterations},
                {"diffuse_spawned", r.diffuse.spawned},
                {"emitted", r.emitted},
                {"removed", r.removed},
                {"emitters_paused", r.emitters_paused}};
  const std::string header = h.dump();

  std::vector<Vec4> diffuse_x, diffuse_v;
  for (const DiffuseParticle& d : s.diffuse) {
    diffuse_x.push_back(make_vec4(d.position, d.lifetime));
    diffuse_v.push_back(make_vec4(d.velocity, float(d.kind)));
  }
  std::string out(kMagic, kMagicLength);
  put_u64(out, header.size());
  out += header;
  put_blob(out, init.fluid);
  put_blob(out, init.velocity);
  put_blob(out, s.id);
  put_blob(out, s.pressure);
  put_blob(out, init.boundary);
  put_blob(out, diffuse_x);
  put_blob(out, diffuse_v);
  if (memory) put_blob(out, s.divergence_impulse);
  return out;
}

SimState decode_state(const std::string& bytes, const std::string& source, std::string* scene) {
  const JsonReader r("state file '" + source + "'", throw_state_error);
  BinaryReader in(bytes);
  if (!in.expect(std::string_view(kMagic, kMagicLength)))
    r.refuse("is not a Tidepool state file (it does not start with \"TIDEPOOL STATE 1\")");
  uint64_t header_size = 0;
  if (!in.get_u64_le(&header_size)) r.refuse("ends before its header (the file is cut short)");
  std::string_view header;
  if (!in.take(header_size, &header)) r.refuse("ends inside its header (the file is cut short)");
  json h;
  try {
    h = json::parse(header.begin(), header.end());
  } catch (const json::exception&) {
    r.refuse("has a damaged header (not valid JSON)");
  }
  if (!h.is_object()) r.refuse("has a damaged header (not a JSON object)");
  SimState s;
  InitialState& init = s.initial;
  try {
    if (scene) {
      const json* name = JsonReader::find(h, "scene");
      *scene = name && name->is_string() ? name->get<std::string>() : "";
    }
    if (r.flag(h, "", "little_endian") != host_is_little_endian())
      r.refuse("was written on a machine of the other byte order");
    init.tank_lo = r.finite_vec3(h, "", "tank_lo");
    init.tank_hi = r.finite_vec3(h, "", "tank_hi");
    init.spacing = float(r.finite_number(h, "", "spacing"));
    // States written before 2D existed have no "dimensions": 3.
    const json* dimensions = JsonReader::find(h, "dimensions");
    init.dimensions = dimensions && dimensions->is_number_integer() ? dimensions->get<int>() : 3;
    if (init.dimensions != 2 && init.dimensions != 3)
      r.refuse("has dimensions " + std::to_string(init.dimensions) + " (2 or 3)");
    init.max_particles = r.count(h, "", "max_particles");
    const json& obstacles = r.list(h, "", "obstacles");
    if (obstacles.size() > size_t(kMaxObstacles)) r.fail("obstacles", "has more than " + std::to_string(kMaxObstacles));
    for (size_t k = 0; k < obstacles.size(); ++k) {
      const std::string p = JsonReader::item("obstacles", k);
      const json& o = obstacles[k];
      ObstacleShape shape{};
      shape.kind = int(r.count(o, p, "kind"));
      if (shape.kind > 1) r.fail(p + ".kind", "must be 0 (box) or 1 (sphere)");
      shape.center = r.finite_vec3(o, p, "center");
      shape.half_extent = r.finite_vec3(o, p, "half_extent");
      shape.radius = float(r.finite_number(o, p, "radius"));
      shape.velocity = r.finite_vec3(o, p, "velocity");
      init.obstacles.push_back(shape);
    }
    if (const json* bodies = JsonReader::find(h, "bodies")) {
      if (!bodies->is_array() || bodies->size() > kMaxBodies)
        r.fail("bodies", "must be a list of at most " + std::to_string(kMaxBodies) + " bodies");
      for (size_t k = 0; k < bodies->size(); ++k) {
        const std::string p = JsonReader::item("bodies", k);
        const json& o = (*bodies)[k];
        BodySpec b;
        b.shape = int(r.count(o, p, "shape"));
        b.radius = float(r.finite_number(o, p, "radius"));
        b.half_extent = r.finite_vec3(o, p, "half_extent");
        b.half_height = float(r.finite_number(o, p, "half_height"));
        b.density = float(r.finite_number(o, p, "density"));
        b.mass = float(r.finite_number(o, p, "mass"));
        b.kinematic = r.flag(o, p, "kinematic");
        b.friction = float(r.finite_number(o, p, "friction"));
        b.restitution = float(r.finite_number(o, p, "restitution"));
        b.pose.position = r.finite_vec3(o, p, "position");
        const json& q = r.need(o, p, "orientation");
        if (!q.is_array() || q.size() != 4) r.fail(p + ".orientation", "must be 4 numbers [w, x, y, z]");
        float c[4];
        for (int a = 0; a < 4; ++a) {
          if (!q[a].is_number() || !std::isfinite(q[a].get<double>())) r.fail(p + ".orientation", "must be 4 numbers [w, x, y, z]");
          c[a] = float(q[a].get<double>());
        }
        b.pose.orientation = Quat{c[0], c[1], c[2], c[3]};
        b.motion.velocity = r.finite_vec3(o, p, "velocity");
        b.motion.angular_velocity = r.finite_vec3(o, p, "angular_velocity");
        if (JsonReader::find(o, "axle")) b.axle = int(r.count(o, p, "axle"));
        if (JsonReader::find(o, "mesh_file")) {
          std::string error;
          b.mesh = load_body_mesh(r.text(r.need(o, p, "mesh_file"), p + ".mesh_file"),
                                  float(r.finite_number(o, p, "mesh_scale")), &error);
          if (!b.mesh) r.fail(p + ".mesh_file", "cannot be used: " + error);
        }
        init.bodies.push_back(b);
        if (JsonReader::find(o, "fluid_force")) {
          s.body_force.push_back(r.finite_vec3(o, p, "fluid_force"));
          s.body_torque.push_back(r.finite_vec3(o, p, "fluid_torque"));
        }
      }
    }
    const json& emitters = r.list(h, "", "emitters");
    for (size_t k = 0; k < emitters.size(); ++k) {
      const std::string p = JsonReader::item("emitters", k);
      const json& e = emitters[k];
      Emitter em;
      em.position = r.finite_vec3(e, p, "position");
      em.velocity = r.finite_vec3(e, p, "velocity");
      em.shape = int(r.count(e, p, "shape"));
      em.radius = float(r.finite_number(e, p, "radius"));
      em.width = float(r.finite_number(e, p, "width"));
      em.height = float(r.finite_number(e, p, "height"));
      em.rate = float(r.finite_number(e, p, "rate"));
      em.start = float(r.finite_number(e, p, "start"));
      em.stop = float(r.finite_number(e, p, "stop"));
      if (em.shape > 1 || !(em.radius > 0) || !(em.width > 0) || !(em.height > 0) || em.rate < 0)
        r.refuse(p + ".describes no usable nozzle");  // (sic: the words it has always had)
      init.emitters.push_back(em);
    }
    if (emitters.size() > 1000) r.fail("emitters", "has more than 1000");
    const json& outflows = r.list(h, "", "outflows");
    if (outflows.size() > kMaxOutflows) r.fail("outflows", "has more than " + std::to_string(kMaxOutflows));
    for (size_t k = 0; k < outflows.size(); ++k) {
      const std::string p = JsonReader::item("outflows", k);
      init.outflows.push_back(Outflow{r.finite_vec3(outflows[k], p, "min"), r.finite_vec3(outflows[k], p, "max")});
    }
    const json& params = r.need(h, "", "params");
    s.params = default_params();
    for (const ParamInfo& p : param_table()) {
      // A parameter newer than the file (wall_friction in a file saved before it existed)
      // keeps its default, which is how that file's run behaved.
      if (params.is_object() && !params.contains(p.name)) continue;
      const double v = r.finite_number(params, "params", p.name);
      // Compared as the field stores it: a float at the end of its range (dt_min = 0.001)
      // reads back as a double a hair beyond the double bound.
      const bool outside = p.real ? (float(v) < float(p.min) || float(v) > float(p.max)) : (v < p.min || v > p.max);
      if (outside) r.fail(JsonReader::join("params", p.name), "is outside its valid range " + param_range_text(p));
      p.set(s.params, v);
    }
    const json& targets = r.list(h, "", "obstacle_target");
    for (size_t k = 0; k < targets.size() && k < kMaxObstacles; ++k)  // (".t": the words it has always had)
      s.obstacle_target.push_back(r.finite_vec3(targets[k], JsonReader::item("obstacle_target", k) + ".t"));
    const json& travel = r.list(h, "", "emitter_travel");
    for (size_t k = 0; k < travel.size() && k <= emitters.size(); ++k) {
      if (!travel[k].is_number()) r.fail("emitter_travel", "must hold numbers");
      s.emitter_travel.push_back(travel[k].get<double>());
    }
    s.diffuse_time = r.finite_number(h, "", "diffuse_time");
    // (Files from before spawning ran once a frame spawned at every update.)
    if (h.contains("diffuse_spawn_time")) s.diffuse_spawn_time = r.finite_number(h, "", "diffuse_spawn_time");
    s.mass = float(r.finite_number(h, "", "mass"));
    s.rest_density = float(r.finite_number(h, "", "rest_density"));
    s.solver_dt_limit = float(r.finite_number(h, "", "solver_dt_limit"));
    s.pending_measure = r.flag(h, "", "pending_measure");
    s.previous_solver = int(r.finite_number(h, "", "previous_solver"));
    if (JsonReader::find(h, "solver_memory")) {
      s.pressures_kept = r.flag(h, "", "pressures_kept");
      s.switched_at = r.finite_number(h, "", "switched_at");
      s.switched_compression = float(r.finite_number(h, "", "switched_compression"));
      const json& mouse = r.need(h, "", "mouse");
      s.mouse.active = int(r.count(mouse, "mouse", "active")) != 0;
      s.mouse.point = r.finite_vec3(mouse, "mouse", "point");
      s.mouse.velocity = r.finite_vec3(mouse, "mouse", "velocity");
    }
    const uint64_t next_id = r.count(h, "", "next_id");
    if (next_id > std::numeric_limits<uint>::max()) r.fail("next_id", "is too large");
    s.next_id = uint(next_id);
    s.time_debt = r.finite_number(h, "", "time_debt");
    s.error_sum = r.finite_number(h, "", "error_sum");
    s.measured = r.count(h, "", "measured");
    s.iteration_sum = r.count(h, "", "iteration_sum");
    s.iteration_steps = r.count(h, "", "iteration_steps");
    const json& st = r.need(h, "", "stats");
    RunStats& rs = s.stats;
    rs.steps = r.count(st, "stats", "steps");
    rs.simulated_time = r.finite_number(st, "stats", "simulated_time");
    rs.last_dt = r.finite_number(st, "stats", "last_dt");
    rs.density_error_mean = r.finite_number(st, "stats", "density_error_mean");
    rs.density_error_max = r.finite_number(st, "stats", "density_error_max");
    rs.last_density_error = r.finite_number(st, "stats", "last_density_error");
    rs.max_speed = r.finite_number(st, "stats", "max_speed");
    rs.last_max_speed = r.finite_number(st, "stats", "last_max_speed");
    rs.stiffness_in_use = r.finite_number(st, "stats", "stiffness_in_use");
    rs.nonfinite_resets = r.count(st, "stats", "nonfinite_resets");
    rs.last_iterations = int(r.finite_number(st, "stats", "last_iterations"));
    rs.last_solver_error = r.finite_number(st, "stats", "last_solver_error");
    rs.mean_iterations = r.finite_number(st, "stats", "mean_iterations");
    rs.diffuse.spawned = r.count(st, "stats", "diffuse_spawned");
    rs.emitted = r.count(st, "stats", "emitted");
    rs.removed = r.count(st, "stats", "removed");
    const json& paused = r.need(st, "stats", "emitters_paused");
    rs.emitters_paused = paused.is_boolean() && paused.get<bool>();
  } catch (const json::exception&) {
    r.refuse("has a damaged header");
  }

  // The arrays, each preceded by its length in bytes: checked against what is left before
  // anything is allocated for it.
  auto blob = [&](auto& items, const char* what) {
    using T = typename std::remove_reference<decltype(items)>::type::value_type;
    uint64_t size = 0;
    if (!in.get_u64_le(&size)) r.refuse(std::string("ends before its ") + what + " (the file is cut short)");
    if (size > in.left()) r.refuse(std::string("ends inside its ") + what + " (the file is cut short)");
    if (size % sizeof(T) != 0) r.refuse(std::string("has a damaged ") + what + " array");
    in.get_items(&items, size / sizeof(T));
  };
  std::vector<Vec4> diffuse_x, diffuse_v;
  blob(init.fluid, "particle positions");
  blob(init.velocity, "particle velocities");
  blob(s.id, "particle ids");
  blob(s.pressure, "particle pressures");
  blob(init.boundary, "boundary samples");
  blob(diffuse_x, "diffuse positions");
  blob(diffuse_v, "diffuse velocities");
  if (JsonReader::find(h, "solver_memory")) blob(s.divergence_impulse, "DFSPH's divergence impulses");
  if (!in.done()) r.refuse("has " + std::to_string(in.left()) + " bytes after its end");
  const size_t n = init.fluid.size();
  if (init.velocity.size() != n || s.id.size() != n || s.pressure.size() != n || diffuse_x.size() != diffuse_v.size() ||
      (!s.divergence_impulse.empty() && s.divergence_impulse.size() != n))
    r.refuse("has arrays of different lengths");
  // (Zero where it is not a number: a damaged file cannot bring a NaN in.)
  for (float& v : s.divergence_impulse)
    if (!std::isfinite(v)) v = 0.0f;
  for (size_t i = 0; i < n; ++i)
    if (!is_finite(xyz(init.fluid[i])) || !is_finite(xyz(init.velocity[i])) || !std::isfinite(s.pressure[i]))
      r.refuse("holds a particle with a non-finite position, velocity or pressure");
  for (size_t k = 0; k < diffuse_x.size(); ++k) {
    if (!is_finite(xyz(diffuse_x[k])) || !is_finite(xyz(diffuse_v[k])) || !(diffuse_v[k].w >= 0 && diffuse_v[k].w <= 2))
      r.refuse("holds a damaged diffuse particle");
    s.diffuse.push_back(DiffuseParticle{xyz(diffuse_x[k]), xyz(diffuse_v[k]), int(diffuse_v[k].w), diffuse_x[k].w});
  }
  return s;
}

bool save_state_file(Simulation& sim, const std::string& scene, const std::string& path, std::string* error) {
  const std::string bytes = encode_state(sim.capture(), scene);
  return write_file_atomic(path, bytes.data(), bytes.size(), error);
}

bool load_state_file(Simulation& sim, const std::string& path, std::string* scene, std::string* error) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    *error = "state file '" + path + "' cannot be opened: " + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode) || uint64_t(st.st_size) > kMaxStateBytes) {
    *error = "state file '" + path + "' is not a state file (not a regular file, or too large)";
    return false;
  }
  try {
    // The file, its copy as a string and the arrays decoded from it, before reading.
    require_memory(3.0 * double(st.st_size), 0, "reading it",
                   "free some memory or load a smaller state");
  } catch (const SceneError& e) {
    *error = "state file '" + path + "': " + e.what();
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  if (in) buffer << in.rdbuf();
  if (!in) {
    *error = "state file '" + path + "' cannot be read: " + std::strerror(errno);
    return false;
  }
  try {
    const SimState state = decode_state(buffer.str(), path, scene);
    // The simulation it becomes, before anything of the running one is replaced.
    const InitialState& init = state.initial;
    const BackendKind backend = sim.backend().kind;
    const uint64_t limit = init.emitters.empty() ? 0
                           : init.max_particles ? init.max_particles
                                                : automatic_max_particles(init.fluid.size());
    const uint64_t fluid = std::max<uint64_t>(init.fluid.size(), limit);
    require_memory(double(estimate_memory_bytes(
                       fluid, init.boundary.size(),
                       uint64_t(grid_cells(init.tank_lo, init.tank_hi, init.spacing)),
                       diffuse_cap_for(state.params, backend), fluid > init.fluid.size())),
                   memory_budget_bytes(backend),
                   count_text(double(init.fluid.size())) + " particles" +
                       (fluid > init.fluid.size() ? " (up to " + count_text(double(fluid)) + ")" : "") +
                       " and " + count_text(double(init.boundary.size())) + " boundary samples",
                   "load it on a machine with more memory");
    sim.restore(state);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    *error = what.rfind("state file", 0) == 0 ? what : "state file '" + path + "': " + what;
    return false;
  }
  return true;
}

}  // namespace tp
