// PLY export and the JSON report.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "sim/io/particle_io.h"

using namespace tp;

TEST(Io, PlyIsBinaryLittleEndianInIdOrder) {
  Snapshot s;
  for (uint i = 0; i < 3; ++i) {
    s.id.push_back(i);
    s.position.push_back(Vec4{float(i), 2.0f * i, 3.0f * i, 0});
    s.velocity.push_back(Vec4{-float(i), 0, 1, 0});
  }
  const std::string path = testing::TempDir() + "tp_test.ply";
  std::string error;
  ASSERT_TRUE(write_ply(path, s, &error)) << error;
  EXPECT_NE(access((path + ".part").c_str(), F_OK), 0) << "temporary file left behind";
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string bytes = buf.str();
  const size_t end = bytes.find("end_header\n");
  ASSERT_NE(end, std::string::npos);
  const std::string header = bytes.substr(0, end);
  EXPECT_NE(header.find("format binary_little_endian 1.0"), std::string::npos);
  EXPECT_NE(header.find("element vertex 3"), std::string::npos);
  const char* body = bytes.data() + end + 11;
  ASSERT_EQ(bytes.size() - (end + 11), 3u * 28u);
  uint32_t id;
  float v[6];
  std::memcpy(&id, body + 2 * 28, 4);
  std::memcpy(v, body + 2 * 28 + 4, 24);
  EXPECT_EQ(id, 2u);
  EXPECT_FLOAT_EQ(v[1], 4.0f);
  EXPECT_FLOAT_EQ(v[3], -2.0f);
  std::remove(path.c_str());
}

TEST(Io, UnwritableDirectoryIsAClearError) {
  Snapshot s;
  std::string error;
  EXPECT_FALSE(write_ply("/nonexistent-dir/x.ply", s, &error));
  EXPECT_NE(error.find("/nonexistent-dir/x.ply"), std::string::npos) << error;
}

TEST(Io, ReportHasEveryField) {
  RunReport r;
  r.backend = "CPU";
  r.solver = "wcsph";
  r.particles = 10;
  r.wall_seconds = 2.0;
  r.stats.steps = 100;
  r.stats.phases = {PhaseTime{"grid", 50.0}, PhaseTime{"forces", 150.0}};
  r.check.outside = 0;
  const auto j = nlohmann::json::parse(report_json(r));
  for (const char* key : {"backend", "solver", "particles", "steps", "simulated_time_s", "wall_time_s",
                          "ms_per_phase", "density_error_mean", "density_error_max", "max_speed",
                          "outside_tank", "nan_count"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_DOUBLE_EQ(j["ms_per_phase"]["forces"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(j["ms_per_step"].get<double>(), 2.0);
}

TEST(Io, CheckCountsOutsideAndNonFinite) {
  Snapshot s;
  s.position = {Vec4{0.5f, 0.5f, 0.5f, 0}, Vec4{2, 0.5f, 0.5f, 0}, Vec4{NAN, 0, 0, 0}};
  s.velocity = {Vec4{}, Vec4{}, Vec4{}};
  const ParticleCheck c = check_particles(s, Vec3{0, 0, 0}, Vec3{1, 1, 1});
  EXPECT_EQ(c.outside, 1u);
  EXPECT_EQ(c.nonfinite, 1u);
}

namespace {

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

Snapshot particles(uint n) {
  Snapshot s;
  for (uint i = 0; i < n; ++i) {
    s.id.push_back(i);
    s.position.push_back(Vec4{float(i), 0, 0, 0});
    s.velocity.push_back(Vec4{0, 0, 0, 0});
  }
  return s;
}

}  // namespace

// The writer's fault-injection seam fills the disk partway through a file: the write
// fails with one line naming the file and the reason, and neither the file nor its
// temporary is left; a file of that name from before stays as it was.
TEST(Io, AFullDiskIsAOneLineErrorAndLeavesNoPartOfTheFile) {
  const std::string path = testing::TempDir() + "tp_full_disk.ply";
  std::remove(path.c_str());
  std::string error;
  for (int64_t room : {int64_t(0), int64_t(1), int64_t(4000)}) {
    SCOPED_TRACE(room);
    simulate_full_disk_after(room);
    EXPECT_FALSE(write_ply(path, particles(1000), &error));  // 28 kB
    simulate_full_disk_after(-1);
    EXPECT_EQ(error, "cannot write '" + path + "': No space left on device");
    EXPECT_FALSE(exists(path));
    EXPECT_FALSE(exists(path + ".part"));
  }
  ASSERT_TRUE(write_file_atomic(path, std::string("the old frame"), &error)) << error;
  simulate_full_disk_after(100);
  EXPECT_FALSE(write_ply(path, particles(1000), &error));
  simulate_full_disk_after(-1);
  EXPECT_EQ(file_text(path), "the old frame");
  EXPECT_FALSE(exists(path + ".part"));
  // The seam counts across files: room for one small file, not for the next.
  simulate_full_disk_after(30);
  EXPECT_TRUE(write_file_atomic(path, std::string(20, 'a'), &error)) << error;
  EXPECT_FALSE(write_file_atomic(path, std::string(20, 'b'), &error));
  simulate_full_disk_after(-1);
  EXPECT_EQ(file_text(path), std::string(20, 'a'));
  std::remove(path.c_str());
}

TEST(Io, ADirectoryThatCannotHoldTheFileIsAClearError) {
  const std::string file = testing::TempDir() + "tp_not_a_dir";
  std::string error;
  ASSERT_TRUE(write_file_atomic(file, std::string("x"), &error)) << error;
  EXPECT_FALSE(write_ply(file + "/frame.ply", particles(3), &error));
  EXPECT_EQ(error, "cannot write '" + file + "/frame.ply': Not a directory");
  EXPECT_FALSE(check_writable(file + "/frame.ply", &error));
  EXPECT_EQ(error, "cannot write '" + file + "/frame.ply': Not a directory");
  std::remove(file.c_str());
}
