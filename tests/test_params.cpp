// SimParams: one table of names, ranges and defaults; clamping; --set parsing.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <limits>
#include <set>

#include "sim/water/params.h"

using namespace tp;

TEST(Params, TableNamesAreUniqueAndDefaultsInRange) {
  std::set<std::string> names;
  const SimParams d = default_params();
  for (const ParamInfo& info : param_table()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_TRUE((info.real != nullptr) != (info.integer != nullptr)) << info.name;
    EXPECT_LE(info.min, info.fallback) << info.name;
    EXPECT_GE(info.max, info.fallback) << info.name;
    EXPECT_EQ(info.get(d), float(info.fallback)) << info.name;
    EXPECT_GT(std::string(info.help).size(), 10u) << info.name << " needs a tooltip";
  }
  // Every float field of SimParams appears in the table (by size: no field forgotten).
  EXPECT_EQ(param_table().size() * 4, sizeof(SimParams));
}

TEST(Params, ClampFixesEveryAbsurdValueAndSaysSo) {
  const double absurd[] = {0.0, -1.0, 1e30, -1e30, std::nan(""),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity()};
  for (const ParamInfo& info : param_table()) {
    for (double v : absurd) {
      SimParams p = default_params();
      info.set(p, v);
      const double before = info.get(p);
      const auto notes = clamp_params(p);
      const double after = info.get(p);
      EXPECT_TRUE(std::isfinite(after)) << info.name << " = " << v;
      EXPECT_GE(after, float(info.min)) << info.name << " = " << v;
      EXPECT_LE(after, float(info.max)) << info.name << " = " << v;
      if (!(before == after)) {
        ASSERT_FALSE(notes.empty()) << info.name << " = " << v;
        EXPECT_NE(notes[0].find(info.name), std::string::npos) << notes[0];
      }
      // Everything else stays valid and unchanged.
      const SimParams d = default_params();
      for (const ParamInfo& other : param_table()) {
        if (&other != &info && std::string(other.name) != "dt_min") {
          EXPECT_EQ(other.get(p), other.get(d)) << other.name;
        }
      }
    }
  }
}

TEST(Params, SetFromTextAcceptsValidAndRejectsInvalidWithAReason) {
  SimParams p = default_params();
  std::string error;
  EXPECT_TRUE(set_param_from_text(p, "viscosity", "0.01", &error)) << error;
  EXPECT_FLOAT_EQ(p.viscosity, 0.01f);
  EXPECT_TRUE(set_param_from_text(p, "mouse_mode", "drag", &error)) << error;
  EXPECT_EQ(p.mouse_mode, int(MouseMode::Drag));
  EXPECT_TRUE(set_param_from_text(p, "mouse_mode", "1", &error)) << error;
  EXPECT_EQ(p.mouse_mode, int(MouseMode::Pull));

  EXPECT_FALSE(set_param_from_text(p, "viscosityy", "1", &error));
  EXPECT_NE(error.find("unknown parameter 'viscosityy'"), std::string::npos) << error;
  EXPECT_NE(error.find("stiffness"), std::string::npos) << "lists the valid keys: " << error;
  EXPECT_FALSE(set_param_from_text(p, "stiffness", "abc", &error));
  EXPECT_NE(error.find("stiffness"), std::string::npos) << error;
  EXPECT_FALSE(set_param_from_text(p, "stiffness", "1e30", &error));
  EXPECT_NE(error.find("outside its valid range"), std::string::npos) << error;
  EXPECT_FALSE(set_param_from_text(p, "stiffness", "nan", &error));
  EXPECT_FALSE(set_param_from_text(p, "mouse_mode", "1.5", &error));
  EXPECT_FALSE(set_param_from_text(p, "mouse_mode", "sideways", &error));
  EXPECT_NE(error.find("push"), std::string::npos) << error;
  EXPECT_FLOAT_EQ(p.stiffness, default_params().stiffness) << "a refused value changes nothing";
}

TEST(Params, EveryParameterIsDocumentedInTheManual) {
  // The parameter table lives in docs/parameters.md (the README links to it).
  std::ifstream in(TIDEPOOL_SOURCE_DIR "/docs/parameters.md");
  ASSERT_TRUE(in) << "docs/parameters.md not found";
  std::stringstream text;
  text << in.rdbuf();
  for (const ParamInfo& info : param_table())
    EXPECT_NE(text.str().find(std::string("`") + info.name + "`"), std::string::npos)
        << info.name << " is missing from the parameter table in docs/parameters.md";
}

TEST(Params, ValuesAtTheEndsOfTheirRangesAreAcceptedAndKept) {
  // Fields are floats: a value set to exactly its bound must not read as beyond it.
  for (const ParamInfo& info : param_table()) {
    for (double bound : {info.min, info.max}) {
      SimParams p = default_params();
      std::ostringstream text;
      text.precision(17);
      text << bound;
      std::string error;
      ASSERT_TRUE(set_param_from_text(p, info.name, text.str(), &error)) << error;
      if (std::string(info.name) == "dt_min" || std::string(info.name) == "dt_max") continue;
      EXPECT_TRUE(clamp_params(p).empty()) << info.name << " = " << bound;
    }
  }
}
