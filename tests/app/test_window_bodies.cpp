// Rigid bodies in a real window under Xvfb (issue 36): the floating scene's three boxes and
// ball drawn as solid wood where the simulation has them, in the spheres and the surface
// modes, and the ctrl + left drag that grabs a box and lifts it out of the water. Run as
// the other window tests (see test_window.cpp).
#include <gtest/gtest.h>

#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "image.h"
#include "process.h"
#include "x11_frames.h"

using namespace tp::test;
#include "window_harness.h"

namespace {

// assets/scenes/floating.json's camera and bodies (at the start: they fall 0.15 m to the
// water, 0.4 m deep, from there).
const glm::vec3 kCameraTarget(0.0f, 0.3f, 0.0f);
constexpr float kCameraDistance = 3.2f, kCameraPitch = 35.0f;  // yaw 0: looking along -z
struct SceneBox {
  glm::vec3 center, half;
};
const SceneBox kBoxes[3] = {{{-0.55f, 0.55f, -0.15f}, {0.2f, 0.1f, 0.2f}},
                            {{0.0f, 0.55f, 0.2f}, {0.2f, 0.1f, 0.2f}},
                            {{0.55f, 0.55f, -0.15f}, {0.2f, 0.1f, 0.2f}}};

// Where a world point is drawn, in window pixels, with the panel hidden (the image centre is
// then the window's): the orbit camera's view, a 45 degree vertical field of view.
glm::vec2 project(const glm::vec3& p, int width, int height) {
  const float pitch = glm::radians(kCameraPitch);
  const glm::vec3 forward(0.0f, -std::sin(pitch), -std::cos(pitch));
  const glm::vec3 eye = kCameraTarget - forward * kCameraDistance;
  const glm::mat4 view = glm::lookAt(eye, kCameraTarget, glm::vec3(0, 1, 0));
  const glm::mat4 projection = glm::perspective(glm::radians(45.0f), float(width) / float(height), 0.05f, 100.0f);
  const glm::vec4 clip = projection * view * glm::vec4(p, 1.0f);
  return glm::vec2((clip.x / clip.w + 1.0f) * 0.5f * float(width), (1.0f - clip.y / clip.w) * 0.5f * float(height));
}

// The bodies' wood, lit or in shade (a side facing away from the light, (53, 32, 15)),
// highlighted or not: red above green above blue. The water (blue, here flat-coloured),
// the floor, the walls and the background (greys, slightly blue) are not.
bool is_wood(const uint8_t* p) { return p[0] >= 45 && p[0] >= p[1] + 15 && p[1] >= p[2] + 8; }

double wood_share(const Image& img, glm::vec2 c, int half) {
  const Rect r = img.clip(Rect{int(c.x) - half, int(c.y) - half, int(c.x) + half + 1, int(c.y) + half + 1});
  long n = 0, wood = 0;
  for (int y = r.y0; y < r.y1; ++y)
    for (int x = r.x0; x < r.x1; ++x) ++n, wood += is_wood(img.at(x, y));
  return n ? double(wood) / double(n) : 0.0;
}

// "tidepool: body 0 (box) at -0.5500 0.4400 -0.1500 m", printed at exit.
bool body_at_exit(const std::string& output, int index, glm::vec3* center) {
  std::smatch m;
  const std::regex re("tidepool: body " + std::to_string(index) + R"( \(\w+\) at ([-0-9.]+) ([-0-9.]+) ([-0-9.]+) m)");
  if (!std::regex_search(output, m, re)) return false;
  *center = glm::vec3(std::stof(m[1]), std::stof(m[2]), std::stof(m[3]));
  return true;
}

// The wood of the leftmost body in the scene (the pine box), as a blob: the wood pixels
// within 150 px right of the leftmost one.
Blob leftmost_body(const Image& img, Rect rect) {
  const Blob all = find_pixels(img, rect, is_wood);
  if (all.count == 0) return all;
  return find_pixels(img, Rect{all.box.x0, rect.y0, all.box.x0 + 150, rect.y1}, is_wood);
}

}  // namespace

// The floating scene a few frames in: each box's top face is wood where the simulation has
// it, in both render modes (in the surface mode the bodies are in the scene the water
// refracts and in the window's depth, as the obstacles are), timed as their own pass; no
// wood far from them nor above the tank; no GL errors. And a turned capsule has its shape.
TEST(Window, BodiesShowWhereTheyAreInBothRenderModes) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  const std::string common =
      "--scene floating --particles 6000 --color flat --size 1280x800 --hide-panel --steps-per-frame 1 "
      "--set dt_min=0.0005 --set dt_max=0.0005 --frames 6 --gl-check";
  for (const char* mode : {"spheres", "surface"}) {
    SCOPED_TRACE(mode);
    const FinishedRun run = run_to_end(common + " --render " + mode, dir + "/" + mode + ".png");
    ASSERT_RAN(run);
    expect_no_gl_errors(run.result);
    double gpu = 0, cpu = 0;
    ASSERT_TRUE(pass_time(run.result.output, "bodies", &gpu, &cpu))
        << "the bodies pass is missing from the pass times:\n" << run.result.output;
    const Image& shot = run.shot;
    ASSERT_EQ(shot.width, 1280);
    for (int k = 0; k < 3; ++k) {
      // The top face's middle (2 ms simulated: the boxes have hardly moved).
      const glm::vec3 top = kBoxes[k].center + glm::vec3(0, kBoxes[k].half.y, 0);
      const glm::vec2 at = project(top, shot.width, shot.height);
      const double share = wood_share(shot, at, 8);
      std::printf("%s: box %d's top at (%.0f, %.0f) px: %.0f%% wood\n", mode, k, at.x, at.y, 100 * share);
      EXPECT_GT(share, 0.95) << "box " << k << " is drawn where it is (see " << dir << "/" << mode << ".png)";
    }
    // The ball (0.12 m, at (0.36, 0.62, 0.32)): its top, in front between the oak and the ice
    // box, where it stays in view once it has sunk (behind the oak box, where it was until
    // 2026-12-07, nobody saw it sink).
    const double ball = wood_share(shot, project(glm::vec3(0.36f, 0.72f, 0.32f), shot.width, shot.height), 3);
    std::printf("%s: the ball's top %.0f%% wood\n", mode, 100 * ball);
    EXPECT_GT(ball, 0.9) << "the ball is drawn";
    // The water's front right corner, and the space above the tank.
    const double water = wood_share(shot, project(glm::vec3(0.85f, 0.38f, 0.4f), shot.width, shot.height), 12);
    EXPECT_LT(water, 0.01) << "no wood where there is none";
    const Blob sky = find_pixels(shot, Rect{0, 0, shot.width, int(project(glm::vec3(0, 1.2f, -0.5f), shot.width, shot.height).y) - 5},
                                 is_wood);
    EXPECT_EQ(sky.count, 0) << "nor above the tank";
  }
  // A capsule lying along x (turned 90 degrees about z) above shallow water: wood along its
  // axis out to its rounded ends (0.3 m each side of its centre), none beyond them.
  const std::string scene = dir + "/capsule.json";
  {
    std::ofstream out(scene);
    out << R"({ "name": "capsule_test", "tank": { "min": [-1.0, 0.0, -0.5], "max": [1.0, 1.2, 0.5] },
      "particle_spacing": 0.05,
      "fluid_blocks": [ { "min": [-1.0, 0.0, -0.5], "max": [1.0, 0.2, 0.5] } ],
      "bodies": [ { "shape": "capsule", "position": [0.0, 0.7, 0.0], "radius": 0.1, "length": 0.4,
                    "rotation": [0, 0, 90] } ],
      "camera": { "target": [0.0, 0.3, 0.0], "distance": 3.2, "yaw": 0.0, "pitch": 35.0 } })";
  }
  const FinishedRun run = run_to_end("--scene " + scene + " --size 1280x800 --hide-panel --steps-per-frame 1 "
                                     "--set dt_min=0.0005 --set dt_max=0.0005 --frames 3 --gl-check",
                                     dir + "/capsule.png");
  ASSERT_RAN(run);
  expect_no_gl_errors(run.result);
  const Image& shot = run.shot;
  const auto share_at = [&](float x, float y) {
    return wood_share(shot, project(glm::vec3(x, y, 0.1f), shot.width, shot.height), 2);
  };
  std::printf("capsule: centre %.0f%%, ends %.0f%% / %.0f%%, beyond %.0f%% / %.0f%%, above %.0f%% wood\n",
              100 * share_at(0, 0.7f), 100 * share_at(-0.24f, 0.7f), 100 * share_at(0.24f, 0.7f),
              100 * share_at(-0.36f, 0.7f), 100 * share_at(0.36f, 0.7f), 100 * share_at(0, 0.95f));
  EXPECT_GT(share_at(0.0f, 0.7f), 0.95) << "the capsule's middle (see capsule.png)";
  EXPECT_GT(share_at(-0.24f, 0.7f), 0.95) << "its left cap";
  EXPECT_GT(share_at(0.24f, 0.7f), 0.95) << "its right cap";
  EXPECT_LT(share_at(-0.36f, 0.7f), 0.05) << "nothing beyond its left end";
  EXPECT_LT(share_at(0.36f, 0.7f), 0.05) << "nor its right";
  EXPECT_LT(share_at(0.0f, 0.95f), 0.05) << "nor above it (radius 0.1 m)";
}

// Ctrl + left drag on the pine box lifts it out of the water: it lights up under the cursor
// with ctrl held, follows the cursor up while the button is held, and falls back into the
// water when released (on screen, and at exit where the simulation has it); the others
// stay in the water.
TEST(Window, CtrlLeftDragLiftsABody) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  RunningApp app("--scene floating --particles 6000 --color flat --size 1280x800 --frames 1000000 --gl-check",
                 dir + "/drag.log");
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start_and_find_window(app, &watcher, &w);
  if (HasFatalFailure()) return;
  // Let the bodies land and settle in the water (they start 0.15 m above it).
  std::this_thread::sleep_for(std::chrono::seconds(4));
  wait_frames(*watcher, 3);
  if (HasFatalFailure()) return;
  const Image before = grab_window(*watcher, kWidth, kHeight);
  ASSERT_TRUE(before.ok()) << before.error;
  save_png(before, dir + "/before.png");
  const Blob start = leftmost_body(before, kScene);
  ASSERT_GT(start.count, 300) << "the pine box is not in view (see before.png)";
  const int x0 = int(start.cx), y0 = int(start.cy);

  send("windowfocus --sync " + std::to_string(w));
  send(at(w, x0, y0));
  send("keydown ctrl");
  wait_frames(*watcher, 3);
  if (HasFatalFailure()) return;
  const Image hover = grab_window(*watcher, kWidth, kHeight);
  save_png(hover, dir + "/hover.png");
  const Rgb plain = mean_color_where(before, before, start.box, is_wood);
  const Rgb lit = mean_color_where(hover, before, start.box, is_wood);
  std::printf("pine box (%ld px) at (%d, %d): mean colour (%.0f, %.0f, %.0f), with ctrl over it (%.0f, %.0f, %.0f)\n",
              start.count, x0, y0, plain.r, plain.g, plain.b, lit.r, lit.g, lit.b);
  EXPECT_GT(color_distance(plain, lit), 20.0) << "the box under the cursor is highlighted";

  // Up by 150 px in 10 steps, a couple of frames each; then held there.
  constexpr int kSteps = 10, kStepY = -15;
  send("mousedown 1");
  wait_frames(*watcher, 2);
  for (int k = 1; k <= kSteps && !HasFatalFailure(); ++k) {
    send(at(w, x0, y0 + k * kStepY));
    wait_frames(*watcher, 2);
  }
  if (HasFatalFailure()) return;
  // The spring pulls it up in a few tenths of a simulated second: wait until its centroid
  // has risen half the drag (or a minute). (Not all of it: the grab point is near the box's
  // top front edge, which it hangs from, and the drag's plane faces the camera, tilted 35
  // degrees, so the box goes back as it goes up and looks smaller.)
  Blob held;
  Image lifted;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  do {
    wait_frames(*watcher, 5);
    if (HasFatalFailure()) return;
    lifted = grab_window(*watcher, kWidth, kHeight);
    held = leftmost_body(lifted, kScene);
  } while (!(held.count > 300 && held.cy < start.cy + 0.5 * kSteps * kStepY) &&
           std::chrono::steady_clock::now() < deadline);
  save_png(lifted, dir + "/held.png");
  std::printf("pine box centroid from (%.0f, %.0f) to (%.0f, %.0f) px for a drag of %d px up\n", start.cx,
              start.cy, held.cx, held.cy, -kSteps * kStepY);
  EXPECT_LT(held.cy, start.cy + 0.5 * kSteps * kStepY) << "the box followed the cursor up (see held.png)";
  EXPECT_NEAR(held.cx, start.cx, 25.0) << "and not sideways";
  // The panel's Bodies section (below Statistics and Simulation) shows the held one's row
  // in the note colour (amber text), which it had nowhere before.
  const Rect bodies_rows{10, 530, 348, 740};
  const auto amber = [](const uint8_t* p) { return p[0] > 200 && p[1] > 150 && p[1] < 230 && p[2] < 120; };
  const long amber_before = find_pixels(before, bodies_rows, amber).count;
  const long amber_held = find_pixels(lifted, bodies_rows, amber).count;
  std::printf("amber text in the panel's lower part: %ld px before, %ld px while held\n", amber_before, amber_held);
  EXPECT_GT(amber_held, amber_before + 40) << "the held body's row is highlighted (see held.png)";

  // Released, it falls back into the water. On screen it comes down by less than it was
  // lifted when it lands further from the camera than it was picked up (the drag's plane is
  // tilted; a CI run saw 46 px for a 150 px lift, floating at z = 0.06 m instead of 0.15):
  // a fifth of the drag here (held, it does not move), and where it floats is checked in
  // metres at exit.
  constexpr double kFallPx = -0.2 * kSteps * kStepY;
  send("mouseup 1");
  send("keyup ctrl");
  Blob dropped;
  Image after;
  const auto fallen_by = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  do {
    wait_frames(*watcher, 5);
    if (HasFatalFailure()) return;
    after = grab_window(*watcher, kWidth, kHeight);
    dropped = leftmost_body(after, kScene);
  } while (!(dropped.count > 300 && dropped.cy > held.cy + kFallPx) &&
           std::chrono::steady_clock::now() < fallen_by);
  save_png(after, dir + "/released.png");
  std::printf("released: pine box centroid at (%.0f, %.0f) px\n", dropped.cx, dropped.cy);
  EXPECT_GT(dropped.cy, held.cy + kFallPx) << "let go, it fell (see released.png)";

  send("key Escape");
  ASSERT_TRUE(app.wait_exit(60)) << "Escape did not quit within 60 s";
  ASSERT_EQ(app.exit_code(), 0) << app.output();
  expect_no_gl_errors(ProcessResult{0, app.output()});
  glm::vec3 pine(0.0f), oak(0.0f);
  ASSERT_TRUE(body_at_exit(app.output(), 0, &pine)) << app.output();
  ASSERT_TRUE(body_at_exit(app.output(), 1, &oak)) << app.output();
  std::printf("at exit: pine box at (%.3f, %.3f, %.3f) m, oak box at (%.3f, %.3f, %.3f) m\n", pine.x, pine.y, pine.z,
              oak.x, oak.y, oak.z);
  EXPECT_LT(pine.y, 0.6f) << "the released box is back in the water (0.4 m deep)";
  // Near where it was lifted; it floats on water still sloshing from its fall and drifts
  // with it until the app quits (measured -0.74 to -0.45 m over runs).
  EXPECT_NEAR(pine.x, -0.55f, 0.25f);
  EXPECT_LT(oak.y, 0.55f) << "the oak box, not held, floats in the water";
}

// A scene with 4,000 particles in a window 1000 px tall (the whole Bodies section fits the
// panel), the panel's widget places printed; started, its window found (`start`).
struct PanelApp {
  PanelApp(const std::string& scene, const std::string& dir)
      : app("--scene " + scene + " --particles 4000 --color flat --size 1280x1000 --frames 1000000 --gl-check",
            dir + "/app.log", dir, kWidgetLog) {
    start(app, &watcher, &w);
  }
  RunningApp app;
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
};

// Body k's density field, with the window focused and the pointer over it, as ImGui has seen.
Widget point_at_density_field(PanelApp& p, int k) {
  const Widget field = wait_for_widget(p.app, "body density " + std::to_string(k));
  EXPECT_TRUE(field.found && !field.clipped) << p.app.output();
  send("windowfocus --sync " + std::to_string(p.w));
  send(at(p.w, field.cx(), field.cy()) + " sleep 0.3");
  wait_frames(*p.watcher, 3);
  return field;
}

// A body's density field dragged with the mouse, as a user does: the body takes the value
// the drag reached when the button is let go. (The field used to show the body's value
// every frame, so a drag moved it by one frame's motion and lost it, and letting go sent
// the old value back: the pine box stayed at 300 kg/m^3.) Dragged to over 1,000 kg/m^3,
// the pine box sinks to the floor.
TEST(Window, ABodysDensityFieldTakesTheValueItIsDraggedTo) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  PanelApp p("floating", dir);
  if (HasFatalFailure()) return;
  RunningApp& app = p.app;
  const auto& watcher = p.watcher;
  const unsigned long w = p.w;
  const Widget field = point_at_density_field(p, 0);
  if (HasFailure()) return;
  // 5 kg/m^3 a pixel: 240 px to the right in 12 steps, two frames each.
  send("mousedown 1");
  wait_frames(*watcher, 2);
  for (int k = 1; k <= 12 && !HasFatalFailure(); ++k) {
    send(at(w, field.cx() + 20 * k, field.cy()));
    wait_frames(*watcher, 2);
  }
  if (HasFatalFailure()) return;
  const Image dragging = grab_window(*watcher, kWidth, kHeight);
  save_png(dragging, dir + "/dragging.png");
  send("mouseup 1");
  ASSERT_TRUE(wait_for_output(app, "tidepool: body 0 density ")) << app.output();
  std::smatch m;
  const std::string out = app.output();
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(tidepool: body 0 density (\d+) kg/m\^3)"))) << out;
  const int density = std::stoi(m[1]);
  std::printf("the pine box's density dragged from 300 to %d kg/m^3\n", density);
  EXPECT_GT(density, 1000) << "the drag's value is what the body takes (see dragging.png)";
  // Heavier than the water now: it sinks (the water 0.4 m deep, the box 0.2 m tall).
  std::this_thread::sleep_for(std::chrono::seconds(4));
  quit_with_escape(app, w);
  if (HasFatalFailure()) return;
  glm::vec3 pine(0.0f);
  ASSERT_TRUE(body_at_exit(app.output(), 0, &pine)) << app.output();
  std::printf("at exit: the pine box at y %.3f m\n", pine.y);
  EXPECT_LT(pine.y, 0.25f) << "it sank towards the floor";
}

// A density typed into a body's field (ctrl + click opens it for typing) and closed with a
// quick Enter, as xdotool's "key" gives it: pressed and released between two frames. ImGui
// 1.86 reads the keys as they stand when its frame begins and used to miss it: the value
// waited until the next click (defer_quick_key_releases holds such a release for a frame).
TEST(Window, ADensityTypedIntoTheFieldIsTakenAtAQuickEnter) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  PanelApp p("floating", dir);
  if (HasFatalFailure()) return;
  RunningApp& app = p.app;
  const auto& watcher = p.watcher;
  const unsigned long w = p.w;
  point_at_density_field(p, 1);
  if (HasFailure()) return;
  send("keydown ctrl sleep 0.3 click 1 sleep 0.3 keyup ctrl");
  wait_frames(*watcher, 3);
  if (HasFatalFailure()) return;
  send("key ctrl+a");  // (held or not, a quick press; the field's text selected)
  send("type --delay 60 1500");
  wait_frames(*watcher, 3);
  if (HasFatalFailure()) return;
  send("key Return");
  const bool taken = wait_for_output(app, "tidepool: body 1 density 1500 kg/m^3", 10.0);
  save_png(grab_window(*watcher, kWidth, kHeight), dir + "/after_enter.png");
  EXPECT_TRUE(taken) << "the quick Enter closed the field and the oak box took 1,500 kg/m^3 (see after_enter.png)";
  // A click in the view before the Escape: in one CI run of two the Escape did not quit
  // after a taken value (the field seemingly still open to ImGui, whose Escape then closes
  // it); not traced yet. The click closes any field, as a user's would.
  send(at(w, kWidth * 3 / 4, kHeight / 3) + " click 1");
  wait_frames(*watcher, 3);
  if (HasFatalFailure()) return;
  quit_with_escape(app, w);
}

// A mesh collider loaded from the panel (the duck, "Collider (held still)" ticked) stands on
// the floor at the view's centre, in the dam break's path: it is drawn, the water that
// breaks reaches it and runs past it on both sides, and it stays where it was put (a
// collider: nothing moves it). From near the tank's top, where the panel used to put it, it
// hung in the air for good.
TEST(Window, AMeshColliderLoadedFromThePanelStandsInTheWaterAndTheWaterRunsPastIt) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  // A dam break in the pool's tank, seen from close by: a column 0.5 m wide, 0.35 m tall
  // at the left wall, which spreads to about 9 cm deep around the duck (0.23 m tall).
  const std::string scene = write_scene(dir + "/dam.json", "[-1.0, 0.0, -0.5]", "[-0.5, 0.35, 0.5]", "0.03",
                                        R"({ "target": [0.0, 0.15, 0.0], "distance": 1.4, "yaw": 0.0, "pitch": 25.0 })");
  PanelApp p(scene, dir);
  if (HasFatalFailure()) return;
  RunningApp& app = p.app;
  const auto& watcher = p.watcher;
  const unsigned long w = p.w;
  click(w, wait_for_widget(app, "section Bodies"));  // closed in a scene without bodies
  if (HasFatalFailure()) return;
  click(w, wait_for_widget(app, "mesh collider"));
  if (HasFatalFailure()) return;
  wait_frames(*watcher, 3);
  if (HasFatalFailure()) return;
  click(w, wait_for_widget(app, "mesh load"));
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: body 0 added (mesh duck.obj) at ")) << app.output();
  std::smatch m;
  std::string out = app.output();
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(body 0 added \(mesh duck\.obj\) at ([-0-9.]+) ([-0-9.]+) ([-0-9.]+) m)")));
  const glm::vec3 placed(std::stof(m[1]), std::stof(m[2]), std::stof(m[3]));
  std::printf("the duck collider placed at (%.3f, %.3f, %.3f) m\n", placed.x, placed.y, placed.z);
  // Its centre of mass 7.3 cm above its lowest vertex (11.7 cm when its turned principal
  // box was taken for it: it hovered 4.4 cm over the floor).
  EXPECT_NEAR(placed.y, 0.073f, 0.003f) << "standing on the floor, not near the tank's top";
  // The dam breaks and its water crosses the tank.
  std::this_thread::sleep_for(std::chrono::seconds(4));
  wait_frames(*watcher, 3);
  if (HasFatalFailure()) return;
  const Image shot = grab_window(*watcher, kWidth, kHeight);
  save_png(shot, dir + "/collider.png");
  const Blob duck = find_pixels(shot, kScene, is_wood);
  std::printf("the duck: %ld wood px, box x %d to %d, y %d to %d\n", duck.count, duck.box.x0, duck.box.x1, duck.box.y0,
              duck.box.y1);
  ASSERT_GT(duck.count, 500) << "the collider is drawn (see collider.png)";
  // Water on both sides of it, level with its lower half.
  const int y0 = (duck.box.y0 + duck.box.y1) / 2, y1 = duck.box.y1;
  const int width = duck.box.x1 - duck.box.x0;
  const long left = find_pixels(shot, Rect{duck.box.x0 - width / 2, y0, duck.box.x0, y1}, is_water_blue).count;
  const long right = find_pixels(shot, Rect{duck.box.x1, y0, duck.box.x1 + width / 2, y1}, is_water_blue).count;
  std::printf("water beside it: %ld px left, %ld px right\n", left, right);
  EXPECT_GT(left, 200) << "the water reaches it (see collider.png)";
  EXPECT_GT(right, 200) << "and runs past it";
  quit_with_escape(app, w);
  if (HasFatalFailure()) return;
  out = app.output();
  expect_no_gl_errors(ProcessResult{0, out});
  glm::vec3 at_exit(0.0f);
  ASSERT_TRUE(body_at_exit(out, 0, &at_exit)) << out;
  EXPECT_NEAR(at_exit.x, placed.x, 1e-3f) << "nothing moves a collider";
  EXPECT_NEAR(at_exit.y, placed.y, 1e-3f);
  EXPECT_NEAR(at_exit.z, placed.z, 1e-3f);
  EXPECT_NE(out.find("particles at exit: 0 outside the tank, 0 not finite"), std::string::npos) << out;
}

// The panel's Bodies section: Add drops a box above the water at the view's centre, Load
// mesh a duck (the field's default, assets/meshes/duck.obj), and the x beside body 0 removes
// the pine box; each edit is printed, the new bodies are drawn (more wood on screen where
// the water was) and at exit the simulation has them, the water running on throughout.
TEST(Window, ThePanelAddsABoxLoadsAMeshAndRemovesABody) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  PanelApp p("floating", dir);  // (the whole Bodies section and the mesh row fit the panel)
  if (HasFatalFailure()) return;
  RunningApp& app = p.app;
  const auto& watcher = p.watcher;
  const unsigned long w = p.w;
  const Image before = grab_window(*watcher, kWidth, kHeight);
  save_png(before, dir + "/before.png");
  const long wood_before = find_pixels(before, kScene, is_wood).count;

  click(w, wait_for_widget(app, "body add"));
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: body 4 added (box)")) << app.output();
  wait_frames(*watcher, 5);  // the new row moves the widgets below it: their new places
  if (HasFatalFailure()) return;
  click(w, wait_for_widget(app, "mesh load"));
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: body 5 added (mesh duck.obj)")) << app.output();
  wait_frames(*watcher, 5);
  if (HasFatalFailure()) return;
  EXPECT_NE(app.output().find("tidepool: duck.obj: 4,816 triangles, distance field"), std::string::npos)
      << "the field's build is reported";
  // Let them fall into the water.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  wait_frames(*watcher, 3);
  if (HasFatalFailure()) return;
  const Image added = grab_window(*watcher, kWidth, kHeight);
  save_png(added, dir + "/added.png");
  const long wood_added = find_pixels(added, kScene, is_wood).count;

  click(w, wait_for_widget(app, "body remove 0"));
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: body 0 removed (5 left)")) << app.output();
  wait_frames(*watcher, 5);
  if (HasFatalFailure()) return;
  const Image removed = grab_window(*watcher, kWidth, kHeight);
  save_png(removed, dir + "/removed.png");
  const long wood_removed = find_pixels(removed, kScene, is_wood).count;
  std::printf("wood on screen: %ld px with the scene's 4 bodies, %ld with a box and a duck added, %ld with "
              "the pine box removed\n",
              wood_before, wood_added, wood_removed);
  EXPECT_GT(wood_added, wood_before + 1000) << "the box and the duck are drawn (see added.png)";
  EXPECT_LT(wood_removed, wood_added - 1000) << "the pine box is gone (see removed.png)";

  quit_with_escape(app, w);
  if (HasFatalFailure()) return;
  const std::string out = app.output();
  expect_no_gl_errors(ProcessResult{0, out});
  glm::vec3 c;
  EXPECT_TRUE(body_at_exit(out, 4, &c)) << out;
  EXPECT_FALSE(body_at_exit(out, 5, &c)) << "five bodies at exit";
  EXPECT_NE(out.find("(mesh) at"), std::string::npos) << "the duck is among them";
}
