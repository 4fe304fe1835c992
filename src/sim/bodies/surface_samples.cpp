#include "sim/bodies/surface_samples.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tp {
namespace {

constexpr float kPi = 3.14159265358979f;

bool usable(float v) { return std::isfinite(v) && v > 0.0f; }

// The kept samples in a uniform grid of cells (a linked list per cell), for "is any kept
// sample within r of p" with r at most the cell's size.
class SampleGrid {
 public:
  SampleGrid(Vec3 lo, Vec3 hi, float min_cell) {
    const Vec3 extent = hi - lo;
    const float longest = maxf(extent.x, maxf(extent.y, extent.z));
    cell_ = maxf(min_cell, longest / 128.0f);  // at most ~130^3 cells
    lo_ = lo - Vec3{cell_, cell_, cell_};
    dims_ = Int3{int(extent.x / cell_) + 3, int(extent.y / cell_) + 3, int(extent.z / cell_) + 3};
    head_.assign(size_t(dims_.x) * size_t(dims_.y) * size_t(dims_.z), -1);
  }

  bool any_within(Vec3 p, float r) const {
    const Int3 c = cell_of(p);
    const float r2 = r * r;
    for (int k = maxi(c.z - 1, 0); k <= mini(c.z + 1, dims_.z - 1); ++k) {
      for (int j = maxi(c.y - 1, 0); j <= mini(c.y + 1, dims_.y - 1); ++j) {
        for (int i = maxi(c.x - 1, 0); i <= mini(c.x + 1, dims_.x - 1); ++i) {
          for (int s = head_[index(i, j, k)]; s >= 0; s = next_[size_t(s)]) {
            if (length2(points_[size_t(s)] - p) < r2) return true;
          }
        }
      }
    }
    return false;
  }

  void add(Vec3 p) {
    const Int3 c = cell_of(p);
    const size_t at = index(c.x, c.y, c.z);
    next_.push_back(head_[at]);
    head_[at] = int(points_.size());
    points_.push_back(p);
  }

  std::vector<Vec3>& points() { return points_; }

 private:
  Int3 cell_of(Vec3 p) const {
    const Vec3 u = (p - lo_) * (1.0f / cell_);
    return Int3{clampi(int(u.x), 0, dims_.x - 1), clampi(int(u.y), 0, dims_.y - 1),
                clampi(int(u.z), 0, dims_.z - 1)};
  }
  size_t index(int i, int j, int k) const {
    return (size_t(k) * size_t(dims_.y) + size_t(j)) * size_t(dims_.x) + size_t(i);
  }

  float cell_ = 1.0f;
  Vec3 lo_{0, 0, 0};
  Int3 dims_{1, 1, 1};
  std::vector<int> head_, next_;
  std::vector<Vec3> points_;
};

// Rows parallel to the triangle's longest side, `step` apart, points `step` apart on each
// (the triangle's corners and edges among them).
void add_candidates(Vec3 a, Vec3 b, Vec3 c, float step, std::vector<Vec3>* out) {
  // The longest side as the base a-b, c the apex.
  const float ab = length2(b - a), bc = length2(c - b), ca = length2(a - c);
  if (bc >= ab && bc >= ca) {
    std::swap(a, b);
    std::swap(b, c);  // (b, c, a)
  } else if (ca >= ab && ca >= bc) {
    std::swap(a, c);
    std::swap(b, c);  // (c, a, b)
  }
  const float base = length(b - a);
  const float height = base > 0.0f ? length(cross(b - a, c - a)) / base : 0.0f;
  const int rows = maxi(1, int(std::ceil(height / step)));
  for (int r = 0; r <= rows; ++r) {
    const float t = float(r) / float(rows);
    const Vec3 from = a + (c - a) * t, to = b + (c - b) * t;
    const int steps = maxi(1, int(std::ceil(length(to - from) / step)));
    const int last = r == rows ? 0 : steps;  // the apex row is one point
    for (int k = 0; k <= last; ++k) out->push_back(from + (to - from) * (float(k) / float(steps)));
  }
}

// Rings about y along a profile (rho(u), y(u)) of arc length `length`, u sampled evenly.
template <class Profile>
std::vector<Vec3> sample_revolution(float length, float spacing, const Profile& profile) {
  const float target = 0.95f * spacing;
  const int rows = maxi(1, int(std::lround(length / target)));
  std::vector<Vec3> out;
  for (int r = 0; r <= rows; ++r) {
    float rho, y;
    profile(length * float(r) / float(rows), &rho, &y);
    const int around = int(std::lround(2.0f * kPi * rho / target));
    if (around < 2) {  // on the axis (a pole)
      out.push_back(Vec3{0.0f, y, 0.0f});
      continue;
    }
    const float phase = (r % 2) ? 0.5f : 0.0f;  // staggered: each ring between the last's points
    for (int k = 0; k < around; ++k) {
      const float angle = 2.0f * kPi * (float(k) + phase) / float(around);
      out.push_back(Vec3{rho * std::cos(angle), y, rho * std::sin(angle)});
    }
  }
  return out;
}

// Coordinate i of n + 1 evenly from -h to h, the ends exact (so that faces share them).
float even(int i, int n, float h) {
  if (i == 0) return -h;
  if (i == n) return h;
  return -h + 2.0f * h * float(i) / float(n);
}

}  // namespace

std::vector<Vec3> sample_mesh_surface(const TriangleSoup& mesh, float spacing) {
  if (!usable(spacing) || mesh.triangles.empty()) return {};
  double area = 0.0;
  for (const std::array<uint32_t, 3>& t : mesh.triangles) {
    const Vec3 a = mesh.vertices[t[0]], b = mesh.vertices[t[1]], c = mesh.vertices[t[2]];
    area += 0.5 * double(length(cross(b - a, c - a)));
  }
  // Candidates a tenth of the spacing apart, but no more than about 2e7 of them.
  const float step = maxf(0.1f * spacing, float(std::sqrt(area / 2e7)));
  std::vector<Vec3> candidates;
  for (const std::array<uint32_t, 3>& t : mesh.triangles) {
    add_candidates(mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]], step,
                   &candidates);
  }
  Vec3 lo, hi;
  mesh_bounds(mesh, &lo, &hi);
  const float first = 0.85f * spacing, fill = 0.75f * spacing;
  SampleGrid grid(lo, hi, first);
  for (float radius : {first, fill}) {
    for (const Vec3& p : candidates) {
      if (!grid.any_within(p, radius)) grid.add(p);
    }
  }
  return std::move(grid.points());
}

std::vector<Vec3> sample_sphere(float radius, float spacing) {
  if (!usable(radius) || !usable(spacing)) return {};
  return sample_revolution(kPi * radius, spacing, [&](float u, float* rho, float* y) {
    const float phi = -0.5f * kPi + u / radius;  // latitude, from the south pole
    *rho = radius * std::cos(phi);
    *y = radius * std::sin(phi);
  });
}

std::vector<Vec3> sample_capsule(float radius, float half_height, float spacing) {
  if (!usable(radius) || !usable(spacing) || !(half_height >= 0.0f)) return {};
  const float quarter = 0.5f * kPi * radius;
  const float side = 2.0f * half_height;
  return sample_revolution(2.0f * quarter + side, spacing, [&](float u, float* rho, float* y) {
    if (u < quarter) {  // the lower cap, from its pole
      const float phi = -0.5f * kPi + u / radius;
      *rho = radius * std::cos(phi);
      *y = -half_height + radius * std::sin(phi);
    } else if (u <= quarter + side) {  // the cylinder
      *rho = radius;
      *y = -half_height + (u - quarter);
    } else {  // the upper cap, to its pole
      const float phi = (u - quarter - side) / radius;
      *rho = radius * std::cos(phi);
      *y = half_height + radius * std::sin(phi);
    }
  });
}

std::vector<Vec3> sample_box(Vec3 half, float spacing) {
  if (!usable(half.x) || !usable(half.y) || !usable(half.z) || !usable(spacing)) return {};
  // At most `spacing` apart along each side; one division fewer where that would put them
  // closer than 0.75 spacing (a side shorter than 3 spacings).
  const auto divisions = [&](float h) {
    const int n = maxi(1, int(std::ceil(2.0f * h / spacing)));
    return n > 1 && 2.0f * h / float(n) < 0.75f * spacing ? n - 1 : n;
  };
  const int nx = divisions(half.x), ny = divisions(half.y), nz = divisions(half.z);
  std::vector<Vec3> out;
  // The lattice points on the box's boundary: all of k where (i, j) is on the rim of the
  // x-y rectangle, else the two ends k = 0 and nz.
  for (int i = 0; i <= nx; ++i) {
    for (int j = 0; j <= ny; ++j) {
      const bool rim = i == 0 || i == nx || j == 0 || j == ny;
      for (int k = 0; k <= nz; k += rim ? 1 : nz) {
        out.push_back(Vec3{even(i, nx, half.x), even(j, ny, half.y), even(k, nz, half.z)});
      }
    }
  }
  return out;
}

std::vector<Vec3> sample_circle(float radius, float spacing) {
  return sample_stadium(radius, 0.0f, spacing);
}

std::vector<Vec3> sample_stadium(float radius, float half_height, float spacing) {
  if (!usable(radius) || !usable(spacing) || !(half_height >= 0.0f)) return {};
  // By arc length from (radius, -half_height) up the right side, over the top, down the left
  // and under the bottom.
  const float side = 2.0f * half_height, arc = kPi * radius;
  const float perimeter = 2.0f * side + 2.0f * arc;
  const int n = maxi(3, int(std::lround(perimeter / spacing)));
  std::vector<Vec3> out;
  for (int k = 0; k < n; ++k) {
    float u = perimeter * float(k) / float(n);
    if (u < side) {
      out.push_back(Vec3{radius, -half_height + u, 0.0f});
    } else if ((u -= side) < arc) {
      const float angle = u / radius;
      out.push_back(Vec3{radius * std::cos(angle), half_height + radius * std::sin(angle), 0.0f});
    } else if ((u -= arc) < side) {
      out.push_back(Vec3{-radius, half_height - u, 0.0f});
    } else {
      const float angle = kPi + (u - side) / radius;
      out.push_back(Vec3{radius * std::cos(angle), -half_height + radius * std::sin(angle), 0.0f});
    }
  }
  return out;
}

std::vector<Vec3> sample_rectangle(float half_x, float half_y, float spacing) {
  if (!usable(half_x) || !usable(half_y) || !usable(spacing)) return {};
  const int nx = maxi(1, int(std::lround(2.0f * half_x / spacing)));
  const int ny = maxi(1, int(std::lround(2.0f * half_y / spacing)));
  std::vector<Vec3> out;
  // Counter-clockwise from (-hx, -hy), each corner once.
  for (int i = 0; i < nx; ++i) out.push_back(Vec3{even(i, nx, half_x), -half_y, 0.0f});
  for (int j = 0; j < ny; ++j) out.push_back(Vec3{half_x, even(j, ny, half_y), 0.0f});
  for (int i = nx; i > 0; --i) out.push_back(Vec3{even(i, nx, half_x), half_y, 0.0f});
  for (int j = ny; j > 0; --j) out.push_back(Vec3{-half_x, even(j, ny, half_y), 0.0f});
  return out;
}

}  // namespace tp
