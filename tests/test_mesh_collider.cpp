// The mesh colliders' files and solids (src/sim/bodies): reading OBJ and PLY and their damaged
// forms, the closedness check and its refusal, mass properties against the analytic ones.
// The closest points and distance fields are in test_mesh_collider_field.cpp, the surface
// samples in test_mesh_collider_samples.cpp.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "sim/bodies/mass_properties.h"
#include "sim/bodies/mesh_shapes.h"
#include "sim/bodies/triangle_mesh.h"

namespace tp {
namespace {

namespace fs = std::filesystem;

// The files these tests write, in a folder of this process's, removed when it exits.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("tp_mesh_collider_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};
fs::path temp_dir() {
  static const TempDir dir;
  return dir.path;
}

std::string write_file(const std::string& name, const std::string& bytes) {
  const fs::path path = temp_dir() / name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

std::string obj_text(const TriangleSoup& m) {
  std::string s;
  char line[96];
  for (const Vec3& v : m.vertices) {
    std::snprintf(line, sizeof line, "v %.9g %.9g %.9g\n", double(v.x), double(v.y), double(v.z));
    s += line;
  }
  for (const auto& t : m.triangles)
    s += "f " + std::to_string(t[0] + 1) + " " + std::to_string(t[1] + 1) + " " +
         std::to_string(t[2] + 1) + "\n";
  return s;
}

// ---- reading --------------------------------------------------------------------------------

TEST(MeshCollider, ObjIsReadAndWelded) {
  // A quad face and per-face copies of the corners: triangulated and welded into a closed box.
  const TriangleSoup box = make_box_mesh(Vec3{0.5f, 0.5f, 0.5f});
  std::string text = "# a box, every face with its own four corners\nmtllib none.mtl\n";
  int next = 1;
  for (size_t t = 0; t < box.triangles.size(); ++t) {
    std::string face = "f";
    for (uint32_t v : box.triangles[t]) {
      const Vec3 p = box.vertices[v];
      text +=
          "v " + std::to_string(p.x) + " " + std::to_string(p.y) + " " + std::to_string(p.z) + "\n";
      face += " " + std::to_string(next++);
    }
    text += face + "\n";
  }
  std::string error;
  const auto mesh = load_triangle_mesh(write_file("box.obj", text), 2.0f, &error);
  ASSERT_TRUE(mesh) << error;
  EXPECT_EQ(mesh->vertices.size(), 8u);
  EXPECT_EQ(mesh->triangles.size(), 12u);
  EXPECT_TRUE(check_closed(*mesh).closed());
  EXPECT_NEAR(compute_mass_properties(*mesh).volume, 8.0, 1e-5);  // scale 2: side 2

  const auto quads = parse_triangle_mesh("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n",
                                         "quad.OBJ", 1.0f, &error);
  ASSERT_TRUE(quads) << error;
  EXPECT_EQ(quads->triangles.size(), 2u);
}

// A mesh as PLY text: an extra per-vertex property, an extra element, faces as polygons.
std::string ply_ascii(const TriangleSoup& m) {
  // Two triangles a b c, a c d as the quad a b c d (the fan that the reader makes of it).
  std::vector<std::string> faces;
  for (size_t t = 0; t < m.triangles.size(); ++t) {
    const auto& a = m.triangles[t];
    std::string f = std::to_string(a[0]) + " " + std::to_string(a[1]) + " " + std::to_string(a[2]);
    if (t + 1 < m.triangles.size() && m.triangles[t + 1][0] == a[0] &&
        m.triangles[t + 1][1] == a[2]) {
      faces.push_back("4 " + f + " " + std::to_string(m.triangles[++t][2]) + "\n");
    } else {
      faces.push_back("3 " + f + "\n");
    }
  }
  std::string s = "ply\r\nformat ascii 1.0\ncomment made by the test\nelement vertex " +
                  std::to_string(m.vertices.size()) +
                  "\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\n"
                  "element face " +
                  std::to_string(faces.size()) +
                  "\nproperty list uchar int vertex_indices\nelement note 1\nproperty list uchar "
                  "float tag\nend_header\n";
  char line[128];
  for (const Vec3& v : m.vertices) {
    std::snprintf(line, sizeof line, "%.9g %.9g %.9g 7\n", double(v.x), double(v.y), double(v.z));
    s += line;
  }
  for (const std::string& f : faces) s += f;
  return s + "2 1.5 2.5\n";
}

// A value's bytes, in the file's byte order (this machine's is little-endian).
template <class T>
void put(std::string* s, T v, bool big) {
  char bytes[sizeof v];
  std::memcpy(bytes, &v, sizeof v);
  if (big) std::reverse(bytes, bytes + sizeof v);
  s->append(bytes, sizeof v);
}

std::string ply_binary(const TriangleSoup& m, bool doubles, bool big = false) {
  std::string s = std::string("ply\nformat ") +
                  (big ? "binary_big_endian" : "binary_little_endian") + " 1.0\nelement vertex " +
                  std::to_string(m.vertices.size()) +
                  (doubles ? "\nproperty double x\nproperty double y\nproperty double z\n"
                           : "\nproperty float x\nproperty float y\nproperty float z\n") +
                  "element face " + std::to_string(m.triangles.size()) +
                  (doubles ? "\nproperty list uchar int vertex_indices\n"
                           : "\nproperty list int uint vertex_index\n") +
                  "property uchar flags\nend_header\n";
  for (const Vec3& v : m.vertices) {
    for (float c : {v.x, v.y, v.z}) doubles ? put(&s, double(c), big) : put(&s, c, big);
  }
  for (const auto& t : m.triangles) {
    doubles ? put(&s, uint8_t(3), big) : put(&s, int32_t(3), big);
    for (uint32_t v : t) doubles ? put(&s, int32_t(v), big) : put(&s, uint32_t(v), big);
    put(&s, uint8_t(0), big);
  }
  return s;
}

TEST(MeshCollider, PlyBinaryAndAsciiReadTheSameMesh) {
  const TriangleSoup torus = make_torus_mesh(0.3f, 0.1f, 24, 12);
  std::string error;
  const auto ascii =
      load_triangle_mesh(write_file("torus_ascii.ply", ply_ascii(torus)), 1.0f, &error);
  ASSERT_TRUE(ascii) << error;
  const auto binary =
      load_triangle_mesh(write_file("torus_binary.ply", ply_binary(torus, true)), 1.0f, &error);
  ASSERT_TRUE(binary) << error;
  const auto floats = parse_triangle_mesh(ply_binary(torus, false), "torus.ply", 1.0f, &error);
  ASSERT_TRUE(floats) << error;
  const auto big = parse_triangle_mesh(ply_binary(torus, false, true), "big.ply", 1.0f, &error);
  ASSERT_TRUE(big) << error;
  for (const TriangleSoup* m : {&*ascii, &*binary, &*floats, &*big}) {
    ASSERT_EQ(m->vertices.size(), torus.vertices.size());
    ASSERT_EQ(m->triangles.size(), torus.triangles.size());
    for (size_t v = 0; v < torus.vertices.size(); ++v) {
      EXPECT_EQ(m->vertices[v].x, torus.vertices[v].x);
      EXPECT_EQ(m->vertices[v].z, torus.vertices[v].z);
    }
    EXPECT_EQ(m->triangles, torus.triangles);
    EXPECT_TRUE(check_closed(*m).closed());
  }
}

TEST(MeshCollider, MalformedFilesGiveMessages) {
  const std::string header =
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
      "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n";
  const struct {
    const char* name;
    std::string bytes;
    const char* says;
  } cases[] = {
      {"words.obj", "hello world\nthis is not a mesh\n", "no triangles"},
      {"empty.obj", "", "no triangles"},
      {"far.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n", "refers to vertex 7"},
      {"zero.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", "malformed OBJ"},
      {"flat.obj", "v 0 0 0\nv 1 0 0\nf 1 2 2\n", "no triangles"},
      {"huge.obj", "v 1e39 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "not a finite number"},
      {"mesh.stl", "solid x\n", "unknown mesh format"},
      {"nan.obj", "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n", "line 2: 'nan' is not a finite number"},
      {"comma.obj", "v 0 0 0\nv 1,5 0 0\nv 0 1 0\nf 1 2 3\n", "'1,5' is not a finite number"},
      {"two.obj", "v 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "line 1: a vertex needs x, y and z"},
      {"nan.ply", header + "0 0 0\nnan 1 0\n0 1 0\n3 0 1 2\n", "not a finite number"},
      {"noend.ply", "ply\nformat ascii 1.0\nelement vertex 3\n", "no end_header"},
      {"notply.ply", "solid\nend_header\n", "does not start with 'ply'"},
      {"format.ply", "ply\nformat binary_middle_endian 1.0\nend_header\n", "unknown format"},
      {"type.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty quad x\nend_header\n",
       "unknown type"},
      {"short.ply", header + "0 0 0\n1 0 0\n", "cut short"},
      {"count.ply",
       "ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\nproperty float x\n"
       "property float y\nproperty float z\nend_header\n\x01\x02",
       "cannot fit"},
      {"index.ply", header + "0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n", "refers to vertex 3"},
      {"corners.ply", header + "0 0 0\n1 0 0\n0 1 0\n2 0 1\n", "has 2 corners"},
      {"letters.ply", header + "0 0 0\n1 zero 0\n0 1 0\n3 0 1 2\n", "not a number"},
      {"noxyz.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float u\nend_header\n1\n",
       "no x, y and z"},
      {"nofaces.ply",
       "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
       "property float z\nend_header\n1 2 3\n",
       "no triangles"},
  };
  for (const auto& c : cases) {
    std::string error;
    const std::string path = write_file(c.name, c.bytes);
    EXPECT_FALSE(load_triangle_mesh(path, 1.0f, &error)) << c.name;
    EXPECT_NE(error.find(c.name), std::string::npos) << c.name << ": " << error;
    EXPECT_NE(error.find(c.says), std::string::npos) << c.name << ": " << error;
  }
  std::string error;
  EXPECT_FALSE(load_triangle_mesh((temp_dir() / "missing.obj").string(), 1.0f, &error));
  EXPECT_NE(error.find("missing.obj: cannot open"), std::string::npos) << error;
  fs::create_directories(temp_dir() / "folder.obj");
  EXPECT_FALSE(load_triangle_mesh((temp_dir() / "folder.obj").string(), 1.0f, &error));
  EXPECT_NE(error.find("folder.obj: is a folder"), std::string::npos) << error;
  EXPECT_FALSE(parse_triangle_mesh("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "s.obj", -1.0f, &error));
  EXPECT_NE(error.find("scale"), std::string::npos) << error;

  // Files with bytes changed at random: read, or a message naming them; never a crash.
  std::mt19937 rng(9);
  const TriangleSoup small = make_box_mesh(Vec3{1, 1, 1}, 2);
  const std::string originals[] = {ply_binary(small, true), ply_binary(small, false, true),
                                   ply_ascii(small), obj_text(small)};
  const char* names[] = {"a.ply", "b.ply", "c.ply", "d.obj"};
  for (int n = 0; n < 400; ++n) {
    std::string bytes = originals[n % 4];
    for (int k = 0; k < 1 + n % 5; ++k) {
      bytes[rng() % bytes.size()] = char(n % 3 == 0 ? "0123456789 \n-e."[rng() % 15] : rng() % 256);
    }
    error.clear();
    if (!parse_triangle_mesh(bytes, names[n % 4], 1.0f, &error)) {
      EXPECT_EQ(error.rfind(std::string(names[n % 4]) + ": ", 0), 0u) << n << ": " << error;
    }
  }

  // A binary file cut short at every length: a message each time, never a crash.
  const std::string whole = ply_binary(make_box_mesh(Vec3{1, 1, 1}), true);
  for (size_t n = 0; n < whole.size(); ++n) {
    error.clear();
    EXPECT_FALSE(parse_triangle_mesh(whole.substr(0, n), "cut.ply", 1.0f, &error)) << n;
    EXPECT_EQ(error.rfind("cut.ply: ", 0), 0u) << n << ": " << error;
  }
}

// ---- closedness ------------------------------------------------------------------------------

TEST(MeshCollider, OpenMeshIsRefusedWithTheFileAndEdgeCount) {
  TriangleSoup box = make_box_mesh(Vec3{0.1f, 0.2f, 0.3f}, 2);
  box.triangles.resize(box.triangles.size() - 2);  // one of the last face's squares
  std::string error;
  const auto mesh = load_triangle_mesh(write_file("open_box.obj", obj_text(box)), 1.0f, &error);
  ASSERT_TRUE(mesh) << error;
  const MeshCheck check = check_closed(*mesh);
  EXPECT_FALSE(check.closed());
  EXPECT_EQ(check.open_edges, 4u);
  const std::string message = closed_mesh_problem("open_box.obj", check);
  EXPECT_NE(message.find("open_box.obj: not closed: 4 open edges (first at ("), std::string::npos)
      << message;
  EXPECT_NE(message.find("a collider must be a closed surface"), std::string::npos) << message;

  TriangleSoup flipped = make_box_mesh(Vec3{1, 1, 1});
  std::swap(flipped.triangles[0][1], flipped.triangles[0][2]);
  const MeshCheck bad = check_closed(flipped);
  EXPECT_EQ(bad.open_edges, 0u);
  EXPECT_EQ(bad.misoriented_edges, 3u);
  EXPECT_NE(
      closed_mesh_problem("flip.obj", bad).find("3 edges between triangles facing opposite ways"),
      std::string::npos);

  TriangleSoup fin = make_box_mesh(Vec3{1, 1, 1});
  fin.vertices.push_back(Vec3{3, 3, 3});
  fin.triangles.push_back(
      {fin.triangles[0][0], fin.triangles[0][1], uint32_t(fin.vertices.size() - 1)});
  const MeshCheck fins = check_closed(fin);
  EXPECT_EQ(fins.nonmanifold_edges, 1u);
  EXPECT_EQ(fins.open_edges, 2u);
  EXPECT_TRUE(closed_mesh_problem("ok.obj", check_closed(make_box_mesh(Vec3{1, 1, 1}))).empty());
}

// ---- mass properties -------------------------------------------------------------------------

TEST(MeshCollider, MassPropertiesOfABoxAndASphere) {
  const Vec3 h{0.3f, 0.2f, 0.1f};
  TriangleSoup box = make_box_mesh(h, 3);
  // Turned and moved: the centroid moves with it, the principal frame turns back.
  const Quat turn = quat_normalized(Quat{0.9f, 0.2f, -0.3f, 0.25f});
  const Vec3 shift{1.0f, -2.0f, 0.5f};
  for (Vec3& v : box.vertices) v = rotate(turn, v) + shift;
  const MassProperties box_props = compute_mass_properties(box);
  const double volume = 8.0 * h.x * h.y * h.z;
  EXPECT_NEAR(box_props.volume, volume, 0.005 * volume);
  EXPECT_NEAR(length(box_props.centroid - shift), 0.0f, 1e-5f);
  const double expected[3] = {volume / 3 * (h.y * h.y + h.z * h.z),
                              volume / 3 * (h.x * h.x + h.z * h.z),
                              volume / 3 * (h.x * h.x + h.y * h.y)};  // ascending
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(box_props.principal_moments[k], expected[k], 0.01 * expected[k]);
  TriangleSoup principal = box;
  to_principal_frame(&principal, box_props);
  const MassProperties again = compute_mass_properties(principal);
  EXPECT_NEAR(length(again.centroid), 0.0f, 1e-5f);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(again.inertia[i][i], expected[i], 1e-4 * expected[2]);
    for (int j = 0; j < 3; ++j) {
      if (i != j) {
        EXPECT_NEAR(again.inertia[i][j], 0.0, 1e-5 * expected[2]);
      }
    }
  }
  // The principal frame's x (smallest moment) is the box's longest axis, its own x, turned.
  const Vec3 x_axis = rotate(again.principal_to_mesh, Vec3{1, 0, 0});
  EXPECT_GT(std::fabs(x_axis.x), 0.9999f);
  EXPECT_GT(std::fabs(dot(rotate(box_props.principal_to_mesh, Vec3{1, 0, 0}),
                          rotate(turn, Vec3{1, 0, 0}))),
            0.9999f);

  const float r = 0.25f;
  TriangleSoup sphere = make_sphere_mesh(r, 64, 128);
  const MassProperties ball = compute_mass_properties(sphere);
  const double sphere_volume = 4.0 / 3.0 * M_PI * r * r * r;
  EXPECT_NEAR(ball.volume, sphere_volume, 0.005 * sphere_volume);
  const double moment = 0.4 * sphere_volume * r * r;
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(ball.principal_moments[k], moment, 0.01 * moment);

  // Inward-facing: turned outward, with a note naming it.
  for (auto& t : sphere.triangles) std::swap(t[0], t[1]);
  EXPECT_LT(compute_mass_properties(sphere).volume, 0.0);
  std::string note;
  EXPECT_TRUE(orient_outward(&sphere, "ball.obj", &note));
  EXPECT_NE(note.find("ball.obj: its triangles face inward"), std::string::npos) << note;
  EXPECT_NEAR(compute_mass_properties(sphere).volume, ball.volume, 1e-9);
  EXPECT_FALSE(orient_outward(&sphere, "ball.obj", &note));
}

TEST(MeshCollider, JacobiEigenSolverDiagonalises) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int n = 0; n < 200; ++n) {
    double m[3][3];
    for (int i = 0; i < 3; ++i) {
      for (int j = i; j < 3; ++j) m[i][j] = m[j][i] = u(rng);
    }
    if (n % 4 == 0) m[0][1] = m[1][0] = m[0][2] = m[2][0] = 0.0;  // already partly diagonal
    double values[3], v[3][3];
    symmetric_eigen(m, values, v);
    EXPECT_LE(values[0], values[1]);
    EXPECT_LE(values[1], values[2]);
    for (int k = 0; k < 3; ++k) {  // m v_k = lambda_k v_k
      for (int i = 0; i < 3; ++i) {
        const double mv = m[i][0] * v[0][k] + m[i][1] * v[1][k] + m[i][2] * v[2][k];
        EXPECT_NEAR(mv, values[k] * v[i][k], 1e-12);
      }
    }
    const Quat q = quat_from_matrix(v);  // a rotation: its quaternion turns e_k into v_k
    for (int k = 0; k < 3; ++k) {
      const Vec3 e{k == 0 ? 1.0f : 0.0f, k == 1 ? 1.0f : 0.0f, k == 2 ? 1.0f : 0.0f};
      const Vec3 col = rotate(q, e);
      EXPECT_NEAR(col.x, v[0][k], 1e-5);
      EXPECT_NEAR(col.y, v[1][k], 1e-5);
      EXPECT_NEAR(col.z, v[2][k], 1e-5);
    }
  }
}

}  // namespace
}  // namespace tp
