// Host-side geometry of the scene objects: obstacle samples and emitter layers.
#include <cmath>

#include "sim/water/scene_objects.h"

namespace tp {

std::vector<Vec4> obstacle_samples(const ObstacleShape& shape, float s, float volume, int dimensions) {
  std::vector<Vec4> out;
  const Vec3 half = shape.kind == int(ShapeKind::Sphere) ? Vec3{shape.radius, shape.radius, shape.radius}
                                                           : shape.half_extent;
  const int nx = int(std::ceil(half.x / s)), ny = int(std::ceil(half.y / s)), nz = int(std::ceil(half.z / s));
  ObstacleShape local = shape;
  local.center = Vec3{0, 0, 0};
  // The lattice is centred on the obstacle; a box's faces then lie half a spacing outside
  // its outer layer when its size is a whole number of spacings.
  const float shift = 0.5f;
  const bool plane = dimensions == 2;
  for (int k = plane ? 0 : -nz - 1; k <= (plane ? 0 : nz); ++k)
    for (int j = -ny - 1; j <= ny; ++j)
      for (int i = -nx - 1; i <= nx; ++i) {
        const Vec3 p{(float(i) + shift) * s, (float(j) + shift) * s, plane ? 0.0f : (float(k) + shift) * s};
        const float d = obstacle_distance(local, p);
        if (d <= -0.5f * s + 1e-4f * s && d > -2.5f * s) out.push_back(make_vec4(p, volume));
      }
  return out;
}

void emitter_frame(const Emitter& e, Vec3* a, Vec3* u, Vec3* w, int dimensions) {
  if (dimensions == 2) {
    const Vec3 in_plane{e.velocity.x, e.velocity.y, 0.0f};
    const float speed = length(in_plane);
    *a = speed > 0.0f ? in_plane / speed : Vec3{1, 0, 0};
    *u = Vec3{-a->y, a->x, 0.0f};
    *w = cross(*a, *u);
    return;
  }
  const float speed = length(e.velocity);
  *a = speed > 0.0f ? e.velocity / speed : Vec3{1, 0, 0};
  Vec3 across = cross(*a, Vec3{0, 1, 0});
  if (length(across) < 1e-3f) across = Vec3{1, 0, 0};  // pointing up or down: u along x
  *u = across / length(across);
  *w = cross(*a, *u);
}

std::vector<Vec3> emitter_layer(const Emitter& e, float s, int dimensions) {
  std::vector<Vec3> out;
  if (!(s > 0.0f)) return out;
  if (dimensions == 2) {  // a slot across the disk's diameter or the rectangle's width
    const float across = e.shape == 1 ? e.width : 2.0f * e.radius;
    const int n = std::max(1, int(std::floor(across / s + 1e-4f)));
    for (int i = 0; i < n; ++i) out.push_back(Vec3{(float(i) - 0.5f * float(n - 1)) * s, 0.0f, 0.0f});
    return out;
  }
  if (e.shape == 1) {
    const int nu = std::max(1, int(std::floor(e.width / s + 1e-4f)));
    const int nw = std::max(1, int(std::floor(e.height / s + 1e-4f)));
    for (int j = 0; j < nw; ++j)
      for (int i = 0; i < nu; ++i)
        out.push_back(Vec3{(float(i) - 0.5f * float(nu - 1)) * s, (float(j) - 0.5f * float(nw - 1)) * s, 0.0f});
    return out;
  }
  // Disk: lattice points whose particle (radius s/2) lies inside; at least the centre.
  const int n = int(std::ceil(e.radius / s)) + 1;
  const float reach = std::max(e.radius - 0.5f * s, 0.0f);
  for (int j = -n; j <= n; ++j)
    for (int i = -n; i <= n; ++i) {
      const float x = float(i) * s, y = float(j) * s;
      if (x * x + y * y <= reach * reach + 1e-6f * s * s) out.push_back(Vec3{x, y, 0.0f});
    }
  return out;
}

}  // namespace tp
