// Gas state files (src/sim/io/gas_state.h): a saved gas loads back exactly (fields, obstacles
// where they were moved, parameters, clock) and runs on as the original does; a missing,
// foreign, truncated or damaged file is a sentence naming it, with the running gas untouched.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "sim/io/gas_state.h"

namespace tp {
namespace {

GasSetup plume_setup() {
  GasSetup s;
  s.grid.n = Int3{16, 24, 12};
  s.grid.dx = 1.0f / 16.0f;
  s.grid.open = 1u << 3;
  ObstacleShape ball{};
  ball.kind = int(ShapeKind::Sphere);
  ball.center = Vec3{0.5f, 0.9f, 0.4f};
  ball.radius = 0.12f;
  s.obstacles.push_back(ball);
  GasSource src;
  src.center = Vec3{0.5f, 0.15f, 0.4f};
  src.radius = 0.12f;
  src.density = 2.0f;
  src.temperature = 20.0f;
  src.color = Vec3{1.0f, 0.6f, 0.3f};
  s.sources.push_back(src);
  return s;
}

std::string temp_path(const char* name) { return testing::TempDir() + name; }

void expect_same_fields(const GasSimulation& a, const GasSimulation& b) {
  std::vector<float> x, y;
  for (int axis = 0; axis < 3; ++axis) {
    a.read_velocity(axis, &x);
    b.read_velocity(axis, &y);
    EXPECT_EQ(x, y) << "velocity " << axis;
  }
  for (int ch = 0; ch < kGasChannels; ++ch) {
    a.read_channel(ch, &x);
    b.read_channel(ch, &y);
    EXPECT_EQ(x, y) << "channel " << ch;
  }
}

TEST(GasState, SavedGasLoadsBackAndRunsOnTheSame) {
  auto a = make_gas_simulation(BackendKind::Cpu);
  a->reset(plume_setup());
  a->params().vorticity = 1.7f;
  for (int k = 0; k < 12; ++k) {
    if (k == 5) a->move_obstacle(0, Vec3{0.6f, 0.9f, 0.4f});
    a->step();
  }
  const std::string path = temp_path("gas.tpgas");
  std::string error, source;
  ASSERT_TRUE(save_gas_state(path, *a, "assets/scenes/plume.json", &error)) << error;
  auto b = make_gas_simulation(BackendKind::Cpu);
  b->reset(plume_setup());
  ASSERT_TRUE(load_gas_state(path, *b, &source, &error)) << error;
  EXPECT_EQ(source, "assets/scenes/plume.json");
  EXPECT_EQ(b->stats().simulated_time, a->stats().simulated_time);
  EXPECT_EQ(b->stats().steps, a->stats().steps);
  EXPECT_EQ(b->params().vorticity, 1.7f);
  EXPECT_FLOAT_EQ(b->setup().obstacles[0].center.x, 0.6f);
  expect_same_fields(*a, *b);
  for (int k = 0; k < 5; ++k) a->step(), b->step();
  expect_same_fields(*a, *b);
  std::remove(path.c_str());
}

TEST(GasState, BadFilesAreRefusedAndTheGasRunsOnUntouched) {
  auto a = make_gas_simulation(BackendKind::Cpu);
  a->reset(plume_setup());
  for (int k = 0; k < 4; ++k) a->step();
  const std::string good = temp_path("good.tpgas");
  std::string error, source;
  ASSERT_TRUE(save_gas_state(good, *a, "x", &error)) << error;
  std::ifstream in(good, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto b = make_gas_simulation(BackendKind::Cpu);
  GasSetup other = plume_setup();
  other.grid.n = Int3{8, 8, 8};
  b->reset(other);
  b->step();
  std::vector<float> before;
  b->read_channel(kGasDensity, &before);
  const auto write = [](const std::string& path, const std::string& content) {
    std::ofstream(path, std::ios::binary) << content;
  };
  struct Case {
    const char* name;
    std::string content;
    const char* says;
  };
  std::string damaged = bytes;
  damaged[8] = 9;  // the version
  const Case cases[] = {
      {"truncated", bytes.substr(0, bytes.size() / 2), "ends early"},
      {"header only", bytes.substr(0, 40), "ends early"},
      {"foreign", "{\"name\": \"not a state\"}", "does not start as one"},
      {"empty", "", "does not start as one"},
      {"version", damaged, "version 9"},
      {"trailing", bytes + "xx", "bytes after"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = temp_path("bad.tpgas");
    write(path, c.content);
    error.clear();
    EXPECT_FALSE(load_gas_state(path, *b, &source, &error));
    EXPECT_NE(error.find(path), std::string::npos) << error;
    EXPECT_NE(error.find(c.says), std::string::npos) << error;
    std::vector<float> now;
    b->read_channel(kGasDensity, &now);
    EXPECT_EQ(now, before);
    EXPECT_EQ(b->setup().grid.n.x, 8);
  }
  EXPECT_FALSE(load_gas_state(temp_path("missing.tpgas"), *b, &source, &error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
  EXPECT_FALSE(save_gas_state("/nonexistent-dir/x.tpgas", *a, "x", &error));
  EXPECT_NE(error.find("/nonexistent-dir/x.tpgas"), std::string::npos) << error;
  std::remove(good.c_str());
}

}  // namespace
}  // namespace tp
