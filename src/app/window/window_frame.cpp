#include "app/window/window_frame.h"

#include <glad/gl.h>
// glad first: GLFW must not pull in the system GL header.
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>

#include "imgui.h"
#include "render/screenshot.h"
#include "util/atomic_file.h"

namespace tp {

void apply_camera_input(GLFWwindow* window, const InputState& input, OrbitCamera& camera) {
  int width = 0, height = 0;
  glfwGetWindowSize(window, &width, &height);
  // In 2D there is nothing to orbit: the right drag pans as the middle one does.
  double pan_dx = input.pan_dx, pan_dy = input.pan_dy;
  if (camera.two_d()) {
    pan_dx += input.orbit_dx;
    pan_dy += input.orbit_dy;
  } else if (input.orbit_dx != 0.0 || input.orbit_dy != 0.0) {
    camera.orbit(input.orbit_dx, input.orbit_dy);
  }
  if (pan_dx != 0.0 || pan_dy != 0.0) camera.pan(pan_dx, pan_dy, width, height);
  if (input.scroll != 0.0) camera.zoom_at(input.scroll, input.cursor_x, input.cursor_y, width, height);
}

float panel_screen_shift(GLFWwindow* window, const PanelExtent& panel) {
  int width = 0, height = 0;
  glfwGetWindowSize(window, &width, &height);
  if (width <= 0 || panel.right <= panel.left) return 0.0f;
  const float w = float(width);
  const float shift = 0.5f * (panel.left + panel.right) < 0.5f * w ? std::max(panel.right, 0.0f) / w
                                                                   : -std::max(w - panel.left, 0.0f) / w;
  return std::clamp(shift, -0.5f, 0.5f);
}

CameraView camera_view(const OrbitCamera& camera, int framebuffer_width, int framebuffer_height) {
  CameraView view;
  view.view = camera.view();
  view.projection = camera.projection(float(framebuffer_width) / float(framebuffer_height));
  view.framebuffer_width = framebuffer_width;
  view.framebuffer_height = framebuffer_height;
  return view;
}

glm::vec2 window_point(GLFWwindow* window, const OrbitCamera& camera, const glm::vec3& world) {
  int width = 0, height = 0;
  glfwGetWindowSize(window, &width, &height);
  const glm::vec4 clip =
      camera.projection(float(width) / float(std::max(height, 1))) * camera.view() * glm::vec4(world, 1.0f);
  const glm::vec2 ndc = glm::vec2(clip) / std::max(clip.w, 1e-6f);
  return {0.5f * (ndc.x + 1.0f) * float(width), 0.5f * (1.0f - ndc.y) * float(height)};
}

void cursor_ray(GLFWwindow* window, const InputState& input, const OrbitCamera& camera, glm::vec3* origin,
                glm::vec3* direction) {
  int width = 0, height = 0;
  glfwGetWindowSize(window, &width, &height);
  camera.ray(input.cursor_x, input.cursor_y, width, height, origin, direction);
}

bool ctrl_hover(GLFWwindow* window, const InputState& input) {
  const bool ctrl = glfwGetKey(window, GLFW_KEY_LEFT_CONTROL) == GLFW_PRESS ||
                    glfwGetKey(window, GLFW_KEY_RIGHT_CONTROL) == GLFW_PRESS;
  // ImGui's io.WantCaptureMouse (from the last NewFrame): the cursor is over the panel, so
  // the scene does not react to it. Presses there never reach InputState at all.
  const bool over_scene = !ImGui::GetIO().WantCaptureMouse;
  const bool other_drag = (input.left && !input.left_ctrl) || input.right || input.middle;
  return ctrl && over_scene && !other_drag;
}

ObstacleDrag::Frame drag_obstacle(GLFWwindow* window, const InputState& input, const OrbitCamera& camera,
                                  ObstacleDrag& drag, const std::vector<ObstacleShape>& shapes, bool allowed) {
  glm::vec3 origin, direction;
  cursor_ray(window, input, camera, &origin, &direction);
  return drag.update(shapes, allowed && input.left && input.left_ctrl, allowed && ctrl_hover(window, input), origin,
                     direction, camera.eye(), camera.forward());
}

void reload_shaders_if_asked(Renderer& renderer, WindowControls& controls) {
  if (!controls.reload_shaders_requested) return;
  controls.reload_shaders_requested = false;
  try {
    renderer.reload_shaders();
    controls.shader_error.clear();
  } catch (const RenderError& e) {
    // Keep running on the old shaders; the panel shows what is wrong.
    controls.shader_error = e.what();
    std::fprintf(stderr, "tidepool: %s\n", e.what());
  }
}

void screenshot_if_asked(OrbitCamera& camera, float shift, int fb_width, int fb_height, WindowControls& controls,
                         const std::function<void()>& draw) {
  if (!controls.screenshot_requested) return;
  controls.screenshot_requested = false;
  camera.set_screen_shift(0.0f);
  draw();
  save_window_screenshot(fb_width, fb_height, controls);
  camera.set_screen_shift(shift);
}

bool save_last_frame(const std::string& path, int fb_width, int fb_height) {
  std::string error;
  if (!save_screenshot(path, fb_width, fb_height, &error)) {
    std::fprintf(stderr, "tidepool: %s\n", error.c_str());
    return false;
  }
  std::printf("tidepool: saved %s (%dx%d)\n", path.c_str(), fb_width, fb_height);
  return true;
}

bool gl_errors_after_panel() {
  bool any = false;
  for (GLenum e = glGetError(); e != GL_NO_ERROR; e = glGetError()) {
    std::fprintf(stderr, "tidepool: GL error 0x%04x after the panel\n", unsigned(e));
    any = true;
  }
  return any;
}

int gl_check_verdict(const Renderer& renderer, bool panel_errors, int exit_code) {
  const size_t errors = renderer.gl_errors().size() + (panel_errors ? 1 : 0);
  if (errors > 0) {
    std::fprintf(stderr, "tidepool: --gl-check: %zu OpenGL error(s), see above\n", errors);
    return 1;
  }
  std::printf("tidepool: --gl-check: no OpenGL errors\n");
  return exit_code;
}

void print_pass_times(const std::vector<PassTime>& times) {
  std::string passes;
  for (const PassTime& t : times) {
    char item[128];
    std::snprintf(item, sizeof(item), "%s%s %.2f/%.2f", passes.empty() ? "" : ", ", t.pass.c_str(), t.gpu_ms,
                  t.cpu_ms);
    passes += item;
  }
  if (!passes.empty()) std::printf("tidepool: ms per pass (GPU/CPU): %s\n", passes.c_str());
}

void print_obstacle_positions(const std::vector<ObstacleShape>& obstacles) {
  for (size_t i = 0; i < obstacles.size(); ++i) {
    const ObstacleShape& o = obstacles[i];
    std::printf("tidepool: obstacle %zu (%s) at %.4f %.4f %.4f m\n", i,
                o.kind == int(ShapeKind::Sphere) ? "sphere" : "box", o.center.x, o.center.y, o.center.z);
  }
}

void print_body_positions(const std::vector<BodySpec>& bodies) {
  for (size_t i = 0; i < bodies.size(); ++i) {
    const BodySpec& b = bodies[i];
    const char* shape = shape_name(b);
    const Vec3 p = b.pose.position;
    std::printf("tidepool: body %zu (%s) at %.4f %.4f %.4f m\n", i, shape, p.x, p.y, p.z);
  }
}

void play_scripted_drag(const ScriptedDrag& drag, double t, GLFWwindow* window, const OrbitCamera& camera,
                        InputState& input, WindowBench& bench, bool* held_before) {
  const bool held = drag.held(t);
  if (held) {
    const Vec3 p = drag.point(t);
    const glm::vec2 cursor = window_point(window, camera, glm::vec3(p.x, p.y, p.z));
    input.cursor_x = cursor.x;
    input.cursor_y = cursor.y;
    if (!*held_before) {
      input.left_pressed = true;
      input.left_ctrl = false;
      bench.pressed(t);
    }
  }
  if (held != *held_before) input.left = held;
  *held_before = held;
}

void print_window_bench(const WindowBenchResult& result, const std::string& bench_json) {
  const std::string text = window_bench_text(result);
  const std::string json = window_bench_json(result);
  if (bench_json == "-") {
    std::fputs(text.c_str(), stderr);
    std::fputs(json.c_str(), stdout);
  } else {
    std::fputs(text.c_str(), stdout);
    if (!bench_json.empty()) {
      std::string error;
      if (!write_file_atomic(bench_json, json, &error)) std::fprintf(stderr, "tidepool: %s\n", error.c_str());
    }
  }
  std::fflush(stdout);
}

}  // namespace tp
