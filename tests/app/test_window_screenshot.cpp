// Screenshots in a real window under Xvfb: --screenshot in every render and colour mode,
// the F12 key and the panel's Save screenshot button (timestamped PNGs in the working
// directory, without the panel), and a save into a read-only directory that fails without
// stopping the app. Run as the other window tests (see test_window.cpp).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include <stb_image_write.h>

#include "image.h"
#include "process.h"
#include "x11_frames.h"

using namespace tp::test;
#include "window_harness.h"

namespace {

// At --size 800x600 the panel covers x < 348; in a --screenshot the scene beside it is
// drawn shifted right, and the tank's top edges lie above y = 200 (the water below).
constexpr int kShotWidth = 800, kShotHeight = 600;
const Rect kBeside{360, 0, kShotWidth, 540};
const Rect kAboveWater{360, 0, kShotWidth, 200};

// Pixels of `rect` where two images differ by more than `tolerance` in some channel.
std::vector<std::pair<int, int>> differing(const Image& a, const Image& b, Rect rect,
                                           int tolerance) {
  std::vector<std::pair<int, int>> pixels;
  if (a.width != b.width || a.height != b.height) return pixels;
  rect = a.clip(rect);
  for (int y = rect.y0; y < rect.y1; ++y)
    for (int x = rect.x0; x < rect.x1; ++x) {
      const uint8_t* q = b.at(x, y);
      if (channel_distance(a.at(x, y), q[0], q[1], q[2]) > tolerance) pixels.emplace_back(x, y);
    }
  return pixels;
}

// Mean colour of `image` over the pixels.
Rgb mean_color(const Image& image, const std::vector<std::pair<int, int>>& pixels) {
  Rgb m;
  for (const auto& [x, y] : pixels) {
    const uint8_t* p = image.at(x, y);
    m.r += p[0], m.g += p[1], m.b += p[2];
  }
  const double n = double(std::max<size_t>(pixels.size(), 1));
  m.r /= n, m.g /= n, m.b /= n;
  return m;
}

}  // namespace

// --screenshot writes the window, at its size, in both render modes and every colour mode,
// and each picture shows the water: where the water lies, it differs from a picture of the
// same tank whose water is out of view, while above the water the two agree (the tank and
// the background are drawn, not a black or garbled frame).
TEST(Window, ScreenshotInEveryRenderMode) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  // About 1600 particles at 7 cm: the pool's water 0.3 m deep, or a few particles in the
  // far right corner (where the pool's water hides them).
  const std::string pool =
      write_scene(dir + "/pool.json", "[-1.0, 0.0, -0.5]", "[1.0, 0.3, 0.5]", "0.07");
  const std::string corner =
      write_scene(dir + "/corner.json", "[0.86, 0.0, -0.5]", "[1.0, 0.14, -0.36]", "0.07");
  const std::string common =
      " --size 800x600 --steps-per-frame 1 --set dt_min=0.0005 --set dt_max=0.0005 --frames 3 "
      "--gl-check";
  const FinishedRun empty = run_to_end("--scene " + corner + common, dir + "/empty.png");
  ASSERT_RAN(empty);
  const FinishedRun reference = run_to_end("--scene " + pool + common, dir + "/water.png");
  ASSERT_RAN(reference);
  const auto water = differing(reference.shot, empty.shot, kBeside, 24);
  std::printf("the water: %zu pixels beside the panel\n", water.size());
  ASSERT_GT(water.size(), 30000u) << "the default mode's water, against the tank without it";

  struct Mode {
    const char* name;
    const char* args;
  };
  const Mode modes[] = {{"water", "--color water"},     {"speed", "--color speed"},
                        {"density", "--color density"}, {"pressure", "--color pressure"},
                        {"flat", "--color flat"},       {"surface", "--render surface"}};
  std::vector<Rgb> colors;
  for (const Mode& mode : modes) {
    SCOPED_TRACE(mode.name);
    const std::string png = dir + "/" + mode.name + ".png";
    const FinishedRun run = run_to_end("--scene " + pool + common + " " + mode.args, png);
    ASSERT_RAN(run);
    EXPECT_NE(run.result.output.find("tidepool: saved " + png + " (800x600)"), std::string::npos)
        << run.result.output;
    EXPECT_NE(run.result.output.find("--gl-check: no OpenGL errors"), std::string::npos);
    EXPECT_EQ(run.shot.width, kShotWidth);
    EXPECT_EQ(run.shot.height, kShotHeight);
    const double above = mean_abs_diff(run.shot, empty.shot, kAboveWater);
    size_t shown_in_water = 0;
    for (const auto& [x, y] : water) {
      const uint8_t* q = empty.shot.at(x, y);
      if (channel_distance(run.shot.at(x, y), q[0], q[1], q[2]) > 24) ++shown_in_water;
    }
    const Rgb color = mean_color(run.shot, water);
    colors.push_back(color);
    std::printf(
        "%-8s: above the water |diff| %.2f; %.0f %% of the water's pixels unlike the "
        "empty tank; water colour (%.0f, %.0f, %.0f)\n",
        mode.name, above, 100.0 * double(shown_in_water) / double(water.size()), color.r, color.g,
        color.b);
    // Measured here: |diff| 0.00 in every mode; 94 to 100 % of the water's pixels in the
    // sphere modes, 81 % in surface mode (the surface's outline is smoother).
    EXPECT_LT(above, 1.0) << "the tank and the background as in the reference";
    EXPECT_GT(double(shown_in_water), 0.6 * double(water.size())) << "the water is drawn";
  }
  // Each mode draws the water its own way (measured: at least 37 apart, in RGB units).
  for (size_t a = 0; a < colors.size(); ++a)
    for (size_t b = a + 1; b < colors.size(); ++b)
      EXPECT_GT(color_distance(colors[a], colors[b]), 15.0)
          << modes[a].name << " and " << modes[b].name << " colour the water alike";
}

// ---- F12 and the Save screenshot button -----------------------------------------------------
namespace {

// The names the button and F12 give: tidepool-YYYYMMDD-HHMMSS.png, then -2, -3, ...
const std::regex kTimestamped(R"(tidepool-(\d{4})(\d\d)(\d\d)-(\d\d)(\d\d)(\d\d)(-\d+)?\.png)");

// Every file in `dir`, by name, sorted.
std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Waits until `dir` holds `count` timestamped PNGs (or the timeout passes); returns them.
// A save's temporary NAME.png.part does not count: it is renamed only once complete.
std::vector<std::string> wait_files(const std::string& dir, size_t count, double timeout_seconds) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  for (;;) {
    std::vector<std::string> pngs;
    for (const std::string& name : files_in(dir))
      if (std::regex_match(name, kTimestamped)) pngs.push_back(name);
    if (pngs.size() >= count || std::chrono::steady_clock::now() > deadline) return pngs;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// Seconds from the local time in a timestamped name to now (-1e9 when it is no such name).
double age_of(const std::string& name) {
  std::smatch m;
  if (!std::regex_match(name, m, kTimestamped)) return -1e9;
  std::tm t{};
  t.tm_year = std::stoi(m[1]) - 1900;
  t.tm_mon = std::stoi(m[2]) - 1;
  t.tm_mday = std::stoi(m[3]);
  t.tm_hour = std::stoi(m[4]);
  t.tm_min = std::stoi(m[5]);
  t.tm_sec = std::stoi(m[6]);
  t.tm_isdst = -1;
  return std::difftime(std::time(nullptr), std::mktime(&t));
}

// Pixels of `area` of the window for which `pred(r, g, b)` holds.
template <class Pred>
long count_in_window(FrameWatcher& watcher, WindowRect area, Pred pred) {
  long n = 0;
  for (uint32_t c : watcher.grab(area))
    n += pred(int(c >> 16) & 255, int(c >> 8) & 255, int(c) & 255);
  return n;
}

// The panel, below the Simulation section's buttons, where the screenshot note appears.
WindowRect note_area(int button_y) { return WindowRect{10, button_y + 10, 330, 50}; }
bool note_green(int r, int g, int b) { return g > 150 && g > r + 60 && g > b + 60; }
bool error_red(int r, int g, int b) { return r > 200 && g < 130 && b < 130; }

// The Save screenshot button's centre in window coordinates, or (-1, -1). It is the fourth
// button on the Simulation section's first row (Pause, Step, Reset, Save screenshot),
// found by the buttons' colour: the row's height in the panel depends on the Statistics
// section above it, whose backend line differs between builds.
std::pair<int, int> find_save_button(FrameWatcher& watcher) {
  const WindowRect panel{10, 30, 340, 500};
  const std::vector<uint32_t> pixels = watcher.grab(panel);
  if (pixels.size() != size_t(panel.width) * size_t(panel.height)) return {-1, -1};
  const auto button = [](uint32_t c) {  // ImGui's button colour over the panel
    return std::abs(int(c >> 16 & 255) - 37) <= 8 && std::abs(int(c >> 8 & 255) - 71) <= 8 &&
           std::abs(int(c & 255) - 113) <= 8;
  };
  for (int y = 0; y < panel.height; ++y) {
    std::vector<std::pair<int, int>> runs;  // [x0, x1) of button colour, 25 px or longer
    int start = -1;
    for (int x = 0; x <= panel.width; ++x) {
      const bool on =
          x < panel.width && button(pixels[size_t(y) * size_t(panel.width) + size_t(x)]);
      if (on && start < 0) start = x;
      if (!on && start >= 0) {
        if (x - start >= 25) runs.emplace_back(start, x);
        start = -1;
      }
    }
    // The top row of the four buttons; the last is the widest (about 110 px).
    if (runs.size() == 4 && runs[3].second - runs[3].first >= 90)
      return {panel.x + (runs[3].first + runs[3].second) / 2, panel.y + y + 8};
  }
  return {-1, -1};
}

}  // namespace

// The panel's body is a near-black grey, (19, 19, 21) over the background, that fills
// most of this rectangle at 800x600.
const Rect panel_body{20, 60, 330, 340};
bool panel_grey(int r, int g, int b) {
  return std::max({std::abs(r - 19), std::abs(g - 19), std::abs(b - 21)}) <= 4;
}
long panel_in_window(FrameWatcher& watcher) {
  return count_in_window(
      watcher, WindowRect{panel_body.x0, panel_body.y0, panel_body.width(), panel_body.height()},
      panel_grey);
}

// F12 saves one timestamped PNG of the 3D view (no panel, the water centred) in the app's
// working directory and says so on stderr and in the panel; so does a click on the Save
// screenshot button, under another name. The app runs on and quits normally.
TEST(Window, F12AndTheButtonSaveTimestampedScreenshots) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  const std::string work = dir + "/work";
  std::filesystem::create_directory(work);
  RunningApp app("--scene pool --particles 2000 --size 800x600 --frames 1000000", dir + "/app.log",
                 work);
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start_and_find_window(app, &watcher, &w);
  if (HasFatalFailure()) return;
  const auto [button_x, button_y] = find_save_button(*watcher);
  ASSERT_GE(button_x, 0) << "no Save screenshot button on the Simulation section's first row";
  std::printf("Save screenshot button at (%d, %d)\n", button_x, button_y);
  EXPECT_EQ(count_in_window(*watcher, note_area(button_y), note_green), 0) << "no note yet";
  ASSERT_TRUE(files_in(work).empty());

  send("windowfocus --sync " + std::to_string(w) + " key F12");
  std::vector<std::string> files = wait_files(work, 1, 60);
  ASSERT_EQ(files.size(), 1u) << "F12 saved no file within 60 s:\n" << app.output();
  const std::string first = files[0];
  wait_frames(*watcher, 2);
  if (HasFatalFailure()) return;
  const long green = count_in_window(*watcher, note_area(button_y), note_green);
  ASSERT_TRUE(app.running()) << app.output();
  EXPECT_TRUE(std::regex_match(first, kTimestamped)) << first;
  const double age = age_of(first);
  EXPECT_GE(age, 0.0) << first << " is named after the local time";
  EXPECT_LT(age, 60.0) << first << " is named after the local time";
  EXPECT_NE(app.output().find("tidepool: saved " + work + "/" + first + " (800x600)"),
            std::string::npos)
      << app.output();
  EXPECT_GT(green, 30) << "the panel shows where the screenshot went";

  const Image shot = load_png(work + "/" + first);
  ASSERT_TRUE(shot.ok()) << shot.error;
  EXPECT_EQ(shot.width, 800);
  EXPECT_EQ(shot.height, 600);
  const Blob water = find_water(shot, shot.all());
  // The panel fills most of panel_body in the window, and none of it in the picture.
  const long in_window = panel_in_window(*watcher);
  const long in_picture = find_pixels(shot, panel_body, [&](const uint8_t* p) {
                            return panel_grey(p[0], p[1], p[2]);
                          }).count;
  std::printf(
      "F12: %s, %ld water pixels, centroid x %.0f; panel grey where the panel is: %ld "
      "pixels in the window, %ld in the picture\n",
      first.c_str(), water.count, water.cx, in_window, in_picture);
  const long area = long(panel_body.width()) * panel_body.height();
  EXPECT_GT(in_window, area / 2) << "the window shows the panel";
  EXPECT_LT(in_picture, area / 100) << "the picture does not";
  EXPECT_GT(water.count, 40000) << "the water is in the picture";
  EXPECT_NEAR(water.cx, 400.0, 60.0) << "centred in the window, not beside the panel";

  // The button, with the mouse: another file, another name.
  send(at(w, button_x, button_y));
  wait_frames(*watcher, 2);
  if (HasFatalFailure()) return;
  send("click 1");
  files = wait_files(work, 2, 60);
  ASSERT_EQ(files.size(), 2u) << "the button saved no file within 60 s:\n" << app.output();
  const std::string second = files[0] == first ? files[1] : files[0];
  EXPECT_TRUE(std::regex_match(second, kTimestamped)) << second;
  EXPECT_NE(app.output().find("tidepool: saved " + work + "/" + second + " (800x600)"),
            std::string::npos)
      << app.output();
  const Image again = load_png(work + "/" + second);
  EXPECT_EQ(again.width, 800);
  EXPECT_GT(find_water(again, again.all()).count, 40000);

  wait_frames(*watcher, 3);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(app.running()) << app.output();
  quit_with_escape(app, w);
  if (HasFatalFailure()) return;
  EXPECT_TRUE(parse_exit_line(app.output()).found) << app.output();
  EXPECT_EQ(files_in(work),
            (std::vector<std::string>{std::min(first, second), std::max(first, second)}))
      << "two PNGs and nothing else (no .part files)";
}

// In a directory the app may not write to, F12 fails with a sentence on stderr and in red
// in the panel, and the app carries on to the end of its --frames.
TEST(Window, ScreenshotIntoAReadOnlyDirectoryFailsAndTheAppGoesOn) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  const std::string read_only = dir + "/read_only";
  std::filesystem::create_directory(read_only);
  ASSERT_EQ(chmod(read_only.c_str(), 0555), 0);
  std::string launcher;
  if (!permission_obeying_launcher(&launcher))
    GTEST_SKIP() << "running as root without setpriv (util-linux): cannot make a directory "
                    "read-only for the app";
  const ProcessResult probe =
      run_command("cd " + quoted(read_only) + " && " + launcher + " touch probe");
  ASSERT_NE(probe.exit_code, 0) << "the directory is writable: this test could not see a failure";

  constexpr int kFrames = 150;
  RunningApp app("--scene pool --particles 2000 --size 800x600 --steps-per-frame 2 --frames " +
                     std::to_string(kFrames),
                 dir + "/app.log", read_only, launcher);
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start_and_find_window(app, &watcher, &w);
  if (HasFatalFailure()) return;
  const auto [button_x, button_y] = find_save_button(*watcher);
  ASSERT_GE(button_y, 0) << "no Save screenshot button on the Simulation section's first row";
  EXPECT_EQ(count_in_window(*watcher, note_area(button_y), error_red), 0) << "no error yet";

  send("windowfocus --sync " + std::to_string(w) + " key F12");
  const std::string expected = "tidepool: cannot write '" + read_only + "/tidepool-";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (app.output().find(expected) == std::string::npos && app.running() &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_NE(app.output().find(expected), std::string::npos) << app.output();
  EXPECT_NE(app.output().find("Permission denied"), std::string::npos) << app.output();
  wait_frames(*watcher, 2);
  if (HasFatalFailure()) return;
  EXPECT_GT(count_in_window(*watcher, note_area(button_y), error_red), 30)
      << "the panel says in red that the screenshot was not saved";

  ASSERT_TRUE(app.wait_exit(kRunTimeout)) << "the app did not finish its frames";
  EXPECT_EQ(app.exit_code(), 0) << app.output();
  const ExitLine e = parse_exit_line(app.output());
  ASSERT_TRUE(e.found) << app.output();
  EXPECT_EQ(e.frames, kFrames) << "it ran to the end of --frames";
  EXPECT_TRUE(files_in(read_only).empty());
  chmod(read_only.c_str(), 0755);
}

// Tab hides the panel and the help line, and the view takes the whole window; Tab again
// brings them back. --hide-panel starts without them.
TEST(Window, TabHidesThePanel) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  RunningApp app("--scene pool --particles 2000 --size 800x600 --frames 1000000", dir + "/app.log");
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start_and_find_window(app, &watcher, &w);
  if (HasFatalFailure()) return;
  const long area = long(panel_body.width()) * panel_body.height();
  const long shown = panel_in_window(*watcher);
  // The still pool without the panel's live statistics draws the same picture frame after
  // frame, so this watches the panel's area itself (up to 30 s) rather than new frames.
  const auto after_tab = [&](bool want_shown) {
    send("windowfocus --sync " + std::to_string(w) + " key Tab");
    long pixels = 0;
    for (int i = 0; i < 300; ++i) {
      pixels = panel_in_window(*watcher);
      if ((pixels > area / 2) == want_shown) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return pixels;
  };
  const long hidden = after_tab(false);
  const long again = after_tab(true);
  std::printf("panel pixels: %ld shown, %ld after Tab, %ld after Tab again (of %ld)\n", shown,
              hidden, again, area);
  EXPECT_GT(shown, area / 2);
  EXPECT_LT(hidden, area / 100) << "Tab hides the panel";
  EXPECT_GT(again, area / 2) << "and Tab brings it back";
  ASSERT_TRUE(app.running()) << app.output();
  quit_with_escape(app, w);

  // From the start, in a --screenshot: no panel, no help line, the water centred.
  const std::string png = dir + "/hidden.png";
  const ProcessResult r = run_command(tidepool() + " --scene pool --particles 2000 --size 800x600 "
                                      "--frames 3 --hide-panel --screenshot " + quoted(png));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Image shot = load_png(png);
  ASSERT_TRUE(shot.ok()) << shot.error;
  const long in_picture =
      find_pixels(shot, panel_body, [](const uint8_t* p) { return panel_grey(p[0], p[1], p[2]); }).count;
  const Blob water = find_water(shot, shot.all());
  std::printf("--hide-panel: %ld panel pixels, water centroid x %.0f\n", in_picture, water.cx);
  EXPECT_LT(in_picture, area / 100);
  EXPECT_NEAR(water.cx, 400.0, 60.0) << "centred in the window";
}

// --screenshot onto a full disk (the writer's fault-injection seam): one line naming the
// file and the reason, exit code 1, and neither the picture nor its temporary file.
TEST(Window, ScreenshotOnAFullDiskIsAClearErrorAndLeavesNoFile) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  const std::string shot = dir + "/full.png";
  const ProcessResult r =
      run_command("TIDEPOOL_TEST_DISK_FULL_AFTER=2000 " + tidepool() +
                  " --scene pool --particles 1000 --size 320x240 --frames 2 --screenshot " +
                  quoted(shot));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("tidepool: cannot write '" + shot + "': No space left on device\n"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(shot));
  EXPECT_FALSE(std::filesystem::exists(shot + ".part"));
}
