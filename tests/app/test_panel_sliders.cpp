// The panel's parameter sliders, its Save screenshot button and its Spray and foam section,
// used with a simulated mouse in a headless Dear ImGui context (no window, no GL: ImGui
// computes a frame without drawing it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/water/panel.h"
#include "headless_imgui.h"
#include "imgui.h"
#include "imgui_internal.h"  // GImGui->HoveredId: which widget the mouse is over
#include "sim/water/params.h"

using namespace tp;

namespace {

class HeadlessImGui : public testing::Test {
 protected:
  void SetUp() override { tp::test::create_headless_imgui(800, 600); }
  void TearDown() override { ImGui::DestroyContext(); }

  static constexpr float kSliderWidth = 400;  ///< the slider's frame; its label follows

  // One frame with the mouse at `mouse` and the left button as given, in which `draw` adds
  // widgets to a window; the last widget's rectangle goes to lo_/hi_.
  template <class Draw>
  void frame_of(Draw draw, ImVec2 mouse, bool down) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = mouse;
    io.MouseDown[0] = down;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(700, 200));
    ImGui::Begin("test");
    draw();
    lo_ = ImGui::GetItemRectMin();
    hi_ = ImGui::GetItemRectMax();
    ImGui::End();
    ImGui::Render();
  }

  // A frame of one parameter's widget (frame and label in lo_/hi_): whether it changed.
  bool frame(const ParamInfo& info, SimParams& p, ImVec2 mouse, bool down) {
    bool changed = false;
    frame_of(
        [&] {
          ImGui::SetNextItemWidth(kSliderWidth);
          changed = param_widget(info, p);
        },
        mouse, down);
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
  ASSERT_EQ(solvers, 4);
  EXPECT_STREQ(solver_label(int(SolverKind::Wcsph)), "WCSPH");
  EXPECT_STREQ(solver_label(int(SolverKind::Pcisph)), "PCISPH");
  EXPECT_STREQ(solver_label(int(SolverKind::Pbf)), "PBF");
  EXPECT_STREQ(solver_label(int(SolverKind::Dfsph)), "DFSPH");
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

// The Save screenshot button asks the frame loop for one screenshot per click; the note
// under it (where the file went) shows for a few seconds, an error until the next save.
TEST_F(HeadlessImGui, SaveScreenshotButtonRequestsOneAndShowsTheNoteForAWhile) {
  AppControls controls;
  const auto frame = [&](ImVec2 mouse, bool down) {
    frame_of([&] { screenshot_button(controls); }, mouse, down);
  };
  frame(ImVec2(-100, -100), false);  // lays it out: with no note, the button is the last item
  const ImVec2 button_lo = lo_, button_hi = hi_;
  const ImVec2 on(0.5f * (button_lo.x + button_hi.x), 0.5f * (button_lo.y + button_hi.y));
  frame(on, false);
  EXPECT_FALSE(controls.screenshot_requested) << "hovering is not clicking";
  frame(on, true);
  frame(on, true);
  frame(on, false);
  EXPECT_TRUE(controls.screenshot_requested) << "a click requests a screenshot";
  controls.screenshot_requested = false;  // the frame loop saved it
  frame(on, false);
  EXPECT_FALSE(controls.screenshot_requested) << "one click, one screenshot";

  controls.screenshot_note = "Saved tidepool-20261122-103015.png (800x600)";
  controls.screenshot_note_time = ImGui::GetTime();
  frame(on, false);
  EXPECT_GT(lo_.y, button_hi.y - 1) << "the note is drawn below the button";
  const double t = controls.screenshot_note_time;
  EXPECT_TRUE(screenshot_note_visible(controls, t + 0.5 * kScreenshotNoteSeconds));
  EXPECT_FALSE(screenshot_note_visible(controls, t + kScreenshotNoteSeconds + 0.1));
  // ImGui's clock past the note's time: the button is the last item again.
  controls.screenshot_note_time = ImGui::GetTime() - kScreenshotNoteSeconds - 1.0;
  frame(on, false);
  EXPECT_FLOAT_EQ(lo_.y, button_lo.y) << "the note has gone";
  // An error stays until the next save replaces it.
  controls.screenshot_failed = true;
  controls.screenshot_note = "Screenshot not saved: cannot write 'x.png': Permission denied";
  EXPECT_TRUE(screenshot_note_visible(controls, t + 1000.0));
  frame(on, false);
  EXPECT_GT(lo_.y, button_hi.y - 1) << "the error is drawn below the button";
  controls.screenshot_note.clear();
  EXPECT_FALSE(screenshot_note_visible(controls, t)) << "no note, nothing shown";
}

// The spray, foam and bubble parameters have a section of their own, whatever the solver,
// and nothing else is in it.
TEST(PanelSections, DiffuseParametersHaveTheirOwnSection) {
  int diffuse = 0;
  for (int active = 0; active < int(solver_names().size()); ++active)
    for (const ParamInfo& info : param_table()) {
      SCOPED_TRACE(info.name);
      const char* section = param_section(info, active);
      const bool is_diffuse = std::string(info.name).rfind("diffuse", 0) == 0;
      if (is_diffuse) {
        ASSERT_NE(section, nullptr);
        EXPECT_STREQ(section, kDiffuseSection);
        diffuse += active == 0;
      } else if (section) {
        EXPECT_STRNE(section, kDiffuseSection);
      }
    }
  EXPECT_GE(diffuse, 10) << "the switch, the cap, the potentials' ranges, rates, lifetime, ...";
}

TEST(DiffuseCounts, TextGroupsThousands) {
  DiffuseCounts counts;
  counts.spray = 1234;
  counts.foam = 5678;
  counts.bubbles = 90;
  counts.capacity = 200000;
  EXPECT_EQ(diffuse_counts_text(counts), "Spray 1,234  Foam 5,678  Bubbles 90  of 200,000");
  counts = DiffuseCounts{};
  counts.foam = 1000000;
  EXPECT_EQ(diffuse_counts_text(counts), "Spray 0  Foam 1,000,000  Bubbles 0") << "no cap known";
}

// The section shows the live counts and every diffuse_* parameter, and its checkbox turns
// the diffuse particles off and on.
TEST_F(HeadlessImGui, SprayAndFoamSectionShowsCountsParametersAndSwitch) {
  SimParams p = default_params();
  ASSERT_EQ(p.diffuse, 1);
  DiffuseCounts counts;
  counts.spray = 1234;
  counts.foam = 56789;
  counts.bubbles = 90;
  counts.capacity = 200000;
  AppControls controls;
  ImVec2 first;  // where the first widget, the checkbox, starts
  std::string shown;
  const auto frame = [&](ImVec2 mouse, bool down) {
    frame_of(
        [&] {
          first = ImGui::GetCursorScreenPos();
          ImGui::LogToClipboard();  // the text of every widget, to the internal clipboard
          diffuse_section(p, counts, controls);
          ImGui::LogFinish();
          shown = ImGui::GetClipboardText();
        },
        mouse, down);
  };
  frame(ImVec2(-100, -100), false);
  EXPECT_NE(shown.find("Spray 1,234  Foam 56,789  Bubbles 90  of 200,000"), std::string::npos)
      << shown;
  for (const ParamInfo& info : param_table()) {
    if (std::string(info.name).rfind("diffuse_", 0) != 0) continue;
    EXPECT_NE(shown.find(info.label), std::string::npos)
        << info.name << " missing from:\n" << shown;
  }
  const float box = ImGui::GetFrameHeight();
  const ImVec2 on(first.x + 0.5f * box, first.y + 0.5f * box);
  for (int expected : {0, 1}) {
    frame(on, false);
    frame(on, true);
    frame(on, false);
    EXPECT_EQ(p.diffuse, expected) << "a click on the checkbox";
  }
}

// A value typed into a slider with Ctrl+click can be any float: ImGui keeps only the
// characters of a number (no "nan"), but 1e39 reads as infinity. An infinity is refused
// (the value from before the edit stays), a finite value beyond the range is clamped to
// the nearer end, and either way a note names the field and its range. (NaN written into
// the struct is swept in test_param_sweep.cpp.)
TEST_F(HeadlessImGui, TypedNanInfinityOrOutOfRangeValueIsRefusedOrClampedWithANote) {
  const ParamInfo& info = *find_param("diffuse_trapped_min");  // near the section's top
  SimParams p = default_params();
  p.diffuse_trapped_min = 7.0f;
  const DiffuseCounts counts;
  AppControls controls;
  ImGuiID id = 0;
  const auto frame = [&](ImVec2 mouse, bool down, bool ctrl, const char* typed = "") {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = ctrl;
    for (const char* c = typed; *c; ++c) io.AddInputCharacter(unsigned(*c));
    frame_of(
        [&] {
          id = ImGui::GetID((std::string(info.label) + "##" + info.name).c_str());
          diffuse_section(p, counts, controls);
        },
        mouse, down);
  };
  ImVec2 at(-1, -1);  // a point on the slider: where the mouse hovers it
  for (float y = 0; y < 200 && at.y < 0; y += 2) {
    frame(ImVec2(200, y), false, false);
    if (GImGui->HoveredId == id) at = ImVec2(200, y);
  }
  ASSERT_GE(at.y, 0) << "slider not found";
  struct Typed {
    const char* text;
    float expected;
    const char* says;
  };
  for (const Typed& t : {Typed{"1e30", 100.0f, "is above the maximum; clamped to 100"},
                         Typed{"-1", 0.0f, "is below the minimum; clamped to 0"},
                         Typed{"1e39", 7.0f, "is infinite; kept 7"},  // beyond a float
                         Typed{"-1e39", 7.0f, "is infinite; kept 7"}}) {
    SCOPED_TRACE(t.text);
    p.diffuse_trapped_min = 7.0f;
    controls.param_notes.clear();
    frame(at, true, true);  // Ctrl+click: the slider becomes a text field
    frame(at, false, true);
    frame(at, false, false, t.text);
    frame(ImVec2(-100, -100), true, false);  // click elsewhere: done typing
    frame(ImVec2(-100, -100), false, false);
    EXPECT_EQ(p.diffuse_trapped_min, t.expected);
    ASSERT_EQ(controls.param_notes.size(), 1u) << "value " << p.diffuse_trapped_min;
    const std::string& note = controls.param_notes[0];
    EXPECT_NE(note.find(std::string(info.name) + ": "), std::string::npos) << note;
    EXPECT_NE(note.find(t.says), std::string::npos) << note;
    EXPECT_NE(note.find("(valid [0, 100] m/s)"), std::string::npos) << note;
  }
}

// A clamped value's note shows under its own slider in the Parameters section, where the
// eye is while typing (at the section's foot, below Restore start values, it was out of
// sight): between gravity y's slider and gravity z's, which then stand a text line or
// more further apart than without a note.
TEST_F(HeadlessImGui, AClampNoteShowsUnderItsOwnSlider) {
  SimParams p = default_params();
  AppControls controls;
  const auto slider_top = [&](const char* name) {
    const ParamInfo& info = *find_param(name);
    for (float y = 0; y < 200; y += 1) {
      ImGuiID id = 0;
      frame_of(
          [&] {
            id = ImGui::GetID((std::string(info.label) + "##" + info.name).c_str());
            parameters_section(p, controls);
          },
          ImVec2(60, y), false);
      if (GImGui->HoveredId == id) return y;
    }
    return -1.0f;
  };
  const float y0 = slider_top("gravity_y"), z0 = slider_top("gravity_z");
  ASSERT_GE(y0, 0.0f) << "gravity y's slider not found";
  ASSERT_GT(z0, y0) << "gravity z's slider not found below it";
  controls.param_notes = {"gravity_y: -1e+09 is below the minimum; clamped to -100 (valid [-100, 100] m/s^2)"};
  const float y1 = slider_top("gravity_y"), z1 = slider_top("gravity_z");
  EXPECT_EQ(y1, y0) << "the note moved the slider it is about";
  EXPECT_GE(z1 - y1, z0 - y0 + ImGui::GetTextLineHeight()) << "no note between gravity y and gravity z";
  std::printf("gravity y to z: %.0f px, with a note about gravity y %.0f px\n", z0 - y0, z1 - y1);
}

// The surface's resolution control: switching Auto resolution off keeps the scale in use
// (no jump in the picture) and shows the slider, which stays within [0.5, 1].
TEST_F(HeadlessImGui, AutoResolutionOffKeepsTheScaleAndItsSliderStaysInRange) {
  SurfaceSettings surface;
  ImVec2 start;
  const auto frame = [&](ImVec2 mouse, bool down) {
    frame_of(
        [&] {
          start = ImGui::GetCursorScreenPos();
          surface_resolution(surface, 0.625f);
        },
        mouse, down);
  };
  const auto click = [&](ImVec2 at) {
    frame(at, false);
    frame(at, true);
    frame(at, true);
    frame(at, false);
  };
  frame(ImVec2(-100, -100), false);  // lays it out
  ASSERT_TRUE(surface.auto_scale);
  const float line = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemSpacing.y;
  const float half_box = 0.5f * ImGui::GetFrameHeight();
  click(ImVec2(start.x + half_box, start.y + half_box));  // the checkbox
  EXPECT_FALSE(surface.auto_scale);
  EXPECT_FLOAT_EQ(surface.fixed_scale, 0.625f) << "fixed where the automatic choice was";
  // The slider, on the next line: its left and right ends.
  const float y = start.y + line + half_box;
  click(ImVec2(start.x + 2.0f, y));
  EXPECT_FLOAT_EQ(surface.fixed_scale, kMinSurfaceScale);
  click(ImVec2(start.x + 0.65f * 700.0f - 20.0f, y));
  EXPECT_GT(surface.fixed_scale, 0.95f);
  EXPECT_LE(surface.fixed_scale, 1.0f);
  click(ImVec2(start.x + half_box, start.y + half_box));
  EXPECT_TRUE(surface.auto_scale) << "and back on";
}
