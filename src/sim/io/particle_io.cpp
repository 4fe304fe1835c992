#include "sim/io/particle_io.h"

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

namespace tp {

bool write_ply(const std::string& path, const Snapshot& s, std::string* error, double time) {
  const size_t n = s.position.size();
  char time_comment[64] = "";
  if (time >= 0.0) std::snprintf(time_comment, sizeof(time_comment), "comment time %.9g s\n", time);
  std::string header =
      "ply\nformat binary_little_endian 1.0\ncomment Tidepool particles, rows in id order\n" +
      std::string(time_comment) + "element vertex " + std::to_string(n) +
      "\nproperty uint id\nproperty float x\nproperty float y\nproperty float z\n"
      "property float vx\nproperty float vy\nproperty float vz\nend_header\n";
  struct Row {
    uint32_t id;
    float x, y, z, vx, vy, vz;
  };
  static_assert(sizeof(Row) == 28, "PLY row must be packed");
  std::vector<char> bytes(header.begin(), header.end());
  bytes.resize(header.size() + n * sizeof(Row));
  Row* rows = reinterpret_cast<Row*>(bytes.data() + header.size());
  for (size_t i = 0; i < n; ++i) {
    const Vec4 p = s.position[i], v = s.velocity[i];
    const Row r{s.id.empty() ? uint32_t(i) : s.id[i], p.x, p.y, p.z, v.x, v.y, v.z};
    std::memcpy(&rows[i], &r, sizeof(Row));
  }
  return write_file_atomic(path, bytes.data(), bytes.size(), error);
}

ParticleCheck check_particles(const Snapshot& s, Vec3 lo, Vec3 hi) {
  ParticleCheck c;
  for (size_t i = 0; i < s.position.size(); ++i) {
    const Vec3 x = xyz(s.position[i]);
    const bool density_ok = i >= s.density.size() || is_finite(s.density[i]);
    if (!is_finite(x) || !is_finite(xyz(s.velocity[i])) || !density_ok) {
      c.nonfinite++;
      continue;
    }
    if (x.x < lo.x || x.y < lo.y || x.z < lo.z || x.x > hi.x || x.y > hi.y || x.z > hi.z) c.outside++;
  }
  return c;
}

namespace {

// One body with the keys of a scene's `bodies` array (bodies_frame_json).
nlohmann::json body_json(const BodySpec& b) {
  using nlohmann::json;
  const auto vec = [](Vec3 v) { return json::array({v.x, v.y, v.z}); };
  json body;
  Vec3 position = b.pose.position;
  Quat q = b.pose.orientation;
  if (b.shape == int(BodyShapeKind::Mesh) && b.mesh) {
    // Placed as the file is: its origin and axes (the scripts import the file and pose it).
    body["shape"] = "mesh";
    body["file"] = b.mesh->file;
    body["scale"] = b.mesh->scale;
    mesh_file_pose(*b.mesh, b.pose, &position, &q);
  } else if (b.shape == int(BodyShapeKind::Box)) {
    body["shape"] = "box";
    body["size"] = vec(b.half_extent * 2.0f);
  } else {
    body["shape"] = b.shape == int(BodyShapeKind::Capsule) ? "capsule" : "sphere";
    body["radius"] = b.radius;
    if (b.shape == int(BodyShapeKind::Capsule)) body["length"] = 2.0f * b.half_height;
  }
  body["density"] = b.density;
  if (b.mass > 0.0f) body["mass"] = b.mass;  // (given instead of the density)
  body["kinematic"] = b.kinematic;
  body["position"] = vec(position);
  body["orientation"] = json::array({q.w, q.x, q.y, q.z});
  body["velocity"] = vec(b.motion.velocity);
  body["angular_velocity"] = vec(b.motion.angular_velocity);
  return body;
}

}  // namespace

std::string bodies_frame_json(const std::vector<BodySpec>& bodies, double time) {
  using nlohmann::json;
  json list = json::array();
  for (const BodySpec& b : bodies) list.push_back(body_json(b));
  return json{{"time", time}, {"bodies", list}}.dump(1) + "\n";
}

std::string report_json(const RunReport& r) {
  nlohmann::ordered_json j;
  j["backend"] = r.backend;
  j["solver"] = r.solver;
  j["scene"] = r.scene;
  j["particles"] = r.particles;
  j["steps"] = r.stats.steps;
  j["simulated_time_s"] = r.stats.simulated_time;
  j["wall_time_s"] = r.wall_seconds;
  // Rates over this run's steps: the phase times are this run's too (a loaded state
  // brings its step count, not its timings).
  const uint64_t run = r.steps_run ? r.steps_run : r.stats.steps;
  j["steps_per_second"] = r.wall_seconds > 0 ? double(run) / r.wall_seconds : 0.0;
  nlohmann::ordered_json phases = nlohmann::ordered_json::object();
  double total = 0.0;
  for (const PhaseTime& p : r.stats.phases) {
    const double mean = run ? p.total_ms / double(run) : 0.0;
    phases[p.name] = mean;
    total += mean;
  }
  j["ms_per_phase"] = phases;
  j["ms_per_step"] = total;
  j["density_error_mean"] = r.stats.density_error_mean;
  j["density_error_max"] = r.stats.density_error_max;
  j["max_speed"] = r.stats.max_speed;
  j["mean_iterations"] = r.stats.mean_iterations;  // PCISPH/PBF; 0 for WCSPH
  j["diffuse"] = {{"spray", r.stats.diffuse.spray},
                  {"foam", r.stats.diffuse.foam},
                  {"bubbles", r.stats.diffuse.bubbles},
                  {"spawned", r.stats.diffuse.spawned},
                  {"cap", r.stats.diffuse.capacity}};
  j["emitted"] = r.stats.emitted;  // by emitters, since the start
  j["removed"] = r.stats.removed;  // by outflows
  j["outside_tank"] = r.check.outside;
  // Non-finite particles now plus those the integrator found and reset during the run.
  j["nan_count"] = r.check.nonfinite + r.stats.nonfinite_resets;
  // Where the bodies are at the end, as a scene or an exported frame gives them.
  nlohmann::ordered_json bodies = nlohmann::ordered_json::array();
  for (const BodySpec& b : r.bodies) bodies.push_back(nlohmann::ordered_json(body_json(b)));
  j["bodies"] = bodies;
  return j.dump(2) + "\n";
}

}  // namespace tp
