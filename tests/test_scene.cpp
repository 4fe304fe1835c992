// Scene files: parsing, validation messages with key paths, particle generation.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>

#include "sim/params.h"
#include "sim/scene.h"

using namespace tp;

namespace {

std::string error_of(const std::string& json) {
  try {
    parse_scene(json, "s.json");
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

const char* kValid = R"({
  "name": "t", "tank": {"min": [0,0,0], "max": [1,1,1]}, "particle_spacing": 0.05,
  "fluid_blocks": [{"min": [0,0,0], "max": [0.5,0.5,1]}],
  "camera": {"target": [0.5,0.3,0.5], "distance": 2, "yaw": 10, "pitch": 20},
  "params": {"viscosity": 0.01, "mouse_mode": "drag"}})";

}  // namespace

TEST(Scene, ParsesAValidFile) {
  const Scene s = parse_scene(kValid, "s.json");
  EXPECT_EQ(s.name, "t");
  EXPECT_FLOAT_EQ(s.spacing, 0.05f);
  ASSERT_EQ(s.blocks.size(), 1u);
  EXPECT_FLOAT_EQ(s.blocks[0].hi.x, 0.5f);
  EXPECT_FLOAT_EQ(s.camera.distance, 2.0f);
  SimParams p = default_params();
  apply_scene_params(s, p);
  EXPECT_FLOAT_EQ(p.viscosity, 0.01f);
  EXPECT_EQ(p.mouse_mode, int(MouseMode::Drag));
}

TEST(Scene, ErrorsNameTheFileTheKeyPathAndWhatWasExpected) {
  EXPECT_NE(error_of("{\"tank\": ").find("JSON syntax error"), std::string::npos);
  EXPECT_NE(error_of("{\n\"tank\": }").find("line 2"), std::string::npos) << error_of("{\n\"tank\": }");
  EXPECT_NE(error_of("[]").find("s.json"), std::string::npos);
  const std::string missing = error_of(R"({"fluid_blocks": [{"min":[0,0,0],"max":[1,1,1]}]})");
  EXPECT_NE(missing.find("tank is missing"), std::string::npos) << missing;
  const std::string bad_number = error_of(
      R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "fluid_blocks": [{"min":[0,0,0],"max":[1,"a",1]}]})");
  EXPECT_NE(bad_number.find("fluid_blocks[0].max[1] must be a number"), std::string::npos) << bad_number;
  const std::string inverted = error_of(
      R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "fluid_blocks": [{"min":[0.5,0,0],"max":[0.2,1,1]}]})");
  EXPECT_NE(inverted.find("fluid_blocks[0].max must be greater than min"), std::string::npos) << inverted;
  const std::string unknown = error_of(
      R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "fluid_blocks": [{"min":[0,0,0],"max":[1,1,1]}], "tnak": 1})");
  EXPECT_NE(unknown.find("tnak is not a known key"), std::string::npos) << unknown;
  const std::string bad_param = error_of(
      R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "fluid_blocks": [{"min":[0,0,0],"max":[1,1,1]}], "params": {"viscosity": -3}})");
  EXPECT_NE(bad_param.find("params.viscosity"), std::string::npos) << bad_param;
  const std::string outside = error_of(
      R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "fluid_blocks": [{"min":[2,2,2],"max":[3,3,3]}]})");
  EXPECT_NE(outside.find("no water"), std::string::npos) << outside;
}

TEST(Scene, LatticeFillsBlocksOnceAndBoundaryContinuesIt) {
  Scene s = parse_scene(R"({"tank": {"min": [0,0,0], "max": [1,1,1]},
    "fluid_blocks": [{"min":[0,0,0],"max":[0.5,0.5,0.5]}, {"min":[0.25,0,0],"max":[0.75,0.5,0.5]}]})", "t");
  const InitialState st = build_initial_state(s, 0.05f);
  // Union of the two overlapping blocks: 15 x 10 x 10 points, none twice.
  EXPECT_EQ(st.fluid.size(), 15u * 10u * 10u);
  // Boundary: a shell two spacings thick around 20^3 interior points.
  EXPECT_EQ(st.boundary.size(), 24u * 24u * 24u - 20u * 20u * 20u);
  for (const Vec4& b : st.boundary) {
    const bool outside = b.x < 0 || b.x > 1 || b.y < 0 || b.y > 1 || b.z < 0 || b.z > 1;
    ASSERT_TRUE(outside);
  }
}

TEST(Scene, TankIsRoundedDownToWholeSpacings) {
  Scene s = parse_scene(R"({"tank": {"min": [0,0,0], "max": [1.03,1,1]},
    "fluid_blocks": [{"min":[0,0,0],"max":[1.03,0.5,1]}]})", "t");
  const InitialState st = build_initial_state(s, 0.1f);
  EXPECT_NEAR(st.tank_hi.x, 1.0f, 1e-5f);
  for (const Vec4& p : st.fluid) EXPECT_LT(p.x, st.tank_hi.x);
}

TEST(Scene, ParticleCountSetsTheSpacing) {
  Scene s = parse_scene(kValid, "s.json");
  const float spacing = spacing_for_count(s, 10000);
  const InitialState st = build_initial_state(s, spacing);
  EXPECT_NEAR(double(st.fluid.size()), 10000.0, 1500.0);
}

TEST(Scene, ImpossibleParticleCountsAreRefusedWithTheMemoryNeeded) {
  Scene s = parse_scene(kValid, "s.json");
  try {
    build_initial_state(s, spacing_for_count(s, 40'000'000'000ULL));
    FAIL() << "40 billion particles were accepted";
  } catch (const SceneError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("MB of memory"), std::string::npos) << what;
  }
  // More memory than there is (a 100 MB machine), refused before any allocation.
  try {
    build_initial_state(s, spacing_for_count(s, 2'000'000), 100'000'000);
    FAIL() << "2 M particles were accepted in 100 MB";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("MB of memory, but only 100 MB is free"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(build_initial_state(s, 0.7f), SceneError);  // fewer than two across the tank
}
