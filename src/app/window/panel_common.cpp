#include "app/window/panel_common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <system_error>

#include "app/window/panel_style.h"
#include "app/window/screenshot_file.h"
#include "imgui.h"
#include "render/screenshot.h"
#include "sim/gas/gas_params.h"
#include "sim/water/params.h"

namespace tp {

template <class P>
SliderSpec slider_spec(const FieldInfo<P>& info) {
  SliderSpec spec;
  spec.min = float(info.min);
  spec.max = float(info.max);
  // "%g" with no precision for linear sliders: ImGui rounds slider values to a
  // "%.Nf"/"%.Ng" precision, which would snap small values such as dt_min = 1e-6 to zero.
  int digits = 0;
  if (info.logarithmic && info.max > 0.0) {
    // ImGui 1.86's logarithmic slider treats every magnitude below 0.1^N as zero, N being
    // the format's precision, and reads "%g" as N = -1: below 10. A range under 10 then
    // maps every drag to 10. So the format names its precision: six significant digits
    // (what "%g" shows), more when the range starts lower.
    double lowest = info.min;
    if (info.min <= 0.0) {
      // Min 0 cannot be on a log scale: the slider starts six decades below the maximum,
      // a round power of ten, and its left end reads as 0.
      lowest = std::pow(10.0, std::floor(std::log10(info.max)) - 6.0);
      spec.min = float(lowest);
      spec.zero_at_min = true;
    }
    digits = std::max(6, int(std::ceil(-std::log10(lowest) - 1e-9)));
  }
  spec.format = digits > 0 ? "%." + std::to_string(digits) + "g" : "%g";
  // The unit is printf text too: "%" (the PCISPH tolerance) must be written "%%".
  if (info.unit[0]) spec.format += " ";
  for (const char* c = info.unit; *c; ++c) spec.format += *c == '%' ? "%%" : std::string(1, *c);
  return spec;
}

template <class P>
bool param_widget(const FieldInfo<P>& info, P& p) {
  const std::string label = std::string(info.label) + "##" + info.name;
  bool changed = false;
  if (info.integer) {
    int& value = p.*info.integer;
    if (!info.choices.empty()) {
      const int n = int(info.choices.size());
      const char* preview = value >= 0 && value < n ? info.choices[size_t(value)] : "?";
      if (ImGui::BeginCombo(label.c_str(), preview)) {
        for (int k = 0; k < n; ++k) {
          if (ImGui::Selectable(info.choices[size_t(k)], k == value)) {
            value = k;
            changed = true;
          }
        }
        ImGui::EndCombo();
      }
    } else {
      changed = ImGui::SliderInt(label.c_str(), &value, int(info.min), int(info.max));
    }
  } else {
    const SliderSpec spec = slider_spec(info);
    float& value = p.*info.real;
    const ImGuiSliderFlags flags = info.logarithmic ? ImGuiSliderFlags_Logarithmic : 0;
    changed = ImGui::SliderFloat(label.c_str(), &value, spec.min, spec.max, spec.format.c_str(),
                                 flags);
    // The floor is the slider's 0 (a value typed below it too); 0 shows as "0".
    if (changed && spec.zero_at_min && value <= spec.min) value = 0.0f;
  }
  tooltip(info.help);
  return changed;
}

template SliderSpec slider_spec(const FieldInfo<SimParams>&);
template SliderSpec slider_spec(const FieldInfo<GasParams>&);
template bool param_widget(const FieldInfo<SimParams>&, SimParams&);
template bool param_widget(const FieldInfo<GasParams>&, GasParams&);

bool screenshot_note_visible(const WindowControls& controls, double now) {
  if (controls.screenshot_note.empty()) return false;
  return controls.screenshot_failed || now - controls.screenshot_note_time < kScreenshotNoteSeconds;
}

void screenshot_button(WindowControls& controls) {
  if (ImGui::Button("Save screenshot")) controls.screenshot_requested = true;
  tooltip(
      "Saves the next frame's 3D view, without the panel, as a PNG named after the time "
      "(tidepool-YYYYMMDD-HHMMSS.png) in the working directory. Key: F12.");
  if (!screenshot_note_visible(controls, ImGui::GetTime())) return;
  ImGui::PushStyleColor(ImGuiCol_Text, controls.screenshot_failed ? kErrorColor : kDoneColor);
  ImGui::TextWrapped("%s", controls.screenshot_note.c_str());
  ImGui::PopStyleColor();
}

namespace {

// In a window made narrower or shorter than the panel (down to 1x1), ImGui pushes the panel
// past the window's top-left corner to keep a corner of it visible; when the window grows
// again the panel comes back inside, at 10 px from the edge. Only on the frame the display
// size changes, so that a panel dragged partly out of sight on purpose stays there.
void keep_inside_after_resize() {
  ImGuiStorage* storage = ImGui::GetStateStorage();
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const ImGuiID key_w = ImGui::GetID("##display_w"), key_h = ImGui::GetID("##display_h");
  const bool resized = storage->GetFloat(key_w, display.x) != display.x ||
                       storage->GetFloat(key_h, display.y) != display.y;
  storage->SetFloat(key_w, display.x);
  storage->SetFloat(key_h, display.y);
  const ImVec2 pos = ImGui::GetWindowPos();
  if (resized && (pos.x < 0.0f || pos.y < 0.0f) && display.x >= ImGui::GetWindowWidth() + 20.0f)
    ImGui::SetWindowPos(ImVec2(pos.x < 0.0f ? 10.0f : pos.x, pos.y < 0.0f ? 10.0f : pos.y));
}

}  // namespace

bool begin_panel(const std::string& title, PanelExtent* extent, WidgetLog& widgets) {
  const float em = ImGui::GetFontSize();
  // Fixed width, height following the open sections up to the window's height (then it
  // scrolls), so opening a section never needs a manual resize.
  // Leaves room at the bottom for the help overlay (up to two lines).
  const float max_height = ImGui::GetMainViewport()->WorkSize.y - 30.0f - 3.0f * em;
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSizeConstraints(
      ImVec2(em * 26.0f, 0.0f), ImVec2(em * 26.0f, max_height > 100.0f ? max_height : 100.0f));
  ImGui::SetNextWindowBgAlpha(0.85f);
  const bool open = ImGui::Begin(title.c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  note_window(widgets, open ? "panel" : "panel collapsed");
  if (!open) {
    ImGui::End();  // collapsed to its title bar
    *extent = PanelExtent{};
    return false;
  }
  keep_inside_after_resize();
  *extent = PanelExtent{ImGui::GetWindowPos().x, ImGui::GetWindowPos().x + ImGui::GetWindowWidth()};
  ImGui::PushItemWidth(em * 13.0f);
  return true;
}

void end_panel() {
  ImGui::PopItemWidth();
  ImGui::End();
}

void help_overlay(const std::string& mouse, const std::string& keys) {
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(
      ImVec2(viewport->WorkPos.x + 10, viewport->WorkPos.y + viewport->WorkSize.y - 10),
      ImGuiCond_Always, ImVec2(0.0f, 1.0f));
  ImGui::SetNextWindowBgAlpha(0.45f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                 ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav |
                                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoInputs;
  if (ImGui::Begin("##help", nullptr, flags)) {
    // One line when it fits, else mouse and keys on a line each.
    const float width = ImGui::CalcTextSize(mouse.c_str()).x + ImGui::CalcTextSize(keys.c_str()).x +
                        ImGui::CalcTextSize("   ").x;
    if (width < viewport->WorkSize.x - 40.0f) {
      ImGui::Text("%s   %s", mouse.c_str(), keys.c_str());
    } else {
      ImGui::TextUnformatted(mouse.c_str());
      ImGui::TextUnformatted(keys.c_str());
    }
  }
  ImGui::End();
}

void save_window_screenshot(int fb_width, int fb_height, WindowControls& controls) {
  // In the working directory, by its full path so that the messages say where that is.
  std::error_code ignored;
  const std::string directory = std::filesystem::current_path(ignored).string();
  const std::string path =
      free_screenshot_path(directory.empty() ? "." : directory, std::time(nullptr));
  std::string error;
  controls.screenshot_failed = !save_screenshot(path, fb_width, fb_height, &error);
  controls.screenshot_note_time = ImGui::GetTime();
  if (controls.screenshot_failed) {
    std::fprintf(stderr, "tidepool: %s\n", error.c_str());
    controls.screenshot_note = "Screenshot not saved: " + error;
    return;
  }
  std::fprintf(stderr, "tidepool: saved %s (%dx%d)\n", path.c_str(), fb_width, fb_height);
  const std::string name = path.substr(path.rfind('/') + 1);
  controls.screenshot_note =
      "Saved " + name + " (" + std::to_string(fb_width) + "x" + std::to_string(fb_height) + ")";
}

}  // namespace tp
