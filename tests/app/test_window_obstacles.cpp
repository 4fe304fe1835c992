// Rigid obstacles in a real window under Xvfb: a sphere and a box standing in a shallow
// pool, drawn as solid sandstone shapes in both render modes, hiding the water behind
// them and hidden (spheres) or tinted (surface) by the water in front of them; and the
// ctrl + left drag that moves one. Run as the other window tests (see test_window.cpp).
//
// The scene file uses the "obstacles" key of the scene format; on a branch whose parser
// does not know it yet, these tests fail at start-up with the parser's message.
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
#include <vector>

#include "image.h"
#include "process.h"
#include "x11_frames.h"

using namespace tp::test;
#include "window_harness.h"

namespace {

// The pool: 2 x 1.2 x 1 m, water 0.3 m deep; a ball half in the water at the left, a box
// standing on the floor at the right and rising 0.2 m out of the water.
const glm::vec3 kSphereCenter(-0.4f, 0.3f, 0.0f);
constexpr float kSphereRadius = 0.2f;
const glm::vec3 kBoxCenter(0.45f, 0.25f, 0.0f), kBoxHalf(0.15f, 0.25f, 0.15f);
const glm::vec3 kCameraTarget(0.0f, 0.3f, 0.0f);
constexpr float kCameraDistance = 3.2f, kCameraPitch = 35.0f;  // yaw 0: looking along -z

std::string write_obstacle_scene(const std::string& path) {
  std::ofstream out(path);
  out << R"({ "name": "obstacles_test", "tank": { "min": [-1.0, 0.0, -0.5], "max": [1.0, 1.2, 0.5] },
  "particle_spacing": 0.05,
  "fluid_blocks": [ { "min": [-1.0, 0.0, -0.5], "max": [1.0, 0.3, 0.5] } ],
  "obstacles": [ { "shape": "sphere", "center": [-0.4, 0.3, 0.0], "radius": 0.2 },
                 { "shape": "box", "center": [0.45, 0.25, 0.0], "size": [0.3, 0.5, 0.3] } ],
  "camera": { "target": [0.0, 0.3, 0.0], "distance": 3.2, "yaw": 0.0, "pitch": 35.0 } })";
  return path;
}

// Where a world point is drawn, in window pixels, with the panel hidden (the image centre
// is then the window's): the orbit camera's view, a 45 degree vertical field of view.
// Worked out here independently of the app's camera code.
glm::vec2 project(const glm::vec3& p, int width, int height) {
  const float pitch = glm::radians(kCameraPitch);
  const glm::vec3 forward(0.0f, -std::sin(pitch), -std::cos(pitch));
  const glm::vec3 eye = kCameraTarget - forward * kCameraDistance;
  const glm::mat4 view = glm::lookAt(eye, kCameraTarget, glm::vec3(0, 1, 0));
  const glm::mat4 projection =
      glm::perspective(glm::radians(45.0f), float(width) / float(height), 0.05f, 100.0f);
  const glm::vec4 clip = projection * view * glm::vec4(p, 1.0f);
  return glm::vec2((clip.x / clip.w + 1.0f) * 0.5f * float(width),
                   (1.0f - clip.y / clip.w) * 0.5f * float(height));
}

// The obstacles' sandstone, lit or in shade, and its highlight: red well above blue.
// Water (blue), the floor and the background (greys, slightly blue) are not.
bool is_obstacle_color(const uint8_t* p) { return p[0] >= 60 && p[0] > p[1] && p[0] >= p[2] + 25; }

// Water as either mode draws it: the spheres mode's blue, or the surface mode's floor seen
// through the water, tinted teal (a dark tile reads about (46, 106, 135): blue only 29
// over green, which is_water_blue's 30 refuses). Grey tiles and the background have r, g
// and b close together; the obstacles are red over blue.
bool is_water_color(const uint8_t* p, bool surface) {
  if (!surface) return is_water_blue(p);
  return p[2] >= 70 && p[2] >= p[0] + 45 && p[2] >= p[1] + 15;
}

struct Region {
  long pixels = 0, obstacle = 0, water = 0;
  Rgb mean;
  double obstacle_share() const { return pixels ? double(obstacle) / double(pixels) : 0.0; }
  double water_share() const { return pixels ? double(water) / double(pixels) : 0.0; }
};

// The pixels of `rect` for which inside(x, y) holds: how many look like obstacle or
// water, and their mean colour.
template <class Inside>
Region region(const Image& img, Rect rect, Inside inside, bool surface = false) {
  Region r;
  rect = img.clip(rect);
  for (int y = rect.y0; y < rect.y1; ++y)
    for (int x = rect.x0; x < rect.x1; ++x) {
      if (!inside(x, y)) continue;
      const uint8_t* p = img.at(x, y);
      ++r.pixels;
      r.obstacle += is_obstacle_color(p);
      r.water += is_water_color(p, surface);
      r.mean.r += p[0], r.mean.g += p[1], r.mean.b += p[2];
    }
  if (r.pixels)
    r.mean.r /= double(r.pixels), r.mean.g /= double(r.pixels), r.mean.b /= double(r.pixels);
  return r;
}

Region square(const Image& img, glm::vec2 c, int half, bool surface = false) {
  return region(img,
                Rect{int(c.x) - half, int(c.y) - half, int(c.x) + half + 1, int(c.y) + half + 1},
                [](int, int) { return true; }, surface);
}

// The obstacles, water and occlusion in one screenshot of the scene (panel hidden).
void expect_obstacles_drawn(const Image& shot, bool surface) {
  const int w = shot.width, h = shot.height;
  const glm::vec2 c = project(kSphereCenter, w, h);
  // The ball's radius on screen, from the projection of its top (the view is tilted, so
  // about right, within a few per cent).
  const float r = glm::length(project(kSphereCenter + glm::vec3(0, kSphereRadius, 0), w, h) - c) /
                  std::cos(glm::radians(kCameraPitch));
  ASSERT_GT(r, 30.0f);
  const Rect around{int(c.x - r), int(c.y - r), int(c.x + r) + 1, int(c.y + r) + 1};
  // The ball's upper half, above the water: in front of the far water, which it hides.
  const Region cap = region(shot, around, [&](int x, int y) {
    return std::hypot(x - c.x, y - c.y) < 0.8 * r && y < c.y - 0.25 * r;
  });
  // Its lowest part, below where the waterline crosses its front (at about 0.57 r below
  // the centre, seen from 35 degrees above): behind the water in front of it.
  const Region under = region(shot, around, [&](int x, int y) {
    return std::abs(x - c.x) < 0.25 * r && y > c.y + 0.72 * r && y < c.y + 0.92 * r;
  });
  // Beside it on both sides, at its centre's height: the water it stands in.
  const Region left = square(shot, c - glm::vec2(1.6f * r, 0), 6, surface);
  const Region right = square(shot, c + glm::vec2(1.6f * r, 0), 6, surface);
  // The box: its front face above the water, and below the waterline (behind water).
  const glm::vec3 front = kBoxCenter + glm::vec3(0, 0, kBoxHalf.z);
  const Region box_dry = square(shot, project(front + glm::vec3(0, 0.15f, 0), w, h), 8);
  const Region box_wet = square(shot, project(front + glm::vec3(0, -0.15f, 0), w, h), 5);
  // Far from both: the water's right end, and the empty space above the tank.
  const Region far_water = square(shot, project(glm::vec3(0.85f, 0.3f, 0.3f), w, h), 12);
  const Region sky =
      region(shot, Rect{0, 0, w, int(project(glm::vec3(0, 1.2f, -0.5f), w, h).y) - 5},
             [](int, int) { return true; });
  std::printf(
      "%s: ball at (%.0f, %.0f) r %.0f px: cap %.0f%% obstacle (%.0f, %.0f, %.0f), "
      "under %.0f%% obstacle %.0f%% water (%.0f, %.0f, %.0f); water beside %.0f%% / %.0f%%; "
      "box above water %.0f%% obstacle (%.0f, %.0f, %.0f), below %.0f%% obstacle %.0f%% "
      "water (%.0f, %.0f, %.0f); far water %.0f%% obstacle, above the tank %ld obstacle "
      "pixels\n",
      surface ? "surface" : "spheres", c.x, c.y, r, 100 * cap.obstacle_share(), cap.mean.r,
      cap.mean.g, cap.mean.b, 100 * under.obstacle_share(), 100 * under.water_share(), under.mean.r,
      under.mean.g, under.mean.b, 100 * left.water_share(), 100 * right.water_share(),
      100 * box_dry.obstacle_share(), box_dry.mean.r, box_dry.mean.g, box_dry.mean.b,
      100 * box_wet.obstacle_share(), 100 * box_wet.water_share(), box_wet.mean.r, box_wet.mean.g,
      box_wet.mean.b, 100 * far_water.obstacle_share(), sky.obstacle);

  EXPECT_GT(cap.pixels, 1000);
  EXPECT_GT(cap.obstacle_share(), 0.95)
      << "the ball's top is drawn, solid, over the water behind it";
  EXPECT_GT(box_dry.obstacle_share(), 0.95) << "the box's face above the water is drawn";
  // (The spheres mode's dark gaps between particles are not water-blue: about 70 % are.)
  EXPECT_GT(left.water_share(), 0.5) << "water left of the ball";
  EXPECT_GT(right.water_share(), 0.5) << "water right of the ball";
  EXPECT_LT(far_water.obstacle_share(), 0.01) << "no obstacle colour where there is none";
  EXPECT_EQ(sky.obstacle, 0) << "nor above the tank";
  if (!surface) {
    // The particles in front of the submerged parts hide them.
    EXPECT_GT(under.water_share(), 0.5) << "the water in front of the ball's lower part hides it";
    // (A sliver shows between the particles: they rest half a spacing off its surface.)
    EXPECT_LT(under.obstacle_share(), 0.06);
    EXPECT_GT(box_wet.water_share(), 0.5) << "the water in front of the box hides its lower part";
    EXPECT_LT(box_wet.obstacle_share(), 0.02);
  } else {
    // Clear water in front: the obstacle shows through it, tinted blue-green (relative to
    // red, the water absorbs red first). Its lit upper part is the comparison.
    const auto tint = [](const Rgb& m) { return (m.g + m.b) / std::max(m.r, 1.0); };
    EXPECT_GT(tint(box_wet.mean), tint(box_dry.mean) + 0.3)
        << "the box under the water is seen through it, tinted";
    EXPECT_GT(tint(under.mean), tint(cap.mean) + 0.1) << "so is the ball's lower part";
  }
}

}  // namespace

// Both render modes draw the obstacles where they are, solid, in front of and behind the
// water as they should be, timed as their own pass, without GL errors.
TEST(Window, ObstaclesShowInBothRenderModes) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  const std::string scene = write_obstacle_scene(dir + "/obstacles.json");
  const std::string common =
      "--scene " + scene +
      " --size 1280x800 --hide-panel --steps-per-frame 1 --set dt_min=0.0005 "
      "--set dt_max=0.0005 --frames 6 --gl-check";
  for (const char* mode : {"spheres", "surface"}) {
    SCOPED_TRACE(mode);
    const FinishedRun run = run_to_end(common + " --render " + mode, dir + "/" + mode + ".png");
    ASSERT_RAN(run);
    expect_no_gl_errors(run.result);
    double gpu = 0, cpu = 0;
    ASSERT_TRUE(pass_time(run.result.output, "obstacles", &gpu, &cpu))
        << "the obstacles pass is missing from the pass times:\n"
        << run.result.output;
    std::printf("%s: obstacles pass %.2f ms GPU, %.2f ms CPU\n", mode, gpu, cpu);
    // (Mesa's software GL reports GPU times of 0.00 ms for cheap passes now and then.)
    EXPECT_GT(cpu, 0.0);
    ASSERT_EQ(run.shot.width, 1280);
    expect_obstacles_drawn(run.shot, std::string(mode) == "surface");
  }
}

namespace {

// The obstacle-coloured pixels of the scene, as two blobs split at the widest run of
// columns without any between the first and the last: the ball (left) and the box (right).
struct TwoBlobs {
  Blob ball, box;
  bool ok = false;
};

TwoBlobs find_obstacles(const Image& img) {
  TwoBlobs t;
  const Blob all = find_pixels(img, kScene, is_obstacle_color);
  if (all.count < 200) return t;
  std::vector<int> count(size_t(img.width), 0);
  for (int y = kScene.y0; y < kScene.y1; ++y)
    for (int x = all.box.x0; x < all.box.x1; ++x)
      count[size_t(x)] += is_obstacle_color(img.at(x, y));
  int best_gap = 0, split = -1;
  for (int x = all.box.x0; x < all.box.x1;) {
    if (count[size_t(x)] > 2) {
      ++x;
      continue;
    }
    int end = x;
    while (end < all.box.x1 && count[size_t(end)] <= 2) ++end;
    if (end - x > best_gap) best_gap = end - x, split = (x + end) / 2;
    x = end;
  }
  if (split < 0 || best_gap < 10) return t;
  t.ball = find_pixels(img, Rect{kScene.x0, kScene.y0, split, kScene.y1}, is_obstacle_color);
  t.box = find_pixels(img, Rect{split, kScene.y0, kScene.x1, kScene.y1}, is_obstacle_color);
  t.ok = t.ball.count > 100 && t.box.count > 100;
  return t;
}

// "tidepool: obstacle 0 (sphere) at -0.4000 0.3000 0.0000 m", printed at exit.
bool obstacle_at_exit(const std::string& output, int index, glm::vec3* center) {
  std::smatch m;
  const std::regex re("tidepool: obstacle " + std::to_string(index) +
                      R"( \(\w+\) at ([-0-9.]+) ([-0-9.]+) ([-0-9.]+) m)");
  if (!std::regex_search(output, m, re)) return false;
  *center = glm::vec3(std::stof(m[1]), std::stof(m[2]), std::stof(m[3]));
  return true;
}

}  // namespace

// Ctrl + left drag on the ball: it lights up under the cursor with ctrl held, follows the
// cursor up and to the left, and stays there; the box does not move.
TEST(Window, CtrlLeftDragMovesAnObstacle) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  const std::string scene = write_obstacle_scene(dir + "/obstacles.json");
  RunningApp app("--scene " + scene +
                     " --size 1280x800 --steps-per-frame 1 --set dt_min=0.0005 --set dt_max=0.0005 "
                     "--frames 1000000 --gl-check --screenshot " +
                     quoted(dir + "/after.png"),
                 dir + "/drag.log");
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start_and_find_window(app, &watcher, &w);
  if (HasFatalFailure()) return;

  const Image before = grab_window(*watcher, kWidth, kHeight);
  ASSERT_TRUE(before.ok()) << before.error;
  save_png(before, dir + "/before.png");
  const TwoBlobs start = find_obstacles(before);
  ASSERT_TRUE(start.ok) << "the ball and the box are not both in view (see before.png)";
  const int x0 = int(start.ball.cx), y0 = int(start.ball.cy);

  // Ctrl held with the cursor on the ball: highlighted. (Keys go to the focused window.)
  send("windowfocus --sync " + std::to_string(w));
  send(at(w, x0, y0));
  send("keydown ctrl");
  wait_frames(*watcher, 3);
  const Image hover = grab_window(*watcher, kWidth, kHeight);
  save_png(hover, dir + "/hover.png");
  const Rgb plain = mean_color_where(before, before, start.ball.box, is_obstacle_color);
  const Rgb lit = mean_color_where(hover, before, start.ball.box, is_obstacle_color);
  std::printf(
      "ball (%ld px) at (%.0f, %.0f): mean colour (%.0f, %.0f, %.0f), with ctrl over it "
      "(%.0f, %.0f, %.0f)\n",
      start.ball.count, start.ball.cx, start.ball.cy, plain.r, plain.g, plain.b, lit.r, lit.g,
      lit.b);
  EXPECT_GT(color_distance(plain, lit), 25.0) << "the ball under the cursor is highlighted";

  // Drag 150 px left and 105 px up in 15 steps, a couple of frames each.
  constexpr int kSteps = 15, kStepX = -10, kStepY = -7;
  send("mousedown 1");
  wait_frames(*watcher, 2);
  for (int k = 1; k <= kSteps && !HasFatalFailure(); ++k) {
    send(at(w, x0 + k * kStepX, y0 + k * kStepY));
    wait_frames(*watcher, 2);
  }
  if (HasFatalFailure()) return;
  send("mouseup 1");
  send("keyup ctrl");
  // An obstacle moves at most half a spacing per step (one step per frame here), so it
  // may trail the cursor for a few dozen frames before it reaches where it was dropped.
  wait_frames(*watcher, 60);
  if (HasFatalFailure()) return;
  const Image after = grab_window(*watcher, kWidth, kHeight);
  save_png(after, dir + "/after_grab.png");
  const TwoBlobs end = find_obstacles(after);
  ASSERT_TRUE(end.ok) << "the obstacles are not both in view after the drag (see after_grab.png)";
  const double dx = end.ball.cx - start.ball.cx, dy = end.ball.cy - start.ball.cy;
  std::printf(
      "ball centroid moved by (%.0f, %.0f) px for a drag of (%d, %d); box by (%.1f, %.1f)\n", dx,
      dy, kSteps * kStepX, kSteps * kStepY, end.box.cx - start.box.cx, end.box.cy - start.box.cy);
  // The grab point follows the cursor; the ball's visible part (above the water, or all of
  // it once lifted out) need not move by exactly as much.
  EXPECT_LT(dx, 0.6 * kSteps * kStepX) << "the ball moved left with the cursor";
  EXPECT_LT(dy, 0.4 * kSteps * kStepY) << "and up";
  EXPECT_LT(std::abs(end.box.cx - start.box.cx), 3.0) << "the box stayed";
  EXPECT_LT(std::abs(end.box.cy - start.box.cy), 3.0);

  send("key Escape");
  ASSERT_TRUE(app.wait_exit(60)) << "Escape did not quit within 60 s";
  ASSERT_EQ(app.exit_code(), 0) << app.output();
  expect_no_gl_errors(ProcessResult{0, app.output()});
  glm::vec3 ball(0.0f), box(0.0f);
  ASSERT_TRUE(obstacle_at_exit(app.output(), 0, &ball)) << app.output();
  ASSERT_TRUE(obstacle_at_exit(app.output(), 1, &box)) << app.output();
  std::printf("ball centre at exit (%.3f, %.3f, %.3f) m, box (%.3f, %.3f, %.3f) m\n", ball.x,
              ball.y, ball.z, box.x, box.y, box.z);
  // 150 px at the ball's depth is about 0.5 m; up on screen is up and away in the world.
  EXPECT_LT(ball.x, kSphereCenter.x - 0.25f) << "moved left in the world";
  EXPECT_GT(ball.y, kSphereCenter.y + 0.12f) << "and up";
  EXPECT_LT(glm::length(box - kBoxCenter), 1e-3f) << "the box did not move";
}

// A ctrl + left drag that starts on the water, not on an obstacle, does nothing: the same
// run without input draws the same frame, pixel for pixel; the same drag without ctrl
// pushes the water (so the drag did cross it).
TEST(Window, CtrlLeftDragOffTheObstaclesLeavesTheWaterAlone) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  const std::string scene = write_obstacle_scene(dir + "/obstacles.json");
  const std::string common = "--scene " + scene +
                             " --size 1280x800 --steps-per-frame 3 --set dt_min=0.0005 "
                             "--set dt_max=0.0005 --set mouse_mode=push";
  // A drag across the front of the pool, below the obstacles, 120 px to the right.
  const auto drag = [&](bool ctrl, const std::string& name, ExitLine* exit, Image* shot) {
    const std::string png = dir + "/" + name + ".png";
    RunningApp app(common + " --frames 1000000 --screenshot " + quoted(png),
                   dir + "/" + name + ".log");
    std::unique_ptr<FrameWatcher> watcher;
    unsigned long w = 0;
    start_and_find_window(app, &watcher, &w);
    if (HasFatalFailure()) return;
    const Image first = grab_window(*watcher, kWidth, kHeight);
    const TwoBlobs obstacles = find_obstacles(first);
    ASSERT_TRUE(obstacles.ok) << "the obstacles are not in view";
    // Below the ball and left of the box, on the water. The picking sees the obstacles'
    // parts under the water too (what ctrl + left would grab there), so the path keeps
    // clear of the ball's hidden lower half (reaching about a radius, half the visible
    // top's width, below the waterline) and of the box.
    const int y = obstacles.ball.box.y1 + obstacles.ball.box.width() / 2 + 10;
    const int x_from = int(obstacles.ball.cx), x_to = x_from + 120;
    ASSERT_LT(x_to, obstacles.box.box.x0 - 10) << "the drag path reaches the box";
    ASSERT_GT(square(first, glm::vec2(x_from, y), 7).water_share(), 0.3)
        << "the drag starts on the water, at (" << x_from << ", " << y << ")";
    ASSERT_GT(square(first, glm::vec2(x_to, y), 7).water_share(), 0.3) << "and ends on it";
    send("windowfocus --sync " + std::to_string(w));
    send(at(w, x_from, y));
    if (ctrl) send("keydown ctrl");
    wait_frames(*watcher, 2);
    send("mousedown 1");
    wait_frames(*watcher, 2);
    for (int x = x_from + 10; x <= x_to && !HasFatalFailure(); x += 10) {
      send(at(w, x, y));
      wait_frames(*watcher, 2);
    }
    send("mouseup 1");
    if (ctrl) send("keyup ctrl");
    wait_frames(*watcher, 20);
    if (HasFatalFailure()) return;
    send("key Escape");
    ASSERT_TRUE(app.wait_exit(60)) << "Escape did not quit within 60 s";
    ASSERT_EQ(app.exit_code(), 0) << app.output();
    *exit = parse_exit_line(app.output());
    ASSERT_TRUE(exit->found) << app.output();
    *shot = load_png(png);
    ASSERT_TRUE(shot->ok()) << shot->error;
  };
  ExitLine with_ctrl_exit, plain_exit;
  Image with_ctrl, plain;
  drag(true, "ctrl_drag", &with_ctrl_exit, &with_ctrl);
  if (HasFatalFailure()) return;
  const FinishedRun still = run_to_end(
      common + " --frames " + std::to_string(with_ctrl_exit.frames), dir + "/no_input.png");
  ASSERT_RAN(still);
  EXPECT_EQ(still.exit.steps, with_ctrl_exit.steps);
  const long differ = count_differing(still.shot, with_ctrl, kScene);
  std::printf(
      "ctrl + left drag on the water: %ld scene pixels differ from the run without input "
      "(%ld frames)\n",
      differ, with_ctrl_exit.frames);
  EXPECT_EQ(differ, 0) << "a ctrl + left drag off the obstacles changed the scene";

  drag(false, "plain_drag", &plain_exit, &plain);
  if (HasFatalFailure()) return;
  const FinishedRun still2 =
      run_to_end(common + " --frames " + std::to_string(plain_exit.frames), dir + "/no_input2.png");
  ASSERT_RAN(still2);
  const long pushed = count_differing(still2.shot, plain, kScene);
  std::printf("the same drag without ctrl: %ld scene pixels differ\n", pushed);
  EXPECT_GT(pushed, 2000) << "the plain drag pushed the water";
}

// The same drag in the gas's window: ctrl + left drag on the wind tunnel's ball lifts it
// through the smoke (the exit line says where it ended), the box stays, and the smoke is
// drawn around the ball where it is now.
TEST(Window, GasCtrlLeftDragMovesAnObstacleThroughTheSmoke) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  RunningApp app("--scene smoke_obstacles --size 1280x800 --steps-per-frame 1 --gl-check", dir + "/drag.log");
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start_and_find_window(app, &watcher, &w);
  if (HasFatalFailure()) return;
  const Image before = grab_window(*watcher, kWidth, kHeight);
  save_png(before, dir + "/before.png");
  // The ball: the obstacle pixels of the leftmost blob (the box is 0.7 m to its right).
  int left = kWidth;
  for (int y = kScene.y0; y < kScene.y1; ++y)
    for (int x = kScene.x0; x < kScene.x1; ++x)
      if (is_obstacle_color(before.at(x, y))) left = std::min(left, x);
  double sx = 0, sy = 0;
  long n = 0;
  for (int y = kScene.y0; y < kScene.y1; ++y)
    for (int x = left; x < std::min(left + 120, kWidth); ++x)
      if (is_obstacle_color(before.at(x, y))) sx += x, sy += y, ++n;
  ASSERT_GT(n, 500) << "the ball is not drawn: see " << dir << "/before.png";
  const int x0 = int(sx / double(n)), y0 = int(sy / double(n));
  send("windowfocus --sync " + std::to_string(w));
  send(at(w, x0, y0));
  send("keydown ctrl");
  wait_frames(*watcher, 3);
  send("mousedown 1");
  wait_frames(*watcher, 2);
  for (int k = 1; k <= 10 && !HasFatalFailure(); ++k) {
    send(at(w, x0, y0 - 8 * k));
    wait_frames(*watcher, 2);
  }
  if (HasFatalFailure()) return;
  send("mouseup 1");
  send("keyup ctrl");
  wait_frames(*watcher, 10);
  if (HasFatalFailure()) return;
  save_png(grab_window(*watcher, kWidth, kHeight), dir + "/after.png");
  send("key Escape");
  ASSERT_TRUE(app.wait_exit(60)) << "Escape did not quit within 60 s";
  ASSERT_EQ(app.exit_code(), 0) << app.output();
  expect_no_gl_errors(ProcessResult{0, app.output()});
  glm::vec3 ball(0.0f), box(0.0f);
  ASSERT_TRUE(obstacle_at_exit(app.output(), 0, &ball)) << app.output();
  ASSERT_TRUE(obstacle_at_exit(app.output(), 1, &box)) << app.output();
  std::printf("ball from (%d, %d) px dragged 80 px up: centre at exit (%.3f, %.3f, %.3f) m\n", x0, y0, ball.x,
              ball.y, ball.z);
  EXPECT_GT(ball.y, 0.42f + 0.12f) << "the ball went up with the cursor";
  EXPECT_NEAR(ball.x, -0.3f, 0.1f);
  EXPECT_LT(glm::length(box - glm::vec3(0.4f, 0.3f, 0.05f)), 1e-3f) << "the box did not move";
}

// The particle inspector (shift + left click; the panel's Debug views section): a cube of
// 5 x 5 x 5 particles 5 cm apart, nearly still in zero gravity, centred on the camera's
// target; with the panel hidden (Tab) the target is the window's centre, and a shift-click there names
// the particle in the middle of the cube's front face, (0.025, 0.625, 0.125) m (the lattice
// continues the tank's, whose faces are at -1, 0 and -0.5 m), and highlights it
// (magenta) with its neighbours (yellow).
TEST(Window, ShiftClickInspectsTheParticleUnderTheCursor) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  const std::string scene =
      write_scene(dir + "/cube.json", "[-0.1, 0.5, -0.1]", "[0.15, 0.75, 0.15]", "0.05",
                  R"({ "target": [0.025, 0.625, 0.025], "distance": 1.5, "yaw": 0.0, "pitch": 0.0 })");
  RunningApp app("--scene " + scene +
                     " --spacing 0.05 --size 1280x800 --steps-per-frame 1 --set dt_min=0.0002 "
                     "--set dt_max=0.0002 --set gravity_y=0 --set diffuse=0 --frames 1000000 --gl-check",
                 dir + "/inspect.log");
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start_and_find_window(app, &watcher, &w);
  if (HasFatalFailure()) return;
  const auto magenta = [](const uint8_t* p) { return p[0] > 180 && p[1] < 110 && p[2] > 180; };
  const auto yellow = [](const uint8_t* p) { return p[0] > 180 && p[1] > 150 && p[2] < 90; };
  // Tab hides the panel (started with it, whose frame counter the watcher follows): the
  // view is then centred in the window. From here frames are awaited on the clock.
  send("windowfocus --sync " + std::to_string(w));
  send("key Tab");
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const Image before = grab_window(*watcher, kWidth, kHeight);
  ASSERT_TRUE(before.ok()) << before.error;
  save_png(before, dir + "/before.png");
  send(at(w, kWidth / 2, kHeight / 2));
  send("keydown shift");
  send("click 1");
  send("keyup shift");
  const std::string line = "tidepool: inspecting particle ";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  // (Polled on the clock: the still cube draws frames that hardly change.)
  while (app.output().find(line) == std::string::npos && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const std::string out = app.output();
  const size_t found = out.find(line);
  ASSERT_NE(found, std::string::npos) << "no particle was inspected:\n" << out;
  unsigned id = 0;
  float x = 0, y = 0, z = 0;
  ASSERT_EQ(std::sscanf(out.c_str() + found + line.size(), "%u at %f %f %f", &id, &x, &y, &z), 4)
      << out.substr(found, 120);
  std::printf("inspected particle %u at (%.4f, %.4f, %.4f) m\n", id, x, y, z);
  EXPECT_NEAR(x, 0.025f, 0.015f) << "the middle of the front face";
  EXPECT_NEAR(y, 0.625f, 0.015f);
  EXPECT_NEAR(z, 0.125f, 0.015f) << "the front face, nearest the camera";
  std::this_thread::sleep_for(std::chrono::seconds(1));  // a few frames with the highlight
  const Image after = grab_window(*watcher, kWidth, kHeight);
  ASSERT_TRUE(after.ok()) << after.error;
  save_png(after, dir + "/after.png");
  const Rect middle{kWidth / 2 - 120, kHeight / 2 - 120, kWidth / 2 + 120, kHeight / 2 + 120};
  const long marked_before = find_pixels(before, middle, magenta).count;
  const long marked_after = find_pixels(after, middle, magenta).count;
  const long yellow_after = find_pixels(after, middle, yellow).count;
  std::printf("magenta pixels near the centre %ld -> %ld, yellow %ld\n", marked_before, marked_after,
              yellow_after);
  EXPECT_GT(marked_after, marked_before + 100) << "the inspected particle is highlighted";
  EXPECT_GT(yellow_after, 100) << "and its neighbours";
  const Blob r = find_pixels(after, middle, magenta);
  EXPECT_NEAR(r.cx, kWidth / 2, 15.0) << "under the cursor";
  EXPECT_NEAR(r.cy, kHeight / 2, 15.0);
  send("key Escape");
  ASSERT_TRUE(app.wait_exit(60)) << app.output();
  EXPECT_TRUE(parse_exit_line(app.output()).found) << app.output();
}
