// Shapes, checks and mass properties of rigid bodies (rigid_body.h).
#include "sim/bodies/rigid_body.h"

#include <cmath>
#include <sstream>

#include "sim/bodies/mass_properties.h"

namespace tp {
namespace {

constexpr float kPi = 3.14159265358979f;
constexpr float kMinSize = 1e-4f;  // [m]
constexpr float kMaxSize = 1e4f;   // [m]

bool finite(Vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

std::string size_problem(const char* what, float value) {
  if (std::isfinite(value) && value >= kMinSize && value <= kMaxSize) return "";
  std::ostringstream out;
  out << what << " must be between " << kMinSize << " and " << kMaxSize << " m (got " << value
      << ")";
  return out.str();
}

}  // namespace

BodyGeometry sphere_geometry(float radius) {
  BodyGeometry g;
  g.shape = BodyShape::Sphere;
  g.radius = radius;
  return g;
}
BodyGeometry box_geometry(Vec3 half_extent) {
  BodyGeometry g;
  g.shape = BodyShape::Box;
  g.half_extent = half_extent;
  return g;
}
BodyGeometry capsule_geometry(float radius, float half_height) {
  BodyGeometry g;
  g.shape = BodyShape::Capsule;
  g.radius = radius;
  g.half_height = half_height;
  return g;
}
BodyGeometry mesh_geometry(std::vector<Vec3> vertices, std::vector<uint32_t> indices) {
  BodyGeometry g;
  g.shape = BodyShape::Mesh;
  g.mesh_vertices = std::make_shared<const std::vector<Vec3>>(std::move(vertices));
  g.mesh_indices = std::make_shared<const std::vector<uint32_t>>(std::move(indices));
  return g;
}

std::string geometry_problem(const BodyGeometry& g) {
  switch (g.shape) {
    case BodyShape::Sphere:
      return size_problem("the sphere's radius", g.radius);
    case BodyShape::Box: {
      std::string p = size_problem("the box's half extent x", g.half_extent.x);
      if (p.empty()) p = size_problem("the box's half extent y", g.half_extent.y);
      if (p.empty()) p = size_problem("the box's half extent z", g.half_extent.z);
      return p;
    }
    case BodyShape::Capsule: {
      std::string p = size_problem("the capsule's radius", g.radius);
      if (p.empty() &&
          !(std::isfinite(g.half_height) && g.half_height >= 0.0f && g.half_height <= kMaxSize))
        p = "the capsule's half height must be between 0 and 10000 m";
      return p;
    }
    case BodyShape::Mesh: {
      if (!g.mesh_vertices || !g.mesh_indices) return "the mesh has no vertices or no indices";
      const auto& v = *g.mesh_vertices;
      const auto& t = *g.mesh_indices;
      if (v.size() < 3 || t.size() < 3) return "the mesh needs at least one triangle";
      if (t.size() % 3 != 0) return "the mesh's index count is not a multiple of 3";
      for (const Vec3& p : v)
        if (!finite(p) || std::fabs(p.x) > kMaxSize || std::fabs(p.y) > kMaxSize ||
            std::fabs(p.z) > kMaxSize)
          return "a mesh vertex is not finite or lies over 10000 m out";
      for (uint32_t i : t)
        if (i >= v.size()) return "a mesh index is past the last vertex";
      return "";
    }
  }
  return "the shape is not a sphere, box, capsule or mesh";
}

std::string material_problem(const BodyMaterial& m) {
  if (!(std::isfinite(m.friction) && m.friction >= 0.0f && m.friction <= 10.0f))
    return "friction must be between 0 and 10";
  if (!(m.restitution >= 0.0f && m.restitution <= 1.0f))
    return "restitution must be between 0 and 1";
  return "";
}

std::string body_def_problem(const RigidBodyDef& def) {
  std::string p = geometry_problem(def.geometry);
  if (p.empty()) p = material_problem(def.material);
  if (!p.empty() || def.kinematic) return p;
  std::ostringstream out;
  if (!(std::isfinite(def.mass) && def.mass > 0.0f)) {
    out << "the mass must be finite and > 0 kg (got " << def.mass << ")";
  } else if (!(finite(def.inertia) && def.inertia.x > 0.0f && def.inertia.y > 0.0f &&
               def.inertia.z > 0.0f)) {
    out << "the moments of inertia must be finite and > 0 kg m^2 (got " << def.inertia.x << ", "
        << def.inertia.y << ", " << def.inertia.z << ")";
  }
  return out.str();
}

float sphere_volume(float r) { return 4.0f / 3.0f * kPi * r * r * r; }
float box_volume(Vec3 h) { return 8.0f * h.x * h.y * h.z; }
float capsule_volume(float r, float hh) { return kPi * r * r * 2.0f * hh + sphere_volume(r); }

Vec3 sphere_inertia(float mass, float r) {
  const float i = 0.4f * mass * r * r;
  return Vec3{i, i, i};
}
Vec3 box_inertia(float mass, Vec3 h) {
  const float k = mass / 3.0f;
  return Vec3{k * (h.y * h.y + h.z * h.z), k * (h.x * h.x + h.z * h.z),
              k * (h.x * h.x + h.y * h.y)};
}
// The cylinder (length 2 hh) and the two hemispheres share the mass by volume. A hemisphere
// of mass m about an axis across the capsule through its centre, at distance hh from its
// flat face: m (2/5 r^2 + hh^2 + 3/4 hh r) (parallel axes through its centroid, 3/8 r from
// the face).
Vec3 capsule_inertia(float mass, float r, float hh) {
  const float v_cyl = kPi * r * r * 2.0f * hh;
  const float v_caps = sphere_volume(r);
  const float m_cyl = mass * v_cyl / (v_cyl + v_caps);
  const float m_caps = mass - m_cyl;
  const float axial = 0.5f * m_cyl * r * r + 0.4f * m_caps * r * r;
  const float across = m_cyl * (0.25f * r * r + (4.0f * hh * hh) / 12.0f) +
                       m_caps * (0.4f * r * r + hh * hh + 0.75f * hh * r);
  return Vec3{across, axial, across};
}

// The polyhedron's own integrals (mass_properties.h: signed tetrahedra, Gauss), times the
// density, in the symmetric tensor's six entries.
MeshMassProperties mesh_mass_properties(const std::vector<Vec3>& v, const std::vector<uint32_t>& t,
                                        float density) {
  MeshMassProperties out;
  if (v.empty() || t.size() < 3) return out;
  TriangleSoup soup;
  soup.vertices = v;
  for (size_t k = 0; k + 2 < t.size(); k += 3) soup.triangles.push_back({t[k], t[k + 1], t[k + 2]});
  const MassProperties p = compute_mass_properties(soup);
  if (!(std::fabs(p.volume) > 0.0)) return out;
  out.volume = static_cast<float>(p.volume);
  out.centroid = p.centroid;
  const double rho = density;
  out.inertia[0] = static_cast<float>(rho * p.inertia[0][0]);
  out.inertia[1] = static_cast<float>(rho * p.inertia[1][1]);
  out.inertia[2] = static_cast<float>(rho * p.inertia[2][2]);
  out.inertia[3] = static_cast<float>(rho * p.inertia[0][1]);
  out.inertia[4] = static_cast<float>(rho * p.inertia[0][2]);
  out.inertia[5] = static_cast<float>(rho * p.inertia[1][2]);
  return out;
}

float geometry_volume(const BodyGeometry& g) {
  switch (g.shape) {
    case BodyShape::Sphere:
      return sphere_volume(g.radius);
    case BodyShape::Box:
      return box_volume(g.half_extent);
    case BodyShape::Capsule:
      return capsule_volume(g.radius, g.half_height);
    case BodyShape::Mesh:
      if (!g.mesh_vertices || !g.mesh_indices) return 0.0f;
      return mesh_mass_properties(*g.mesh_vertices, *g.mesh_indices, 1.0f).volume;
  }
  return 0.0f;
}

RigidBodyDef uniform_body(const BodyGeometry& geometry, float density, BodyMaterial material) {
  RigidBodyDef def;
  def.geometry = geometry;
  def.material = material;
  def.mass = density * geometry_volume(geometry);
  switch (geometry.shape) {
    case BodyShape::Sphere:
      def.inertia = sphere_inertia(def.mass, geometry.radius);
      break;
    case BodyShape::Box:
      def.inertia = box_inertia(def.mass, geometry.half_extent);
      break;
    case BodyShape::Capsule:
      def.inertia = capsule_inertia(def.mass, geometry.radius, geometry.half_height);
      break;
    case BodyShape::Mesh: {
      if (!geometry.mesh_vertices || !geometry.mesh_indices) break;
      const MeshMassProperties p =
          mesh_mass_properties(*geometry.mesh_vertices, *geometry.mesh_indices, density);
      def.inertia = Vec3{p.inertia[0], p.inertia[1], p.inertia[2]};
      break;
    }
  }
  return def;
}

}  // namespace tp
