// What every mode's panel shares (the water's, panel.h; the gas's, gas_panel.h): the
// requests the frame loop carries out (pause, step, reset, shaders, screenshots, Tab), the
// panel's window and where it sits, the help line, the screenshot button and its note, and
// the sliders and combos of a parameter table (SimParams and GasParams alike).
#pragma once

#include <string>
#include <vector>

#include "app/window/panel_files.h"
#include "render/render_types.h"
#include "util/param_table.h"

namespace tp {

// The controls every mode's panel has. The panel and the keys only leave requests here;
// the frame loop (frame_loop.h) and the mode carry them out and fill in what happened.
struct WindowControls {
  bool paused = false;
  bool step_requested = false;
  bool reset_requested = false;
  bool reload_shaders_requested = false;
  bool screenshot_requested = false;     ///< save the 3D view as a PNG (Save screenshot, F12)
  bool panel_hidden = false;             ///< Tab: no panel and no help line, the view alone
  /// The mode let go of much memory (the surface's targets, the mesh: back to spheres):
  /// the frame loop gives the heap's free pages back to the system soon.
  bool memory_released = false;
  std::string reset_error;               ///< shown in red until the next successful reset
  std::string shader_error;              ///< last failed shader reload
  /// "Saved NAME (WxH)", or why the last screenshot could not be saved.
  std::string screenshot_note;
  bool screenshot_failed = false;        ///< the note is an error: shown until the next save
  double screenshot_note_time = 0.0;     ///< [s] ImGui time of the save the note is about
  /// GPU milliseconds per render pass (recent mean), filled by the frame loop.
  std::vector<PassTime> render_pass_times;
  FileControls files;  ///< scenes, recording, presets, state files (panel_files.h)
  WidgetLog widgets;   ///< where widgets are, for tests (TIDEPOOL_TEST_WIDGETS=1)
};

// A request left by the panel or a key, taken once: whether it was made (it is cleared).
inline bool take_request(bool& requested) {
  const bool made = requested;
  requested = false;
  return made;
}
// A scene to switch to (FileControls::scene_request), taken once; "" none.
inline std::string take_request(std::string& requested) {
  std::string made;
  made.swap(requested);
  return made;
}

// Where the panel is, horizontally, in window coordinates; both 0 when it is collapsed.
struct PanelExtent {
  float left = 0.0f, right = 0.0f;
};

// The panel's window (fixed width, kept inside the display, the items' width pushed):
// false when it is collapsed (nothing to draw; end_panel not needed).
// Logs the panel's window as the widget "panel" (open) or "panel collapsed" (its title
// bar alone), so that a test finds out which before it clicks; neither while hidden (Tab).
bool begin_panel(const std::string& title, PanelExtent* extent, WidgetLog& widgets);
void end_panel();

// Bottom-left, translucent: the mouse's and the keys' help, on one line when it fits.
void help_overlay(const std::string& mouse, const std::string& keys);

// How long the panel shows where a screenshot went [s].
constexpr double kScreenshotNoteSeconds = 5.0;

// Whether the panel shows controls.screenshot_note at ImGui time `now`: an error until the
// next save, a success for kScreenshotNoteSeconds.
bool screenshot_note_visible(const WindowControls& controls, double now);

// The Save screenshot button (sets screenshot_requested) and, on the line below, the
// screenshot note while it is visible. Needs an ImGui frame under way.
void screenshot_button(WindowControls& controls);

// Saves the back buffer as a new timestamped PNG in the working directory (the Save
// screenshot button, F12); says where on stderr and in controls.screenshot_note, and
// carries on whatever happens. Needs the GL context and an ImGui context.
void save_window_screenshot(int fb_width, int fb_height, WindowControls& controls);

// How the panel's slider for a real parameter is set up.
struct SliderSpec {
  float min = 0.0f, max = 1.0f;  ///< the range the slider covers
  std::string format;            ///< printf format, with the unit
  bool zero_at_min = false;      ///< a logarithmic range from 0: its left end means 0
};
// For any parameter table (SimParams, GasParams: instantiated for both).
template <class P>
SliderSpec slider_spec(const FieldInfo<P>& info);

// One widget for one parameter table entry (combo, slider), of either table. Returns true
// when the user changed the value. Needs an ImGui frame under way.
template <class P>
bool param_widget(const FieldInfo<P>& info, P& p);

}  // namespace tp
