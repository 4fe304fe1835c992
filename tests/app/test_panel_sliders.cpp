// The panel's parameter sliders, dragged with a simulated mouse in a headless Dear ImGui
// context (no window, no GL: ImGui computes a frame without drawing it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/panel.h"
#include "imgui.h"
#include "sim/params.h"

using namespace tp;

namespace {

class HeadlessImGui : public testing::Test {
 protected:
  void SetUp() override {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(800, 600);
    io.DeltaTime = 1.0f / 60.0f;
    io.IniFilename = nullptr;
    unsigned char* pixels = nullptr;
    int width = 0, height = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);  // builds the font atlas
  }
  void TearDown() override { ImGui::DestroyContext(); }

  static constexpr float kSliderWidth = 400;  ///< the slider's frame; its label follows

  // One frame with the mouse at `mouse` and the left button as given; the widget's
  // rectangle (frame and label) goes to lo_/hi_.
  bool frame(const ParamInfo& info, SimParams& p, ImVec2 mouse, bool down) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = mouse;
    io.MouseDown[0] = down;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(700, 200));
    ImGui::Begin("test");
    ImGui::SetNextItemWidth(kSliderWidth);
    const bool changed = param_widget(info, p);
    lo_ = ImGui::GetItemRectMin();
    hi_ = ImGui::GetItemRectMax();
    ImGui::End();
    ImGui::Render();
    return changed;
  }

  // Presses on the slider at pixel `x` from its left edge (clamped to the frame) and
  // releases; returns the value it set.
  float click(const ParamInfo& info, float start, float x) {
    SimParams p = default_params();
    p.*info.real = start;
    frame(info, p, ImVec2(-100, -100), false);  // lays the widget out
    const ImVec2 at(lo_.x + std::clamp(x, 0.0f, kSliderWidth - 1), 0.5f * (lo_.y + hi_.y));
    frame(info, p, at, false);
    frame(info, p, at, true);
    frame(info, p, at, true);
    frame(info, p, at, false);
    return p.*info.real;
  }
  float width() const { return kSliderWidth; }

  ImVec2 lo_, hi_;
};

ParamInfo logarithmic(const char* name) {
  ParamInfo info = *find_param(name);
  info.logarithmic = true;
  return info;
}

}  // namespace

// ImGui 1.86 reads "%g" as precision -1 and so treats every magnitude below 10 as zero on
// a logarithmic slider: dt_min (1e-7 .. 1e-3) jumped to 10 on any drag.
TEST_F(HeadlessImGui, EveryLogarithmicSliderStaysInItsRangeAndIsMonotonic) {
  std::vector<ParamInfo> sliders;
  for (const ParamInfo& info : param_table())
    if (info.real && info.logarithmic) sliders.push_back(info);
  sliders.push_back(logarithmic("viscosity"));  // the table makes it logarithmic soon
  for (const ParamInfo& info : sliders) {
    SCOPED_TRACE(info.name);
    float previous = -1.0f;
    click(info, float(info.fallback), 0);
    const float w = width();
    for (float f = 0.0f; f <= 1.0001f; f += 0.05f) {  // f = 1 clicks the last pixel
      const float v = click(info, float(info.fallback), f * w);
      SCOPED_TRACE(testing::Message() << "at " << f << " of the width: " << v);
      EXPECT_GE(v, float(info.min));
      EXPECT_LE(v, float(info.max));
      EXPECT_GE(v, previous) << "not monotonic";
      previous = v;
    }
    EXPECT_EQ(click(info, float(info.fallback), 0), float(info.min)) << "left end";
    EXPECT_EQ(click(info, float(info.fallback), w), float(info.max)) << "right end";
  }
}

TEST_F(HeadlessImGui, LogarithmicSliderFromZeroReachesZeroAndOneMicro) {
  const ParamInfo viscosity = logarithmic("viscosity");
  ASSERT_EQ(viscosity.min, 0.0);
  EXPECT_EQ(click(viscosity, 0.001f, 0), 0.0f) << "the left end is exactly 0";
  // Pixel by pixel from the left end: the first positive values are small (1e-7 ..), and
  // water's 1e-6 is within a pixel's step.
  float smallest = 1.0f, nearest_micro = 1.0f;
  for (float x = 0; x < 120; x += 1) {
    const float v = click(viscosity, 0.001f, x);
    if (v > 0.0f) smallest = std::min(smallest, v);
    if (v > 0.0f) nearest_micro = std::min(nearest_micro, std::fabs(std::log10(v / 1e-6f)));
  }
  EXPECT_LE(smallest, 2e-7f);
  EXPECT_LT(nearest_micro, 0.05f) << "a value within 12 % of 1e-6 is reachable";
  // A value set elsewhere (--set viscosity=1e-6) survives the widget untouched.
  SimParams p = default_params();
  p.viscosity = 1e-6f;
  frame(viscosity, p, ImVec2(-100, -100), false);
  EXPECT_EQ(p.viscosity, 1e-6f);
}

TEST(SliderSpec, NamesItsPrecisionForLogarithmicRanges) {
  const SliderSpec dt_min = slider_spec(*find_param("dt_min"));
  EXPECT_EQ(dt_min.format, "%.7g s");
  EXPECT_FALSE(dt_min.zero_at_min);
  const SliderSpec viscosity = slider_spec(logarithmic("viscosity"));
  EXPECT_TRUE(viscosity.zero_at_min);
  EXPECT_FLOAT_EQ(viscosity.min, 1e-7f) << "six decades below the maximum 0.1";
  EXPECT_EQ(viscosity.format, "%.7g m^2/s");
  EXPECT_EQ(slider_spec(*find_param("gravity_y")).format, "%g m/s^2") << "linear: as before";
}

// A unit with a "%" (the PCISPH tolerance) is printf text: written "%%", or ImGui drops it.
TEST(SliderSpec, PercentUnitIsEscaped) {
  const SliderSpec tolerance = slider_spec(*find_param("pcisph_tolerance"));
  EXPECT_NE(tolerance.format.find(" %%"), std::string::npos) << tolerance.format;
  char shown[64];
  std::snprintf(shown, sizeof(shown), tolerance.format.c_str(), 1.0);
  EXPECT_STREQ(shown, "1 %");
}

// Per-solver parameters are shown only while their solver runs, in a section named after
// it; the shared ones always, in their own sections.
TEST(PanelSections, SolverParametersFollowTheActiveSolver) {
  const int solvers = int(solver_names().size());
  ASSERT_EQ(solvers, 3);
  EXPECT_STREQ(solver_label(int(SolverKind::Wcsph)), "WCSPH");
  EXPECT_STREQ(solver_label(int(SolverKind::Pcisph)), "PCISPH");
  EXPECT_STREQ(solver_label(int(SolverKind::Pbf)), "PBF");
  for (int active = 0; active < solvers; ++active) {
    SCOPED_TRACE(solver_label(active));
    int own = 0;
    for (const ParamInfo& info : param_table()) {
      SCOPED_TRACE(info.name);
      const char* section = param_section(info, active);
      if (std::string(info.name) == "solver") {
        EXPECT_EQ(section, nullptr) << "the solver combo sits in the Simulation section";
      } else if (info.solver < 0) {
        ASSERT_NE(section, nullptr) << "a shared parameter is always shown";
        for (int k = 0; k < solvers; ++k) EXPECT_STRNE(section, solver_label(k));
      } else if (info.solver == active) {
        ASSERT_NE(section, nullptr);
        EXPECT_STREQ(section, solver_label(active));
        ++own;
      } else {
        EXPECT_EQ(section, nullptr) << "another solver's parameter is hidden";
      }
    }
    EXPECT_GT(own, 0) << "each solver has parameters of its own";
  }
  const ParamInfo& stiffness = *find_param("stiffness");
  EXPECT_STREQ(param_section(stiffness, int(SolverKind::Wcsph)), "WCSPH");
  EXPECT_EQ(param_section(stiffness, int(SolverKind::Pbf)), nullptr);
  EXPECT_STREQ(param_section(*find_param("pbf_iterations"), int(SolverKind::Pbf)), "PBF");
  EXPECT_STREQ(param_section(*find_param("viscosity"), int(SolverKind::Pbf)), "Fluid");
}
