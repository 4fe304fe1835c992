// Scenes into particles: the fluid's volume, the lattice of fluid and boundary particles at a
// spacing, and the memory that needs (checked before anything is allocated).
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "sim/water/memory_need.h"
#include "sim/scene/scene.h"

namespace tp {

namespace {

std::string fmt(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

constexpr double kPi = 3.14159265358979323846;

// The box clipped to the tank, or false when nothing is left.
bool clip(Vec3 blo, Vec3 bhi, const Scene& s, Vec3* lo, Vec3* hi) {
  *lo = Vec3{std::max(blo.x, s.tank_lo.x), std::max(blo.y, s.tank_lo.y),
             std::max(blo.z, s.tank_lo.z)};
  *hi = Vec3{std::min(bhi.x, s.tank_hi.x), std::min(bhi.y, s.tank_hi.y),
             std::min(bhi.z, s.tank_hi.z)};
  return lo->x < hi->x && lo->y < hi->y && lo->z < hi->z;
}

// Volume of the sphere (centre c, radius r) inside the tank: exact when it is wholly
// inside, else the midpoint rule over 96 x 96 vertical columns, each the chord clipped to
// the tank's floor and ceiling (about 0.1 % off).
double sphere_volume_in_tank(Vec3 c, double r, const Scene& s) {
  const Vec3 lo = s.tank_lo, hi = s.tank_hi;
  if (c.x - r >= lo.x && c.x + r <= hi.x && c.y - r >= lo.y && c.y + r <= hi.y && c.z - r >= lo.z &&
      c.z + r <= hi.z)
    return 4.0 / 3.0 * kPi * r * r * r;
  const double x0 = std::max(double(c.x) - r, double(lo.x)),
               x1 = std::min(double(c.x) + r, double(hi.x));
  const double z0 = std::max(double(c.z) - r, double(lo.z)),
               z1 = std::min(double(c.z) + r, double(hi.z));
  if (!(x0 < x1 && z0 < z1)) return 0.0;
  const int n = 96;
  const double dx = (x1 - x0) / n, dz = (z1 - z0) / n;
  double v = 0.0;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      const double x = x0 + (a + 0.5) * dx - c.x, z = z0 + (b + 0.5) * dz - c.z;
      const double h2 = r * r - x * x - z * z;
      if (h2 <= 0) continue;
      const double h = std::sqrt(h2);
      const double y0 = std::max(double(c.y) - h, double(lo.y)),
                   y1 = std::min(double(c.y) + h, double(hi.y));
      if (y1 > y0) v += (y1 - y0) * dx * dz;
    }
  return v;
}

// Lattice indices (inclusive) of the points of an n[0] x n[1] x n[2] lattice of spacing s,
// anchored at `origin` + s/2, that lie in the box [blo, bhi]; doubles, so that a spacing
// too small for ints still gives a count.
struct LatticeRange {
  double first[3], last[3];
  double count() const {
    double c = 1.0;
    for (int a = 0; a < 3; ++a) c *= std::max(0.0, last[a] - first[a] + 1.0);
    return c;
  }
};

LatticeRange lattice_range(Vec3 blo, Vec3 bhi, Vec3 origin, float s, const double n[3]) {
  const float bl[3] = {blo.x - origin.x, blo.y - origin.y, blo.z - origin.z};
  const float bh[3] = {bhi.x - origin.x, bhi.y - origin.y, bhi.z - origin.z};
  LatticeRange r;
  for (int a = 0; a < 3; ++a) {
    r.first[a] = std::max(0.0, double(std::ceil(bl[a] / s - 0.5f)));
    r.last[a] = std::min(n[a] - 1, double(std::floor(bh[a] / s - 0.5f)));
  }
  return r;
}

// Area of the disc (centre c, radius r) inside the tank's rectangle in x and y: the
// midpoint rule over 2048 vertical strips, each the chord clipped to floor and ceiling.
double disc_area_in_tank(Vec3 c, double r, const Scene& s) {
  const double x0 = std::max(double(c.x) - r, double(s.tank_lo.x)),
               x1 = std::min(double(c.x) + r, double(s.tank_hi.x));
  if (!(x0 < x1)) return 0.0;
  const int n = 2048;
  const double dx = (x1 - x0) / n;
  double a = 0.0;
  for (int k = 0; k < n; ++k) {
    const double x = x0 + (k + 0.5) * dx - c.x, h2 = r * r - x * x;
    if (h2 <= 0) continue;
    const double h = std::sqrt(h2);
    const double y0 = std::max(double(c.y) - h, double(s.tank_lo.y)), y1 = std::min(double(c.y) + h, double(s.tank_hi.y));
    if (y1 > y0) a += (y1 - y0) * dx;
  }
  return a;
}

// A 2D scene as the 3D lattice code sees it at spacing s: the tank one spacing deep around
// its middle plane in z, and every block, sphere, obstacle and emitter put onto that plane
// (blocks through the whole depth).
Scene flattened(const Scene& scene, float s) {
  Scene f = scene;
  const float plane = 0.5f * (scene.tank_lo.z + scene.tank_hi.z);
  f.tank_lo.z = plane - 0.5f * s;
  f.tank_hi.z = plane + 0.5f * s;
  for (FluidBlock& b : f.blocks) {
    b.lo.z = f.tank_lo.z;
    b.hi.z = f.tank_hi.z;
    b.velocity.z = 0.0f;
  }
  for (FluidSphere& b : f.spheres) {
    b.center.z = plane;
    b.velocity.z = 0.0f;
  }
  for (ObstacleShape& o : f.obstacles) o.center.z = plane;
  for (BodySpec& b : f.bodies) b.pose.position.z = plane;
  for (Emitter& e : f.emitters) {
    e.position.z = plane;
    e.velocity.z = 0.0f;
  }
  return f;
}

// The scene's max_particles at spacing s: it counts particles of the scene's own spacing,
// so at another spacing it stands for the same volume of water. 0 stays 0 (automatic).
uint64_t max_particles_at(const Scene& scene, float s) {
  if (!scene.max_particles) return 0;
  const double scale = std::pow(double(scene.spacing) / double(s), scene.dimensions == 2 ? 2.0 : 3.0);
  const double n = std::round(double(scene.max_particles) * scale);
  return uint64_t(std::min(std::max(n, double(kMinMaxParticles)), double(kMaxParticles)));
}

// The most fluid particles the simulation may hold at spacing s: the initial ones, and
// with emitters max_particles or the automatic limit (InitialState::max_particles).
double fluid_capacity(const Scene& scene, double initial, float s) {
  if (scene.emitters.empty()) return initial;
  const uint64_t most = max_particles_at(scene, s);
  const double limit = most ? double(most) : double(automatic_max_particles(uint64_t(initial)));
  return std::max(initial, limit);
}

}  // namespace

double fluid_volume(const Scene& s) {
  double v = 0.0;
  if (s.dimensions == 2) {
    for (const FluidBlock& b : s.blocks) {
      const double w = std::min(b.hi.x, s.tank_hi.x) - std::max(b.lo.x, s.tank_lo.x);
      const double h = std::min(b.hi.y, s.tank_hi.y) - std::max(b.lo.y, s.tank_lo.y);
      if (w > 0 && h > 0) v += w * h;
    }
    for (const FluidSphere& d : s.spheres) v += disc_area_in_tank(d.center, d.radius, s);
    return v;
  }
  for (const FluidBlock& b : s.blocks) {
    Vec3 lo, hi;
    if (clip(b.lo, b.hi, s, &lo, &hi)) v += double(hi.x - lo.x) * (hi.y - lo.y) * (hi.z - lo.z);
  }
  for (const FluidSphere& sphere : s.spheres)
    v += sphere_volume_in_tank(sphere.center, sphere.radius, s);
  return v;
}

double particles_at_own_spacing(const Scene& s) {
  return fluid_volume(s) / std::pow(double(s.spacing), s.dimensions == 2 ? 2.0 : 3.0);
}

float spacing_for_count(const Scene& s, uint64_t count) {
  if (count == 0) return s.spacing;
  const double volume = fluid_volume(s);
  const double root = s.dimensions == 2 ? 0.5 : 1.0 / 3.0;  // an area in 2D
  const float spacing = volume > 0.0 || s.emitters.empty()
                            ? float(std::pow(volume / double(count), root))
                            : float(double(s.spacing) * std::pow(fluid_capacity(s, 0.0, s.spacing) / double(count), root));
  // Never so coarse that a body is under two spacings across (check_body refuses that):
  // a scene with small bodies gets more particles than asked rather than none.
  return std::min(spacing, body_spacing_limit(s));
}

float body_spacing_limit(const Scene& s) {
  float finest = std::numeric_limits<float>::infinity();
  for (const BodySpec& b : s.bodies) finest = std::min(finest, 0.499f * body_smallest_side(b, s.dimensions));
  return finest;
}

InitialState build_initial_state(const Scene& given, float s, uint64_t memory_bytes,
                                 uint64_t diffuse_particles) {
  if (!(s > 0.0f) || !std::isfinite(s))
    throw SceneError("particle spacing must be a positive number");
  const bool plane = given.dimensions == 2;
  const Scene scene = plane ? flattened(given, s) : given;
  const Vec3 lo = scene.tank_lo;
  const Vec3 extent = scene.tank_hi - scene.tank_lo;
  // Whole spacings per axis; the tank's max faces move in by less than one spacing.
  const double n[3] = {std::floor(extent.x / s + 1e-4), std::floor(extent.y / s + 1e-4),
                       plane ? 1.0 : std::floor(extent.z / s + 1e-4)};
  if (n[0] < 2 || n[1] < 2 || n[2] < (plane ? 1 : 2)) {
    const double smallest = (plane ? std::min(extent.x, extent.y) : std::min({extent.x, extent.y, extent.z})) / 2.0;
    const double volume = fluid_volume(scene);
    throw SceneError("particle spacing " + fmt(s) +
                     " m is too coarse for the tank, which needs at "
                     "least two particles across every axis: use a spacing of at most " +
                     fmt(smallest) + " m" +
                     (volume > 0 ? " (at least about " +
                                       fmt(std::ceil(volume / (smallest * smallest * (plane ? 1.0 : smallest)))) +
                                       " particles)"
                                 : std::string()));
  }
  // Fluid points, counted before anything is allocated: exactly for the blocks, and for a
  // sphere at most the lattice cells that fit in it grown by half a cell diagonal.
  std::vector<LatticeRange> block_ranges, sphere_ranges;
  double fluid_estimate = 0.0;
  for (const FluidBlock& b : scene.blocks) {
    Vec3 blo, bhi;
    if (!clip(b.lo, b.hi, scene, &blo, &bhi)) continue;
    block_ranges.push_back(lattice_range(blo, bhi, lo, s, n));
    fluid_estimate += block_ranges.back().count();
  }
  for (const FluidSphere& sphere : scene.spheres) {
    const Vec3 r{sphere.radius, sphere.radius, sphere.radius};
    Vec3 blo, bhi;
    if (!clip(sphere.center - r, sphere.center + r, scene, &blo, &bhi)) {
      sphere_ranges.push_back(LatticeRange{{0, 0, 0}, {-1, -1, -1}});
      continue;
    }
    sphere_ranges.push_back(lattice_range(blo, bhi, lo, s, n));
    const double grown = sphere_volume_in_tank(sphere.center, sphere.radius + 0.87 * s, scene);
    fluid_estimate +=
        std::min(sphere_ranges.back().count(), std::ceil(grown / (double(s) * s * s)));
  }
  const double fluid_most = fluid_capacity(scene, fluid_estimate, s);
  const double layers = 2.0;
  double boundary_estimate =
      (n[0] + 2 * layers) * (n[1] + 2 * layers) * (n[2] + (plane ? 0 : 2 * layers)) - n[0] * n[1] * n[2];
  for (const ObstacleShape& o : scene.obstacles) {  // the simulation samples their surfaces
    const Vec3 e = o.half_extent * 2.0f;
    const double area = o.kind == int(ShapeKind::Sphere)
                            ? 4 * kPi * double(o.radius) * o.radius
                            : 2.0 * (double(e.x) * e.y + double(e.y) * e.z + double(e.z) * e.x);
    boundary_estimate += layers * area / (double(s) * s);
  }
  const double cells = grid_cells(scene.tank_lo, scene.tank_hi, s);
  const bool growing = fluid_most > fluid_estimate;
  const double need = double(estimate_memory_bytes(
      uint64_t(std::min(fluid_most, 1e18)), uint64_t(std::min(boundary_estimate, 1e18)),
      uint64_t(std::min(cells, 1e18)), diffuse_particles, growing));
  const std::string request =
      "about " + count_text(std::round(fluid_estimate)) + " particles" +
      (growing ? " (up to " + count_text(std::round(fluid_most)) + " with the emitters)" : "") +
      " at spacing " + fmt(s) + " m" +
      (diffuse_particles ? " with room for " + count_text(double(diffuse_particles)) +
                               " spray, foam and bubble particles"
                         : "");
  if (fluid_estimate > double(kMaxParticles))
    throw SceneError(request + " would need " + megabytes_text(need) +
                     " of memory, more than Tidepool supports (" + count_text(double(kMaxParticles)) +
                     " particles); use fewer particles");
  if (cells > 1.5e9)
    throw SceneError("the tank is too large for particle spacing " + fmt(s) +
                     " m: its neighbour grid "
                     "would need " +
                     fmt(cells) +
                     " cells; use a larger spacing (fewer particles) or "
                     "a smaller tank");
  require_memory(need, memory_bytes, request,
                 std::string("use fewer particles") +
                     (growing ? " or a smaller max_particles" : "") +
                     (diffuse_particles > 50000 ? " or a smaller diffuse_cap" : ""));

  const int nx = int(n[0]), ny = int(n[1]), nz = int(n[2]);
  InitialState st;
  st.spacing = s;
  st.tank_lo = lo;
  st.tank_hi = lo + Vec3{float(nx) * s, float(ny) * s, float(nz) * s};
  if (plane) {
    st.dimensions = 2;
    st.tank_lo.z = st.tank_hi.z = lo.z + 0.5f * s;  // the plane, where the one layer lies
  }
  auto point = [&](int64_t i, int64_t j, int64_t k) {
    return Vec3{lo.x + (float(i) + 0.5f) * s, lo.y + (float(j) + 0.5f) * s,
                lo.z + (float(k) + 0.5f) * s};
  };
  auto clear_of_obstacles = [&](Vec3 p) {
    for (const ObstacleShape& o : scene.obstacles)
      if (obstacle_distance(o, p) < 0.5f * s) return false;
    return true;
  };
  // Fluid: lattice points inside a block or sphere, each once: where shapes overlap, the
  // first shape (blocks, then spheres, in file order) takes it, with its velocity.
  struct Candidate {
    uint64_t key;    // (k * ny + j) * nx + i
    uint32_t shape;  // blocks first, then spheres
  };
  std::vector<Candidate> points;
  points.reserve(size_t(std::min(fluid_estimate, 1e9)));
  auto add = [&](const LatticeRange& r, uint32_t shape, auto inside) {
    for (int64_t k = int64_t(r.first[2]); k <= int64_t(r.last[2]); ++k)
      for (int64_t j = int64_t(r.first[1]); j <= int64_t(r.last[1]); ++j)
        for (int64_t i = int64_t(r.first[0]); i <= int64_t(r.last[0]); ++i) {
          const Vec3 p = point(i, j, k);
          if (inside(p) && clear_of_obstacles(p))
            points.push_back(Candidate{(uint64_t(k) * ny + uint64_t(j)) * nx + uint64_t(i), shape});
        }
  };
  std::vector<Vec3> shape_velocity;
  for (size_t b = 0, r = 0; b < scene.blocks.size(); ++b) {
    Vec3 blo, bhi;
    if (!clip(scene.blocks[b].lo, scene.blocks[b].hi, scene, &blo, &bhi)) continue;
    add(block_ranges[r++], uint32_t(shape_velocity.size()), [](Vec3) { return true; });
    shape_velocity.push_back(scene.blocks[b].velocity);
  }
  for (size_t k = 0; k < scene.spheres.size(); ++k) {
    const FluidSphere& sphere = scene.spheres[k];
    const float r2 = sphere.radius * sphere.radius;
    add(sphere_ranges[k], uint32_t(shape_velocity.size()),
        [&](Vec3 p) { return length2(p - sphere.center) <= r2; });
    shape_velocity.push_back(sphere.velocity);
  }
  if (shape_velocity.size() > 1) {
    std::sort(points.begin(), points.end(), [](const Candidate& a, const Candidate& b) {
      return a.key != b.key ? a.key < b.key : a.shape < b.shape;
    });
    points.erase(std::unique(points.begin(), points.end(),
                             [](const Candidate& a, const Candidate& b) { return a.key == b.key; }),
                 points.end());
    std::sort(points.begin(), points.end(), [](const Candidate& a, const Candidate& b) {
      return a.shape != b.shape ? a.shape < b.shape : a.key < b.key;
    });
  }
  st.fluid.reserve(points.size());
  st.velocity.reserve(points.size());
  for (const Candidate& c : points) {
    const uint64_t i = c.key % uint64_t(nx), j = (c.key / uint64_t(nx)) % uint64_t(ny),
                   k = c.key / (uint64_t(nx) * ny);
    st.fluid.push_back(make_vec4(point(int64_t(i), int64_t(j), int64_t(k)), 0.0f));
    st.velocity.push_back(make_vec4(shape_velocity[c.shape], 0.0f));
  }
  if (st.fluid.empty() && scene.emitters.empty())
    throw SceneError("particle spacing " + fmt(s) +
                     " m is too coarse: no particle fits in the fluid blocks and "
                     "spheres (clear of the obstacles)");
  // Boundary: the lattice continued two layers beyond every face (edges and corners too).
  // w = 0 asks the simulation for the lattice volume.
  const int L = int(layers), Lz = plane ? 0 : L;
  for (int k = -Lz; k < nz + Lz; ++k)
    for (int j = -L; j < ny + L; ++j)
      for (int i = -L; i < nx + L; ++i) {
        const bool inside = i >= 0 && i < nx && j >= 0 && j < ny && k >= 0 && k < nz;
        if (!inside) st.boundary.push_back(make_vec4(point(i, j, k), 0.0f));
      }
  st.obstacles = scene.obstacles;
  for (ObstacleShape& o : st.obstacles) o.velocity = Vec3{0, 0, 0};
  st.bodies = scene.bodies;
  st.emitters = scene.emitters;
  st.outflows = scene.outflows;
  st.max_particles = max_particles_at(scene, s);
  return st;
}

}  // namespace tp
