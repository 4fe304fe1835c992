#include "app/water/body_tool.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "sim/bodies/body_waterline.h"
#include "sim/runner/sim_runner.h"

namespace tp {

namespace {
glm::vec3 to_glm(const Vec3& v) { return glm::vec3(v.x, v.y, v.z); }
Vec3 to_vec3(const glm::vec3& v) { return Vec3{v.x, v.y, v.z}; }
// A mesh body's triangles for BodyPass, (position, normal) per corner: a corner takes the
// mean of its vertex's face normals that lie within 40 degrees of its own face's (smooth
// across gentle bends, a crease at sharp ones). Made once per mesh and kept while it lives.
std::shared_ptr<const std::vector<glm::vec3>> mesh_triangles(const std::shared_ptr<const BodyMesh>& mesh) {
  static std::map<const BodyMesh*, std::pair<std::weak_ptr<const BodyMesh>, std::shared_ptr<const std::vector<glm::vec3>>>>
      made;
  for (auto it = made.begin(); it != made.end();) it = it->second.first.expired() ? made.erase(it) : std::next(it);
  auto& entry = made[mesh.get()];
  if (entry.second) return entry.second;
  const TriangleSoup& m = mesh->mesh;
  std::vector<glm::vec3> face(m.triangles.size());
  std::vector<std::vector<uint32_t>> faces_of(m.vertices.size());
  for (size_t t = 0; t < m.triangles.size(); ++t) {
    const auto& tri = m.triangles[t];
    const glm::vec3 a = to_glm(m.vertices[tri[0]]), b = to_glm(m.vertices[tri[1]]), c = to_glm(m.vertices[tri[2]]);
    const glm::vec3 n = glm::cross(b - a, c - a);
    face[t] = glm::dot(n, n) > 0.0f ? glm::normalize(n) : glm::vec3(0.0f, 1.0f, 0.0f);
    for (uint32_t v : tri) faces_of[v].push_back(uint32_t(t));
  }
  auto out = std::make_shared<std::vector<glm::vec3>>();
  out->reserve(m.triangles.size() * 6);
  for (size_t t = 0; t < m.triangles.size(); ++t) {
    for (uint32_t v : m.triangles[t]) {
      glm::vec3 n(0.0f);
      for (uint32_t f : faces_of[v])
        if (glm::dot(face[f], face[t]) > 0.766f) n += face[f];
      out->push_back(to_glm(m.vertices[v]));
      out->push_back(glm::dot(n, n) > 0.0f ? glm::normalize(n) : face[t]);
    }
  }
  entry = {mesh, out};
  return out;
}

}  // namespace

Vec3 new_body_place(const BodySpec& body, const std::vector<BodySpec>& others, Vec3 centre, Vec3 tank_lo,
                    Vec3 tank_hi, int dimensions, float plane_z) {
  const float reach = solid_of(body).bound;
  auto within = [&](float v, float a, float b) {
    return a + reach < b - reach ? std::clamp(v, a + reach, b - reach) : 0.5f * (a + b);
  };
  Vec3 at{within(centre.x, tank_lo.x, tank_hi.x), std::max(tank_hi.y - 1.2f * reach, 0.5f * (tank_lo.y + tank_hi.y)),
          dimensions == 2 ? plane_z : within(centre.z, tank_lo.z, tank_hi.z)};
  if (body.kinematic) {
    BodySpec placed = body;
    placed.pose.position = at;
    float lowest = 0.0f, highest = 0.0f;
    body_vertical_extent(placed, &lowest, &highest);
    at.y += tank_lo.y - lowest;
  }
  std::vector<float> apart;  // how far apart the centres' columns must be
  for (const BodySpec& o : others) apart.push_back(reach + solid_of(o).bound);
  auto clear = [&](Vec3 p) {
    for (size_t k = 0; k < others.size(); ++k) {
      const float dx = p.x - others[k].pose.position.x, dz = dimensions == 2 ? 0.0f : p.z - others[k].pose.position.z;
      if (dx * dx + dz * dz < apart[k] * apart[k]) return false;
    }
    return true;
  };
  if (clear(at)) return at;
  const int directions = dimensions == 2 ? 2 : 8;
  for (int ring = 1; ring <= 12; ++ring)
    for (int k = 0; k < directions; ++k) {
      const float angle = dimensions == 2 ? 3.14159265f * float(k) : 2.0f * 3.14159265f * float(k) / float(directions);
      Vec3 p = at;
      p.x = within(at.x + float(ring) * reach * std::cos(angle), tank_lo.x, tank_hi.x);
      if (dimensions == 3) p.z = within(at.z + float(ring) * reach * std::sin(angle), tank_lo.z, tank_hi.z);
      if (clear(p)) return p;
    }
  return at;
}

std::vector<BodyDraw> body_draws(const std::vector<BodySpec>& bodies, int highlighted) {
  std::vector<BodyDraw> draws;
  draws.reserve(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) {
    const BodySpec& b = bodies[i];
    BodyDraw d;
    d.kind = b.shape == int(BodyShapeKind::Sphere)    ? int(BodyKind::Sphere)
             : b.shape == int(BodyShapeKind::Capsule) ? int(BodyKind::Capsule)
             : b.shape == int(BodyShapeKind::Mesh)    ? int(BodyKind::Mesh)
                                                      : int(BodyKind::Box);
    if (b.shape == int(BodyShapeKind::Mesh) && b.mesh) d.mesh = mesh_triangles(b.mesh);
    d.position = to_glm(b.pose.position);
    const Quat& q = b.pose.orientation;
    d.orientation = glm::vec4(q.w, q.x, q.y, q.z);
    d.half_extent = to_glm(b.half_extent);
    d.radius = b.radius;
    d.half_height = b.half_height;
    d.highlighted = int(i) == highlighted;
    draws.push_back(d);
  }
  return draws;
}

std::optional<Simulation::BodyHit> BodyDrag::pick(const std::vector<BodySpec>& bodies, const glm::vec3& origin,
                                                  const glm::vec3& direction, float nearer) {
  const std::optional<Simulation::BodyHit> hit = pick_bodies(bodies, Ray{to_vec3(origin), to_vec3(direction)});
  if (!hit || !(hit->distance < nearer) || bodies[size_t(hit->index)].kinematic) return std::nullopt;
  return hit;
}

BodyDrag::Frame BodyDrag::update(const std::vector<BodySpec>& bodies, bool held, bool hover,
                                 const glm::vec3& origin, const glm::vec3& direction, const glm::vec3& eye,
                                 const glm::vec3& forward, float nearer) {
  const bool pressed = held && !was_held_;
  was_held_ = held;
  Frame frame;
  if (index_ >= 0 && (!held || index_ >= int(bodies.size()))) {  // released, or it went away
    index_ = -1;
    frame.release = true;
  }
  if (pressed) {
    if (const std::optional<Simulation::BodyHit> hit = pick(bodies, origin, direction, nearer)) {
      index_ = hit->index;
      depth_ = glm::dot(to_glm(hit->point) - eye, forward);
      frame.grab = Grab{hit->index, hit->local, hit->point};
      frame.highlighted = index_;
      return frame;
    }
  }
  if (index_ >= 0) {
    frame.highlighted = index_;
    // The cursor ray's point at the grab depth; a ray (nearly) parallel to the plane or
    // pointing away from it leaves the target where it was.
    const float along = glm::dot(direction, forward);
    if (along > 1e-4f)
      frame.move = to_vec3(origin + direction * ((depth_ - glm::dot(origin - eye, forward)) / along));
    return frame;
  }
  if (hover && !held) {
    if (const std::optional<Simulation::BodyHit> hit = pick(bodies, origin, direction, nearer))
      frame.highlighted = hit->index;
  }
  return frame;
}

}  // namespace tp
