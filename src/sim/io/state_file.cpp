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

// Reads the header's values with the key path in every message.
class Reader {
 public:
  Reader(const json& doc, std::string source) : doc_(doc), source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("state file '" + source_ + "': " + what);
  }
  const json& at(const json& obj, const std::string& key, const std::string& path) const {
    if (!obj.is_object() || !obj.contains(key)) fail(path + key + " is missing");
    return obj[key];
  }
  double number(const json& obj, const std::string& key, const std::string& path = "") const {
    const json& v = at(obj, key, path);
    if (!v.is_number()) fail(path + key + " must be a number");
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(path + key + " must be finite");
    return d;
  }
  uint64_t count(const json& obj, const std::string& key, const std::string& path = "") const {
    const json& v = at(obj, key, path);
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    if (!v.is_number_integer() || v.get<int64_t>() < 0) fail(path + key + " must be a count (a whole number >= 0)");
    return uint64_t(v.get<int64_t>());
  }
  bool flag(const json& obj, const std::string& key) const {
    const json& v = at(obj, key, "");
    if (!v.is_boolean()) fail(key + " must be true or false");
    return v.get<bool>();
  }
  Vec3 vec3(const json& obj, const std::string& key, const std::string& path) const {
    const json& v = at(obj, key, path);
    if (!v.is_array() || v.size() != 3 || !v[0].is_number() || !v[1].is_number() || !v[2].is_number())
      fail(path + key + " must be an array of 3 numbers");
    const Vec3 out{v[0].get<float>(), v[1].get<float>(), v[2].get<float>()};
    if (!is_finite(out)) fail(path + key + " must be finite");
    return out;
  }
  const json& list(const json& obj, const std::string& key) const {
    const json& v = at(obj, key, "");
    if (!v.is_array()) fail(key + " must be an array");
    return v;
  }

 private:
  const json& doc_;
  std::string source_;
};

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
  h["mass"] = s.mass;
  h["rest_density"] = s.rest_density;
  h["solver_dt_limit"] = s.solver_dt_limit;
  h["pending_measure"] = s.pending_measure;
  h["previous_solver"] = s.previous_solver;
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
  return out;
}

SimState decode_state(const std::string& bytes, const std::string& source, std::string* scene) {
  auto fail = [&](const std::string& what) -> void {
    throw std::runtime_error("state file '" + source + "': " + what);
  };
  BinaryReader in(bytes);
  if (!in.expect(std::string_view(kMagic, kMagicLength)))
    fail("is not a Tidepool state file (it does not start with \"TIDEPOOL STATE 1\")");
  uint64_t header_size = 0;
  if (!in.get_u64_le(&header_size)) fail("ends before its header (the file is cut short)");
  std::string_view header;
  if (!in.take(header_size, &header)) fail("ends inside its header (the file is cut short)");
  json h;
  try {
    h = json::parse(header.begin(), header.end());
  } catch (const json::exception&) {
    fail("has a damaged header (not valid JSON)");
  }
  if (!h.is_object()) fail("has a damaged header (not a JSON object)");
  Reader r(h, source);
  SimState s;
  InitialState& init = s.initial;
  try {
    if (scene) *scene = h.contains("scene") && h["scene"].is_string() ? h["scene"].get<std::string>() : "";
    if (r.flag(h, "little_endian") != host_is_little_endian())
      fail("was written on a machine of the other byte order");
    init.tank_lo = r.vec3(h, "tank_lo", "");
    init.tank_hi = r.vec3(h, "tank_hi", "");
    init.spacing = float(r.number(h, "spacing"));
    // States written before 2D existed have no "dimensions": 3.
    init.dimensions = h.contains("dimensions") && h["dimensions"].is_number_integer() ? h["dimensions"].get<int>() : 3;
    if (init.dimensions != 2 && init.dimensions != 3) fail("has dimensions " + std::to_string(init.dimensions) + " (2 or 3)");
    init.max_particles = r.count(h, "max_particles");
    const json& obstacles = r.list(h, "obstacles");
    if (obstacles.size() > size_t(kMaxObstacles)) fail("obstacles has more than " + std::to_string(kMaxObstacles));
    for (size_t k = 0; k < obstacles.size(); ++k) {
      const std::string p = "obstacles[" + std::to_string(k) + "].";
      const json& o = obstacles[k];
      ObstacleShape shape{};
      shape.kind = int(r.count(o, "kind", p));
      if (shape.kind > 1) fail(p + "kind must be 0 (box) or 1 (sphere)");
      shape.center = r.vec3(o, "center", p);
      shape.half_extent = r.vec3(o, "half_extent", p);
      shape.radius = float(r.number(o, "radius", p));
      shape.velocity = r.vec3(o, "velocity", p);
      init.obstacles.push_back(shape);
    }
    const json& emitters = r.list(h, "emitters");
    for (size_t k = 0; k < emitters.size(); ++k) {
      const std::string p = "emitters[" + std::to_string(k) + "].";
      const json& e = emitters[k];
      Emitter em;
      em.position = r.vec3(e, "position", p);
      em.velocity = r.vec3(e, "velocity", p);
      em.shape = int(r.count(e, "shape", p));
      em.radius = float(r.number(e, "radius", p));
      em.width = float(r.number(e, "width", p));
      em.height = float(r.number(e, "height", p));
      em.rate = float(r.number(e, "rate", p));
      em.start = float(r.number(e, "start", p));
      em.stop = float(r.number(e, "stop", p));
      if (em.shape > 1 || !(em.radius > 0) || !(em.width > 0) || !(em.height > 0) || em.rate < 0)
        fail(p + "describes no usable nozzle");
      init.emitters.push_back(em);
    }
    if (emitters.size() > 1000) fail("emitters has more than 1000");
    const json& outflows = r.list(h, "outflows");
    if (outflows.size() > kMaxOutflows) fail("outflows has more than " + std::to_string(kMaxOutflows));
    for (size_t k = 0; k < outflows.size(); ++k) {
      const std::string p = "outflows[" + std::to_string(k) + "].";
      init.outflows.push_back(Outflow{r.vec3(outflows[k], "min", p), r.vec3(outflows[k], "max", p)});
    }
    const json& params = r.at(h, "params", "");
    s.params = default_params();
    for (const ParamInfo& p : param_table()) {
      // A parameter newer than the file (wall_friction in a file saved before it existed)
      // keeps its default, which is how that file's run behaved.
      if (params.is_object() && !params.contains(p.name)) continue;
      const double v = r.number(params, p.name, "params.");
      // Compared as the field stores it: a float at the end of its range (dt_min = 0.001)
      // reads back as a double a hair beyond the double bound.
      const bool outside = p.real ? (float(v) < float(p.min) || float(v) > float(p.max)) : (v < p.min || v > p.max);
      if (outside)
        fail("params." + std::string(p.name) + " is outside its valid range " + param_range_text(p));
      p.set(s.params, v);
    }
    const json& targets = r.list(h, "obstacle_target");
    for (size_t k = 0; k < targets.size() && k < kMaxObstacles; ++k) {
      json wrap = {{"t", targets[k]}};
      s.obstacle_target.push_back(r.vec3(wrap, "t", "obstacle_target[" + std::to_string(k) + "]."));
    }
    const json& travel = r.list(h, "emitter_travel");
    for (size_t k = 0; k < travel.size() && k <= emitters.size(); ++k) {
      if (!travel[k].is_number()) fail("emitter_travel must hold numbers");
      s.emitter_travel.push_back(travel[k].get<double>());
    }
    s.diffuse_time = r.number(h, "diffuse_time");
    s.mass = float(r.number(h, "mass"));
    s.rest_density = float(r.number(h, "rest_density"));
    s.solver_dt_limit = float(r.number(h, "solver_dt_limit"));
    s.pending_measure = r.flag(h, "pending_measure");
    s.previous_solver = int(r.number(h, "previous_solver"));
    const uint64_t next_id = r.count(h, "next_id");
    if (next_id > std::numeric_limits<uint>::max()) fail("next_id is too large");
    s.next_id = uint(next_id);
    s.time_debt = r.number(h, "time_debt");
    s.error_sum = r.number(h, "error_sum");
    s.measured = r.count(h, "measured");
    s.iteration_sum = r.count(h, "iteration_sum");
    s.iteration_steps = r.count(h, "iteration_steps");
    const json& st = r.at(h, "stats", "");
    RunStats& rs = s.stats;
    rs.steps = r.count(st, "steps", "stats.");
    rs.simulated_time = r.number(st, "simulated_time", "stats.");
    rs.last_dt = r.number(st, "last_dt", "stats.");
    rs.density_error_mean = r.number(st, "density_error_mean", "stats.");
    rs.density_error_max = r.number(st, "density_error_max", "stats.");
    rs.last_density_error = r.number(st, "last_density_error", "stats.");
    rs.max_speed = r.number(st, "max_speed", "stats.");
    rs.last_max_speed = r.number(st, "last_max_speed", "stats.");
    rs.stiffness_in_use = r.number(st, "stiffness_in_use", "stats.");
    rs.nonfinite_resets = r.count(st, "nonfinite_resets", "stats.");
    rs.last_iterations = int(r.number(st, "last_iterations", "stats."));
    rs.last_solver_error = r.number(st, "last_solver_error", "stats.");
    rs.mean_iterations = r.number(st, "mean_iterations", "stats.");
    rs.diffuse.spawned = r.count(st, "diffuse_spawned", "stats.");
    rs.emitted = r.count(st, "emitted", "stats.");
    rs.removed = r.count(st, "removed", "stats.");
    const json& paused = r.at(st, "emitters_paused", "stats.");
    rs.emitters_paused = paused.is_boolean() && paused.get<bool>();
  } catch (const json::exception&) {
    fail("has a damaged header");
  }

  // The arrays, each preceded by its length in bytes: checked against what is left before
  // anything is allocated for it.
  auto blob = [&](auto& items, const char* what) {
    using T = typename std::remove_reference<decltype(items)>::type::value_type;
    uint64_t size = 0;
    if (!in.get_u64_le(&size)) fail(std::string("ends before its ") + what + " (the file is cut short)");
    if (size > in.left()) fail(std::string("ends inside its ") + what + " (the file is cut short)");
    if (size % sizeof(T) != 0) fail(std::string("has a damaged ") + what + " array");
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
  if (!in.done()) fail("has " + std::to_string(in.left()) + " bytes after its end");
  const size_t n = init.fluid.size();
  if (init.velocity.size() != n || s.id.size() != n || s.pressure.size() != n || diffuse_x.size() != diffuse_v.size())
    fail("has arrays of different lengths");
  for (size_t i = 0; i < n; ++i)
    if (!is_finite(xyz(init.fluid[i])) || !is_finite(xyz(init.velocity[i])) || !std::isfinite(s.pressure[i]))
      fail("holds a particle with a non-finite position, velocity or pressure");
  for (size_t k = 0; k < diffuse_x.size(); ++k) {
    if (!is_finite(xyz(diffuse_x[k])) || !is_finite(xyz(diffuse_v[k])) || !(diffuse_v[k].w >= 0 && diffuse_v[k].w <= 2))
      fail("holds a damaged diffuse particle");
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
