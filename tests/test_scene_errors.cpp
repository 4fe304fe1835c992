// Scene files with mistakes: each is refused with one line naming the file, the key path,
// what was expected and what was found.
#include <gtest/gtest.h>

#include <string>

#include "sim/scene/scene.h"

using namespace tp;

namespace {

std::string error_of(const std::string& json) {
  try {
    parse_scene(json, "bad.json");
  } catch (const SceneError& e) {
    return e.what();
  }
  return "(accepted)";
}

// A valid tank and water, followed by `rest` (keys, without a leading comma).
std::string scene_with(const std::string& rest) {
  return R"({"tank": {"min": [0,0,0], "max": [2,1,1]},
    "fluid_blocks": [{"min": [0,0,0], "max": [1,0.5,1]}])" +
         (rest.empty() ? std::string() : ",\n    " + rest) + "}";
}

std::string emitter(const std::string& keys) {
  return R"({"position": [0.5,0.5,0.5], "velocity": [1,0,0], )" + keys + "}";
}

struct Case {
  std::string json;
  std::string says;  // after "scene file 'bad.json': "
};

void expect_refused(const Case& c) {
  const std::string message = error_of(c.json);
  EXPECT_NE(message.find("scene file 'bad.json': " + c.says), std::string::npos)
      << "expected: " << c.says << "\ngot:      " << message << "\nfor:      " << c.json;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

}  // namespace

TEST(SceneErrors, EmittersNameTheEmitterAndKey) {
  const std::string ok = emitter(R"("radius": 0.1)");
  const Case cases[] = {
      {scene_with("\"emitters\": [" + ok + ", " + emitter(R"("radius": 0.1, "rate": -5)") + "]"),
       "emitters[1].rate must be a number in [0, 1e+09], not -5"},
      {scene_with("\"emitters\": [" +
                  emitter(R"("shape": "rectangle", "width": 0.2, "height": 0.1, "radius": 0.1)") +
                  "]"),
       "emitters[0].radius does not apply to a rectangle emitter"},
      {scene_with("\"emitters\": [" + emitter(R"("radius": 0.1, "width": 0.2)") + "]"),
       "emitters[0].width does not apply to a disk emitter"},
      {scene_with("\"emitters\": [" + emitter(R"("shape": "rectangle", "width": 0.2)") + "]"),
       "emitters[0].height is missing"},
      {scene_with("\"emitters\": [" + emitter(R"("radius": 0.1, "start": 2, "stop": 1.5)") + "]"),
       "emitters[0].stop must be later than start (2 s), or -1 for never, not 1.5"},
      {scene_with("\"emitters\": [" + emitter(R"("radius": 0.1, "start": 2, "stop": 2)") + "]"),
       "emitters[0].stop must be later than start (2 s)"},
      {scene_with("\"emitters\": [" + emitter(R"("radius": 0.1, "start": -1)") + "]"),
       "emitters[0].start must be a number in [0, 1e+06], not -1"},
      {scene_with("\"emitters\": [" + emitter(R"("shape": "cone", "radius": 0.1)") + "]"),
       "emitters[0].shape must be one of \"disk\", \"rectangle\", not the string \"cone\""},
      {scene_with("\"emitters\": [" + emitter(R"("radius": 0)") + "]"),
       "emitters[0].radius must be a number > 0 and at most 2 (the tank's largest side), not 0"},
      {scene_with("\"emitters\": [" + emitter(R"("radius": "0.1")") + "]"),
       "emitters[0].radius must be a number > 0, not the string \"0.1\""},
      {scene_with(R"("emitters": [{"position": [0.5,0.5,3], "velocity": [1,0,0], "radius": 0.1}])"),
       "emitters[0].position must be inside the tank ([0, 0, 0] to [2, 1, 1]), not [0.5, 0.5, 3]"},
      {scene_with(
           R"("emitters": [{"position": [0.5,0.5,0.5], "velocity": [0,0,0], "radius": 0.1}])"),
       "emitters[0].velocity must have a length (the speed of the water) in [0.01, 50] m/s, not 0"},
      {scene_with(
           R"("emitters": [{"position": [0.5,0.5,0.5], "velocity": [40,40,0], "radius": 0.1}])"),
       "emitters[0].velocity must have a length (the speed of the water) in [0.01, 50] m/s, not "
       "56.5"},
      {scene_with(R"("emitters": [{"velocity": [1,0,0], "radius": 0.1}])"),
       "emitters[0].position is missing"},
      {scene_with("\"emitters\": [" + emitter(R"("radius": 0.1, "sped": 3)") + "]"),
       "emitters[0].sped is not a known key (expected one of: height, position, radius, rate, "
       "shape, "
       "start, stop, velocity, width)"},
      {scene_with(R"("emitters": {"position": [0.5,0.5,0.5]})"),
       "emitters must be an array of emitters, not an object"},
      {scene_with(R"("emitters": [3])"), "emitters[0] must be an object, not 3"},
      {scene_with("\"emitters\": [" + emitter(R"("radius": 0.1, "start": 1, "stop": 1.00000001)") +
                  "]"),
       "emitters[0].stop must be later than start (1 s), or -1 for never, not 1"},
  };
  for (const Case& c : cases) expect_refused(c);
}

TEST(SceneErrors, ObstaclesAndOutflowsNameTheirKeys) {
  std::string nine;
  for (int k = 0; k < 9; ++k)
    nine += std::string(k ? ", " : "") +
            R"({"shape": "sphere", "center": [1,0.5,0.5], "radius": 0.05})";
  const Case cases[] = {
      {scene_with(R"("obstacles": [{"shape": "sphere", "center": [1,0.5,0.5], "radius": -0.2}])"),
       "obstacles[0].radius must be a number > 0 and at most 2 (the tank's largest side), not "
       "-0.2"},
      {scene_with(R"("obstacles": [{"shape": "sphere", "center": [1,0.5,0.5]}])"),
       "obstacles[0].radius is missing"},
      {scene_with(
           R"("obstacles": [{"shape": "sphere", "center": [1,0.5,0.5], "radius": 0.1, "size": [1,1,1]}])"),
       "obstacles[0].size does not apply to a sphere obstacle"},
      {scene_with(R"("obstacles": [{"shape": "box", "center": [1,0.5,0.5], "radius": 0.1}])"),
       "obstacles[0].radius does not apply to a box obstacle"},
      {scene_with(R"("obstacles": [{"shape": "box", "center": [1,0.5,0.5], "size": [0.2,0,0.2]}])"),
       "obstacles[0].size[1] must be a number > 0 and at most 4 (twice the tank's largest side), "
       "not 0"},
      {scene_with(R"("obstacles": [{"shape": "box", "center": [1,0.5,0.5], "size": [0.2,0.2]}])"),
       "obstacles[0].size must be an array of 3 numbers, not an array of 2 elements"},
      {scene_with(R"("obstacles": [{"center": [1,0.5,0.5], "radius": 0.1}])"),
       "obstacles[0].shape is missing"},
      {scene_with(R"("obstacles": [{"shape": "sphere", "center": [1,-0.5,0.5], "radius": 0.1}])"),
       "obstacles[0].center must be inside the tank ([0, 0, 0] to [2, 1, 1]), not [1, -0.5, 0.5]"},
      {scene_with("\"obstacles\": [" + nine + "]"),
       "obstacles must hold at most 8 obstacles, not 9"},
      {scene_with(R"("outflows": [{"min": [3,0,0], "max": [4,1,1]}])"),
       "outflows[0] must overlap the tank ([0, 0, 0] to [2, 1, 1]), not [3, 0, 0] to [4, 1, 1]"},
      {scene_with(R"("outflows": [{"min": [1,0,0], "max": [0.5,1,1]}])"),
       "outflows[0].max must be greater than min on every axis, not [0.5, 1, 1] with min [1, 0, "
       "0]"},
      {scene_with(R"("outflows": [{"min": [1,0,0]}])"), "outflows[0].max is missing"},
  };
  for (const Case& c : cases) expect_refused(c);
}

TEST(SceneErrors, FluidParticleLimitAndWater) {
  const std::string tank = R"({"tank": {"min": [0,0,0], "max": [2,1,1]}, )";
  const Case cases[] = {
      {tank + R"("fluid_spheres": [{"center": [1,0.5,"a"], "radius": 0.2}]})",
       "fluid_spheres[0].center[2] must be a number, not the string \"a\""},
      {tank + R"("fluid_spheres": [{"center": [1,0.5,0.5], "radius": 0}]})",
       "fluid_spheres[0].radius must be a number > 0 and at most 10000, not 0"},
      {tank + R"("fluid_spheres": [{"center": [1,0.5,0.5]}]})",
       "fluid_spheres[0].radius is missing"},
      // Found by the fuzz test: > 0 as a double, 0 as the float it is stored in.
      {tank + R"("fluid_spheres": [{"center": [1,0.5,0.5], "radius": 5e-324}]})",
       "fluid_spheres[0].radius must be a number > 0 and at most 10000, not 4.94066e-324, which is "
       "too "
       "small to hold"},
      {tank +
           R"("fluid_spheres": [{"center": [1,0.5,0.5], "radius": 0.1, "velocity": [0,-200,0]}]})",
       "fluid_spheres[0].velocity[1] must be a number in [-100, 100], not -200"},
      {tank + R"("fluid_spheres": [{"center": [9,9,9], "radius": 0.5}]})",
       "fluid_spheres do not overlap the tank and there are no emitters: the scene has no water"},
      {tank + R"("fluid_blocks": []})",
       "fluid_blocks is missing: the scene has no water (give fluid_blocks, "
       "fluid_spheres or emitters)"},
      {R"({"tank": {"min": [0,0,0], "max": [2,1,1]}})",
       "fluid_blocks is missing: the scene has no water"},
      {tank + R"("fluid_blocks": [{"min": [5,5,5], "max": [6,6,6]}]})",
       "fluid_blocks do not overlap the tank and there are no emitters: the scene has no water"},
      {scene_with(R"("max_particles": 500)"),
       "max_particles must be 0 (automatic) or a whole number in [1000, 50000000], not 500"},
      {scene_with(R"("max_particles": 1500.5)"),
       "max_particles must be a whole number in [0, 50000000], not 1500.5"},
      {scene_with(R"("max_particles": -3)"),
       "max_particles must be a whole number in [0, 50000000], not -3"},
      {scene_with(R"("max_particles": 18446744073709551615)"),
       "max_particles must be a whole number in [0, 50000000], not 18446744073709551615"},
      {scene_with(R"("max_particles": "lots")"),
       "max_particles must be a whole number in [0, 50000000], not the string \"lots\""},
      {scene_with(R"("particle_spacing": null)"), "particle_spacing must be a number, not null"},
      {scene_with(R"("camera": {"pitch": 95})"),
       "camera.pitch must be a number in [-89, 89], not 95"},
      {R"({"tank": [0,0,0]})", "tank must be an object, not an array of 3 elements"},
      {"[]", "the top level must be an object, not an array of 0 elements"},
      {"3", "the top level must be an object, not 3"},
  };
  for (const Case& c : cases) expect_refused(c);
  // 1e5 is a whole number even when written with an exponent.
  EXPECT_EQ(parse_scene(scene_with(R"("max_particles": 1e5)"), "t").max_particles, 100000u);
  EXPECT_EQ(parse_scene(scene_with(R"("max_particles": 0)"), "t").max_particles, 0u);
}

TEST(SceneErrors, UnknownKeysListTheKnownOnes) {
  expect_refused({scene_with(R"("emiters": [])"),
                  "emiters is not a known key (expected one of: bodies, camera, description, dimensions, emitters, "
                  "fluid_blocks, fluid_spheres, gas, max_particles, name, obstacles, outflows, params, "
                  "particle_spacing, tank)"});
  expect_refused(
      {scene_with(
           R"("obstacles": [{"shape": "box", "center": [1,0.5,0.5], "size": [1,1,1], "spin": 1}])"),
       "obstacles[0].spin is not a known key (expected one of: center, radius, shape, size)"});
  // A key with a line break and a very long key stay on one line, shortened.
  const std::string odd = error_of(scene_with("\"a\\nb\": 1"));
  EXPECT_NE(odd.find("a\\nb is not a known key"), std::string::npos) << odd;
  const std::string long_key = error_of(scene_with("\"" + std::string(5000, 'k') + "\": 1"));
  EXPECT_NE(long_key.find("kkk... is not a known key"), std::string::npos) << long_key;
  EXPECT_LT(long_key.size(), 500u);
}

TEST(SceneErrors, SyntaxErrorsGiveLineAndColumn) {
  // Line 3, column 22 is the '2' where a ',' or ']' was expected.
  const std::string text =
      "{\n  \"tank\": {\"min\": [0,0,0], \"max\": [1,1,1]},\n  \"fluid_blocks\": [1 2]\n}";
  const std::string message = error_of(text);
  EXPECT_NE(message.find("scene file 'bad.json': JSON syntax error at line 3, column 22: "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("expected ']'"), std::string::npos) << message;
  EXPECT_EQ(message.find("json.exception"), std::string::npos)
      << "nlohmann's tag is left out: " << message;
  EXPECT_NE(error_of("{\"tank\": ")
                .find("JSON syntax error at line 1, column 10: unexpected end of input"),
            std::string::npos)
      << error_of("{\"tank\": ");
  EXPECT_NE(error_of("").find("JSON syntax error at line 1, column 1"), std::string::npos)
      << error_of("");
  // A string with a raw line break in it: the message stays on one line.
  const std::string broken = error_of("{\n\"na\nme\": 1}");
  EXPECT_NE(broken.find("JSON syntax error at line 2, column 4"), std::string::npos) << broken;
  EXPECT_EQ(broken.find('\n'), std::string::npos) << broken;
  EXPECT_NE(error_of(scene_with(R"("particle_spacing": 1e400)"))
                .find("scene file 'bad.json': JSON error at line 3, column 25: number overflow "
                      "parsing '1e400'"),
            std::string::npos)
      << error_of(scene_with(R"("particle_spacing": 1e400)"));
}

TEST(SceneErrors, DeepNestingAndHugeFilesAreRefusedBeforeParsing) {
  const std::string deep =
      "{\"tank\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_NE(error_of(deep).find(
                "scene file 'bad.json': JSON nested more than 64 levels deep at line 1, column 73"),
            std::string::npos)
      << error_of(deep);
  // Brackets inside strings, escaped quotes included, are not nesting.
  const std::string in_string = scene_with("\"name\": \"\\\"" + std::string(200, '[') + "\"");
  EXPECT_EQ(parse_scene(in_string, "t").name, "\"" + std::string(200, '['));
  // 64 levels pass the scan and reach the Reader.
  const std::string at_limit = "{\"tank\": " + std::string(63, '[') + std::string(63, ']') + "}";
  EXPECT_NE(error_of(at_limit).find("tank must be an object, not an array of 1 element"),
            std::string::npos)
      << error_of(at_limit);
  const std::string huge = scene_with("\"description\": \"" + std::string(17 << 20, 'x') + "\"");
  EXPECT_NE(error_of(huge).find(
                "scene file 'bad.json' is 17.9 MB, more than the 16 MB a scene file may be"),
            std::string::npos)
      << error_of(huge).substr(0, 200);
}

namespace {
std::string gas_scene(const std::string& gas) {
  return R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "gas": {)" + gas + "}}";
}
}  // namespace

TEST(SceneErrors, GasScenesNameTheirKeys) {
  const Case cases[] = {
      {gas_scene(R"("dimensions": 4)"), "gas.dimensions must be a whole number in [2, 3], not 4"},
      {gas_scene(R"("cells": 2)"), "gas.cells must be a whole number in [4, 1024], not 2"},
      {gas_scene(R"("open_sides": ["up"])"),
       R"(gas.open_sides[0] must be one of "left", "right", "bottom", "top", "back", "front", not the string "up")"},
      {gas_scene(R"("dimensions": 2, "open_sides": ["front"])"), "gas.open_sides[0] cannot be \"back\" or \"front\" in 2D"},
      {gas_scene(R"("walls": "sticky")"), R"(gas.walls must be one of "free-slip", "no-slip", not the string "sticky")"},
      {gas_scene(R"("wall_velocity": {"lid": [1,0,0]})"), "gas.wall_velocity.lid is not a side"},
      {gas_scene(R"("sources": [{"center": [0.5,2,0.5], "radius": 0.1}])"), "gas.sources[0].center must be inside the tank"},
      {gas_scene(R"("sources": [{"center": [0.5,0.5,0.5]}])"), "gas.sources[0].radius is missing"},
      {gas_scene(R"("sources": [{"center": [0.5,0.5,0.5], "radius": 0.1, "color": [2,0,0]}])"),
       "gas.sources[0].color[0] must be a number in [-1, 1], not 2"},
      {gas_scene(R"("smoke_blocks": [{"min": [0,0,0], "max": [0,1,1]}])"), "gas.smoke_blocks[0].max must be greater than min"},
      {gas_scene(R"("params": {"vorticity": 50})"), "gas.params.vorticity is invalid: vorticity: 50 is outside its valid range [0, 10]"},
      {gas_scene(R"("params": {"stiffness": 1})"), "gas.params.stiffness is invalid: unknown parameter 'stiffness'; valid keys: dt_max"},
      {R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "gas": {}, "fluid_blocks": [{"min": [0,0,0], "max": [1,1,1]}]})",
       "fluid_blocks is for water; a gas scene (with \"gas\") has smoke_blocks and sources in \"gas\""},
  };
  for (const Case& c : cases) expect_refused(c);
  const Scene ok = parse_scene(gas_scene(R"("dimensions": 2, "open_sides": ["top", "left"], "wall_velocity": {"top": [1,0,0]})"), "ok.json");
  EXPECT_TRUE(ok.is_gas);
  EXPECT_EQ(ok.gas.open, (1u << 3) | (1u << 0));
  EXPECT_EQ(ok.gas.wall_velocity[3].x, 1.0f);
}
