// A 2D scene in the window: seen square-on, particles as discs, the mouse's force in the
// plane under the cursor, and the 2D camera (both drags pan, the wheel zooms about the
// cursor). Screenshots are kept in $TMPDIR/tidepool_window/<checkout>-<n>/<test>/ (window_harness.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "image.h"
#include "process.h"
#include "x11_frames.h"
#include "window_harness.h"

using namespace tp::test;

namespace {

// The 2D dam break (a 1 m square of water against the left wall of a 4 x 2 m tank) with a
// fixed step, drawn in one flat colour so that fast water is found as readily as still
// water (flat_color is water-blue; the discs' rims stay blue too).
const std::string k2d =
    "--scene dam_break_2d --solver wcsph --particles 3000 --size 1280x800 --color flat "
    "--set dt_min=0.0005 --set dt_max=0.0005";

std::string blob_text(const Blob& b) {
  char text[160];
  std::snprintf(text, sizeof(text), "%ld px, centroid (%.0f, %.0f), box x %d..%d y %d..%d", b.count, b.cx,
                b.cy, b.box.x0, b.box.x1, b.box.y0, b.box.y1);
  return text;
}

// Water pixels in the square of half size `half` around (x, y).
long water_around(const Image& img, int x, int y, int half) {
  return find_water(img, Rect{x - half, y - half, x + half, y + half}).count;
}

}  // namespace

TEST(Window, TwoDimensionalDamBreakIsSeenSquareOnAndTheMousePushesInThePlane) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();

  // ---- square-on: the block is a square at the tank's left end, and then runs right.
  const FinishedRun start = run_to_end(k2d + " --steps-per-frame 3 --frames 10 --gl-check", dir + "/start.png");
  ASSERT_RAN(start);
  expect_no_gl_errors(start.result);
  const Blob block = find_water(start.shot, kScene);
  std::printf("start: %s\n", blob_text(block).c_str());
  ASSERT_GT(block.count, 10000) << "no water block in start.png";
  const double aspect = double(block.box.width()) / double(block.box.height());
  // Seen square-on, the 1 m square is a square on screen (a tilted view would foreshorten
  // it, an orbit make it a trapezoid), and most of its box is water (discs: 0.71 here,
  // the rest their rims and the gaps between them).
  EXPECT_NEAR(aspect, 1.0, 0.08) << "the block is not square on screen";
  EXPECT_GT(double(block.count), 0.6 * block.box.width() * block.box.height()) << "the block is not solid";
  const double scene_cx = 0.5 * (kScene.x0 + kScene.x1);
  EXPECT_LT(block.box.x1, scene_cx) << "the block is left of the middle";
  EXPECT_GT(block.box.x0, kScene.x0) << "the tank's left wall is in view, beside the panel";
  // The tank (4 m wide, the block 1 m) fits the view beside the panel.
  EXPECT_LT(block.box.x0 + 4.0 * block.box.width(), kWidth) << "the tank's right end is off screen";

  // Later (0.6 s) the water has run to the right and lies low.
  const FinishedRun later = run_to_end(k2d + " --steps-per-frame 10 --frames 120", dir + "/later.png");
  ASSERT_RAN(later);
  const Blob flow = find_water(later.shot, kScene);
  std::printf("later: %s\n", blob_text(flow).c_str());
  EXPECT_GT(flow.box.x1, block.box.x0 + 2.5 * block.box.width()) << "the water ran to the right";
  EXPECT_LT(flow.box.height(), 0.75 * block.box.height()) << "and collapsed";
  EXPECT_GT(flow.cx, block.cx + 0.4 * block.box.width());

  // ---- a push held in one spot in the water clears the water around the cursor, against
  // the same run without it (same frames, same steps: the lockstep run is repeatable).
  const int push_x = int(block.cx), push_y = int(block.cy);
  const std::string push_args = k2d + " --steps-per-frame 3 --set mouse_mode=push";
  long push_frames = 0;
  Image pushed;
  {
    const std::string png = dir + "/pushed.png";
    RunningApp app(push_args + " --frames 1000000 --screenshot " + quoted(png), dir + "/pushed.log");
    std::unique_ptr<FrameWatcher> watcher;
    unsigned long w = 0;
    start_and_find_window(app, &watcher, &w);
    if (HasFatalFailure()) return;
    send(at(w, push_x, push_y));
    wait_frames(*watcher, 2);
    send("mousedown 1");
    wait_frames(*watcher, 50);
    send("mouseup 1");
    wait_frames(*watcher, 5);
    if (HasFatalFailure()) return;
    quit_with_escape(app, w);
    if (HasFatalFailure()) return;
    const ExitLine exit = parse_exit_line(app.output());
    ASSERT_TRUE(exit.found) << app.output();
    push_frames = exit.frames;
    pushed = load_png(png);
    ASSERT_TRUE(pushed.ok()) << pushed.error;
  }
  const FinishedRun still = run_to_end(push_args + " --frames " + std::to_string(push_frames), dir + "/not_pushed.png");
  ASSERT_RAN(still);
  // 0.05 m around the cursor: water without the push, little with. (Measured here: the
  // push opens a round hole of about 0.07 m radius centred on the cursor.)
  const int half = std::max(4, block.box.width() / 20);
  const long with_push = water_around(pushed, push_x, push_y, half);
  const long without = water_around(still.shot, push_x, push_y, half);
  const double near_diff = mean_abs_diff(pushed, still.shot, Rect{push_x - 3 * half, push_y - 3 * half,
                                                                   push_x + 3 * half, push_y + 3 * half});
  std::printf("push at (%d, %d) for %ld frames: water within %d px %ld with the push, %ld without; "
              "mean |A - B| around it %.2f\n",
              push_x, push_y, push_frames, half, with_push, without, near_diff);
  EXPECT_GT(without, long(0.5 * 4 * half * half)) << "the water is there without the push";
  EXPECT_LT(with_push, without / 3) << "the push cleared the water around the cursor";
  EXPECT_GT(near_diff, 5.0);

  // ---- the camera: a right drag and a middle drag pan (no orbit), the wheel zooms about
  // the cursor. Without gravity the block stays where it is while the camera moves.
  RunningApp app(k2d + " --steps-per-frame 1 --set gravity_y=0 --frames 1000000", dir + "/camera.log");
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start_and_find_window(app, &watcher, &w);
  if (HasFatalFailure()) return;
  const auto look = [&](const char* name) {
    const Image img = grab_window(*watcher);
    save_png(img, dir + "/" + name + ".png");
    const Blob b = find_water(img, kScene);
    std::printf("%s: %s\n", name, blob_text(b).c_str());
    return b;
  };
  // Drags in steps, each waiting for frames, as a person's hand would.
  const auto drag = [&](int button, int x, int y, int dx, int dy) {
    send(at(w, x, y));
    wait_frames(*watcher, 2);
    send("mousedown " + std::to_string(button));
    wait_frames(*watcher, 2);
    for (int k = 1; k <= 10; ++k) {
      send(at(w, x + dx * k / 10, y + dy * k / 10));
      wait_frames(*watcher, 1);
    }
    send("mouseup " + std::to_string(button));
    wait_frames(*watcher, 3);
  };
  wait_frames(*watcher, 3);
  const Blob before = look("camera_start");
  ASSERT_GT(before.count, 10000);
  // Right drag 240 px right: the picture follows the cursor (a pan), and stays square (no
  // orbit).
  drag(3, int(before.cx), int(before.cy) - 40, 240, 0);
  if (HasFatalFailure()) return;
  const Blob right = look("after_right_drag");
  EXPECT_NEAR(right.cx - before.cx, 240.0, 20.0) << "the right drag panned right";
  EXPECT_NEAR(right.cy, before.cy, 10.0);
  EXPECT_NEAR(double(right.box.width()) / right.box.height(), aspect, 0.08) << "and did not orbit";
  // Middle drag 100 px up.
  drag(2, int(right.cx), int(right.cy), 0, -100);
  if (HasFatalFailure()) return;
  const Blob middle = look("after_middle_drag");
  EXPECT_NEAR(middle.cy - right.cy, -100.0, 15.0) << "the middle drag panned up";
  EXPECT_NEAR(middle.cx, right.cx, 10.0);
  // Four wheel steps up at the block's upper left quarter: larger by 1 / 0.9^4 = 1.52,
  // and the point under the cursor stays there.
  const int zx = int(middle.box.x0 + 0.3 * middle.box.width()), zy = int(middle.box.y0 + 0.3 * middle.box.height());
  send(at(w, zx, zy));
  wait_frames(*watcher, 2);
  send("click --repeat 4 --delay 30 4");
  wait_frames(*watcher, 4);
  if (HasFatalFailure()) return;
  const Blob zoomed = look("after_zoom");
  const double growth = double(zoomed.box.width()) / middle.box.width();
  EXPECT_NEAR(growth, 1.0 / std::pow(0.9, 4), 0.12) << "the wheel zoomed in";
  // The cursor's fraction of the box is the same after the zoom.
  const double fx = (zx - zoomed.box.x0) / double(zoomed.box.width());
  const double fy = (zy - zoomed.box.y0) / double(zoomed.box.height());
  std::printf("zoom: x %.2f, cursor at (%.2f, %.2f) of the block (0.30, 0.30 before)\n", growth, fx, fy);
  EXPECT_NEAR(fx, 0.3, 0.05) << "the zoom kept the point under the cursor";
  EXPECT_NEAR(fy, 0.3, 0.05) << "the zoom kept the point under the cursor";
  quit_with_escape(app, w);
}
