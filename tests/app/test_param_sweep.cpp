// Every SimParams field x {min, max, 0, -1, -1e30, 1e30, NaN, +inf, -inf} through each way a
// value gets in: --set on the command line, a scene file's params, a preset file, and the
// struct as the panel's sliders write it. Text is refused whole when a value is invalid,
// with a message naming the field and its range; the struct is clamped (NaN and infinities
// keep the value from before the edit) with a note naming both. The fields come from
// param_table(), the same table the parsers and the panel read, so a new field is swept
// as soon as it exists.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/cli.h"
#include "sim/scene/preset.h"
#include "app/start/setup.h"
#include "sim/water/params.h"
#include "sim/scene/scene.h"

using namespace tp;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> sweep_values(const ParamInfo& info) {
  return {info.min, info.max, 0.0, -1.0, -1e30, 1e30, std::nan(""), kInf, -kInf};
}

// The value as a user would type it: the table's bound exactly, "nan", "inf".
std::string text_of(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", v);
  return text;
}

// Whether the field can hold v as given: in range, finite, whole for int fields.
bool valid(const ParamInfo& info, double v) {
  if (!std::isfinite(v)) return false;
  if (info.integer) return v >= info.min && v <= info.max && v == std::floor(v);
  return float(v) >= float(info.min) && float(v) <= float(info.max);
}

// Every field of p is finite and within its range, and dt_min <= dt_max.
void expect_all_valid(const SimParams& p, const std::string& context) {
  for (const ParamInfo& info : param_table())
    EXPECT_TRUE(valid(info, info.get(p))) << context << ": " << info.name << " = " << info.get(p);
  EXPECT_LE(p.dt_min, p.dt_max) << context;
}

// The message names the field and its range, as the table gives it, on one line.
void expect_names_field_and_range(const std::string& message, const ParamInfo& info,
                                  const std::string& context) {
  EXPECT_NE(message.find(info.name), std::string::npos) << context << ": " << message;
  EXPECT_NE(message.find(param_range_text(info)), std::string::npos)
      << context << ": " << message << "\n  lacks the range " << param_range_text(info);
  EXPECT_EQ(message.find('\n'), std::string::npos) << context << ": " << message;
}

bool same(const SimParams& a, const SimParams& b) {
  for (const ParamInfo& info : param_table())
    if (info.get(a) != info.get(b) && !(std::isnan(info.get(a)) && std::isnan(info.get(b))))
      return false;
  return true;
}

size_t field_slot(const ParamInfo& info) {
  static SimParams probe{};
  const char* base = reinterpret_cast<const char*>(&probe);
  const char* at = info.real ? reinterpret_cast<const char*>(&(probe.*info.real))
                             : reinterpret_cast<const char*>(&(probe.*info.integer));
  return size_t(at - base) / 4;
}

// Runs `apply` on the default parameters; returns the message it threw ("" if none).
template <class Apply>
std::string message_of(Apply apply, SimParams& p) {
  try {
    apply(p);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

void sweep_text_path(const char* path, const std::function<void(SimParams&, const ParamInfo&,
                                                                 const std::string&)>& apply) {
  size_t cases = 0;
  for (const ParamInfo& info : param_table()) {
    for (double v : sweep_values(info)) {
      const std::string text = text_of(v);
      const std::string context = std::string(path) + " " + info.name + "=" + text;
      SimParams p = default_params();
      const std::string message =
          message_of([&](SimParams& q) { apply(q, info, text); }, p);
      if (valid(info, v)) {
        EXPECT_EQ(message, "") << context;
        EXPECT_EQ(info.get(p), info.real ? double(float(v)) : v) << context;
      } else {
        ASSERT_NE(message, "") << context << " was accepted: " << info.name << " = "
                               << info.get(p);
        expect_names_field_and_range(message, info, context);
        EXPECT_TRUE(same(p, default_params())) << context << ": a refused value changed "
                                                 << "the parameters";
      }
      expect_all_valid(p, context);
      ++cases;
    }
  }
  EXPECT_EQ(cases, param_table().size() * 9);
}

}  // namespace

// The sweep iterates the table; this makes sure the table is the whole struct: every
// 4-byte field of SimParams is described by exactly one entry.
TEST(ParamSweep, TableCoversEveryFieldOfSimParamsOnce) {
  std::vector<int> covered(sizeof(SimParams) / 4, 0);
  for (const ParamInfo& info : param_table()) {
    ASSERT_LT(field_slot(info), covered.size()) << info.name;
    covered[field_slot(info)]++;
  }
  for (size_t k = 0; k < covered.size(); ++k)
    EXPECT_EQ(covered[k], 1) << "SimParams field at byte " << 4 * k;
  EXPECT_EQ(param_table().size() * 4, sizeof(SimParams));
}

TEST(ParamSweep, CommandLineSetRefusesEveryInvalidValueNamingFieldAndRange) {
  sweep_text_path("--set", [](SimParams& p, const ParamInfo& info, const std::string& text) {
    std::string arg = std::string(info.name) + "=" + text;
    std::vector<std::string> args = {"tidepool", "--headless", "--set", arg};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    Options options;
    std::string error;
    if (!parse_command_line(int(argv.size()), argv.data(), &options, &error))
      throw std::runtime_error(error);
    apply_overrides(options.sets, p);
  });
}

TEST(ParamSweep, SceneFileRefusesEveryInvalidValueNamingFieldAndRange) {
  sweep_text_path("scene", [](SimParams& p, const ParamInfo& info, const std::string& text) {
    // Numbers as JSON numbers; NaN and infinities (which JSON has no numbers for) as text.
    const bool number = std::isfinite(std::strtod(text.c_str(), nullptr));
    const std::string value = number ? text : "\"" + text + "\"";
    const std::string json =
        "{\"tank\": {\"min\": [0,0,0], \"max\": [1,1,1]}, \"particle_spacing\": 0.1, "
        "\"fluid_blocks\": [{\"min\": [0,0,0], \"max\": [0.5,0.5,0.5]}], \"params\": {\"" +
        std::string(info.name) + "\": " + value + "}}";
    apply_scene_params(parse_scene(json, "sweep.json"), p);
  });
}

TEST(ParamSweep, PresetFileRefusesEveryInvalidValueNamingFieldAndRange) {
  sweep_text_path("preset", [](SimParams& p, const ParamInfo& info, const std::string& text) {
    const bool number = std::isfinite(std::strtod(text.c_str(), nullptr));
    const std::string value = number ? text : "\"" + text + "\"";
    const std::string json = "{\"tidepool_preset\": 1, \"params\": {\"" +
                             std::string(info.name) + "\": " + value + "}}";
    apply_preset(parse_preset(json, "sweep.json"), p);
  });
}

// The panel writes a slider's value (typed with Ctrl+click: any float, "nan" and "inf"
// included) straight into the live struct, then calls clamp_params with the struct as it
// was before the edit.
TEST(ParamSweep, PanelStructIsClampedOrKeptWithANoteNamingFieldAndRange) {
  size_t cases = 0, clamped = 0, kept = 0;
  for (const ParamInfo& info : param_table()) {
    for (double v : sweep_values(info)) {
      const std::string context = std::string("struct ") + info.name + " = " + text_of(v);
      SimParams before = default_params();
      // An edit from a state away from the default, so "kept" is told from "reset".
      const double other = info.integer ? info.min : 0.5 * (info.min + info.max);
      info.set(before, other == info.get(before) ? info.max : other);
      clamp_params(before);  // dt_min at its mid-range exceeds the default dt_max
      SimParams p = before;
      info.set(p, v);
      const double written = info.get(p);
      const std::vector<std::string> notes = clamp_params(p, before);
      expect_all_valid(p, context);
      const double after = info.get(p);
      if (valid(info, written)) {
        EXPECT_EQ(after, written) << context;
      } else if (!std::isfinite(written) || !info.choices.empty()) {
        EXPECT_EQ(after, info.get(before)) << context << ": refused, keeps the value before";
        ++kept;
      } else {
        EXPECT_EQ(after, written < info.min ? info.real ? double(float(info.min)) : info.min
                                            : info.real ? double(float(info.max)) : info.max)
            << context << ": clamped to the nearer end";
        ++clamped;
      }
      if (after != written) {
        ASSERT_FALSE(notes.empty()) << context << " changed to " << after << " without a note";
        expect_names_field_and_range(notes.front(), info, context);
      }
      for (const ParamInfo& o : param_table()) {
        if (&o == &info || (info.real == &SimParams::dt_max && o.real == &SimParams::dt_min))
          continue;
        EXPECT_EQ(o.get(p), o.get(before)) << context << " changed " << o.name;
      }
      ++cases;
    }
  }
  EXPECT_EQ(cases, param_table().size() * 9);
  EXPECT_GT(clamped, 0u);
  EXPECT_GT(kept, 0u);
  std::printf("[ sweep ] %zu fields x 9 values: %zu clamped, %zu kept from before\n",
              param_table().size(), clamped, kept);
}

// Two fields that are each in range but conflict (dt_min above dt_max) are reported on
// every path, naming both.
TEST(ParamSweep, DtMinAboveDtMaxIsReportedOnEveryPath) {
  SimParams p = default_params();
  p.dt_max = 1e-4f;
  p.dt_min = 1e-3f;
  const std::vector<std::string> notes = clamp_params(p, default_params());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("dt_min"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("dt_max"), std::string::npos) << notes[0];
  EXPECT_EQ(p.dt_min, p.dt_max);

  Options options;
  options.sets = {{"dt_max", "1e-4"}, {"dt_min", "1e-3"}};
  SimParams q = default_params();
  try {
    apply_overrides(options.sets, q);
    ADD_FAILURE() << "--set dt_min above dt_max was accepted";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("dt_max"), std::string::npos) << e.what();
  }
}
