#include "sim/bodies/body_mesh.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <utility>

#include "sim/bodies/mass_properties.h"

namespace tp {

namespace {

std::string with_commas(size_t n) {
  std::string s = std::to_string(n);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return s;
}

std::shared_ptr<const BodyMesh> build_body_mesh(const std::string& path, float scale, std::string* error) {
  auto out = std::make_shared<BodyMesh>();
  out->file = path;
  out->name = std::filesystem::path(path).filename().string();
  out->scale = scale;
  std::optional<TriangleSoup> mesh = load_triangle_mesh(path, scale, error);
  if (!mesh) return nullptr;
  const std::string open = closed_mesh_problem(out->name, check_closed(*mesh));
  if (!open.empty()) {
    *error = open;
    return nullptr;
  }
  std::string note;
  if (orient_outward(&*mesh, out->name, &note)) std::fprintf(stderr, "tidepool: %s\n", note.c_str());
  const MassProperties props = compute_mass_properties(*mesh);
  if (!(props.volume > 1e-12)) {
    *error = out->name + ": the mesh encloses no volume";
    return nullptr;
  }
  out->volume = float(props.volume);
  out->centroid = props.centroid;
  out->unit_inertia = Vec3{float(props.principal_moments[0]), float(props.principal_moments[1]),
                           float(props.principal_moments[2])};
  out->principal_to_file = to_principal_frame(&*mesh, props);
  out->mesh = std::move(*mesh);
  mesh_bounds(out->mesh, &out->lo, &out->hi);
  for (const Vec3& v : out->mesh.vertices) out->bound = std::max(out->bound, length(v));
  std::vector<uint32_t> indices;
  for (const auto& t : out->mesh.triangles) indices.insert(indices.end(), t.begin(), t.end());
  out->geometry = mesh_geometry(out->mesh.vertices, std::move(indices));
  const std::string bad = geometry_problem(out->geometry);
  if (!bad.empty()) {
    *error = out->name + ": " + bad;
    return nullptr;
  }
  std::optional<DistanceField> field = build_distance_field(out->mesh, DistanceFieldSettings{}, error);
  if (!field) {
    *error = out->name + ": " + *error;
    return nullptr;
  }
  out->field = std::move(*field);
  std::fprintf(stderr, "tidepool: %s: %s triangles, distance field %d x %d x %d in %.2f s\n", out->name.c_str(),
               with_commas(out->mesh.triangles.size()).c_str(), out->field.dims.x, out->field.dims.y,
               out->field.dims.z, out->field.build_ms / 1000.0);
  return out;
}

}  // namespace

std::shared_ptr<const BodyMesh> load_body_mesh(const std::string& path, float scale, std::string* error) {
  std::string local;
  if (!error) error = &local;
  if (!(std::isfinite(scale) && scale > 0.0f)) {
    *error = path + ": the scale must be a number > 0";
    return nullptr;
  }
  std::error_code ec;
  std::string file = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec).string();
  if (file.empty()) file = path;
  static std::mutex lock;
  static std::map<std::pair<std::string, float>, std::weak_ptr<const BodyMesh>> cache;
  const std::lock_guard<std::mutex> hold(lock);
  const auto key = std::make_pair(file, scale);
  if (auto it = cache.find(key); it != cache.end())
    if (std::shared_ptr<const BodyMesh> kept = it->second.lock()) return kept;
  std::shared_ptr<const BodyMesh> built = build_body_mesh(file, scale, error);
  if (built) cache[key] = built;
  return built;
}

RigidPose mesh_body_pose(const BodyMesh& mesh, Vec3 origin, Quat rotation) {
  const Quat r = quat_normalized(rotation);
  return RigidPose{origin + rotate(r, mesh.centroid), quat_normalized(r * mesh.principal_to_file)};
}

void mesh_file_pose(const BodyMesh& mesh, const RigidPose& pose, Vec3* origin, Quat* rotation) {
  const Quat r = quat_normalized(pose.orientation * quat_conjugate(mesh.principal_to_file));
  *rotation = r;
  *origin = pose.position - rotate(r, mesh.centroid);
}

}  // namespace tp
