// The water mesh (src/sim/mesh/surface_mesh.h, kernels/marching_cubes.h, kernels/surface_field.h)
// on the CPU backend: the generated case table, marching cubes against a known field, the
// mesh of resting water (closed, manifold, outward, its volume), a ball's roundness, the
// anisotropic kernels' flatter surface, and the PLY/OBJ files.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "sim/backend/backend_cpu.h"
#include "sim/io/mesh_io.h"
#include "sim/mesh/surface_mesh.h"

namespace tp {
namespace {

using Mesher = SurfaceMesher<CpuBackend>;

// Closed and manifold with a consistent orientation: every directed edge appears once and
// its reverse once (so every undirected edge is shared by exactly two triangles, which
// traverse it in opposite directions); no triangle with a repeated vertex or zero area.
struct Topology {
  size_t boundary_or_nonmanifold = 0;  ///< directed edges without exactly one reverse
  size_t degenerate = 0;
};
Topology topology(const TriangleMesh& m) {
  std::map<std::pair<uint32_t, uint32_t>, int> directed;
  Topology t;
  for (size_t k = 0; k < m.index.size(); k += 3) {
    const uint32_t v[3] = {m.index[k], m.index[k + 1], m.index[k + 2]};
    if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2]) ++t.degenerate;
    const Vec3 a = m.position[v[0]], b = m.position[v[1]], c = m.position[v[2]];
    if (!(length(cross(b - a, c - a)) > 0.0f)) ++t.degenerate;
    for (int e = 0; e < 3; ++e) ++directed[{v[e], v[(e + 1) % 3]}];
  }
  for (const auto& [edge, count] : directed) {
    const auto back = directed.find({edge.second, edge.first});
    if (count != 1 || back == directed.end() || back->second != 1) ++t.boundary_or_nonmanifold;
  }
  return t;
}

double mesh_volume(const TriangleMesh& m) {  // divergence theorem: sum of a.(b x c) / 6
  double v = 0.0;
  for (size_t k = 0; k < m.index.size(); k += 3) {
    const Vec3 a = m.position[m.index[k]], b = m.position[m.index[k + 1]], c = m.position[m.index[k + 2]];
    v += double(dot(a, cross(b, c))) / 6.0;
  }
  return v;
}
double mesh_area(const TriangleMesh& m) {
  double s = 0.0;
  for (size_t k = 0; k < m.index.size(); k += 3) {
    const Vec3 a = m.position[m.index[k]], b = m.position[m.index[k + 1]], c = m.position[m.index[k + 2]];
    s += 0.5 * double(length(cross(b - a, c - a)));
  }
  return s;
}

// Particles on the lattice of spacing s filling [lo, hi] (the scenes' layout: the first
// particle half a spacing in from each face).
std::vector<Vec4> block(Vec3 lo, Vec3 hi, float s) {
  std::vector<Vec4> p;
  for (float z = lo.z + 0.5f * s; z < hi.z; z += s)
    for (float y = lo.y + 0.5f * s; y < hi.y; y += s)
      for (float x = lo.x + 0.5f * s; x < hi.x; x += s) p.push_back(Vec4{x, y, z, 0.0f});
  return p;
}

struct Built {
  TriangleMesh mesh;
  MeshLatticeInfo lattice;
};
Built build(const std::vector<Vec4>& p, float s, Vec3 tank_lo, Vec3 tank_hi, const MeshSettings& settings) {
  std::vector<Vec4> v(p.size(), Vec4{0.1f, 0.0f, -0.2f, 0.0f});
  Mesher mesher;
  MeshInput in{p.data(), v.data(), uint(p.size()), s, 2.0f * s, tank_lo, tank_hi, nullptr, 0};
  mesher.build(in, settings);
  Built b;
  mesher.download(&b.mesh);
  b.lattice = mesher.lattice();
  return b;
}

TEST(MarchingCubes, TheGeneratedTableCoversEveryCaseWithoutBreakingItsInvariants) {
  McTables t;
  ASSERT_TRUE(make_mc_tables(t));
  EXPECT_EQ(t.tri_count[0], 0);
  EXPECT_EQ(t.tri_count[255], 0);
  int most = 0;
  for (int m = 1; m < 255; ++m) {
    EXPECT_GT(t.tri_count[m], 0) << "case " << m;
    most = std::max(most, int(t.tri_count[m]));
  }
  EXPECT_EQ(t.tri_count[1], 1);  // one corner: one triangle
  EXPECT_EQ(t.tri_count[3], 2);  // one edge's two corners: a quad
  EXPECT_LE(most, McTables::kMaxTriangles);
}

// A sphere's signed distance (positive inside), radius 8 cells, on a 24^3 lattice: the
// mesh is closed and manifold and its area and volume are the sphere's within 1 %.
TEST(MarchingCubes, ASphereDistanceFieldGivesTheSphereAreaAndVolumeWithinOnePercent) {
  const float dx = 0.01f, r = 8.0f * dx;
  const FieldLattice l{Vec3{0.0f, 0.0f, 0.0f}, Vec3{dx, dx, dx}, Int3{24, 24, 24}};
  const Vec3 c{0.1137f, 0.1171f, 0.1093f};  // off the nodes: no symmetric special case
  std::vector<float> phi(l.node_count());
  for (int z = 0; z < 24; ++z)
    for (int y = 0; y < 24; ++y)
      for (int x = 0; x < 24; ++x) phi[l.linear(x, y, z)] = r - length(l.position(x, y, z) - c);
  Mesher mesher;
  mesher.extract(l, phi.data(), 0.0f);
  TriangleMesh m;
  mesher.download(&m);
  ASSERT_GT(m.triangle_count(), 500u);
  const Topology t = topology(m);
  EXPECT_EQ(t.boundary_or_nonmanifold, 0u);
  EXPECT_EQ(t.degenerate, 0u);
  const double pi = 3.14159265358979;
  const double area = mesh_area(m), volume = mesh_volume(m);
  const double true_area = 4.0 * pi * r * r, true_volume = 4.0 / 3.0 * pi * r * r * r;
  std::printf("sphere r = 8 cells: %zu triangles, area %+.3f %%, volume %+.3f %%\n", m.triangle_count(),
              100.0 * (area / true_area - 1.0), 100.0 * (volume / true_volume - 1.0));
  EXPECT_NEAR(area / true_area, 1.0, 0.01);
  EXPECT_NEAR(volume / true_volume, 1.0, 0.01);
  for (size_t i = 0; i < m.position.size(); ++i) {
    const Vec3 out = m.position[i] - c;
    EXPECT_GT(dot(m.normal[i], out) / length(out), 0.99f) << "vertex " << i;
  }
}

// Random signs on a 20^3 lattice (the border outside, so the surface closes): every one of
// the 254 cases and their ambiguous faces meet each other in every arrangement, and the
// mesh must stay closed, edge-manifold and consistently oriented (a table whose two
// cubes resolved a shared face differently would leave a hole there; a plain fan per loop
// laid triangles on faces, where the next cube laid the same ones: 564 edges with four
// triangles at 30 % inside).
TEST(MarchingCubes, RandomSignsGiveAClosedConsistentlyOrientedMesh) {
  const int n = 20;
  const FieldLattice l{Vec3{0.0f, 0.0f, 0.0f}, Vec3{0.1f, 0.1f, 0.1f}, Int3{n, n, n}};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> magnitude(0.05f, 1.0f), unit(0.0f, 1.0f);
  for (float inside : {0.3f, 0.5f, 0.7f}) {
    std::vector<float> phi(l.node_count());
    for (int z = 0; z < n; ++z)
      for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
          const bool border = x == 0 || y == 0 || z == 0 || x == n - 1 || y == n - 1 || z == n - 1;
          const bool in = !border && unit(rng) < inside;
          phi[l.linear(x, y, z)] = (in ? 1.0f : -1.0f) * magnitude(rng);
        }
    Mesher mesher;
    mesher.extract(l, phi.data(), 0.0f);
    TriangleMesh m;
    mesher.download(&m);
    ASSERT_GT(m.triangle_count(), 5000u);
    const Topology t = topology(m);
    std::printf("random signs, %.0f %% inside: %zu triangles, %zu open or non-manifold edges\n", 100.0 * inside,
                m.triangle_count(), t.boundary_or_nonmanifold);
    EXPECT_EQ(t.boundary_or_nonmanifold, 0u) << inside;
    EXPECT_EQ(t.degenerate, 0u) << inside;
    EXPECT_GT(mesh_volume(m), 0.0) << "normals out of the inside";
  }
}

// Resting blocks of water standing in a tank's corner on its floor, at the default
// settings (anisotropic) and isotropic: the mesh is closed, manifold and outward, and
// encloses the particles' volume (N s^3) within 3 %. Two block sizes.
TEST(WaterMesh, ARestingBlockIsClosedManifoldOutwardAndHoldsItsVolume) {
  const float s = 0.02f;
  const Vec3 tank_lo{0.0f, 0.0f, 0.0f}, tank_hi{1.0f, 0.8f, 0.6f};
  for (const Vec3 size : {Vec3{0.24f, 0.24f, 0.24f}, Vec3{0.5f, 0.3f, 0.36f}}) {
    const std::vector<Vec4> p = block(tank_lo, size, s);
    const double water = double(p.size()) * s * s * s;
    for (const bool aniso : {true, false}) {
      MeshSettings settings;
      settings.anisotropic = aniso;
      const Built b = build(p, s, tank_lo, tank_hi, settings);
      const Topology t = topology(b.mesh);
      const double v = mesh_volume(b.mesh);
      std::printf("block %zu particles, %s: %zu triangles, volume %+.2f %%\n", p.size(),
                  aniso ? "anisotropic" : "isotropic", b.mesh.triangle_count(), 100.0 * (v / water - 1.0));
      EXPECT_EQ(t.boundary_or_nonmanifold, 0u);
      EXPECT_EQ(t.degenerate, 0u);
      EXPECT_NEAR(v / water, 1.0, 0.03);
      // Outward: the top's vertices face up, the free sides' face out.
      for (size_t i = 0; i < b.mesh.position.size(); ++i) {
        const Vec3 x = b.mesh.position[i], nrm = b.mesh.normal[i];
        if (x.y > size.y - 0.2f * s && fabsf(x.x - 0.5f * size.x) < 0.3f * size.x &&
            fabsf(x.z - 0.5f * size.z) < 0.3f * size.z) {
          EXPECT_GT(nrm.y, 0.9f) << "top vertex " << i;
        }
      }
    }
  }
}

// A ball of water in the middle of the tank (no walls near): its surface is round, the
// vertices' distances from its centre varying by less than a spacing.
TEST(WaterMesh, ABallIsRoundToWithinASpacing) {
  const float s = 0.02f;
  const Vec3 c{0.5f, 0.5f, 0.5f};
  std::vector<Vec4> p;
  for (const Vec4& q : block(Vec3{0.0f, 0.0f, 0.0f}, Vec3{1.0f, 1.0f, 1.0f}, s))
    if (length(xyz(q) - c) < 8.0f * s) p.push_back(q);
  for (const bool aniso : {true, false}) {
    MeshSettings settings;
    settings.anisotropic = aniso;
    const Built b = build(p, s, Vec3{0.0f, 0.0f, 0.0f}, Vec3{1.0f, 1.0f, 1.0f}, settings);
    ASSERT_GT(b.mesh.position.size(), 100u);
    float lo = 1e9f, hi = 0.0f;
    for (const Vec3& x : b.mesh.position) lo = std::min(lo, length(x - c)), hi = std::max(hi, length(x - c));
    std::printf("ball of %zu particles, %s: radius %.4f to %.4f m (spread %.2f spacings)\n", p.size(),
                aniso ? "anisotropic" : "isotropic", lo, hi, (hi - lo) / s);
    EXPECT_LT(hi - lo, s);
    EXPECT_EQ(topology(b.mesh).boundary_or_nonmanifold, 0u);
  }
}

// A resting pool whose particles are jittered as a running simulation leaves them: the
// anisotropic kernels give a flatter top than the isotropic ones (the spread of the top
// triangles' normals).
TEST(WaterMesh, AnisotropicKernelsGiveAFlatterPoolThanIsotropicOnes) {
  const float s = 0.02f;
  const Vec3 tank_hi{0.4f, 0.4f, 0.4f};
  std::vector<Vec4> p = block(Vec3{0.0f, 0.0f, 0.0f}, Vec3{0.4f, 0.16f, 0.4f}, s);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> jitter(-0.15f * s, 0.15f * s);
  for (Vec4& q : p) q.x += jitter(rng), q.y += jitter(rng), q.z += jitter(rng);
  double spread[2];
  for (const bool aniso : {false, true}) {
    MeshSettings settings;
    settings.anisotropic = aniso;
    const Built b = build(p, s, Vec3{0.0f, 0.0f, 0.0f}, tank_hi, settings);
    double sum = 0.0;
    int count = 0;
    for (size_t k = 0; k < b.mesh.index.size(); k += 3) {
      const Vec3 a = b.mesh.position[b.mesh.index[k]], bb = b.mesh.position[b.mesh.index[k + 1]],
                 c = b.mesh.position[b.mesh.index[k + 2]];
      const Vec3 g = cross(bb - a, c - a);
      const Vec3 centroid = (a + bb + c) / 3.0f;
      if (centroid.y < 0.1f || centroid.x < 0.1f || centroid.x > 0.3f || centroid.z < 0.1f || centroid.z > 0.3f)
        continue;  // the top, away from the walls
      const float angle = acosf(std::min(1.0f, g.y / length(g)));
      sum += double(angle) * angle;
      ++count;
    }
    ASSERT_GT(count, 100);
    spread[aniso] = std::sqrt(sum / count) * 180.0 / 3.14159265358979;
    std::printf("jittered pool, %s: RMS tilt of the top's triangles %.2f degrees (%d triangles)\n",
                aniso ? "anisotropic" : "isotropic", spread[aniso], count);
  }
  EXPECT_LT(spread[1], 0.8 * spread[0]);
}

TEST(WaterMesh, BuildsAreDeterministicAndCarryTheVelocity) {
  const float s = 0.02f;
  std::vector<Vec4> p = block(Vec3{0.0f, 0.0f, 0.0f}, Vec3{0.2f, 0.2f, 0.2f}, s);
  MeshSettings settings;
  settings.velocity = true;
  const Built a = build(p, s, Vec3{0.0f, 0.0f, 0.0f}, Vec3{0.6f, 0.6f, 0.6f}, settings);
  const Built b = build(p, s, Vec3{0.0f, 0.0f, 0.0f}, Vec3{0.6f, 0.6f, 0.6f}, settings);
  ASSERT_EQ(a.mesh.index, b.mesh.index);
  ASSERT_EQ(a.mesh.velocity.size(), a.mesh.position.size());
  for (size_t i = 0; i < a.mesh.position.size(); ++i) {
    EXPECT_EQ(a.mesh.position[i].x, b.mesh.position[i].x);
    // Every particle moves at (0.1, 0, -0.2), the mirrored images across the walls at
    // their mirrored velocities: the tangential parts stay.
    EXPECT_NEAR(a.mesh.velocity[i].y, 0.0f, 1e-5f);
  }
  // Away from the wall at x = 0 (whose mirrored images move at -0.1) every vertex moves at
  // the water's 0.1 along x: on the free faces and where the mesh meets the floor and the
  // back wall (whose nodes outside the tank have no water and give no velocity).
  int checked = 0, at_walls = 0;
  for (size_t i = 0; i < a.mesh.position.size(); ++i) {
    const Vec3 q = a.mesh.position[i];
    if (q.x < 3.0f * s) continue;
    ++checked;
    if (q.y < s || q.z < s) ++at_walls;
    EXPECT_NEAR(a.mesh.velocity[i].x, 0.1f, 0.005f) << "vertex " << i << " at " << q.x << ", " << q.y << ", " << q.z;
  }
  EXPECT_GT(checked, 100);
  EXPECT_GT(at_walls, 10);
}

// The surface mode's ellipsoid splats (Mesher::splats) of a resting block in the tank's
// corner: inside the water and against the walls (floor included) each is the particle's
// sphere (A' = I, bounding radius 1); on the block's top face it is flattened along y (its
// shortest axis vertical) and no wider than the clamp allows.
TEST(WaterMesh, SplatsAreSpheresInsideAndFlatOnTheTopFace) {
  const float s = 0.02f;
  const Vec3 top{0.32f, 0.16f, 0.32f};
  const std::vector<Vec4> p = block(Vec3{0.0f, 0.0f, 0.0f}, top, s);
  std::vector<Vec4> v(p.size(), Vec4{0.0f, 0.0f, 0.0f, 0.0f});
  Mesher mesher;
  const MeshInput in{p.data(), v.data(), uint(p.size()), s, 2.0f * s, Vec3{0.0f, 0.0f, 0.0f},
                     Vec3{0.5f, 0.5f, 0.5f}, nullptr, 0};
  std::vector<Vec4> splats;
  mesher.splats(in, MeshSettings{}, &splats);
  ASSERT_EQ(splats.size(), 3 * p.size());
  int inside = 0, on_top = 0;
  double flat_sum = 0.0;
  for (size_t i = 0; i < p.size(); ++i) {
    const Vec4 c = splats[3 * i], f0 = splats[3 * i + 1], f1 = splats[3 * i + 2];
    // Three spacings or more inside every free face (x, y, z = top); against the walls
    // (x, y, z = 0) the mirror images complete the neighbourhood: spheres there too.
    const float depth = std::min({top.x - 3.0f * s - c.x, top.y - 3.0f * s - c.y, top.z - 3.0f * s - c.z});
    if (depth > 0.0f) {
      ++inside;
      EXPECT_NEAR(f0.x, 1.0f, 1e-3f);
      EXPECT_NEAR(f0.y, 1.0f, 1e-3f);
      EXPECT_NEAR(f0.z, 1.0f, 1e-3f);
      EXPECT_NEAR(f0.w, 0.0f, 1e-3f);
      EXPECT_NEAR(f1.x, 0.0f, 1e-3f);
      EXPECT_NEAR(c.w, 1.0f, 1e-3f);
    }
    const bool top_layer = c.y > top.y - s && c.x > 4.0f * s && c.x < top.x - 4.0f * s && c.z > 4.0f * s &&
                           c.z < top.z - 4.0f * s;
    if (top_layer) {
      ++on_top;
      EXPECT_GT(f0.y, 1.5f * f0.x) << "flattened vertically";
      EXPECT_NEAR(f0.x, f0.z, 0.05f * f0.x) << "round in the plane of the face";
      EXPECT_LE(c.w, 2.0f);
      EXPECT_GE(c.w, 1.0f / std::sqrt(f0.x) - 1e-3f) << "the bounding radius holds the widest axis";
      flat_sum += f0.y / f0.x;
    }
  }
  ASSERT_GT(inside, 50);
  ASSERT_GT(on_top, 20);
  std::printf("splats: %d inside (spheres), %d on the top face, mean A'yy / A'xx there %.2f\n", inside, on_top,
              flat_sum / on_top);
}

TEST(MeshFiles, APlyFileReadsBackTheSameMeshAndObjListsIt) {
  const float s = 0.02f;
  MeshSettings settings;
  settings.velocity = true;
  const Built b = build(block(Vec3{0.0f, 0.0f, 0.0f}, Vec3{0.16f, 0.1f, 0.12f}, s), s, Vec3{0.0f, 0.0f, 0.0f},
                        Vec3{0.5f, 0.5f, 0.5f}, settings);
  const auto dir = std::filesystem::temp_directory_path() / "tidepool_mesh_test";
  std::filesystem::create_directories(dir);
  std::string error;
  ASSERT_TRUE(write_mesh_ply((dir / "m.ply").string(), b.mesh, &error, 1.25)) << error;
  TriangleMesh back;
  ASSERT_TRUE(read_mesh_ply((dir / "m.ply").string(), &back, &error)) << error;
  EXPECT_EQ(back.index, b.mesh.index);
  ASSERT_EQ(back.position.size(), b.mesh.position.size());
  ASSERT_EQ(back.velocity.size(), b.mesh.position.size());
  for (size_t i = 0; i < back.position.size(); ++i) {
    EXPECT_EQ(back.position[i].x, b.mesh.position[i].x);
    EXPECT_EQ(back.normal[i].z, b.mesh.normal[i].z);
    EXPECT_EQ(back.velocity[i].y, b.mesh.velocity[i].y);
  }
  ASSERT_TRUE(write_mesh_obj((dir / "m.obj").string(), b.mesh, &error)) << error;
  std::ifstream obj(dir / "m.obj");
  size_t v = 0, vn = 0, f = 0;
  for (std::string line; std::getline(obj, line);)
    v += line.rfind("v ", 0) == 0, vn += line.rfind("vn ", 0) == 0, f += line.rfind("f ", 0) == 0;
  EXPECT_EQ(v, b.mesh.position.size());
  EXPECT_EQ(vn, b.mesh.position.size());
  EXPECT_EQ(f, b.mesh.triangle_count());
  // A truncated file is refused with a reason, not read past its end.
  std::filesystem::resize_file(dir / "m.ply", std::filesystem::file_size(dir / "m.ply") - 7);
  EXPECT_FALSE(read_mesh_ply((dir / "m.ply").string(), &back, &error));
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
  std::filesystem::remove_all(dir);
}

TEST(WaterMesh, ImpossibleSettingsAreRefusedWithAReason) {
  const float s = 0.02f;
  const std::vector<Vec4> p = block(Vec3{0.0f, 0.0f, 0.0f}, Vec3{0.1f, 0.1f, 0.1f}, s);
  MeshSettings bad;
  bad.cell = std::nanf("");
  EXPECT_THROW(build(p, s, Vec3{0.0f, 0.0f, 0.0f}, Vec3{1.0f, 1.0f, 1.0f}, bad), std::invalid_argument);
  bad.cell = 1e-4f;  // a lattice of 10^13 nodes
  try {
    build(p, s, Vec3{0.0f, 0.0f, 0.0f}, Vec3{10.0f, 10.0f, 10.0f}, bad);
    FAIL() << "a huge lattice was not refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cell size"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tp

namespace tp {
namespace {

// Water around an obstacle (a ball inside a resting block, the particles kept off it as
// the scenes do): the mesh closes around the ball (an inner surface at the ball's, no
// vertex more than a cell inside it) and still encloses the water's volume.
TEST(WaterMesh, TheMeshClosesAroundAnObstacle) {
  const float s = 0.02f;
  const Vec3 c{0.16f, 0.12f, 0.16f};
  ObstacleShape ball{};
  ball.kind = int(ShapeKind::Sphere);
  ball.center = c;
  ball.radius = 0.07f;
  std::vector<Vec4> p;
  for (const Vec4& q : block(Vec3{0.0f, 0.0f, 0.0f}, Vec3{0.32f, 0.24f, 0.32f}, s))
    if (length(xyz(q) - c) > ball.radius + 0.5f * s) p.push_back(q);
  std::vector<Vec4> v(p.size(), Vec4{0.0f, 0.0f, 0.0f, 0.0f});
  Mesher mesher;
  MeshInput in{p.data(), v.data(), uint(p.size()), s, 2.0f * s, Vec3{0.0f, 0.0f, 0.0f}, Vec3{0.6f, 0.6f, 0.6f}, &ball, 1};
  mesher.build(in, MeshSettings{});
  TriangleMesh m;
  mesher.download(&m);
  EXPECT_EQ(topology(m).boundary_or_nonmanifold, 0u);
  const float cell = mesher.lattice().dx.x;
  float deepest = 0.0f;
  int at_ball = 0;
  for (const Vec3& x : m.position) {
    const float d = obstacle_distance(ball, x);
    deepest = std::min(deepest, d);
    at_ball += fabsf(d) < 1.5f * cell ? 1 : 0;
  }
  const double water = double(p.size()) * s * s * s, volume = mesh_volume(m);
  std::printf("water around a ball: %d vertices at the ball, the deepest %.2f cells inside it; volume %+.2f %%\n",
              at_ball, -deepest / cell, 100.0 * (volume / water - 1.0));
  EXPECT_GT(at_ball, 200) << "an inner surface at the ball";
  EXPECT_GT(deepest, -cell);
  EXPECT_NEAR(volume / water, 1.0, 0.03);
}

}  // namespace
}  // namespace tp
