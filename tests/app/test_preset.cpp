// Parameter presets: the file written for every table field, read back exactly, and each
// kind of bad file refused with its own one-line message naming the file and the key.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>

#include "sim/scene/preset.h"
#include "sim/water/params.h"

using namespace tp;

namespace {

std::string temp_dir(const std::string& name) {
  const std::string dir = testing::TempDir() + "tidepool_preset_" + name;
  std::string command = "rm -rf '" + dir + "' && mkdir -p '" + dir + "'";
  EXPECT_EQ(std::system(command.c_str()), 0);
  return dir;
}

// Every field, bit for bit (floats compared as bytes: -0 and 0 differ, NaN equals itself).
void expect_same_fields(const SimParams& a, const SimParams& b) {
  for (const ParamInfo& info : param_table()) {
    if (info.real) {
      const float x = a.*info.real, y = b.*info.real;
      EXPECT_EQ(std::memcmp(&x, &y, sizeof(float)), 0)
          << info.name << ": " << double(x) << " came back as " << double(y);
    } else {
      EXPECT_EQ(a.*info.integer, b.*info.integer) << info.name;
    }
  }
}

// A valid value for each field drawn at random: anywhere in the range (on a log scale for
// logarithmic fields), at times exactly an end, for choices any of them.
SimParams random_params(std::mt19937& rng) {
  SimParams p = default_params();
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const ParamInfo& info : param_table()) {
    const double u = unit(rng);
    double v;
    if (u < 0.1) v = info.min;
    else if (u < 0.2) v = info.max;
    else if (info.logarithmic && info.min > 0)
      v = info.min * std::pow(info.max / info.min, unit(rng));
    else
      v = info.min + (info.max - info.min) * unit(rng);
    if (info.integer) v = std::floor(v);
    if (info.real) {
      // A float within the range (a double in range can round to a float just outside it).
      float f = float(v);
      while (double(f) > info.max) f = std::nextafter(f, -1e30f);
      while (double(f) < info.min) f = std::nextafter(f, 1e30f);
      p.*info.real = f;
    } else {
      p.*info.integer = int(v);
    }
  }
  if (p.dt_min > p.dt_max) std::swap(p.dt_min, p.dt_max);
  return p;
}

SimParams round_trip(const SimParams& p) {
  SimParams back = default_params();
  apply_preset(parse_preset(preset_json(p), "mem.json"), back);
  return back;
}

}  // namespace

TEST(Preset, RoundTripIsExactForEveryField) {
  expect_same_fields(default_params(), round_trip(default_params()));
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 300; ++trial) {
    SCOPED_TRACE(trial);
    const SimParams p = random_params(rng);
    expect_same_fields(p, round_trip(p));
    if (HasFailure()) {
      std::printf("%s", preset_json(p).c_str());
      return;
    }
  }
  // Every choice of every enum by name.
  for (const ParamInfo& info : param_table())
    for (int k = 0; k < int(info.choices.size()); ++k) {
      SimParams p = default_params();
      p.*info.integer = k;
      EXPECT_EQ(round_trip(p).*info.integer, k) << info.name << " = " << info.choices[size_t(k)];
    }
}

TEST(Preset, FileNamesEveryTableFieldWithChoicesByName) {
  SimParams p = default_params();
  p.solver = int(SolverKind::Pbf);
  p.viscosity = 0.01f;
  p.mouse_mode = int(MouseMode::Drag);
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(preset_json(p));
  EXPECT_EQ(doc["tidepool_preset"], 1);
  const auto& params = doc["params"];
  ASSERT_EQ(params.size(), param_table().size());
  size_t k = 0;
  for (auto it = params.begin(); it != params.end(); ++it, ++k)
    EXPECT_EQ(it.key(), param_table()[k].name) << "in the table's order";
  EXPECT_EQ(params["solver"], "pbf");
  EXPECT_EQ(params["mouse_mode"], "drag");
  EXPECT_EQ(params["diffuse"], "on");
  EXPECT_EQ(params["pbf_iterations"], 10);
  // The shortest text for the float, not 0.009999999776482582.
  EXPECT_NE(preset_json(p).find("\"viscosity\": 0.01,"), std::string::npos) << preset_json(p);
}

TEST(Preset, APartialPresetSetsOnlyItsKeys) {
  SimParams p = default_params();
  p.stiffness = 123456.0f;
  apply_preset(parse_preset(R"({"tidepool_preset": 1, "params": {"viscosity": 0.02, "solver": "pcisph"}})",
                            "part.json"),
               p);
  EXPECT_EQ(p.viscosity, 0.02f);
  EXPECT_EQ(p.solver, int(SolverKind::Pcisph));
  EXPECT_EQ(p.stiffness, 123456.0f) << "a key the file leaves out keeps its value";
}

TEST(Preset, EachKindOfBadFileHasItsOwnMessage) {
  struct Case {
    const char* what;
    const char* text;
    const char* says;
  } cases[] = {
      {"syntax", "{\"tidepool_preset\": 1,\n \"params\": {\"viscosity\": 0.01,}}",
       "preset file 'bad.json': JSON syntax error at line 2, column 31: "},
      {"not JSON at all", "viscosity = 0.01",
       "preset file 'bad.json': JSON syntax error at line 1, column 1: "},
      {"top level", "[1, 2]",
       "preset file 'bad.json': the top level must be an object {\"tidepool_preset\": 1, "
       "\"params\": {...}}, not an array"},
      {"not a preset", R"({"params": {"viscosity": 0.01}})",
       "preset file 'bad.json': tidepool_preset is missing (this is not a Tidepool preset file"},
      {"newer version", R"({"tidepool_preset": 2, "params": {}})",
       "preset file 'bad.json': tidepool_preset must be 1, not 2 (written by a newer Tidepool"},
      {"version type", R"({"tidepool_preset": "1", "params": {}})",
       "preset file 'bad.json': tidepool_preset must be 1, not the string \"1\""},
      {"unknown top-level key", R"({"tidepool_preset": 1, "params": {}, "scene": "pool"})",
       "preset file 'bad.json': scene is not a known key (expected one of: params, "
       "tidepool_preset)"},
      {"no params", R"({"tidepool_preset": 1})", "preset file 'bad.json': params is missing"},
      {"params type", R"({"tidepool_preset": 1, "params": [1]})",
       "preset file 'bad.json': params must be an object of parameter: value, not an array"},
      {"unknown key", R"({"tidepool_preset": 1, "params": {"viscosityy": 0.01}})",
       "preset file 'bad.json': params.viscosityy is not a parameter (valid keys: solver, "},
      {"out of range", R"({"tidepool_preset": 1, "params": {"viscosity": 5}})",
       "preset file 'bad.json': params.viscosity: 5 is outside its valid range [0, 0.1] m^2/s"},
      {"below range", R"({"tidepool_preset": 1, "params": {"cfl": 0.01}})",
       "preset file 'bad.json': params.cfl: 0.01 is outside its valid range [0.05, 1]"},
      {"wrong type", R"({"tidepool_preset": 1, "params": {"viscosity": "thick"}})",
       "preset file 'bad.json': params.viscosity must be a number in [0, 0.1] m^2/s, not the string \"thick\""},
      {"number as text", R"({"tidepool_preset": 1, "params": {"viscosity": "0.01"}})",
       "preset file 'bad.json': params.viscosity must be a number in [0, 0.1] m^2/s, not the string \"0.01\""},
      {"null", R"({"tidepool_preset": 1, "params": {"stiffness": null}})",
       "preset file 'bad.json': params.stiffness must be a number in [1000, 1e+07] Pa, not null"},
      {"choice type", R"({"tidepool_preset": 1, "params": {"solver": true}})",
       "preset file 'bad.json': params.solver must be one of wcsph pcisph pbf dfsph (or 0 to 3), not true"},
      {"unknown choice", R"({"tidepool_preset": 1, "params": {"solver": "sph"}})",
       "preset file 'bad.json': params.solver: 'sph' is not valid; expected one of wcsph pcisph "
       "pbf"},
      {"not whole", R"({"tidepool_preset": 1, "params": {"pbf_iterations": 2.5}})",
       "preset file 'bad.json': params.pbf_iterations: 2.5 must be a whole number in [2, 100]"},
      {"conflict", R"({"tidepool_preset": 1, "params": {"dt_min": 0.001, "dt_max": 0.0005}})",
       "preset file 'bad.json': params.dt_min: 0.001 is above dt_max 0.0005"},
      {"too deep", R"({"tidepool_preset": 1, "params": {"viscosity": [[[[[[[[[1]]]]]]]]]}})",
       "preset file 'bad.json': JSON nested more than 8 levels deep at line 1, column "},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    SimParams p = default_params();
    p.viscosity = 0.05f;
    const SimParams before = p;
    std::string message;
    try {
      apply_preset(parse_preset(c.text, "bad.json"), p);
    } catch (const PresetError& e) {
      message = e.what();
    }
    EXPECT_EQ(message.rfind(c.says, 0), 0u) << "message: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
    expect_same_fields(before, p);
  }
}

TEST(Preset, AllOrNothing) {
  // Every value is valid on its own; together they conflict: nothing is applied.
  SimParams p = default_params();
  p.dt_max = 0.001f;
  const SimParams before = p;
  const Preset preset =
      parse_preset(R"({"tidepool_preset": 1, "params": {"viscosity": 0.02, "dt_min": 0.0009,
                        "solver": "pbf"}})", "mixed.json");
  EXPECT_NO_THROW(apply_preset(preset, p)) << "dt_min 0.0009 <= dt_max 0.001";
  p = before;
  p.dt_max = 0.0005f;
  const SimParams tighter = p;
  EXPECT_THROW(apply_preset(preset, p), PresetError);
  expect_same_fields(tighter, p);
}

TEST(Preset, FilesSaveAtomicallyAndLoad) {
  const std::string dir = temp_dir("files");
  SimParams p = default_params();
  p.viscosity = 0.0375f;
  p.solver = int(SolverKind::Pcisph);
  std::string error;
  ASSERT_TRUE(save_preset_file(dir + "/a.json", p, &error)) << error;
  struct stat st;
  EXPECT_NE(stat((dir + "/a.json.part").c_str(), &st), 0) << "no temporary file left";
  SimParams back = default_params();
  apply_preset(load_preset_file(dir + "/a.json"), back);
  expect_same_fields(p, back);

  EXPECT_FALSE(save_preset_file(dir + "/missing/a.json", p, &error));
  EXPECT_NE(error.find("cannot write '" + dir + "/missing/a.json'"), std::string::npos) << error;

  try {
    load_preset_file(dir + "/nothing.json");
    ADD_FAILURE() << "a missing file loaded";
  } catch (const PresetError& e) {
    EXPECT_EQ(std::string(e.what()),
              "preset file '" + dir + "/nothing.json' cannot be opened: No such file or directory");
  }
  try {
    load_preset_file(dir);
    ADD_FAILURE() << "a directory loaded";
  } catch (const PresetError& e) {
    EXPECT_EQ(std::string(e.what()), "preset file '" + dir + "' is not a file");
  }
}
