#include "sim/bodies/body_spec.h"

#include <cmath>
#include <cstdint>
#include <sstream>
#include <unordered_map>

#include "kernels/sph_kernel.h"
#include "sim/bodies/rigid_body.h"
#include "sim/bodies/surface_samples.h"

namespace tp {

namespace {

constexpr float kPi = 3.14159265358979f;

// A cell of a spatial hash as one key.
uint64_t cell_key(Int3 c) {
  return (uint64_t(uint32_t(c.x) & 0x1fffff) << 42) | (uint64_t(uint32_t(c.y) & 0x1fffff) << 21) |
         uint64_t(uint32_t(c.z) & 0x1fffff);
}

}  // namespace

BodyMass body_mass(const BodySpec& b, int dimensions) {
  BodyMass m{};
  const float r = b.radius, hh = b.half_height;
  const Vec3 e = b.half_extent;
  if (dimensions == 2) {
    float area = 0.0f, polar = 0.0f;  // polar: the second moment of the area about z
    if (b.shape == int(BodyShapeKind::Sphere)) {
      area = kPi * r * r;
      polar = 0.5f * area * r * r;
    } else if (b.shape == int(BodyShapeKind::Capsule)) {
      const float rect = 4.0f * r * hh, disc = kPi * r * r;
      area = rect + disc;
      polar = rect * (r * r + hh * hh) / 3.0f + disc * (0.5f * r * r + hh * hh) + 2.0f * disc * (4.0f * r / (3.0f * kPi)) * hh;
    } else {
      area = 4.0f * e.x * e.y;
      polar = area * (e.x * e.x + e.y * e.y) / 3.0f;
    }
    m.volume = area;
    m.mass = b.mass > 0.0f ? b.mass : b.density * area;
    const float per_area = m.mass / area;
    m.inertia = Vec3{per_area * polar, per_area * polar, per_area * polar};
    return m;
  }
  if (b.shape == int(BodyShapeKind::Mesh) && b.mesh) {
    m.volume = b.mesh->volume;
    m.mass = b.mass > 0.0f ? b.mass : b.density * m.volume;
    m.inertia = b.mesh->unit_inertia * (m.mass / m.volume);
    return m;
  }
  if (b.shape == int(BodyShapeKind::Sphere)) m.volume = sphere_volume(r);
  else if (b.shape == int(BodyShapeKind::Capsule)) m.volume = capsule_volume(r, hh);
  else m.volume = box_volume(e);
  m.mass = b.mass > 0.0f ? b.mass : b.density * m.volume;
  m.inertia = b.shape == int(BodyShapeKind::Sphere)    ? sphere_inertia(m.mass, r)
              : b.shape == int(BodyShapeKind::Capsule) ? capsule_inertia(m.mass, r, hh)
                                                       : box_inertia(m.mass, e);
  return m;
}

SolidBody solid_of(const BodySpec& b) {
  SolidBody s{};
  s.shape = b.shape;
  s.radius = b.radius;
  s.half_extent = b.half_extent;
  s.half_height = b.half_height;
  s.bound = b.shape == int(BodyShapeKind::Sphere)    ? b.radius
            : b.shape == int(BodyShapeKind::Capsule) ? b.radius + b.half_height
                                                     : length(b.half_extent);
  if (b.shape == int(BodyShapeKind::Mesh) && b.mesh) {
    s.bound = b.mesh->bound;
    s.field = b.mesh->field.view();
  }
  s.pose = b.pose;
  s.motion = b.motion;
  s.half_box = solid_half_box(s);
  return s;
}

const char* shape_name(const BodySpec& b) {
  return b.shape == int(BodyShapeKind::Sphere)    ? "sphere"
         : b.shape == int(BodyShapeKind::Capsule) ? "capsule"
         : b.shape == int(BodyShapeKind::Mesh)    ? "mesh"
                                                  : "box";
}

float body_sample_flat_ratio(float spacing, int dimensions) {
  const CubicKernel kernel = CubicKernel::make_for(dimensions, 2.0f * spacing);
  double layer = 0.0, full = 0.0;
  const int reach = 2;
  for (int z = dimensions == 3 ? -reach : 0; z <= (dimensions == 3 ? reach : 0); ++z)
    for (int y = -reach; y <= reach; ++y)
      for (int x = -reach; x <= reach; ++x) {
        const float w = kernel.w(spacing * std::sqrt(float(x * x + y * y + z * z)));
        full += w;
        if (y == 0) layer += w;
      }
  return float(layer / full);
}

std::vector<Vec4> body_surface_samples(const BodySpec& b, float s, int dimensions) {
  const bool plane = dimensions == 2;
  const float inset = 0.5f * s;
  const float r = std::max(b.radius - inset, 0.25f * s);
  const Vec3 e = b.half_extent;
  const Vec3 a{std::max(e.x - inset, 0.25f * s), std::max(e.y - inset, 0.25f * s), std::max(e.z - inset, 0.25f * s)};
  std::vector<Vec3> p, normal;
  const SolidBody solid = solid_of(b);
  if (b.shape == int(BodyShapeKind::Sphere)) p = plane ? sample_circle(r, s) : sample_sphere(r, s);
  else if (b.shape == int(BodyShapeKind::Capsule))
    p = plane ? sample_stadium(r, b.half_height, s) : sample_capsule(r, b.half_height, s);
  else if (b.shape == int(BodyShapeKind::Mesh) && b.mesh) {
    // The surface's samples moved half a spacing inward, along the field's normal. Where a
    // wall is about a spacing thick, its two faces' samples meet inside it: one of each
    // pair closer than half a spacing is kept, for both sides (a hash of cells that size).
    const float close = 0.5f * s;
    std::unordered_map<uint64_t, std::vector<uint32_t>> kept;
    auto cell = [&](Vec3 x) {
      return Int3{int(std::floor(x.x / close)), int(std::floor(x.y / close)), int(std::floor(x.z / close))};
    };
    for (const Vec3& q : sample_mesh_surface(b.mesh->mesh, s)) {
      const Vec3 n = solid_normal(solid, q), x = q - n * inset;
      const Int3 c = cell(x);
      bool near = false;
      for (int dz = -1; dz <= 1 && !near; ++dz)
        for (int dy = -1; dy <= 1 && !near; ++dy)
          for (int dx = -1; dx <= 1 && !near; ++dx) {
            const auto it = kept.find(cell_key(Int3{c.x + dx, c.y + dy, c.z + dz}));
            if (it == kept.end()) continue;
            for (uint32_t j : it->second) near = near || length(x - p[j]) < close;
          }
      if (near) continue;
      kept[cell_key(c)].push_back(uint32_t(p.size()));
      p.push_back(x);
      normal.push_back(n);
    }
  } else p = plane ? sample_rectangle(a.x, a.y, s) : sample_box(a, s);
  // Each sample's outward normal (the nearest face's, for the primitives).
  if (normal.empty())
    for (const Vec3& q : p) normal.push_back(solid_normal(solid, q));
  // Each point's sum of W over the body's points within h (a hash of cells of size h) on
  // its own side of the body: where a wall or a plate is thinner than h, the samples of its
  // far face (their normals more than 120 degrees from this one's) are left out, or they
  // would shrink the near face's volumes while the water, on the near side, feels them
  // only weakly: the wall would weigh too little and the water sink into it.
  const float h = 2.0f * s;
  const CubicKernel kernel = CubicKernel::make_for(dimensions, h);
  auto cell_of = [&](Vec3 x) {
    return Int3{int(std::floor(x.x / h)), int(std::floor(x.y / h)), int(std::floor(x.z / h))};
  };
  const auto key = cell_key;
  std::unordered_map<uint64_t, std::vector<uint32_t>> cells;
  for (size_t i = 0; i < p.size(); ++i) cells[key(cell_of(p[i]))].push_back(uint32_t(i));
  std::vector<Vec4> out(p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    const Int3 c = cell_of(p[i]);
    double sum = 0.0;
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const auto it = cells.find(key(Int3{c.x + dx, c.y + dy, c.z + dz}));
          if (it == cells.end()) continue;
          for (uint32_t j : it->second)
            if (dot(normal[i], normal[j]) > -0.5f) sum += kernel.w(length(p[i] - p[j]));
        }
    out[i] = make_vec4(p[i], float(sum));
  }
  return out;
}

float ray_hit(const SolidBody& b, Vec3 o, Vec3 d) {
  // From where the ray enters the bounding sphere, steps of the distance to the surface.
  const Vec3 oc = o - b.pose.position;
  const float along = dot(oc, d), miss2 = dot(oc, oc) - along * along;
  if (miss2 > b.bound * b.bound) return -1.0f;
  float t = std::max(0.0f, -along - std::sqrt(std::max(b.bound * b.bound - miss2, 0.0f)));
  const float t_end = -along + std::sqrt(std::max(b.bound * b.bound - miss2, 0.0f));
  const float eps = 1e-5f * std::max(b.bound, 1e-3f);
  for (int i = 0; i < 256 && t <= t_end; ++i) {
    const float dist = solid_distance(b, to_local(b.pose, o + d * t));
    if (dist < eps) return t;
    t += dist;
  }
  return -1.0f;
}

float body_smallest_side(const BodySpec& b, int dimensions) {
  if (b.shape == int(BodyShapeKind::Mesh) && b.mesh) {
    const Vec3 e = b.mesh->hi - b.mesh->lo;
    return std::min(e.x, std::min(e.y, e.z));
  }
  if (b.shape == int(BodyShapeKind::Box))
    return 2.0f * std::min(b.half_extent.x, std::min(b.half_extent.y, dimensions == 2 ? b.half_extent.y : b.half_extent.z));
  return 2.0f * b.radius;
}

std::string check_body(const BodySpec& b, float spacing, int dimensions, const std::string& name) {
  std::ostringstream msg;
  const bool finite = is_finite(b.pose.position) && is_finite(b.motion.velocity) &&
                      is_finite(b.motion.angular_velocity) && std::isfinite(b.pose.orientation.w) &&
                      std::isfinite(b.pose.orientation.x) && std::isfinite(b.pose.orientation.y) &&
                      std::isfinite(b.pose.orientation.z) && std::isfinite(b.density) && std::isfinite(b.mass);
  if (!finite) return name + ": a value is not a finite number";
  if (b.shape < 0 || b.shape > int(BodyShapeKind::Mesh)) return name + ": unknown shape";
  if (b.shape == int(BodyShapeKind::Mesh) && !b.mesh) return name + ": a mesh body without its mesh";
  if (b.shape == int(BodyShapeKind::Mesh) && dimensions == 2)
    return name + ": mesh bodies are 3D only (a 2D scene takes spheres, boxes and capsules)";
  if (b.axle < -1 || b.axle > 2) return name + ": the axle must be x, y or z";
  if (dimensions == 2 && b.axle >= 0 && b.axle != 2) return name + ": in 2D a body turns about z only";
  const float smallest = body_smallest_side(b, dimensions);
  if (!(smallest >= 2.0f * spacing)) {
    msg << name << ": " << smallest << " m across is under two particle spacings (" << 2.0f * spacing
        << " m); the water cannot resolve it";
    return msg.str();
  }
  if (b.shape == int(BodyShapeKind::Capsule) && !(b.half_height >= 0.0f)) return name + ": half_height must be >= 0";
  const BodyMass m = body_mass(b, dimensions);
  const float density = m.mass / m.volume;
  if (!(density >= 50.0f && density <= 20000.0f)) {
    msg << name << ": density " << density << " kg/m^3 is outside [50, 20000]";
    return msg.str();
  }
  if (!(b.friction >= 0.0f && b.friction <= 2.0f)) return name + ": friction must be in [0, 2]";
  if (!(b.restitution >= 0.0f && b.restitution <= 1.0f)) return name + ": restitution must be in [0, 1]";
  return "";
}

}  // namespace tp
