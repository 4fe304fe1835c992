// The water's surface as a scalar field on a lattice, for marching cubes
// (kernels/marching_cubes.h): phi(x) = sum_j V W(x - c_j, G_j), normalised so that it is 1
// inside water at rest and 0 far from it; the surface is phi = iso (0.5 by default, where a
// half-space of water has its face).
//
// Anisotropic kernels: Yu & Turk 2013, "Reconstructing surfaces of particle-based fluids
// using anisotropic kernels" (ACM TOG 32(1)), Section 3:
//   weights     w_ij = 1 - (|x_i - x_j| / r_i)^3 within r_i                       (Eq. 11)
//   mean        x_w,i = sum_j w_ij x_j / sum_j w_ij                                (Eq. 10)
//   covariance  C_i = sum_j w_ij (x_j - x_w,i)(x_j - x_w,i)^T / sum_j w_ij          (Eq. 9)
//   C_i = R diag(s1, s2, s3) R^T, s1 >= s2 >= s3                                 (Eq. 12)
//   S~ = k_s diag(s1, max(s2, s1 / k_r), max(s3, s1 / k_r)) when N_i > N_eps,
//        k_n I otherwise                                                          (Eq. 15)
//   G_i = (1 / h) R S~^-1 R^T                                                     (Eq. 16)
//   W(r, G) = sigma det(G) P(|G r|)                                               (Eq. 5)
//   smoothed centres x~_i = (1 - lambda) x_i + lambda x_w,i                        (Eq. 6)
// k_s makes |k_s C| about 1 for a full neighbourhood (the paper's stated purpose of its
// 1400, a value in its own length unit): here it is 1 / (that neighbourhood's variance),
// computed from the rest lattice, so that a particle inside the water keeps the isotropic
// kernel exactly. P is the poly6 profile (1 - q^2)^3, sigma = 315 / (64 pi).
#pragma once

#include <algorithm>

#include "common.h"
#include "grid.h"
#include "marching_cubes.h"
#include "obstacle.h"

namespace tp {

constexpr float kPoly6Sigma = 315.0f / (64.0f * 3.14159265358979f);

struct AnisotropyConstants {
  float h;        ///< [m] kernel support of the isotropic kernel
  float radius;   ///< [m] neighbour radius r_i of the covariance
  float k_s;      ///< [1/m^2] 1 / variance of a full rest neighbourhood (see above)
  float k_r;      ///< [1] largest ratio of the stretched kernel's axes
  float k_n;      ///< [1] axis scale of a kernel with few neighbours
  float n_eps;    ///< [1] fewer neighbours than this: the isotropic k_n kernel
  float lambda;   ///< [1] centre smoothing, 0 keeps the particle's position
  float weight;   ///< [1] V / (lattice sum): phi = weight * sum_j sigma det(G_j) P
  int anisotropic;
  Vec3 wall_lo, wall_hi;  ///< [m] the tank's walls: mirrors for the covariance
  float full_cell;  ///< [1] particles in a cell of the covariance's grid that count it as full
  // Obstacles (backend memory): a particle within the covariance's radius of one keeps the
  // isotropic kernel (the splats only; count 0 otherwise). Its neighbourhood is cut by the
  // solid, not by a free surface: flattened, it would draw back from the obstacle.
  const ObstacleShape* obstacles;
  int obstacle_count;
};

// Whether each of the 27 cells around x's cell (the covariance's grid: cells of its radius)
// holds at least `full` particles. Then x lies a cell or more inside the water every way:
// its covariance is the full neighbourhood's, the isotropic kernel (s = 1, to within the
// flow's jitter), and its support ends a quarter of h or more below the surface, which
// it therefore does not shape. kernel_shape skips the covariance for it: in a dam break
// at t = 1 s that saved a tenth of the kernels' time.
TP_HD TP_INLINE bool full_block(const GridView& g, Vec3 x, float full) {
  const Int3 c = g.cell_of(x);
  if (c.x < 1 || c.y < 1 || c.z < 1 || c.x > g.dims.x - 2 || c.y > g.dims.y - 2 || c.z > g.dims.z - 2) return false;
  for (int z = c.z - 1; z <= c.z + 1; ++z)
    for (int y = c.y - 1; y <= c.y + 1; ++y) {
      const uint first = g.linear(Int3{c.x - 1, y, z});
      for (uint k = first; k < first + 3; ++k)
        if (float(g.cell_start[k + 1] - g.cell_start[k]) < full) return false;
    }
  return true;
}

// One particle's kernel: its centre c, the quadratic form A = G^T G (|G r|^2 = r^T A r),
// weight * sigma * det(G) (in c.w) and the half extents of its support along x, y, z.
struct KernelShape {
  Vec4 center;  ///< xyz centre, w = the particle's factor
  Vec4 a0;      ///< A_xx, A_yy, A_zz, A_xy
  Vec4 a1;      ///< A_xz, A_yz, 1 / A_xx, P
  Vec4 extent;  ///< [m] half extents of the support, xyz; w = Q
  Vec4 a2;      ///< S, 1 / P, the longest semi-axis / h, -
  // P, Q, S: the form with x eliminated (its Schur complement), P y^2 + 2 Q y z + S z^2,
  // whose level 1 bounds the support's shadow on a plane x = const: each z slice's range
  // of rows (y) is solved from it, and each row's range of nodes (x) from A itself.
};

// Eigen-decomposition of a symmetric 3x3 matrix by cyclic Jacobi rotations (Golub & Van
// Loan, "Matrix Computations", Section 8.5): m is overwritten, its diagonal the
// eigenvalues, columns of v the eigenvectors. Converges quadratically; 8 sweeps are far
// more than a float needs; it stops at off-diagonals of 1e-5 of the diagonal.
TP_HD TP_INLINE void jacobi_eigen3(float m[3][3], float v[3][3]) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) v[r][c] = r == c ? 1.0f : 0.0f;
  for (int sweep = 0; sweep < 8; ++sweep) {
    const float off = fabsf(m[0][1]) + fabsf(m[0][2]) + fabsf(m[1][2]);
    const float scale = fabsf(m[0][0]) + fabsf(m[1][1]) + fabsf(m[2][2]);
    if (!(off > 1.0e-5f * scale)) break;  // (NaN leaves too): eigenvalues to ~1e-10

    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        const float apq = m[p][q];
        if (apq == 0.0f) continue;
        const float theta = (m[q][q] - m[p][p]) / (2.0f * apq);
        const float t = (theta >= 0.0f ? 1.0f : -1.0f) / (fabsf(theta) + sqrtf(theta * theta + 1.0f));
        const float c = 1.0f / sqrtf(t * t + 1.0f), s = t * c;
        for (int k = 0; k < 3; ++k) {  // m <- J^T m J
          const float mkp = m[k][p], mkq = m[k][q];
          m[k][p] = c * mkp - s * mkq;
          m[k][q] = s * mkp + c * mkq;
        }
        for (int k = 0; k < 3; ++k) {
          const float mpk = m[p][k], mqk = m[q][k];
          m[p][k] = c * mpk - s * mqk;
          m[q][k] = s * mpk + c * mqk;
        }
        for (int k = 0; k < 3; ++k) {
          const float vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq;
          v[k][q] = s * vkp + c * vkq;
        }
      }
  }
}

// The covariance's lanes: a run of candidates is one register, so its 11 sums take 11 of
// the 16 AVX2 registers (16 lanes would take 22: sort+shape at 29,791 particles 15.5 ms
// against 13.3 to 15.2 with 8).
#if defined(__AVX512F__) || defined(__CUDACC__) || !defined(__AVX2__)
constexpr int kShapeLanes = 16;
#else
constexpr int kShapeLanes = 8;
#endif

// max(u, 0) and min(u, 1) for the covariance's lanes: one maxps or minps each. A
// comparison per lane (a ternary, maxf, or a bool made a float) left GCC's loop scalar for
// "control flow in loop".
TP_HD TP_INLINE float positive_part(float u) {  // max(u, 0), 0 for a NaN
#if defined(__CUDA_ARCH__)
  return fmaxf(u, 0.0f);
#else
  return std::max(0.0f, u);
#endif
}
TP_HD TP_INLINE float at_most_one(float u) {
#if defined(__CUDA_ARCH__)
  return fminf(u, 1.0f);
#else
  return std::min(u, 1.0f);
#endif
}

// Particle i's kernel (positions sorted by g, whose cells are the covariance's radius when
// anisotropic, the support h otherwise).
// The positions also come as three arrays (px, py, pz: the same, structure of arrays), which
// the covariance's vector lanes load whole (from Vec4s they gather: 1.4 times as long).
TP_HD TP_INLINE KernelShape kernel_shape(uint i, const GridView& g, const Vec4* positions, const float* px,
                                         const float* py, const float* pz, const AnisotropyConstants& a) {
  const Vec3 xi = xyz(positions[i]);
  float s[3] = {1.0f, 1.0f, 1.0f};
  float v[3][3] = {{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 1.0f}};
  Vec3 center = xi;
  bool by_solid = false;
  for (int o = 0; o < a.obstacle_count; ++o) by_solid = by_solid || obstacle_distance(a.obstacles[o], xi) < a.radius;
  if (a.anisotropic && !by_solid && !full_block(g, xi, a.full_cell)) {
    // Sums relative to x_i (no cancellation in float): mean, then the second moments, in
    // kLanes partial sums each, over each row of cells in runs of kLanes candidates (those
    // past the row's end weighted 0), added up at the end: the CPU's compiler makes each
    // run a few vector instructions, with neither a scalar remainder nor a horizontal sum
    // per row (which took 9 times as long as the runs).
    constexpr int kLanes = kShapeLanes;
    float acc[11][kLanes];
    for (auto& row : acc)
      for (float& x : row) x = 0.0f;
    const float inv_r = 1.0f / a.radius;
    // A wall is a mirror, as for the field (fold_walls): within the radius of one, the
    // neighbours' images beyond it count too (images of the same candidates: an image is no
    // nearer than its particle), so that water against a wall is not taken for a free
    // surface and flattened against it. Image `mask` flips the axes of its bits: x_j's image
    // is g - (x_j - x_i) from x_i along a flipped axis, g = 2 (wall - x_i).
    // Only candidates within r - d of the wall (d: x_i's distance from it) have an image
    // within r of x_i: each image visits the cells of that layer alone.
    int mirrors = 0;
    float gap[3] = {0.0f, 0.0f, 0.0f};
    Int3 layer_lo{0, 0, 0}, layer_hi{0, 0, 0};
    for (int axis = 0; axis < 3; ++axis) {
      const float x = axis == 0 ? xi.x : (axis == 1 ? xi.y : xi.z);
      const float lo = axis == 0 ? a.wall_lo.x : (axis == 1 ? a.wall_lo.y : a.wall_lo.z);
      const float hi = axis == 0 ? a.wall_hi.x : (axis == 1 ? a.wall_hi.y : a.wall_hi.z);
      // d: x_i's depth inside the nearer wall (negative past it: the layer grows to r - d).
      const float wall = x - lo < hi - x ? lo : hi, d = wall == lo ? x - lo : hi - x;
      if (!(d < a.radius)) continue;
      mirrors |= 1 << axis, gap[axis] = 2.0f * (wall - x);
      const float reach = a.radius - d, from = wall == lo ? wall : wall - reach, to = wall == lo ? wall + reach : wall;
      const Int3 c0 = g.cell_of(Vec3{from, from, from}), c1 = g.cell_of(Vec3{to, to, to});
      if (axis == 0) layer_lo.x = c0.x, layer_hi.x = c1.x;
      if (axis == 1) layer_lo.y = c0.y, layer_hi.y = c1.y;
      if (axis == 2) layer_lo.z = c0.z, layer_hi.z = c1.z;
    }
    // The lanes of one row of candidates, each mirrored as o + f (x_j - x_i) (o = 0 and
    // f = 1: the candidate itself; an image across the walls of `mask` otherwise). Written
    // without a branch: GCC left the loop scalar for "control flow in loop" where the image
    // was a choice per candidate, and on AVX2 the kernels of the default dam break took
    // 30 ms (a surface mode window at 0.39x real time on 2 cores).
    auto add_row = [&](uint begin, uint end, Vec3 o, Vec3 f) {
      const Vec3 c{xi.x, xi.y, xi.z};  // (copies: no load inside the lanes)
      for (uint j0 = begin; j0 < end; j0 += kLanes) {
        // Whole runs from the row's start (the arrays are padded past their end): a
        // candidate past the row's end is another row's, weighted 0. (An index per lane,
        // j0 + k as unsigned, GCC took for a gather, which it does not make for AMD's
        // cores: the loop stayed scalar there.)
        const float *rx = px + j0, *ry = py + j0, *rz = pz + j0;
        const int left = int(end - j0);
        TP_SIMD
        for (int k = 0; k < kLanes; ++k) {
          const float dx = o.x + f.x * (rx[k] - c.x), dy = o.y + f.y * (ry[k] - c.y), dz = o.z + f.z * (rz[k] - c.z);
          const float q = sqrtf(dx * dx + dy * dy + dz * dz) * inv_r;
          const float live = at_most_one(positive_part(float(left - k)));  // 1 before the row's end, 0 past it
          const float w = positive_part(1.0f - q * q * q) * live;
          acc[0][k] += w;
          acc[1][k] += at_most_one(w * 1e30f);  // 1 for a neighbour (w > 0), else 0
          acc[2][k] += w * dx, acc[3][k] += w * dy, acc[4][k] += w * dz;
          acc[5][k] += w * dx * dx, acc[6][k] += w * dy * dy, acc[7][k] += w * dz * dz;
          acc[8][k] += w * dx * dy, acc[9][k] += w * dx * dz, acc[10][k] += w * dy * dz;
        }
      }
    };
    const Vec3 none{0.0f, 0.0f, 0.0f}, same{1.0f, 1.0f, 1.0f};
    for_each_cell_row(g, xi, a.radius, [&](uint begin, uint end) { add_row(begin, end, none, same); });
    for (int mask = 1; mask < 8; ++mask) {
      if (mask & ~mirrors) continue;
      // (An image across two or three walls is within r only if x_i's own image is.)
      const float g2 = ((mask & 1) ? gap[0] * gap[0] : 0.0f) + ((mask & 2) ? gap[1] * gap[1] : 0.0f) +
                       ((mask & 4) ? gap[2] * gap[2] : 0.0f);
      if (!(g2 < 4.0f * a.radius * a.radius)) continue;
      const Vec3 f{(mask & 1) ? -1.0f : 1.0f, (mask & 2) ? -1.0f : 1.0f, (mask & 4) ? -1.0f : 1.0f};
      const Vec3 o{(mask & 1) ? gap[0] : 0.0f, (mask & 2) ? gap[1] : 0.0f, (mask & 4) ? gap[2] : 0.0f};
      const Int3 clip_lo{(mask & 1) ? layer_lo.x : 0, (mask & 2) ? layer_lo.y : 0, (mask & 4) ? layer_lo.z : 0};
      const Int3 clip_hi{(mask & 1) ? layer_hi.x : g.dims.x - 1, (mask & 2) ? layer_hi.y : g.dims.y - 1,
                         (mask & 4) ? layer_hi.z : g.dims.z - 1};
      // The candidates within r of x_i's image: their images are those within r of x_i.
      for_each_cell_row_in_sphere(g, xi + o, a.radius, clip_lo, clip_hi,
                                  [&](uint begin, uint end) { add_row(begin, end, o, f); });
    }
    float sum[11];
    for (int m = 0; m < 11; ++m) {
      float t = 0.0f;
      for (int k = 0; k < kLanes; ++k) t += acc[m][k];
      sum[m] = t;
    }
    const float sw = sum[0], neighbors = sum[1] - 1.0f;  // (not i itself)
    const float sx0 = sum[2], sx1 = sum[3], sx2 = sum[4];
    const float sxx = sum[5], syy = sum[6], szz = sum[7], sxy = sum[8], sxz = sum[9], syz = sum[10];
    const Vec3 sx{sx0, sx1, sx2};
    const Vec3 mean = sx / sw;  // x_w - x_i (sw >= 1: i itself)
    center = xi + mean * a.lambda;
    if (neighbors > a.n_eps) {
      float m[3][3] = {{sxx / sw - mean.x * mean.x, sxy / sw - mean.x * mean.y, sxz / sw - mean.x * mean.z},
                       {0.0f, syy / sw - mean.y * mean.y, syz / sw - mean.y * mean.z},
                       {0.0f, 0.0f, szz / sw - mean.z * mean.z}};
      m[1][0] = m[0][1], m[2][0] = m[0][2], m[2][1] = m[1][2];
      jacobi_eigen3(m, v);
      const float e0 = m[0][0], e1 = m[1][1], e2 = m[2][2];
      const float top = maxf(maxf(e0, e1), e2);
      const float floor_value = top / a.k_r;
      s[0] = a.k_s * maxf(e0, floor_value);
      s[1] = a.k_s * maxf(e1, floor_value);
      s[2] = a.k_s * maxf(e2, floor_value);
    } else {
      s[0] = s[1] = s[2] = a.k_n;
    }
    for (float& x : s) x = clampf(x, 0.125f, 2.0f);  // a guard: NaN-free, bounded support
    if (!is_finite(center)) center = xi;
  }
  // A = G^T G = (1/h^2) R S~^-2 R^T; A^-1 = h^2 R S~^2 R^T; det G = 1 / (h^3 s0 s1 s2).
  float inv2[3], sq[3];
  for (int k = 0; k < 3; ++k) inv2[k] = 1.0f / (s[k] * s[k] * a.h * a.h), sq[k] = s[k] * s[k] * a.h * a.h;
  auto form = [&](int r, int c, const float* d) {
    return v[r][0] * v[c][0] * d[0] + v[r][1] * v[c][1] * d[1] + v[r][2] * v[c][2] * d[2];
  };
  const float det_g = 1.0f / (a.h * a.h * a.h * s[0] * s[1] * s[2]);
  KernelShape k;
  k.center = make_vec4(center, a.weight * kPoly6Sigma * det_g);
  k.a0 = Vec4{form(0, 0, inv2), form(1, 1, inv2), form(2, 2, inv2), form(0, 1, inv2)};
  const float axx = form(0, 0, inv2), axy = form(0, 1, inv2), axz = form(0, 2, inv2);
  const float P = k.a0.y - axy * axy / axx, Q = form(1, 2, inv2) - axy * axz / axx, S = k.a0.z - axz * axz / axx;
  k.a1 = Vec4{axz, form(1, 2, inv2), 1.0f / axx, P};
  k.extent = Vec4{sqrtf(form(0, 0, sq)), sqrtf(form(1, 1, sq)), sqrtf(form(2, 2, sq)), Q};
  k.a2 = Vec4{S, 1.0f / P, maxf(maxf(s[0], s[1]), s[2]), 0.0f};
  return k;
}

// The lattice of surface_field(): nodes in blocks of FieldBlock::x x FieldBlock::yz^2, one
// block a call. Long along x, the rows' direction: a kernel's row cut by a block's x
// boundary costs its set-up twice, and the set-up (a square root, a range) costs more than
// the row's few nodes (dam break: 2 nodes a row with blocks of 8^3, 4 with 32 x 8^2).
// On a device a block is one run of a row, a thread's: its sums fit in registers (a CPU
// block's would be 32 KB of local memory per thread, times every thread resident), and the
// many threads gather in parallel what a CPU core's few blocks share.
constexpr int kFieldRun = 16;  // nodes a run along a row (surface_field)
template <bool kDevice>
struct FieldBlock {
  static constexpr int x = kDevice ? kFieldRun : 32, yz = kDevice ? 1 : 8;
  static constexpr int nodes = x * yz * yz;
};

struct FieldInputs {
  FieldLattice lattice;
  GridView grid;               ///< over the kernels' centres, sorted
  const KernelShape* shapes;   ///< sorted by grid
  const Vec4* velocities;      ///< sorted by grid; nullptr: no velocity field
  float reach;                 ///< [m] largest half extent of any kernel
  Int3 blocks;                 ///< blocks per axis
};

// Block b of the lattice: sum_j of each kernel at each of its nodes (and, with
// velocities, sum_j of the kernel times v_j, in vel). Gathered, not scattered: each block
// visits the kernels whose support reaches it, in grid order, so the sums do not depend on
// threads. The lattice reaches beyond the tank's walls where kernels do (ghost nodes):
// fold_walls() then mirrors those sums back inside.
template <bool kVelocity, class Block>
TP_HD TP_INLINE void surface_field(uint b, const FieldInputs& in, float* phi, Vec4* vel) {
  constexpr int BX = Block::x, BY = Block::yz, BN = Block::nodes;
  const FieldLattice& l = in.lattice;
  const Int3 bc{int(b % uint(in.blocks.x)), int((b / uint(in.blocks.x)) % uint(in.blocks.y)),
                int(b / (uint(in.blocks.x) * uint(in.blocks.y)))};
  const Int3 n0{bc.x * BX, bc.y * BY, bc.z * BY};
  const Int3 n1{mini(n0.x + BX, l.dims.x), mini(n0.y + BY, l.dims.y), mini(n0.z + BY, l.dims.z)};
  float acc[BN + kFieldRun];  // a run may pass a row's end (adding zeros) and the block's
  Vec3 vacc[kVelocity ? BN : 1];
  for (int k = 0; k < BN + kFieldRun; ++k) acc[k] = 0.0f;
  if (kVelocity)
    for (int k = 0; k < BN; ++k) vacc[k] = Vec3{0.0f, 0.0f, 0.0f};
  const Vec3 box_lo = l.position(n0.x, n0.y, n0.z), box_hi = l.position(n1.x - 1, n1.y - 1, n1.z - 1);
  const GridView& g = in.grid;
  const Int3 c0 = g.cell_of(box_lo - Vec3{in.reach, in.reach, in.reach});
  const Int3 c1 = g.cell_of(box_hi + Vec3{in.reach, in.reach, in.reach});
  const Vec3 inv_dx{1.0f / l.dx.x, 1.0f / l.dx.y, 1.0f / l.dx.z};
  for (int cz = c0.z; cz <= c1.z; ++cz)
    for (int cy = c0.y; cy <= c1.y; ++cy) {
      const uint begin = g.cell_start[g.linear(Int3{c0.x, cy, cz})];
      const uint end = g.cell_start[g.linear(Int3{c1.x, cy, cz}) + 1];
      for (uint j = begin; j < end; ++j) {
        const KernelShape ks = in.shapes[j];
        const Vec3 ci = xyz(ks.center), e = xyz(ks.extent);
        // Written so that a NaN (a particle the step lost) fails it: no float-to-int below.
        if (!(ci.x + e.x >= box_lo.x && ci.x - e.x <= box_hi.x && ci.y + e.y >= box_lo.y &&
              ci.y - e.y <= box_hi.y && ci.z + e.z >= box_lo.z && ci.z - e.z <= box_hi.z))
          continue;
        const float axx = ks.a0.x, ayy = ks.a0.y, azz = ks.a0.z, axy = ks.a0.w, axz = ks.a1.x, ayz = ks.a1.y;
        const float P = ks.a1.w, Q = ks.extent.w, S = ks.a2.x, inv_p = ks.a2.y;
        const Vec4 vj = kVelocity ? in.velocities[j] : Vec4{0.0f, 0.0f, 0.0f, 0.0f};
        // The kernel's slices (z), clipped to the block; in each, the rows (y) its shadow
        // covers; in each row, the nodes (x) inside it.
        const int xlo = maxi(n0.x, int(ceilf((ci.x - e.x - l.origin.x) * inv_dx.x)));
        const int xhi = mini(n1.x - 1, int(floorf((ci.x + e.x - l.origin.x) * inv_dx.x)));
        const int zlo = maxi(n0.z, int(ceilf((ci.z - e.z - l.origin.z) * inv_dx.z)));
        const int zhi = mini(n1.z - 1, int(floorf((ci.z + e.z - l.origin.z) * inv_dx.z)));
        for (int z = zlo; z <= zhi; ++z) {
          const float rz = l.origin.z + z * l.dx.z - ci.z;
          const float yd = Q * Q * rz * rz - P * (S * rz * rz - 1.0f);
          if (!(yd > 0.0f)) continue;
          const float yroot = sqrtf(yd);
          const int ylo = maxi(n0.y, int(ceilf((ci.y + (-Q * rz - yroot) * inv_p - l.origin.y) * inv_dx.y)));
          const int yhi = mini(n1.y - 1, int(floorf((ci.y + (-Q * rz + yroot) * inv_p - l.origin.y) * inv_dx.y)));
          for (int y = ylo; y <= yhi; ++y) {
            const float ry = l.origin.y + y * l.dx.y - ci.y;
            // q^2(t) = axx t^2 + 2 bq t + cq along the row, t = x - ci.x, over the nodes of
            // the support's box in runs of kFieldRun, the nodes beyond its end masked: no
            // root to solve, and a run is a few vector instructions (the CPU's compiler
            // vectorises it; a GPU thread runs it as a loop).
            const float bq = axy * ry + axz * rz;
            const float cq = ayy * ry * ry + 2.0f * ayz * ry * rz + azz * rz * rz;
            const int base = ((z - n0.z) * BY + (y - n0.y)) * BX - n0.x;
            for (int x0 = xlo; x0 <= xhi; x0 += kFieldRun) {
              const float t0 = l.origin.x + x0 * l.dx.x - ci.x;
              const int count = xhi - x0;
              float* a = acc + (base + x0);  // (base alone may point before acc)
              TP_SIMD
              for (int k = 0; k < kFieldRun; ++k) {
                const float t = t0 + float(k) * l.dx.x;
                const float u = maxf(1.0f - ((axx * t + 2.0f * bq) * t + cq), 0.0f);
                a[k] += k <= count ? ks.center.w * u * u * u : 0.0f;
              }
              if (kVelocity)
                for (int k = 0; k <= count && k < kFieldRun; ++k) {
                  const float t = t0 + float(k) * l.dx.x;
                  const float u = maxf(1.0f - ((axx * t + 2.0f * bq) * t + cq), 0.0f);
                  vacc[base + x0 + k] += xyz(vj) * (ks.center.w * u * u * u);
                }
            }
          }
        }
      }
    }
  for (int z = n0.z; z < n1.z; ++z)
    for (int y = n0.y; y < n1.y; ++y)
      for (int x = n0.x; x < n1.x; ++x) {
        const int k = ((z - n0.z) * BY + (y - n0.y)) * BX + (x - n0.x);
        const uint n = l.linear(x, y, z);
        phi[n] = acc[k];
        if (kVelocity) vel[n] = make_vec4(vacc[k], 0.0f);
      }
}

// Where the lattice sits in the tank: local node 0 is global node `first` per axis, and
// the tank holds global nodes [0, inside) (the walls half a cell beyond them).
struct WallFold {
  FieldLattice lattice;
  Int3 first;
  Int3 inside;
};
TP_HD TP_INLINE int axis_of(const Int3& v, int a) { return a == 0 ? v.x : (a == 1 ? v.y : v.z); }

// Water against a wall: the wall is a mirror. A kernel's mass beyond the wall (on the
// ghost nodes) is added to the nodes it mirrors to, as if each particle near the wall had
// its image beyond it, so that phi stays 1 up to the wall (where the lattice stops: its
// nodes sit half a cell inside the walls, so a wall is exactly half way between a node and
// its mirror). Along `axis`, for line `item` (the other two coordinates, the lower one
// fastest); run for x, then y, then z over every line, ghost lines included, which gives a
// corner its images across two and three walls. Velocities are mirrored (their component
// along the axis flips).
TP_HD TP_INLINE void fold_walls(int axis, uint item, const WallFold& w, float* phi, Vec4* vel) {
  const FieldLattice& l = w.lattice;
  const int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;
  const int du = axis_of(l.dims, u);
  const int cu = int(item % uint(du)), cv = int(item / uint(du));
  const int n = axis_of(l.dims, axis), first = axis_of(w.first, axis), inside = axis_of(w.inside, axis);
  const uint stride = axis == 0 ? 1u : (axis == 1 ? uint(l.dims.x) : uint(l.dims.x) * uint(l.dims.y));
  int c[3];
  c[axis] = 0, c[u] = cu, c[v] = cv;
  const uint base = l.linear(c[0], c[1], c[2]);
  auto add = [&](int into, int from) {
    const uint i = base + uint(into) * stride, m = base + uint(from) * stride;
    phi[i] += phi[m];
    if (vel) {
      Vec4 a = vel[i];
      const Vec4 b = vel[m];
      a.x += axis == 0 ? -b.x : b.x, a.y += axis == 1 ? -b.y : b.y, a.z += axis == 2 ? -b.z : b.z;
      vel[i] = a;
    }
  };
  for (int k = 0;; ++k) {  // the low wall: global k mirrors -1 - k
    const int i = k - first, m = -1 - k - first;
    if (m < 0 || i >= n) break;
    if (i >= 0) add(i, m);
  }
  for (int k = 0;; ++k) {  // the high wall: inside - 1 - k mirrors inside + k
    const int i = inside - 1 - k - first, m = inside + k - first;
    if (m >= n || i < 0) break;
    if (m >= 0 && i < n) add(i, m);
  }
}

// Row r (y = r % dims.y, z = r / dims.y) made ready for marching cubes: nodes beyond the
// walls (ghosts, already folded) and the lattice's outer layer are 0, which closes the
// surface there; so are nodes inside an obstacle.
TP_HD TP_INLINE void finish_field_row(uint r, const WallFold& w, const ObstacleShape* obstacles, int obstacle_count,
                                      float* phi, Vec4* vel) {
  const FieldLattice& l = w.lattice;
  const int y = int(r % uint(l.dims.y)), z = int(r / uint(l.dims.y));
  const int gy = y + w.first.y, gz = z + w.first.z;
  const bool row_out = y == 0 || z == 0 || y == l.dims.y - 1 || z == l.dims.z - 1 || gy < 0 || gz < 0 ||
                       gy >= w.inside.y || gz >= w.inside.z;
  const int x0 = row_out ? l.dims.x : maxi(1, -w.first.x);                      // first inside
  const int x1 = row_out ? l.dims.x : mini(l.dims.x - 1, w.inside.x - w.first.x);  // past the last
  float* row = phi + size_t(r) * uint(l.dims.x);
  Vec4* vrow = vel ? vel + size_t(r) * uint(l.dims.x) : nullptr;
  for (int x = 0; x < l.dims.x; ++x) {
    if (x >= x0 && x < x1) {
      if (obstacle_count == 0) {
        x = x1 - 1;  // nothing inside to clear
        continue;
      }
      const Vec3 p = l.position(x, y, z);
      bool in_obstacle = false;
      for (int o = 0; o < obstacle_count; ++o)
        if (obstacle_distance(obstacles[o], p) < 0.0f) in_obstacle = true;
      if (!in_obstacle) continue;
    }
    row[x] = 0.0f;
    if (vrow) vrow[x] = Vec4{0.0f, 0.0f, 0.0f, 0.0f};
  }
}

}  // namespace tp
