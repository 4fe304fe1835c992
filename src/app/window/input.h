// Mouse and keyboard as the app needs them: GLFW callbacks collect events into an
// InputState which the frame loop drains once per frame. Events ImGui wants (the cursor
// over the panel, typing in a field) never reach the scene.
#pragma once

#include <vector>

struct GLFWwindow;

namespace tp {

struct InputState {
  // Which scene drags are under way. A drag starts only on a press that ImGui did not
  // claim and lasts until release, even if the cursor then crosses the panel.
  bool left = false, right = false, middle = false;
  bool left_pressed = false;              ///< left went down since the last frame
  /// The left drag under way began with ctrl held: it moves an obstacle, not the water.
  bool left_ctrl = false;
  bool left_shift = false;  ///< the latest left press came with shift (the particle inspector)
  double cursor_x = 0.0, cursor_y = 0.0;  ///< window coordinates
  double orbit_dx = 0.0, orbit_dy = 0.0;  ///< right-drag motion since the last frame
  double pan_dx = 0.0, pan_dy = 0.0;      ///< middle-drag motion since the last frame
  double scroll = 0.0;                    ///< wheel steps since the last frame
  std::vector<int> keys;                  ///< GLFW key codes pressed since the last frame
  /// Escape came while a panel list (a combo's popup) was open: it closes the list at the
  /// next panel frame (close_popups_on_escape) and does not quit.
  bool close_popups = false;
  /// Tests: each button press and release said on stderr, with where the cursor and the
  /// panel's last frame saw it (TIDEPOOL_TEST_WIDGETS, beside the widgets' places).
  bool log_buttons = false;

  // Keys pressed and released between two frames (defer_quick_key_releases): the release
  // goes to ImGui at the next frame, so that the frame between sees the key down.
  struct HeldKey {
    int key, scancode, mods;
  };
  using KeyCallback = void (*)(GLFWwindow*, int, int, int, int);
  KeyCallback imgui_key = nullptr;       ///< ImGui's GLFW key callback (chains to ours)
  std::vector<int> pressed_this_frame;   ///< keys pressed since the last frame began
  std::vector<HeldKey> deferred_releases;
  using CharCallback = void (*)(GLFWwindow*, unsigned int);
  CharCallback imgui_char = nullptr;      ///< ImGui's GLFW character callback
  /// Characters typed while a release was held back: they follow it. ImGui ignores the
  /// characters of a frame in which ctrl is down, and a quick ctrl+a held ctrl down for
  /// the frame that took the first digit typed after it ("1500" became "500").
  std::vector<unsigned int> deferred_chars;

  void begin_frame() {  ///< clears the per-frame accumulators after the frame used them
    left_pressed = false;
    orbit_dx = orbit_dy = pan_dx = pan_dy = scroll = 0.0;
    keys.clear();
  }
};

// Inside an ImGui frame: closes the open popups if Escape asked for it (InputState's
// close_popups). ImGui 1.86 closes a popup on Escape only with keyboard navigation on, and
// Escape went on to quit the app with a combo's list open.
void close_popups_on_escape(InputState& state);

// Installs the callbacks on `window` and points them at `state` (the window user pointer).
// Call before ImGui_ImplGlfw_InitForOpenGL(window, true) so that ImGui chains to them.
void install_input_callbacks(GLFWwindow* window, InputState* state);

// Dear ImGui 1.86 reads the keys as they stand when its frame begins, so a key pressed and
// released between two frames is never seen: at 5 frames a second (WCSPH, a filling cup) a
// quick Enter did not close a number typed into a field. After ImGui_ImplGlfw_InitForOpenGL,
// this puts a callback in front of ImGui's that holds such a release back;
// release_deferred_keys, called as each frame begins (before the events are polled),
// hands them on: the key is then down for exactly one of ImGui's frames. Characters typed
// while a release is held back wait for it (they reach ImGui in the frame after).
void defer_quick_key_releases(GLFWwindow* window);
void release_deferred_keys(GLFWwindow* window);

}  // namespace tp
