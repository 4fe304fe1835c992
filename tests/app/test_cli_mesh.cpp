// The surface mesh from the command line: --export-mesh writes mesh frames that read back
// as closed meshes with normals and velocities (PLY) or as OBJ; bad mesh options are
// one-line errors; --bench times the mesh.
#include <gtest/gtest.h>

#include <dirent.h>

#include <fstream>
#include <map>
#include <string>
#include <utility>

#include "process.h"
#include "sim/io/mesh_io.h"

using namespace tp::test;

namespace {

int count_files(const std::string& dir, const std::string& prefix, const std::string& extension) {
  int n = 0;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string f = e->d_name;
      if (f.rfind(prefix, 0) == 0 && f.size() > extension.size() &&
          f.compare(f.size() - extension.size(), extension.size(), extension) == 0)
        ++n;
    }
    closedir(d);
  }
  return n;
}

}  // namespace

TEST(CliMesh, ExportMeshWritesClosedMeshFramesWithNormalsAndVelocities) {
  const std::string dir = fresh_temp_dir("tidepool_mesh_export");
  const ProcessResult r = run_command(tidepool() + " --headless --scene dam_break --particles 3000 --time 0.2 "
                                      "--export-fps 10 --export-mesh " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count_files(dir, "mesh_", ".ply"), 3) << "t = 0, 0.1, 0.2";
  EXPECT_EQ(count_files(dir, "frame_", ".ply"), 0) << "particles only with --export";
  EXPECT_NE(r.output.find("triangles in"), std::string::npos) << r.output;
  tp::TriangleMesh m;
  std::string error;
  ASSERT_TRUE(tp::read_mesh_ply(dir + "/mesh_00002.ply", &m, &error)) << error;
  ASSERT_GT(m.triangle_count(), 1000u);
  ASSERT_EQ(m.velocity.size(), m.position.size());
  // Closed: every edge is shared by two triangles, in opposite directions.
  std::map<std::pair<uint32_t, uint32_t>, int> edges;
  for (size_t k = 0; k < m.index.size(); k += 3)
    for (int e = 0; e < 3; ++e) ++edges[{m.index[k + e], m.index[k + (e + 1) % 3]}];
  size_t open = 0;
  for (const auto& [edge, count] : edges)
    if (count != 1 || edges.count({edge.second, edge.first}) != 1) ++open;
  EXPECT_EQ(open, 0u);
  // The water falls: at t = 0.2 s some of the surface moves downwards.
  float lowest_vy = 0.0f;
  for (const tp::Vec3& v : m.velocity) lowest_vy = std::min(lowest_vy, v.y);
  EXPECT_LT(lowest_vy, -0.5f);
  for (const tp::Vec3& n : m.normal) ASSERT_NEAR(tp::length(n), 1.0f, 1e-3f);
}

TEST(CliMesh, ObjFramesAndBothExportsSideBySide) {
  const std::string dir = fresh_temp_dir("tidepool_mesh_obj");
  const ProcessResult r = run_command(tidepool() + " --headless --scene pool --particles 2000 --time 0.05 "
                                      "--export-fps 20 --mesh-format obj --mesh-anisotropic off --export " + dir +
                                      " --export-mesh " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count_files(dir, "mesh_", ".obj"), 2);
  EXPECT_EQ(count_files(dir, "frame_", ".ply"), 2);
  std::ifstream obj(dir + "/mesh_00001.obj");
  size_t v = 0, f = 0;
  for (std::string line; std::getline(obj, line);) v += line.rfind("v ", 0) == 0, f += line.rfind("f ", 0) == 0;
  EXPECT_GT(v, 100u);
  EXPECT_GT(f, v);  // a closed surface has about twice as many triangles as vertices
}

TEST(CliMesh, BadMeshOptionsAreOneLineErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"--headless --mesh-format stl --export-mesh x", "--mesh-format must be ply or obj"},
      {"--headless --mesh-format obj", "--mesh-format needs --export-mesh"},
      {"--export-mesh x", "--export-mesh works with --headless"},
      {"--headless --mesh-cell 0 --export-mesh x", "--mesh-cell must be"},
      {"--headless --mesh-iso nan --export-mesh x", "--mesh-iso must be"},
      {"--headless --mesh-anisotropic maybe --export-mesh x", "--mesh-anisotropic must be on or off"},
      {"--headless --bench-mesh off", "--bench-mesh needs --bench"},
  };
  for (const auto& [args, says] : cases) {
    const ProcessResult r = run_command(tidepool() + " " + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << args << "\n" << r.output;
  }
}

TEST(CliMesh, BenchTimesTheMeshOfTheLastState) {
  const ProcessResult r = run_command(tidepool() + " --bench --scene pool --particles 2000 --steps 5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // (" isotropic": a row of its own, not the end of "anisotropic")
  for (const char* says : {"surface mesh of the last state", " isotropic", "anisotropic", "field", "cubes",
                           "Mparticles/s/core"})
    EXPECT_NE(r.output.find(says), std::string::npos) << says << "\n" << r.output;
  const ProcessResult off = run_command(tidepool() + " --bench --scene pool --particles 2000 --steps 5 --bench-mesh off");
  ASSERT_EQ(off.exit_code, 0) << off.output;
  EXPECT_EQ(off.output.find("surface mesh"), std::string::npos) << off.output;
}
