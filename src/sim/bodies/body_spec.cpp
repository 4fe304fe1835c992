#include "sim/bodies/body_spec.h"

#include <cmath>
#include <cstdint>
#include <sstream>
#include <unordered_map>

#include "kernels/sph_kernel.h"

namespace tp {

namespace {

constexpr float kPi = 3.14159265358979f;

// Points evenly spread over a sphere of radius r (the golden-angle spiral), n of them.
void sphere_points(float r, int n, Vec3 offset, int half, std::vector<Vec3>* out) {
  const float golden = kPi * (3.0f - std::sqrt(5.0f));
  for (int i = 0; i < n; ++i) {
    const float y = 1.0f - 2.0f * (float(i) + 0.5f) / float(n);
    if ((half > 0 && y < 0.0f) || (half < 0 && y >= 0.0f)) continue;
    const float ring = std::sqrt(std::max(0.0f, 1.0f - y * y));
    const float a = golden * float(i);
    out->push_back(offset + Vec3{r * ring * std::cos(a), r * y, r * ring * std::sin(a)});
  }
}

// A circle of radius r in the plane z = 0 (2D) or y = const (a capsule's ring), n points.
void ring_points(float r, int n, float y, bool xy_plane, std::vector<Vec3>* out) {
  for (int i = 0; i < n; ++i) {
    const float a = 2.0f * kPi * (float(i) + 0.5f) / float(n);
    out->push_back(xy_plane ? Vec3{r * std::cos(a), r * std::sin(a), 0.0f}
                            : Vec3{r * std::cos(a), y, r * std::sin(a)});
  }
}

// The surface points of a lattice over the box [-a, a]: every node with an index at its
// axis's end; segments per axis as near to `spacing` as fits (at least one).
void box_points(Vec3 a, float spacing, bool plane, std::vector<Vec3>* out) {
  auto segments = [&](float half) { return std::max(1, int(std::lround(2.0f * half / spacing))); };
  const int nx = segments(a.x), ny = segments(a.y), nz = plane ? 0 : segments(a.z);
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        const bool surface = i == 0 || i == nx || j == 0 || j == ny || (!plane && (k == 0 || k == nz));
        if (!surface) continue;
        out->push_back(Vec3{-a.x + 2.0f * a.x * float(i) / float(nx), -a.y + 2.0f * a.y * float(j) / float(ny),
                            plane ? 0.0f : -a.z + 2.0f * a.z * float(k) / float(nz)});
      }
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
  if (b.shape == int(BodyShapeKind::Sphere)) {
    m.volume = 4.0f / 3.0f * kPi * r * r * r;
    m.mass = b.mass > 0.0f ? b.mass : b.density * m.volume;
    const float i = 0.4f * m.mass * r * r;
    m.inertia = Vec3{i, i, i};
  } else if (b.shape == int(BodyShapeKind::Capsule)) {
    const float cyl = kPi * r * r * 2.0f * hh, ball = 4.0f / 3.0f * kPi * r * r * r;
    m.volume = cyl + ball;
    m.mass = b.mass > 0.0f ? b.mass : b.density * m.volume;
    const float rho = m.mass / m.volume, mc = rho * cyl, mb = rho * ball, l = 2.0f * hh;
    const float iy = 0.5f * mc * r * r + 0.4f * mb * r * r;
    // The cylinder about a diameter through its centre, and the two half balls moved out
    // to its ends (their centres of mass 3r/8 beyond: the parallel axis theorem).
    const float ix = mc * (r * r / 4.0f + l * l / 12.0f) + mb * (0.4f * r * r + hh * hh + 0.75f * hh * r);
    m.inertia = Vec3{ix, iy, ix};
  } else {
    m.volume = 8.0f * e.x * e.y * e.z;
    m.mass = b.mass > 0.0f ? b.mass : b.density * m.volume;
    const float k = m.mass / 3.0f;
    m.inertia = Vec3{k * (e.y * e.y + e.z * e.z), k * (e.x * e.x + e.z * e.z), k * (e.x * e.x + e.y * e.y)};
  }
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
  s.pose = b.pose;
  s.motion = b.motion;
  return s;
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
  std::vector<Vec3> p;
  const bool plane = dimensions == 2;
  const float inset = 0.5f * s;
  const float r = std::max(b.radius - inset, 0.25f * s);
  if (b.shape == int(BodyShapeKind::Sphere)) {
    if (plane) ring_points(r, std::max(3, int(std::lround(2.0f * kPi * r / s))), 0.0f, true, &p);
    else sphere_points(r, std::max(4, int(std::lround(4.0f * kPi * r * r / (s * s)))), Vec3{0, 0, 0}, 0, &p);
  } else if (b.shape == int(BodyShapeKind::Capsule)) {
    const float hh = b.half_height;
    const int rings = std::max(1, int(std::lround(2.0f * hh / s)));
    if (plane) {
      for (int i = 0; i <= rings; ++i) {
        const float y = -hh + 2.0f * hh * float(i) / float(rings);
        p.push_back(Vec3{-r, y, 0.0f});
        p.push_back(Vec3{r, y, 0.0f});
      }
      const int arc = std::max(1, int(std::lround(kPi * r / s)));
      for (int i = 1; i < arc; ++i) {
        const float a = kPi * float(i) / float(arc);
        p.push_back(Vec3{r * std::cos(a), hh + r * std::sin(a), 0.0f});
        p.push_back(Vec3{r * std::cos(a), -hh - r * std::sin(a), 0.0f});
      }
    } else {
      const int around = std::max(3, int(std::lround(2.0f * kPi * r / s)));
      for (int i = 0; i <= rings; ++i) ring_points(r, around, -hh + 2.0f * hh * float(i) / float(rings), false, &p);
      const int n = std::max(4, int(std::lround(4.0f * kPi * r * r / (s * s))));
      std::vector<Vec3> caps;
      sphere_points(r, n, Vec3{0, hh, 0}, 1, &caps);
      sphere_points(r, n, Vec3{0, -hh, 0}, -1, &caps);
      for (const Vec3& c : caps)  // leave out the caps' points on the end rings
        if (std::fabs(std::fabs(c.y) - hh) > 0.3f * s) p.push_back(c);
    }
  } else {
    const Vec3 e = b.half_extent;
    box_points(Vec3{std::max(e.x - inset, 0.25f * s), std::max(e.y - inset, 0.25f * s), std::max(e.z - inset, 0.25f * s)},
               s, plane, &p);
  }
  // Each point's sum of W over the body's points within h (a hash of cells of size h).
  const float h = 2.0f * s;
  const CubicKernel kernel = CubicKernel::make_for(dimensions, h);
  auto cell_of = [&](Vec3 x) {
    return Int3{int(std::floor(x.x / h)), int(std::floor(x.y / h)), int(std::floor(x.z / h))};
  };
  auto key = [](Int3 c) {
    return (uint64_t(uint32_t(c.x) & 0x1fffff) << 42) | (uint64_t(uint32_t(c.y) & 0x1fffff) << 21) |
           uint64_t(uint32_t(c.z) & 0x1fffff);
  };
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
          for (uint32_t j : it->second) sum += kernel.w(length(p[i] - p[j]));
        }
    out[i] = make_vec4(p[i], float(sum));
  }
  return out;
}

std::string check_body(const BodySpec& b, float spacing, int dimensions, const std::string& name) {
  std::ostringstream msg;
  const bool finite = is_finite(b.pose.position) && is_finite(b.motion.velocity) &&
                      is_finite(b.motion.angular_velocity) && std::isfinite(b.pose.orientation.w) &&
                      std::isfinite(b.pose.orientation.x) && std::isfinite(b.pose.orientation.y) &&
                      std::isfinite(b.pose.orientation.z) && std::isfinite(b.density) && std::isfinite(b.mass);
  if (!finite) return name + ": a value is not a finite number";
  if (b.shape < 0 || b.shape > int(BodyShapeKind::Capsule)) return name + ": unknown shape";
  float smallest = 0.0f;
  if (b.shape == int(BodyShapeKind::Box))
    smallest = 2.0f * std::min(b.half_extent.x, std::min(b.half_extent.y, dimensions == 2 ? b.half_extent.y : b.half_extent.z));
  else
    smallest = 2.0f * b.radius;
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
