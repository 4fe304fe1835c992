// Scene files: parsing, validation messages with key paths, particle generation.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "sim/water/params.h"
#include "sim/scene/scene.h"

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
  EXPECT_NE(error_of("{\n\"tank\": }").find("line 2"), std::string::npos)
      << error_of("{\n\"tank\": }");
  EXPECT_NE(error_of("[]").find("s.json"), std::string::npos);
  const std::string missing = error_of(R"({"fluid_blocks": [{"min":[0,0,0],"max":[1,1,1]}]})");
  EXPECT_NE(missing.find("tank is missing"), std::string::npos) << missing;
  const std::string bad_number = error_of(
      R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "fluid_blocks": [{"min":[0,0,0],"max":[1,"a",1]}]})");
  EXPECT_NE(bad_number.find("fluid_blocks[0].max[1] must be a number"), std::string::npos)
      << bad_number;
  const std::string inverted = error_of(
      R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "fluid_blocks": [{"min":[0.5,0,0],"max":[0.2,1,1]}]})");
  EXPECT_NE(inverted.find("fluid_blocks[0].max must be greater than min"), std::string::npos)
      << inverted;
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
    "fluid_blocks": [{"min":[0,0,0],"max":[0.5,0.5,0.5]}, {"min":[0.25,0,0],"max":[0.75,0.5,0.5]}]})",
                        "t");
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
    "fluid_blocks": [{"min":[0,0,0],"max":[1.03,0.5,1]}]})",
                        "t");
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
    EXPECT_NE(std::string(e.what()).find("MB of memory, but only 100 MB is free"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(build_initial_state(s, 0.7f), SceneError);  // fewer than two across the tank
}

namespace {

std::vector<std::string> shipped_scenes() {
  return list_scenes(TIDEPOOL_SOURCE_DIR "/assets/scenes", SceneKind::Water);
}

bool inside_box(Vec3 p, Vec3 lo, Vec3 hi) {
  return p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y && p.z >= lo.z && p.z <= hi.z;
}

}  // namespace

TEST(Scene, EveryShippedSceneBuildsFiniteWaterInsideTheTankAndOutsideTheObstacles) {
  const std::vector<std::string> names = shipped_scenes();
  for (const char* expected : {"dam_break", "pool", "double_dam_break", "drop_into_pool",
                               "fountain", "water_channel", "obstacles"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const Scene scene = find_scene(name, TIDEPOOL_SOURCE_DIR "/assets/scenes");
    EXPECT_EQ(scene.name, name);
    EXPECT_FALSE(scene.description.empty());
    const InitialState st = build_initial_state(scene, scene.spacing);
    // Every scene runs interactively on the CPU at its own spacing.
    EXPECT_GE(st.fluid.size(), scene.dimensions == 2 ? 3000u : 6000u);  // 2D: a plane of water
    EXPECT_LE(st.fluid.size(), 20000u);
    if (!scene.emitters.empty()) {
      EXPECT_LE(scene.max_particles, 20000u);
    }
    ASSERT_EQ(st.velocity.size(), st.fluid.size());
    for (const Vec4& p : st.fluid) {
      ASSERT_TRUE(is_finite(xyz(p)));
      ASSERT_TRUE(inside_box(xyz(p), st.tank_lo, st.tank_hi));
      for (const ObstacleShape& o : st.obstacles)
        ASSERT_GE(obstacle_distance(o, xyz(p)), 0.5f * st.spacing - 1e-5f);
    }
    ASSERT_EQ(st.emitters.size(), scene.emitters.size());
    for (size_t k = 0; k < st.emitters.size(); ++k) {
      EXPECT_TRUE(inside_box(st.emitters[k].position, scene.tank_lo, scene.tank_hi));
      EXPECT_FLOAT_EQ(st.emitters[k].velocity.x, scene.emitters[k].velocity.x);
      EXPECT_FLOAT_EQ(st.emitters[k].rate, scene.emitters[k].rate);
    }
    ASSERT_EQ(st.outflows.size(), scene.outflows.size());
    for (size_t k = 0; k < st.outflows.size(); ++k)
      EXPECT_FLOAT_EQ(st.outflows[k].hi.y, scene.outflows[k].hi.y);
    ASSERT_EQ(st.obstacles.size(), scene.obstacles.size());
    EXPECT_EQ(st.max_particles, scene.max_particles);
  }
}

TEST(Scene, ShippedScenesHaveTheirEmittersOutflowsAndObstacles) {
  const std::string dir = TIDEPOOL_SOURCE_DIR "/assets/scenes";
  const Scene fountain = find_scene("fountain", dir);
  ASSERT_EQ(fountain.emitters.size(), 1u);
  EXPECT_EQ(fountain.emitters[0].shape, 0);
  EXPECT_GT(fountain.emitters[0].velocity.y, 3.0f);
  EXPECT_LT(fountain.emitters[0].velocity.y, 4.0f);
  ASSERT_EQ(fountain.outflows.size(), 1u);
  EXPECT_FLOAT_EQ(fountain.outflows[0].lo.y, fountain.tank_lo.y) << "the drain is in the floor";
  const Scene channel = find_scene("water_channel", dir);
  ASSERT_EQ(channel.emitters.size(), 1u);
  EXPECT_EQ(channel.emitters[0].shape, 1);
  EXPECT_GT(channel.emitters[0].velocity.x, 1.0f);
  ASSERT_EQ(channel.outflows.size(), 1u);
  EXPECT_FLOAT_EQ(channel.outflows[0].hi.x, channel.tank_hi.x);
  const Scene obstacles = find_scene("obstacles", dir);
  ASSERT_EQ(obstacles.obstacles.size(), 2u);
  EXPECT_EQ(obstacles.obstacles[0].kind, int(ShapeKind::Sphere));
  EXPECT_EQ(obstacles.obstacles[1].kind, int(ShapeKind::Box));
  EXPECT_FLOAT_EQ(obstacles.obstacles[1].half_extent.y, 0.25f) << "size is stored as half extents";
  const Scene drop = find_scene("drop_into_pool", dir);
  ASSERT_EQ(drop.spheres.size(), 1u);
  const Scene twice = find_scene("double_dam_break", dir);
  ASSERT_EQ(twice.blocks.size(), 2u);
}

TEST(Scene, SpheresFillTheLatticeOnceAlongsideBlocks) {
  const Scene s = parse_scene(R"({"tank": {"min": [0,0,0], "max": [1,1,1]},
    "fluid_spheres": [{"center": [0.5,0.5,0.5], "radius": 0.3, "velocity": [0,-1,0]}]})",
                              "t");
  EXPECT_NEAR(fluid_volume(s), 4.0 / 3.0 * M_PI * 0.027, 1e-6);
  const InitialState st = build_initial_state(s, 0.02f);
  EXPECT_NEAR(double(st.fluid.size()), fluid_volume(s) / (0.02 * 0.02 * 0.02),
              0.02 * fluid_volume(s) / 8e-6);
  for (size_t k = 0; k < st.fluid.size(); ++k) {
    ASSERT_LE(length(xyz(st.fluid[k]) - Vec3{0.5f, 0.5f, 0.5f}), 0.3f + 1e-5f);
    ASSERT_FLOAT_EQ(st.velocity[k].y, -1.0f);
  }
  // A block and a sphere overlapping: the union, the block's velocity where both are.
  const Scene both = parse_scene(R"({"tank": {"min": [0,0,0], "max": [1,1,1]},
    "fluid_blocks": [{"min": [0,0,0], "max": [1,0.5,1]}],
    "fluid_spheres": [{"center": [0.5,0.5,0.5], "radius": 0.3, "velocity": [0,-1,0]}]})",
                                 "t");
  const InitialState u = build_initial_state(both, 0.05f);
  const InitialState block_only =
      build_initial_state(parse_scene(R"({"tank": {"min": [0,0,0], "max": [1,1,1]},
    "fluid_blocks": [{"min": [0,0,0], "max": [1,0.5,1]}]})",
                                      "t"),
                          0.05f);
  std::set<std::tuple<int, int, int>> seen;
  size_t above = 0;
  for (size_t k = 0; k < u.fluid.size(); ++k) {
    const Vec3 p = xyz(u.fluid[k]);
    ASSERT_TRUE(
        seen.insert({int(std::lround(p.x / 0.05f - 0.5f)), int(std::lround(p.y / 0.05f - 0.5f)),
                     int(std::lround(p.z / 0.05f - 0.5f))})
            .second)
        << "a lattice point twice";
    if (p.y > 0.5f) {
      ++above;
      ASSERT_FLOAT_EQ(u.velocity[k].y, -1.0f);
    } else {
      ASSERT_FLOAT_EQ(u.velocity[k].y, 0.0f);
    }
  }
  EXPECT_EQ(u.fluid.size(), block_only.fluid.size() + above);
  EXPECT_GT(above, 100u);
}

TEST(Scene, SphereCutByTheTankCountsOnlyItsPartInside) {
  // Half of the sphere is below the floor.
  const Scene s = parse_scene(R"({"tank": {"min": [0,0,0], "max": [1,1,1]},
    "fluid_spheres": [{"center": [0.5,0,0.5], "radius": 0.2}]})",
                              "t");
  EXPECT_NEAR(fluid_volume(s), 2.0 / 3.0 * M_PI * 0.008, 0.002 * fluid_volume(s));
  EXPECT_NEAR(spacing_for_count(s, 4000), std::cbrt(fluid_volume(s) / 4000), 1e-6);
}

TEST(Scene, NoWaterIsLeftInOrNearObstacles) {
  const Scene s = parse_scene(R"({"tank": {"min": [0,0,0], "max": [1,1,1]},
    "fluid_blocks": [{"min": [0,0,0], "max": [1,0.6,1]}],
    "obstacles": [{"shape": "sphere", "center": [0.3,0.3,0.3], "radius": 0.15},
                  {"shape": "box", "center": [0.7,0.2,0.7], "size": [0.2,0.4,0.3]}]})",
                              "t");
  ASSERT_EQ(s.obstacles.size(), 2u);
  EXPECT_FLOAT_EQ(s.obstacles[1].half_extent.z, 0.15f);
  const float spacing = 0.025f;
  const InitialState st = build_initial_state(s, spacing);
  ASSERT_EQ(st.obstacles.size(), 2u);
  size_t near = 0;
  for (const Vec4& p : st.fluid)
    for (const ObstacleShape& o : st.obstacles) {
      ASSERT_GE(obstacle_distance(o, xyz(p)), 0.5f * spacing);
      if (obstacle_distance(o, xyz(p)) < 1.5f * spacing) ++near;
    }
  EXPECT_GT(near, 100u) << "the water reaches the obstacles";
  const size_t full = 40u * 24u * 40u;
  // The removed points are about the obstacles' volumes grown by half a spacing.
  const double grown = 4.0 / 3.0 * M_PI * std::pow(0.15 + 0.5 * spacing, 3) + 0.225 * 0.425 * 0.325;
  EXPECT_NEAR(double(full - st.fluid.size()), grown / std::pow(spacing, 3),
              0.1 * grown / std::pow(spacing, 3));
}

TEST(Scene, EmitterOnlySceneBuildsNoFluidAndCountsItsParticleLimit) {
  const Scene s =
      parse_scene(R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "particle_spacing": 0.02,
    "emitters": [{"position": [0.5,0.8,0.5], "velocity": [0,-2,0], "radius": 0.05, "rate": 1000,
                  "start": 0.5, "stop": 3}],
    "outflows": [{"min": [0.9,0,0.9], "max": [1.2,0.1,1.2]}],
    "max_particles": 200000})",
                  "t");
  ASSERT_EQ(s.emitters.size(), 1u);
  EXPECT_FLOAT_EQ(s.emitters[0].rate, 1000.0f);
  EXPECT_FLOAT_EQ(s.emitters[0].start, 0.5f);
  EXPECT_FLOAT_EQ(s.emitters[0].stop, 3.0f);
  EXPECT_EQ(fluid_volume(s), 0.0);
  const InitialState st = build_initial_state(s, s.spacing);
  EXPECT_TRUE(st.fluid.empty());
  EXPECT_FALSE(st.boundary.empty());
  ASSERT_EQ(st.emitters.size(), 1u);
  EXPECT_FLOAT_EQ(st.emitters[0].radius, 0.05f);
  ASSERT_EQ(st.outflows.size(), 1u);
  EXPECT_EQ(st.max_particles, 200000u);
  // 200,000 particles need about 190 MB: refused in 20 MB, with the limit named.
  try {
    build_initial_state(s, s.spacing, 20'000'000);
    FAIL() << "200,000 particles fit in 20 MB";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("up to 200,000 with the emitters"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("max_particles"), std::string::npos) << e.what();
  }
  // --particles N on such a scene: its particle limit at the new spacing is about N.
  EXPECT_NEAR(spacing_for_count(s, 25000), 0.04f, 1e-5f);
}

TEST(Scene, AutomaticParticleLimitIsCountedInTheMemoryNeeded) {
  // 1,000 initial particles and an emitter: at least 100,000 (about 95 MB) must fit.
  const char* text = R"({"tank": {"min": [0,0,0], "max": [1,1,1]},
    "fluid_blocks": [{"min": [0,0,0], "max": [1,0.09,1]}],
    "emitters": [{"position": [0.5,0.8,0.5], "velocity": [0,-2,0], "radius": 0.05}]})";
  const Scene s = parse_scene(text, "t");
  EXPECT_THROW(build_initial_state(s, 0.04f, 100'000'000), SceneError);
  EXPECT_EQ(build_initial_state(s, 0.04f, 150'000'000).fluid.size(), 25u * 2u * 25u);
  Scene without = s;
  without.emitters.clear();
  EXPECT_NO_THROW(build_initial_state(without, 0.04f, 10'000'000));
}

TEST(Scene, CoarseSpacingWithoutEmittersIsRefused) {
  const Scene s = parse_scene(R"({"tank": {"min": [0,0,0], "max": [1,1,1]},
    "fluid_spheres": [{"center": [0.5,0.5,0.5], "radius": 0.01}]})",
                              "t");
  EXPECT_THROW(build_initial_state(s, 0.1f), SceneError);
}

TEST(Scene, EveryKeyIsDocumentedInTheManual) {
  // The scene table and its example live in docs/scenes.md (the README links to it).
  std::ifstream in(TIDEPOOL_SOURCE_DIR "/docs/scenes.md");
  ASSERT_TRUE(in) << "docs/scenes.md not found";
  std::stringstream page;
  page << in.rdbuf();
  const std::string text = page.str();
  const size_t section = text.find("## Scene files");
  ASSERT_NE(section, std::string::npos) << "docs/scenes.md has no Scene files section";
  const std::string scenes = text.substr(section, text.find("\n## ", section + 3) - section);
  // The known keys at every level, as the unknown-key message lists them.
  const char* objects[] = {
      R"({"zzz": 1})",
      R"({"tank": {"zzz": 1}})",
      R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "fluid_blocks": [{"zzz": 1}]})",
      R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "fluid_spheres": [{"zzz": 1}]})",
      R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "emitters": [{"zzz": 1}]})",
      R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "outflows": [{"zzz": 1}]})",
      R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "obstacles": [{"zzz": 1}]})",
      R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "camera": {"zzz": 1}})"};
  size_t checked = 0;
  for (const char* object : objects) {
    const std::string message = error_of(object);
    const size_t open = message.find("expected one of: ");
    ASSERT_NE(open, std::string::npos) << message;
    std::stringstream keys(message.substr(open + 17, message.find(')', open) - open - 17));
    std::string key;
    while (std::getline(keys, key, ',')) {
      key.erase(0, key.find_first_not_of(' '));
      // `key`, `parent[].key`, `key.child` or `key[].child` in the table.
      bool found = false;
      for (const std::string& form :
           {"`" + key + "`", "." + key + "`", "`" + key + ".", "`" + key + "[]."})
        found = found || scenes.find(form) != std::string::npos;
      EXPECT_TRUE(found) << key << " is not in the scene table of docs/scenes.md";
      ++checked;
    }
  }
  EXPECT_GE(checked, 35u);
  for (const std::string& name : shipped_scenes())
    EXPECT_NE(scenes.find("`" + name + "`"), std::string::npos)
        << "scene " << name << " is not listed in the Scene files section of docs/scenes.md";
  // The example parses and builds.
  const size_t open = scenes.find("```json\n");
  ASSERT_NE(open, std::string::npos) << "no example in the Scene files section of docs/scenes.md";
  const std::string example = scenes.substr(open + 8, scenes.find("```", open + 8) - open - 8);
  const Scene s = parse_scene(example, "docs/scenes.md example");
  EXPECT_EQ(s.emitters.size(), 1u);
  EXPECT_EQ(s.obstacles.size(), 1u);
  EXPECT_GT(build_initial_state(s, s.spacing).fluid.size(), 1000u);
}
