#include "app/window/input.h"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>

#include "imgui.h"
#include "imgui_internal.h"  // ClosePopupToLevel

namespace tp {

namespace {

InputState& state_of(GLFWwindow* window) {
  return *static_cast<InputState*>(glfwGetWindowUserPointer(window));
}

// ImGui is created after the callbacks are installed; until then nothing is captured.
bool imgui_wants_mouse() { return ImGui::GetCurrentContext() && ImGui::GetIO().WantCaptureMouse; }
bool imgui_wants_keyboard() {
  return ImGui::GetCurrentContext() && ImGui::GetIO().WantCaptureKeyboard;
}
bool imgui_popup_open() {
  return ImGui::GetCurrentContext() && ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel);
}

void on_mouse_button(GLFWwindow* window, int button, int action, int mods) {
  InputState& s = state_of(window);
  const bool press = action == GLFW_PRESS;
  if (s.log_buttons) {
    double x = 0.0, y = 0.0;
    glfwGetCursorPos(window, &x, &y);
    const ImVec2 seen = ImGui::GetCurrentContext() ? ImGui::GetIO().MousePos : ImVec2(-1.0f, -1.0f);
    std::fprintf(stderr, "tidepool: button %d %s at %.0f %.0f (the panel saw the cursor at %.0f %.0f%s)\n", button,
                 press ? "down" : "up", x, y, seen.x, seen.y, imgui_wants_mouse() ? ", over it" : "");
  }
  if (press && imgui_wants_mouse()) return;  // a click on the panel
  glfwGetCursorPos(window, &s.cursor_x, &s.cursor_y);
  if (button == GLFW_MOUSE_BUTTON_LEFT) {
    s.left = press;
    s.left_ctrl = press && (mods & GLFW_MOD_CONTROL) != 0;
    // Kept after the release: a click (press and release within one frame) still reads
    // as a shift-click when the frame looks.
    if (press) s.left_shift = (mods & GLFW_MOD_SHIFT) != 0;
    if (press) s.left_pressed = true;
  } else if (button == GLFW_MOUSE_BUTTON_RIGHT) {
    s.right = press;
  } else if (button == GLFW_MOUSE_BUTTON_MIDDLE) {
    s.middle = press;
  }
}

void on_cursor(GLFWwindow* window, double x, double y) {
  InputState& s = state_of(window);
  const double dx = x - s.cursor_x, dy = y - s.cursor_y;
  if (s.right) {
    s.orbit_dx += dx;
    s.orbit_dy += dy;
  }
  if (s.middle) {
    s.pan_dx += dx;
    s.pan_dy += dy;
  }
  s.cursor_x = x;
  s.cursor_y = y;
}

void on_scroll(GLFWwindow* window, double /*dx*/, double dy) {
  if (imgui_wants_mouse()) return;
  state_of(window).scroll += dy;
}

void on_key(GLFWwindow* window, int key, int /*scancode*/, int action, int /*mods*/) {
  // Holding S keeps stepping; holding Space must not toggle pause on every repeat.
  if (action != GLFW_PRESS && !(action == GLFW_REPEAT && key == GLFW_KEY_S)) return;
  if (imgui_wants_keyboard()) return;
  // Digits with the pointer over the panel are a number being typed, not a solver switch: a
  // double-click too quick to open a field for typing left "20000" to the keys, and the 2
  // switched to PCISPH.
  const bool digit = (key >= GLFW_KEY_0 && key <= GLFW_KEY_9) || (key >= GLFW_KEY_KP_0 && key <= GLFW_KEY_KP_9);
  if (digit && imgui_wants_mouse()) return;
  if (key == GLFW_KEY_ESCAPE && imgui_popup_open()) {
    state_of(window).close_popups = true;
    return;
  }
  state_of(window).keys.push_back(key);
}

// In front of ImGui's key callback (defer_quick_key_releases): a release of a key pressed
// since the frame began waits for the next frame (release_deferred_keys).
void on_key_for_imgui(GLFWwindow* window, int key, int scancode, int action, int mods) {
  InputState& s = state_of(window);
  if (!s.imgui_key) return;
  if (action == GLFW_PRESS) {
    s.pressed_this_frame.push_back(key);
  } else if (action == GLFW_RELEASE &&
             std::find(s.pressed_this_frame.begin(), s.pressed_this_frame.end(), key) != s.pressed_this_frame.end()) {
    s.deferred_releases.push_back(InputState::HeldKey{key, scancode, mods});
    return;
  }
  s.imgui_key(window, key, scancode, action, mods);
}

void on_char_for_imgui(GLFWwindow* window, unsigned int c) {
  InputState& s = state_of(window);
  if (!s.imgui_char) return;
  if (!s.deferred_releases.empty() || !s.deferred_chars.empty()) {
    s.deferred_chars.push_back(c);
    return;
  }
  s.imgui_char(window, c);
}

}  // namespace

void defer_quick_key_releases(GLFWwindow* window) {
  InputState& s = state_of(window);
  s.imgui_key = glfwSetKeyCallback(window, on_key_for_imgui);
  if (!s.imgui_key) glfwSetKeyCallback(window, on_key);  // (no ImGui callback: ours alone, as before)
  s.imgui_char = glfwSetCharCallback(window, on_char_for_imgui);  // (none: characters go nowhere, as before)
}

void release_deferred_keys(GLFWwindow* window) {
  InputState& s = state_of(window);
  s.pressed_this_frame.clear();
  if (s.imgui_key && !s.deferred_releases.empty()) {
    const std::vector<InputState::HeldKey> releases = std::move(s.deferred_releases);
    s.deferred_releases.clear();
    for (const InputState::HeldKey& k : releases) s.imgui_key(window, k.key, k.scancode, GLFW_RELEASE, k.mods);
  }
  // The characters typed after them, now that the keys are up.
  if (s.imgui_char && !s.deferred_chars.empty()) {
    const std::vector<unsigned int> chars = std::move(s.deferred_chars);
    s.deferred_chars.clear();
    for (const unsigned int c : chars) s.imgui_char(window, c);
  }
}

void close_popups_on_escape(InputState& state) {
  if (!state.close_popups) return;
  state.close_popups = false;
  if (imgui_popup_open()) ImGui::ClosePopupToLevel(0, true);
}

void install_input_callbacks(GLFWwindow* window, InputState* state) {
  glfwSetWindowUserPointer(window, state);
  glfwGetCursorPos(window, &state->cursor_x, &state->cursor_y);
  glfwSetMouseButtonCallback(window, on_mouse_button);
  glfwSetCursorPosCallback(window, on_cursor);
  glfwSetScrollCallback(window, on_scroll);
  glfwSetKeyCallback(window, on_key);
}

}  // namespace tp
