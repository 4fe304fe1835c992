// What the frame loop (frame_loop.h) and its modes do around a frame: the camera's input,
// framing beside the panel, screenshots, the scripted drag and the figures of
// --bench-window, --gl-check's verdict and the closing lines of pass times and obstacles.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "app/window/camera.h"
#include "app/window/input.h"
#include "app/window/obstacle_picking.h"
#include "app/window/panel_common.h"
#include "app/window/window_bench.h"
#include "kernels/obstacle.h"
#include "render/renderer.h"
#include "sim/bodies/body_spec.h"

struct GLFWwindow;

namespace tp {

// Orbit, pan and zoom from this frame's right drag, middle drag and wheel (in 2D both drags
// pan, and the wheel zooms about the point under the cursor).
void apply_camera_input(GLFWwindow* window, const InputState& input, OrbitCamera& camera);

// The image centre's shift that centres the scene in the space beside the panel, on
// whichever side it sits, by at most a quarter of the window (OrbitCamera::set_screen_shift).
float panel_screen_shift(GLFWwindow* window, const PanelExtent& panel);

CameraView camera_view(const OrbitCamera& camera, int framebuffer_width, int framebuffer_height);

// Where a world point is drawn, in window pixels (y down).
glm::vec2 window_point(GLFWwindow* window, const OrbitCamera& camera, const glm::vec3& world);

// The world-space ray through the cursor.
void cursor_ray(GLFWwindow* window, const InputState& input, const OrbitCamera& camera, glm::vec3* origin,
                glm::vec3* direction);

// Ctrl is held with the cursor over the scene (not the panel) and no other drag under way:
// what a ctrl + left press would grab is shown.
bool ctrl_hover(GLFWwindow* window, const InputState& input);

// Ctrl + left drag on the scene, in either mode: which of `shapes` the drag holds or the
// cursor is over, and where the held one moves this frame (drag.update's frame).
// `allowed` false: the drag belongs to something else (a rigid body): no obstacle is
// highlighted or picked.
ObstacleDrag::Frame drag_obstacle(GLFWwindow* window, const InputState& input, const OrbitCamera& camera,
                                  ObstacleDrag& drag, const std::vector<ObstacleShape>& shapes,
                                  bool allowed = true);

// F5 and the panel's button: the shaders again, or the old ones kept and the error shown.
void reload_shaders_if_asked(Renderer& renderer, WindowControls& controls);

// F12 and the panel's button: the scene drawn once as with the panel collapsed (centred),
// saved as a timestamped PNG, and the shift put back. `draw` draws the scene.
void screenshot_if_asked(OrbitCamera& camera, float shift, int fb_width, int fb_height, WindowControls& controls,
                         const std::function<void()>& draw);

// --screenshot: the last frame into `path`; false (said on stderr) when it cannot be saved.
bool save_last_frame(const std::string& path, int fb_width, int fb_height);

// --gl-check after the panel's drawing: each error on stderr; true when there was one.
bool gl_errors_after_panel();

// --gl-check's verdict at the end: the renderer's errors and the panel's, said; the exit
// code, 1 when there were any.
int gl_check_verdict(const Renderer& renderer, bool panel_errors, int exit_code);

// "tidepool: ms per pass (GPU/CPU): ..." for scripts comparing modes and sizes.
void print_pass_times(const std::vector<PassTime>& times);

// "tidepool: obstacle 0 (sphere) at X Y Z m", one line each: where the obstacles ended up
// (after any ctrl + left drags), for scripts driving the window.
void print_obstacle_positions(const std::vector<ObstacleShape>& obstacles);

// "tidepool: body 0 (box) at X Y Z m", one line each: where the rigid bodies' centres
// ended up (after any ctrl + left grabs), for scripts driving the window.
void print_body_positions(const std::vector<BodySpec>& bodies);

// The --bench-drag script: moves the cursor along the drag's path (projected each frame)
// and holds the left button while the drag is held, through the same input path as a
// real mouse; tells `bench` when the press was made.
void play_scripted_drag(const ScriptedDrag& drag, double t, GLFWwindow* window, const OrbitCamera& camera,
                        InputState& input, WindowBench& bench, bool* held);

// --bench-window's figures: the text on stdout and the JSON into `bench_json`, --bench-json
// FILE (or both on stdout and stderr with --bench-json -; only the text with "").
void print_window_bench(const WindowBenchResult& result, const std::string& bench_json);

}  // namespace tp
