// The water's surface mesh, built on a backend (CPU or CUDA) from the particles:
//   kernels   sort by a grid of cell h; each particle's kernel (kernels/surface_field.h:
//             Yu & Turk's anisotropy, or the isotropic one); sort the kernels' centres
//   field     phi on a lattice of `cell` spacings, aligned with the tank's walls and cut to
//             the particles' reach, one block of 32 x 8 x 8 nodes a thread
//   cubes     per node: which of its 3 lattice edges cross the iso level (-> vertex count)
//             and its cell's case (-> triangle count); two scans; vertices (interpolated
//             on their edges, normals from the field's gradient); triangles
//             (kernels/marching_cubes.h). No atomics: the output's order is the lattice's.
// The host waits twice (the lattice's bounds, the two totals). Buffers are kept between
// calls and grow only.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>

#include "kernels/surface_field.h"
#include "sim/mesh/mesh.h"
#include "sim/neighbors/neighbor_grid.h"

namespace tp {

struct MeshInput {
  const Vec4* position;  ///< backend memory, n
  const Vec4* velocity;  ///< backend memory, n (read only with MeshSettings::velocity)
  uint n;
  float spacing;         ///< [m] particle spacing s (volume s^3)
  float h;               ///< [m] kernel support (2 s)
  Vec3 tank_lo, tank_hi; ///< [m] inner faces of the tank
  const ObstacleShape* obstacles;  ///< host memory
  int obstacle_count;
};

// What the lattice may hold at most: a cell size far below the spacing in a large tank is
// refused with this sentence rather than exhausting memory.
constexpr double kMaxMeshNodes = 96.0e6;

template <class B>
class SurfaceMesher {
 public:
  template <class T>
  using Buffer = typename B::template Buffer<T>;

  SurfaceMesher() {
    McTables t;
    if (!make_mc_tables(t)) throw std::logic_error("marching cubes tables: generator broke an invariant");
    tables_.resize(1);
    B::copy_from_host(tables_.data(), &t, 1);
  }

  // Builds the mesh of the particles in `in` (throws std::invalid_argument for settings
  // it cannot use, with the reason). Afterwards vertex_count(), triangle_count() and the
  // views below hold it, until the next build.
  void build(const MeshInput& in, const MeshSettings& s, MeshTimes* times = nullptr);

  // Marching cubes over a field already on the lattice l (backend memory, l.node_count()
  // values; with sum_j W v_j per node in nvel, or nullptr): fills the mesh that build() does.
  void extract(const FieldLattice& l, const float* phi, float iso, const Vec4* nvel = nullptr);

  uint vertex_count() const { return vertices_; }
  uint triangle_count() const { return triangles_; }
  // The kernels alone, for the surface mode's ellipsoid splats: 3 values per particle, in
  // units of the isotropic kernel's support h, for a renderer to scale by its particle
  // radius r: (centre xyz [m], bounding radius / h), (A'xx, A'yy, A'zz, A'xy),
  // (A'xz, A'yz, 0, 0), the ellipsoid being {x : (x - c)^T A' (x - c) <= r^2} with
  // A' = h^2 A (the identity for a particle inside water at rest). Throws as build().
  // `out` nullptr: kept on the backend (splat_values()).
  void splats(const MeshInput& in, const MeshSettings& s, std::vector<Vec4>* out);
  // Backend memory: the Vec4 of the last splats() (3 per particle), and how many.
  const Vec4* splat_values() const { return splats_.data(); }
  uint splat_count() const { return splat_count_; }

  // Copies the particles (and velocities) in, sorts them by the covariance's cells and
  // shapes each one's kernel into shapes_ and centres_ (in that sorted order): the first
  // step of build() and splats(). (Public: nvcc's device lambdas cannot live in a private
  // member function.)
  void shape_kernels(const MeshInput& in, const MeshSettings& s, AnisotropyConstants k);

  const MeshLatticeInfo& lattice() const { return lattice_; }
  // Backend memory: positions and normals (w = 0), 3 indices per triangle.
  const Vec4* positions() const { return out_position_.data(); }
  const Vec4* normals() const { return out_normal_.data(); }
  const uint* indices() const { return out_index_.data(); }

  // The mesh on the host.
  void download(TriangleMesh* m) const;

  // The constants of the kernels for these settings: k_s from the rest lattice's
  // neighbourhood, the field's normalisation from its sum (host arithmetic, a few hundred
  // terms).
  static AnisotropyConstants constants(const MeshInput& in, const MeshSettings& s, bool for_splats = false);

 private:
  static void check_settings(const MeshInput& in, const MeshSettings& s) {
    if (!(s.cell > 0.0f) || !(s.iso > 0.0f) || !(in.spacing > 0.0f) || !(in.h > 0.0f))
      throw std::invalid_argument("mesh: cell size, iso level and spacing must be positive numbers");
  }
  static std::string too_large() {
    return "mesh: the lattice would be too large for this tank; raise the mesh cell size";
  }

  NeighborGrid<B> grid_, center_grid_;
  Buffer<McTables> tables_;
  Buffer<Vec4> position_, velocity_, centers_, scratch4_;
  Buffer<KernelShape> shapes_, scratch_shapes_;
  Buffer<ObstacleShape> obstacles_;
  Buffer<float> field_, coordinates_;
  Buffer<Vec4> node_velocity_;
  Buffer<unsigned char> bits_, cases_;
  Buffer<uint> vertex_base_, row_vertices_, row_triangles_;
  Buffer<Vec4> out_position_, out_normal_, out_velocity_, splats_;
  Buffer<uint> out_index_;
  uint vertices_ = 0, triangles_ = 0, splat_count_ = 0;
  bool has_velocity_ = false;
  MeshLatticeInfo lattice_;
};

template <class B>
void SurfaceMesher<B>::build(const MeshInput& in, const MeshSettings& s, MeshTimes* times) {
  check_settings(in, s);
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  auto lap = [&](double* into) {
    B::synchronize();
    const auto t1 = Clock::now();
    if (into) *into = std::chrono::duration<double, std::milli>(t1 - t0).count();
    t0 = t1;
  };
  vertices_ = triangles_ = 0;
  has_velocity_ = s.velocity;
  lattice_ = MeshLatticeInfo{};
  const uint n = in.n;
  if (n == 0) return;

  // Kernels.
  const AnisotropyConstants k = constants(in, s);
  const Vec3 lo = in.tank_lo, hi = in.tank_hi;
  shape_kernels(in, s, k);
  // The kernels' reach and the centres' bounds (measured from the walls: the
  // reductions start at 0).
  const KernelShape* sh = shapes_.data();
  const Max3 reach3 = B::reduce_max3(n, [=] TP_HD(uint i) {
    return Max3{sh[i].extent.x, sh[i].extent.y, sh[i].extent.z};
  });
  const Max3 above = B::reduce_max3(n, [=] TP_HD(uint i) {
    return Max3{sh[i].center.x - lo.x, sh[i].center.y - lo.y, sh[i].center.z - lo.z};
  });
  const Max3 below = B::reduce_max3(n, [=] TP_HD(uint i) {
    return Max3{hi.x - sh[i].center.x, hi.y - sh[i].center.y, hi.z - sh[i].center.z};
  });
  const float reach = fmaxf(fmaxf(reach3.a, reach3.b), reach3.c);
  if (!(reach > 0.0f) || !std::isfinite(reach)) throw std::invalid_argument("mesh: the particles hold no finite kernel");
  center_grid_.configure(lo - Vec3{reach, reach, reach}, hi + Vec3{reach, reach, reach}, reach);
  center_grid_.build(centers_.data(), n);
  center_grid_.reorder(shapes_, scratch_shapes_);
  if (s.velocity) center_grid_.reorder(velocity_, scratch4_);
  lap(times ? &times->kernels_ms : nullptr);

  // The lattice: nodes at lo + (g + 1/2) dx, g in [0, G) per axis, so that the walls lie
  // half a cell beyond the outermost nodes; cut to the kernels' reach, plus one layer of
  // nodes held at 0 on each side.
  const float cell = s.cell * in.spacing;
  const float ext[3] = {hi.x - lo.x, hi.y - lo.y, hi.z - lo.z};
  const float mn[3] = {hi.x - below.a, hi.y - below.b, hi.z - below.c};
  const float mx[3] = {lo.x + above.a, lo.y + above.b, lo.z + above.c};
  const float lo3[3] = {lo.x, lo.y, lo.z};
  float dx[3], origin[3];
  int dims[3], first[3], inside[3];
  double nodes = 1.0;
  for (int a = 0; a < 3; ++a) {
    if (!(ext[a] > 0.0f) || !std::isfinite(ext[a]))
      throw std::invalid_argument("mesh: the tank has no extent along an axis");
    const double cells = std::max(1.0, std::round(double(ext[a]) / cell));
    if (cells > 1.0e6) throw std::invalid_argument(too_large());
    const int G = int(cells);
    dx[a] = ext[a] / float(G);
    const int ghosts = int(std::ceil(reach / dx[a])) + 1;  // beyond each wall, for fold_walls
    const int g0 = std::clamp(int(std::floor((mn[a] - reach - lo3[a]) / dx[a] - 0.5f)), -ghosts, G - 1);
    const int g1 = std::clamp(int(std::ceil((mx[a] + reach - lo3[a]) / dx[a] - 0.5f)), 0, G - 1 + ghosts);
    dims[a] = std::max(g1 - g0 + 1, 1) + 2;
    first[a] = g0 - 1;
    inside[a] = G;
    origin[a] = lo3[a] + (float(g0 - 1) + 0.5f) * dx[a];
    nodes *= dims[a];
  }
  if (nodes > kMaxMeshNodes) throw std::invalid_argument(too_large());
  FieldLattice l{Vec3{origin[0], origin[1], origin[2]}, Vec3{dx[0], dx[1], dx[2]},
                 Int3{dims[0], dims[1], dims[2]}};
  lattice_ = MeshLatticeInfo{l.dims, l.dx, reach};
  const uint N = l.node_count();
  field_.grow(N);
  node_velocity_.grow(s.velocity ? N : 0);
  FieldInputs f;
  f.lattice = l;
  f.grid = center_grid_.view();
  f.shapes = shapes_.data();
  f.velocities = s.velocity ? velocity_.data() : nullptr;
  f.reach = reach;
  using Block = FieldBlock<B::kIsDevice>;
  f.blocks = Int3{(l.dims.x + Block::x - 1) / Block::x, (l.dims.y + Block::yz - 1) / Block::yz,
                  (l.dims.z + Block::yz - 1) / Block::yz};
  const uint blocks = uint(f.blocks.x) * uint(f.blocks.y) * uint(f.blocks.z);
  float* phi = field_.data();
  Vec4* nvel = s.velocity ? node_velocity_.data() : nullptr;
  if (s.velocity)
    B::for_each_coarse(blocks, [=] TP_HD(uint b) { surface_field<true, Block>(b, f, phi, nvel); });
  else
    B::for_each_coarse(blocks, [=] TP_HD(uint b) { surface_field<false, Block>(b, f, phi, nullptr); });
  const WallFold w{l, Int3{first[0], first[1], first[2]}, Int3{inside[0], inside[1], inside[2]}};
  for (int axis = 0; axis < 3; ++axis) {
    const uint lines = N / uint(dims[axis]);
    B::for_each(lines, [=] TP_HD(uint item) { fold_walls(axis, item, w, phi, nvel); });
  }
  const ObstacleShape* obstacles = obstacles_.data();
  const int obstacle_count = in.obstacle_count;
  B::for_each(uint(dims[1]) * uint(dims[2]), [=] TP_HD(uint r) {
    finish_field_row(r, w, obstacles, obstacle_count, phi, nvel);
  });
  lap(times ? &times->field_ms : nullptr);

  extract(l, phi, s.iso, nvel);
  lap(times ? &times->cubes_ms : nullptr);
}

template <class B>
void SurfaceMesher<B>::extract(const FieldLattice& l, const float* phi, float iso, const Vec4* nvel) {
  const uint N = l.node_count(), rows = uint(l.dims.y) * uint(l.dims.z);
  bits_.grow(N);
  cases_.grow(N);
  vertex_base_.grow(N);
  row_vertices_.grow(rows + 1);
  row_triangles_.grow(rows + 1);
  unsigned char* bits = bits_.data();
  unsigned char* cases = cases_.data();
  uint* vbase = vertex_base_.data();
  uint* rv = row_vertices_.data();
  uint* rt = row_triangles_.data();
  const McTables* tables = tables_.data();
  B::for_each(rows, [=] TP_HD(uint r) { mc_classify_row(l, phi, iso, *tables, r, bits, cases, rv, rt); });
  B::exclusive_scan(rv, rows);
  B::exclusive_scan(rt, rows);
  uint totals[2];
  B::copy_to_host(&totals[0], rv + rows, 1);
  B::copy_to_host(&totals[1], rt + rows, 1);
  vertices_ = totals[0];
  triangles_ = totals[1];
  out_position_.grow(vertices_);
  out_normal_.grow(vertices_);
  out_velocity_.grow(nvel ? vertices_ : 0);
  out_index_.grow(size_t(triangles_) * 3);
  Vec4* op = out_position_.data();
  Vec4* on = out_normal_.data();
  Vec4* ov = out_velocity_.data();
  uint* oi = out_index_.data();
  has_velocity_ = nvel != nullptr;
  const int nx = l.dims.x;
  // Vertices, row by row, in lattice order: each node's first vertex index is kept for
  // the triangles (which name vertices of the rows above and behind too: a pass of its own).
  B::for_each(rows, [=] TP_HD(uint r) {
    const Int3 c{0, int(r % uint(l.dims.y)), int(r / uint(l.dims.y))};
    uint slot = rv[r];
    for (int x = 0; x < nx; ++x) {
      const uint i = r * uint(nx) + uint(x);
      const uint b = bits[i];
      if (!b) continue;
      vbase[i] = slot;
      for (int axis = 0; axis < 3; ++axis) {
        if (!((b >> axis) & 1u)) continue;
        const McVertex v = mc_vertex(l, phi, iso, Int3{x, c.y, c.z}, axis);
        op[slot] = make_vec4(v.position, 0.0f);
        on[slot] = make_vec4(v.normal, 0.0f);
        if (nvel) {
          const uint j = i + (axis == 0 ? 1u : axis == 1 ? uint(nx) : uint(nx) * uint(l.dims.y));
          // nvel holds sum_j W v_j: the mean velocity is that over phi. A node with no
          // water (phi 0: a wall, an obstacle, past the kernels) has no velocity to give:
          // the weights are the edge's ends that have one, so the vertex is not slowed.
          const float ea = phi[i] > 0.0f ? 1.0f - v.t : 0.0f, eb = phi[j] > 0.0f ? v.t : 0.0f;
          const float norm = ea + eb > 0.0f ? 1.0f / (ea + eb) : 0.0f;
          const float wa = ea > 0.0f ? ea * norm / phi[i] : 0.0f, wb = eb > 0.0f ? eb * norm / phi[j] : 0.0f;
          const Vec4 va = nvel[i], vb = nvel[j];
          ov[slot] = Vec4{va.x * wa + vb.x * wb, va.y * wa + vb.y * wb, va.z * wa + vb.z * wb, 0.0f};
        }
        ++slot;
      }
    }
  });
  B::for_each(rows, [=] TP_HD(uint r) {
    uint* out = oi + size_t(rt[r]) * 3;
    for (int x = 0; x < nx; ++x) {
      const uint i = r * uint(nx) + uint(x);
      const uint m = cases[i];
      if (!m) continue;
      const uint count = 3u * tables->tri_count[m];
      for (uint k = 0; k < count; ++k) out[k] = mc_vertex_of(l, vbase, bits, i, tables->edges[m][k]);
      out += count;
    }
  });
}

template <class B>
void SurfaceMesher<B>::splats(const MeshInput& in, const MeshSettings& s, std::vector<Vec4>* out) {
  check_settings(in, s);
  if (out) out->clear();
  splat_count_ = 0;
  if (in.n == 0) return;
  const AnisotropyConstants k = constants(in, s, /*for_splats=*/true);
  shape_kernels(in, s, k);
  const uint n = in.n;
  splats_.grow(3 * size_t(n));
  const KernelShape* sh = shapes_.data();
  Vec4* o = splats_.data();
  const float h2 = k.h * k.h;
  B::for_each(n, [=] TP_HD(uint i) {
    const KernelShape ks = sh[i];
    o[3 * i] = make_vec4(xyz(ks.center), ks.a2.z);  // the longest semi-axis: a tight sphere
    o[3 * i + 1] = Vec4{ks.a0.x * h2, ks.a0.y * h2, ks.a0.z * h2, ks.a0.w * h2};
    o[3 * i + 2] = Vec4{ks.a1.x * h2, ks.a1.y * h2, 0.0f, 0.0f};
  });
  splat_count_ = 3 * n;
  if (!out) return;  // kept on the backend (splat_values)
  out->resize(3 * size_t(n));
  B::copy_to_host(out->data(), splats_.data(), 3 * size_t(n));
}

template <class B>
void SurfaceMesher<B>::shape_kernels(const MeshInput& in, const MeshSettings& s, AnisotropyConstants k) {
  const uint n = in.n;
  obstacles_.resize(size_t(std::max(in.obstacle_count, 1)));
  if (in.obstacle_count > 0) B::copy_from_host(obstacles_.data(), in.obstacles, size_t(in.obstacle_count));
  k.obstacles = obstacles_.data();
  const Vec3 lo = in.tank_lo, hi = in.tank_hi;
  const float pad_r = std::max(in.h, k.radius);
  const Vec3 pad{pad_r, pad_r, pad_r};
  position_.resize(n);
  velocity_.resize(s.velocity ? n : 0);
  {
    Vec4* p = position_.data();
    const Vec4* src = in.position;
    B::for_each(n, [=] TP_HD(uint i) { p[i] = src[i]; });
    if (s.velocity) {
      Vec4* v = velocity_.data();
      const Vec4* vs = in.velocity;
      B::for_each(n, [=] TP_HD(uint i) { v[i] = vs[i]; });
    }
  }
  // Cells of the covariance's radius (27 cells, about 730 candidates at 1.5 h, in rows of
  // about 80 for the vector lanes; cells of half the radius visit 420 in rows of 17 and
  // took 1.45 times as long).
  grid_.configure(lo - pad, hi + pad, s.anisotropic ? k.radius : in.h);
  grid_.build(position_.data(), n);
  grid_.reorder(position_, scratch4_);
  if (s.velocity) grid_.reorder(velocity_, scratch4_);
  shapes_.resize(n);
  centers_.resize(n);
  // (kernel_shape reads whole runs of kShapeLanes from a row's start: past pz's end, the
  // padding, zeros, weighted 0.)
  coordinates_.grow(s.anisotropic ? 3 * size_t(n) + kShapeLanes : 1);
  {
    const GridView g = grid_.view();
    const Vec4* p = position_.data();
    float* px = coordinates_.data();
    float* py = px + (s.anisotropic ? n : 0);
    float* pz = py + (s.anisotropic ? n : 0);
    if (s.anisotropic) {
      B::for_each(n, [=] TP_HD(uint i) { px[i] = p[i].x, py[i] = p[i].y, pz[i] = p[i].z; });
      B::for_each(uint(kShapeLanes), [=] TP_HD(uint k) { pz[n + k] = 0.0f; });
    }
    KernelShape* out = shapes_.data();
    Vec4* c = centers_.data();
    B::for_each(n, [=] TP_HD(uint i) {
      const KernelShape ks = kernel_shape(i, g, p, px, py, pz, k);
      out[i] = ks;
      c[i] = ks.center;
    });
  }
}

template <class B>
void SurfaceMesher<B>::download(TriangleMesh* m) const {
  std::vector<Vec4> p(vertices_), nrm(vertices_), v;
  B::copy_to_host(p.data(), out_position_.data(), vertices_);
  B::copy_to_host(nrm.data(), out_normal_.data(), vertices_);
  m->position.resize(vertices_);
  m->normal.resize(vertices_);
  for (uint i = 0; i < vertices_; ++i) m->position[i] = xyz(p[i]), m->normal[i] = xyz(nrm[i]);
  m->velocity.clear();
  if (out_velocity_.size() >= vertices_ && vertices_ && has_velocity_) {
    v.resize(vertices_);
    B::copy_to_host(v.data(), out_velocity_.data(), vertices_);
    m->velocity.resize(vertices_);
    for (uint i = 0; i < vertices_; ++i) m->velocity[i] = xyz(v[i]);
  }
  m->index.resize(size_t(triangles_) * 3);
  B::copy_to_host(m->index.data(), out_index_.data(), size_t(triangles_) * 3);
}

template <class B>
AnisotropyConstants SurfaceMesher<B>::constants(const MeshInput& in, const MeshSettings& s, bool for_splats) {
  const float h = in.h, sp = in.spacing, rad = s.radius * in.h;
  const int r = int(std::ceil(std::max(h, rad) / sp));
  double sw = 0.0, sxx = 0.0, wsum = 0.0;
  for (int z = -r; z <= r; ++z)
    for (int y = -r; y <= r; ++y)
      for (int x = -r; x <= r; ++x) {
        const double dx = x * sp, dy = y * sp, dz = z * sp;
        const double d2 = dx * dx + dy * dy + dz * dz;
        if (d2 < double(rad) * rad) {
          const double q = std::sqrt(d2) / rad, w = 1.0 - q * q * q;
          sw += w;
          sxx += w * dx * dx;
        }
        if (d2 >= double(h) * h) continue;
        const double u = 1.0 - d2 / (double(h) * h);
        wsum += kPoly6Sigma / (double(h) * h * h) * u * u * u;
      }
  AnisotropyConstants k;
  k.h = h;
  k.radius = rad;
  k.k_s = float(sw / sxx);
  k.k_r = s.k_r;
  k.k_n = s.k_n;
  k.n_eps = s.min_neighbors * (s.radius / 2.0f) * (s.radius / 2.0f) * (s.radius / 2.0f);
  k.lambda = s.smoothing;
  k.weight = float(1.0 / wsum);  // V sum W = 1 at a lattice node: weight = V / (V sum W)
  k.anisotropic = s.anisotropic ? 1 : 0;
  // The walls mirror the covariance's neighbourhood for the splats, which would otherwise
  // draw back from the walls (and particles by an obstacle keep round kernels). Not for the mesh: its field folds the kernels' mass back at
  // the walls, so its surface meets them either way, and the mirrors cost a quarter of
  // the kernels' time in a dam break (19.5 -> 24.3 ms at 30,000 particles).
  const float none = for_splats ? 0.0f : 1e30f;
  k.obstacles = nullptr;  // (shape_kernels points it at the backend's copy)
  k.obstacle_count = for_splats ? in.obstacle_count : 0;
  k.wall_lo = in.tank_lo - Vec3{none, none, none};
  k.wall_hi = in.tank_hi + Vec3{none, none, none};
  // A cell of the covariance's grid (cells of its radius) is full at 80 % of the rest
  // lattice's count, (radius / spacing)^3: a flowing interior holds 27 +- a few in cells
  // of 3 spacings, a cell the surface cuts a fifth off or more holds fewer.
  k.full_cell = 0.8f * (rad / sp) * (rad / sp) * (rad / sp);
  return k;
}

}  // namespace tp
