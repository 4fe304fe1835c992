// The panel's scene list, scene file field, Record toggle and preset buttons in a real
// window under Xvfb, used with the mouse and the keyboard through xdotool, as a person
// would. Run as the other window tests (see test_window.cpp).
//
// Where to click: with TIDEPOOL_TEST_WIDGETS=1 the app prints each named widget's rectangle
// ("tidepool: widget 'scene' X Y W H") when it first appears or moves. Only the layout comes
// from the app; the clicks and keys go through X, GLFW and ImGui like anyone's.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
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

std::vector<std::string> ply_files(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A complete binary PLY: its header's vertex count times 28 bytes follow the header.
bool complete_ply(const std::string& path, long* vertices) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  const std::string bytes = s.str();
  const size_t end = bytes.find("end_header\n");
  std::smatch m;
  const std::string header = bytes.substr(0, end);
  if (end == std::string::npos || !std::regex_search(header, m, std::regex(R"(element vertex (\d+))")))
    return false;
  *vertices = std::stol(m[1]);
  return bytes.size() == end + 11 + size_t(*vertices) * 28;
}


// The dam break at 2,000 particles with the widget log, run in `dir`/work (made here), for
// the recording tests.
struct DamBreakInWork {
  explicit DamBreakInWork(const std::string& dir)
      : work(made(dir + "/work")),
        app("--scene dam_break --particles 2000 --size 1280x900", dir + "/app.log", work,
            kWidgetLog) {}
  static std::string made(const std::string& path) {
    std::filesystem::create_directory(path);
    return path;
  }
  std::string work;
  RunningApp app;
};

// Starts the app, clicks Record and waits for at least `frames` frames written. Returns
// the recording's directory ("" after a failure); fills *window.
std::string start_recording(RunningApp& app, std::unique_ptr<FrameWatcher>* watcher,
                            unsigned long* window, size_t frames, Widget* clicked = nullptr) {
  unsigned long& w = *window;
  start(app, watcher, &w);
  if (testing::Test::HasFatalFailure()) return "";
  const Widget button = wait_for_widget(app, "record");
  if (clicked) *clicked = button;
  click(w, button);
  if (testing::Test::HasFatalFailure()) return "";
  std::smatch m;
  EXPECT_TRUE(wait_for_output(app, " per simulated second)")) << app.output();
  const std::string log = app.output();
  if (!std::regex_search(log, m, std::regex(R"(recording PLY frames into (\S+) \(30 per)"))) {
    ADD_FAILURE() << log;
    return "";
  }
  const std::string out = m[1];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (ply_files(out).size() < frames && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_GE(ply_files(out).size(), frames) << app.output();
  return out;
}

}  // namespace

// The scene list: open it, pick the dam break, and the window shows the dam break (its
// camera, its block of water at the left wall) where the pool was.
// Opens the panel's scene list and clicks `scene` in it.
// Opens the panel's scene list and waits until `scene` is shown in it, settled.
void open_scene_list(RunningApp& app, FrameWatcher& watcher, unsigned long w, const std::string& scene) {
  click(w, wait_for_widget(app, "scene"));
  if (testing::Test::HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_widget(app, "scene:" + scene).found) << "the scene list did not open:\n" << app.output();
  wait_frames(watcher, 3);  // where the list settles
}

void choose_scene(RunningApp& app, FrameWatcher& watcher, unsigned long w, const std::string& scene) {
  open_scene_list(app, watcher, w, scene);
  if (testing::Test::HasFatalFailure()) return;
  click(w, widget(app, "scene:" + scene));
}

// The pool at 2,000 particles in a 1280x800 window, with the widget log, started.
struct PoolApp {
  explicit PoolApp(const std::string& dir)
      : app("--scene pool --particles 2000 --size 1280x800", dir + "/app.log", dir, kWidgetLog) {
    start(app, &watcher, &w);
  }
  RunningApp app;
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
};

// Escape with the scene list open closes the list, as it cancels a typed value, and the app
// runs on; the next Escape quits. (ImGui closes a popup on Escape only with keyboard
// navigation on, so the Escape went on to quit the app with the list open.)
TEST(Window, EscapeClosesAnOpenListInsteadOfQuitting) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  PoolApp p(dir);
  if (HasFatalFailure()) return;
  RunningApp& app = p.app;
  const auto& watcher = p.watcher;
  const unsigned long w = p.w;
  open_scene_list(app, *watcher, w, "dam_break");
  if (HasFatalFailure()) return;
  save_png(grab_window(*watcher), dir + "/list_open.png");
  send("windowfocus --sync " + std::to_string(w) + " key Escape");
  wait_frames(*watcher, 6);
  if (HasFatalFailure()) return;
  save_png(grab_window(*watcher), dir + "/after_escape.png");
  ASSERT_TRUE(app.running()) << "Escape quit the app with the scene list open:\n" << app.output();
  EXPECT_FALSE(widget(app, "scene:dam_break").found) << "the scene list is still open";
  EXPECT_EQ(app.output().find("tidepool: scene dam_break"), std::string::npos) << "Escape chose a scene";
  quit_with_escape(app, w);
}

TEST(Window, SceneListSwitchesTheScene) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  PoolApp p(dir);
  if (HasFatalFailure()) return;
  RunningApp& app = p.app;
  const auto& watcher = p.watcher;
  const unsigned long w = p.w;
  const Image before = grab_window(*watcher);
  save_png(before, dir + "/pool.png");

  choose_scene(app, *watcher, w, "dam_break");
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: scene dam_break (")) << app.output();
  wait_frames(*watcher, 4);
  if (HasFatalFailure()) return;
  const Image after = grab_window(*watcher);
  save_png(after, dir + "/dam_break.png");

  const Blob pool = find_water(before, kScene), dam = find_water(after, kScene);
  std::printf("water beside the panel: pool %ld px, centroid x %.0f, %d columns; dam break %ld "
              "px, centroid x %.0f, %d columns\n",
              pool.count, pool.cx, pool.columns_hit, dam.count, dam.cx, dam.columns_hit);
  EXPECT_GT(pool.count, 20000);
  EXPECT_GT(dam.count, 5000);
  // The pool's water spans its floor; the dam break's column stands at the left wall.
  EXPECT_LT(dam.cx, pool.cx - 100) << "the water is not where the dam break's block is";
  EXPECT_LT(dam.columns_hit, pool.columns_hit * 3 / 4);
  EXPECT_GT(mean_abs_diff(before, after, kScene), 5.0) << "the view did not change";

  ASSERT_TRUE(app.running()) << app.output();
  quit_with_escape(app, w);
}

// The scene list holds water and gas scenes: choosing the plume in the pool's window turns
// the same window into the gas's (its panel, its volume), and choosing the pool there brings
// the water back.
TEST(Window, SceneListPassesBetweenWaterAndGas) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  PoolApp p(dir);
  if (HasFatalFailure()) return;
  RunningApp& app = p.app;
  const auto& watcher = p.watcher;
  const unsigned long w = p.w;
  const Image pool = grab_window(*watcher);
  choose_scene(app, *watcher, w, "plume");
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: gas ")) << app.output();
  wait_frames(*watcher, 20, 2.0);
  if (HasFatalFailure()) return;
  const Image gas = grab_window(*watcher);
  save_png(gas, dir + "/plume.png");
  EXPECT_LT(find_water(gas, kScene).count, 500) << "water still drawn after the switch to the plume";
  EXPECT_GT(mean_abs_diff(pool, gas, kScene), 5.0) << "the view did not change";
  choose_scene(app, *watcher, w, "pool");
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: scene pool")) << app.output();
  wait_frames(*watcher, 6, 1.0);
  if (HasFatalFailure()) return;
  const Image back = grab_window(*watcher);
  save_png(back, dir + "/pool_again.png");
  EXPECT_GT(find_water(back, kScene).count, 20000) << "no water after coming back to the pool";
  ASSERT_TRUE(app.running()) << app.output();
  quit_with_escape(app, w);
}

// A water scene from the gas window's list that this machine cannot hold (here a memory
// budget of 20 MB, which the plume fits and the dam break's 22 MB does not): the window
// ended with exit code 1 before. Now the plume goes on, the panel says why in red.
TEST(Window, ASceneTheMachineCannotHoldIsRefusedAndTheRunningSceneGoesOn) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  RunningApp app("--scene plume --size 1280x800", dir + "/app.log", dir, kWidgetLog + " TIDEPOOL_MEMORY_MB=20");
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start(app, &watcher, &w);
  if (HasFatalFailure()) return;
  choose_scene(app, *watcher, w, "dam_break");
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: cannot switch to 'dam_break': ")) << app.output();
  std::smatch need;
  const std::string said = app.output();
  ASSERT_TRUE(std::regex_search(said, need, std::regex("would need ([0-9]+) MB of memory, but only 20 MB is free")))
      << said;
  EXPECT_GT(std::stoi(need[1].str()), 20) << said;
  ASSERT_TRUE(app.running()) << app.output();
  wait_frames(*watcher, 10, 1.0);  // the plume draws on
  if (HasFatalFailure()) return;
  const Image shot = grab_window(*watcher);
  save_png(shot, dir + "/refused.png");
  long red = 0;
  for (int y = 0; y < shot.height; ++y)
    for (int x = 0; x < 360; ++x) red += shot.at(x, y)[0] > 200 && shot.at(x, y)[1] < 110 && shot.at(x, y)[2] < 110;
  EXPECT_GT(red, 200) << "no red sentence in the panel: see " << dir << "/refused.png";
  // And the list still works: back to a gas scene.
  choose_scene(app, *watcher, w, "ink_box");
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: scene ink_box")) << app.output();
  quit_with_escape(app, w);
}

// A scene file with a mistake, typed into the scene file field and loaded: the panel says
// what is wrong in red, stderr says the same, and the dam break goes on moving.
TEST(Window, BadSceneFileShowsItsErrorAndTheSceneRunsOn) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  const std::string bad = dir + "/bad_scene.json";
  std::ofstream(bad) << R"({ "tank": { "min": [0, 0, 0], "max": [1, 1, 1] },
  "fluid_blocks": [ { "min": [0, 0, 0], "max": [0.5, 0.5] } ] })";
  RunningApp app("--scene dam_break --particles 2000 --size 1280x800", dir + "/app.log", dir,
                 kWidgetLog);
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start(app, &watcher, &w);
  if (HasFatalFailure()) return;

  type_into(w, wait_for_widget(app, "scene path"), bad);
  if (HasFatalFailure()) return;
  click(w, widget(app, "scene load"));
  if (HasFatalFailure()) return;
  const std::string sentence = "tidepool: scene file '" + bad +
                               "': fluid_blocks[0].max must be an array of 3 numbers, not an "
                               "array of 2 elements";
  ASSERT_TRUE(wait_for_output(app, sentence)) << app.output();
  const Widget error = wait_for_widget(app, "scene error");
  ASSERT_TRUE(error.found) << app.output();
  wait_frames(*watcher, 3);
  if (HasFatalFailure()) return;
  const Image first = grab_window(*watcher);
  wait_frames(*watcher, 10, 2.0);
  if (HasFatalFailure()) return;
  const Image second = grab_window(*watcher);
  save_png(first, dir + "/error.png");
  save_png(second, dir + "/error_later.png");

  const long red = red_pixels(second, error);
  const long moved = count_differing(first, second, kScene);
  std::printf("red pixels in the error text: %ld; scene pixels changed between two frames: %ld\n",
              red, moved);
  EXPECT_GT(red, 200) << "the panel shows the error in red";
  EXPECT_GT(moved, 2000) << "the water stopped";
  EXPECT_EQ(app.output().find("tidepool: scene dam_break"), std::string::npos)
      << "no scene was loaded (nor the old one reloaded)";
  ASSERT_TRUE(app.running()) << app.output();
  quit_with_escape(app, w);
}

// Record writes complete PLY frames into a new timestamped directory in the working
// directory until it is clicked again; a directory that cannot be made is an error in red
// and the app goes on.
TEST(Window, RecordWritesFramesUntilStopped) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  DamBreakInWork run(dir);
  RunningApp& app = run.app;
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  Widget record;
  const std::string out = start_recording(app, &watcher, &w, 4, &record);
  if (HasFailure()) return;
  // Stop takes Record's place: a second click there stops (the density's phase, which
  // recording adds, once added a row above it and moved it 17 px down).
  EXPECT_EQ(widget(app, "record").y, record.y) << "the button moved when the recording began";
  EXPECT_EQ(out.substr(0, run.work.size() + 1), run.work + "/") << out;
  EXPECT_TRUE(std::regex_match(out.substr(run.work.size() + 1),
                               std::regex(R"(tidepool-export-\d{8}-\d{6})")))
      << out;
  const Image recording = grab_window(*watcher);
  save_png(recording, dir + "/recording.png");

  click(w, widget(app, "record"));  // now "Stop recording"
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: recorded ")) << app.output();
  const std::string done = app.output();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(done, m, std::regex(R"(tidepool: recorded (\d+) frames, ([0-9.]+) MB in (\S+))")))
      << done;
  const int frames = std::stoi(m[1]);
  EXPECT_EQ(m[3].str(), out);
  const std::vector<std::string> files = ply_files(out);
  ASSERT_EQ(int(files.size()), frames) << "every frame a file, nothing else (no .part files)";
  long total = 0;
  for (int k = 0; k < frames; ++k) {
    char name[32];
    std::snprintf(name, sizeof(name), "frame_%05d.ply", k);
    EXPECT_EQ(files[size_t(k)], name);
    long vertices = 0;
    EXPECT_TRUE(complete_ply(out + "/" + name, &vertices)) << name;
    EXPECT_NEAR(vertices, 2000, 300) << name;
    total += long(std::filesystem::file_size(out + "/" + name));
  }
  EXPECT_NEAR(std::stod(m[2]), double(total) / 1e6, 0.051);
  std::printf("recorded %d frames, %ld bytes into %s\n", frames, total, out.c_str());

  // A directory that cannot be made: red text, and the app goes on.
  type_into(w, widget(app, "record dir"), "/proc/tidepool-cannot-be-made");
  if (HasFatalFailure()) return;
  click(w, widget(app, "record"));
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(
      app, "tidepool: not recording: cannot create directory '/proc/tidepool-cannot-be-made'"))
      << app.output();
  wait_frames(*watcher, 3);
  if (HasFatalFailure()) return;
  const Image failed = grab_window(*watcher);
  save_png(failed, dir + "/record_error.png");
  EXPECT_GT(red_pixels(failed, widget(app, "record status")), 200) << "the error in red";
  ASSERT_TRUE(app.running()) << app.output();
  quit_with_escape(app, w);
  if (HasFatalFailure()) return;
  EXPECT_EQ(ply_files(out).size(), size_t(frames)) << "nothing written after the stop";
}

// Save preset writes the running parameters to the path in the field; Load preset with a
// bad file says why in red and changes nothing (a second save writes the same file), and
// with a good file changes the solver, which the panel's title shows.
TEST(Window, PresetSaveAndLoadFromThePanel) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  const std::string bad = dir + "/bad_preset.json", good = dir + "/pbf_preset.json";
  std::ofstream(bad) << R"({"tidepool_preset": 1, "params": {"solver": "pbf", "viscosity": 5}})";
  std::ofstream(good) << R"({"tidepool_preset": 1, "params": {"solver": "pbf", "viscosity": 0.02}})";
  // A taller window: at 800 pixels the Preset row's note is at the panel's fold.
  constexpr int kTallHeight = 1000;
  RunningApp app("--scene pool --particles 2000 --size 1280x1000 --set viscosity=0.004 "
                 "--solver wcsph",
                 dir + "/app.log", dir, kWidgetLog);
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start(app, &watcher, &w);
  if (HasFatalFailure()) return;

  click(w, wait_for_widget(app, "preset save"));  // the default name, in the working directory
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: saved preset " + dir + "/tidepool-preset.json"))
      << app.output();
  const std::string saved = [&] {
    std::ifstream in(dir + "/tidepool-preset.json");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }();
  EXPECT_NE(saved.find("\"viscosity\": 0.004,"), std::string::npos) << saved;
  EXPECT_NE(saved.find("\"solver\": \"wcsph\","), std::string::npos) << saved;

  type_into(w, widget(app, "preset path"), bad);
  if (HasFatalFailure()) return;
  click(w, widget(app, "preset load"));
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: preset file '" + bad +
                                       "': params.viscosity: 5 is outside its valid range"))
      << app.output();
  wait_frames(*watcher, 3);
  if (HasFatalFailure()) return;
  const Image refused = grab_window(*watcher, kWidth, kTallHeight);
  save_png(refused, dir + "/preset_error.png");
  EXPECT_GT(red_pixels(refused, wait_for_widget(app, "preset note")), 200) << "the error in red";
  EXPECT_EQ(app.output().find("loaded preset"), std::string::npos);

  type_into(w, widget(app, "preset path"), good);
  if (HasFatalFailure()) return;
  click(w, widget(app, "preset load"));
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: loaded preset " + good)) << app.output();
  wait_frames(*watcher, 3);  // PBF adds a statistics line: what is below it moves down
  if (HasFatalFailure()) return;
  type_into(w, widget(app, "preset path"), dir + "/after.json");
  if (HasFatalFailure()) return;
  click(w, widget(app, "preset save"));
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: saved preset " + dir + "/after.json")) << app.output();
  std::ifstream in(dir + "/after.json");
  std::stringstream after;
  after << in.rdbuf();
  EXPECT_NE(after.str().find("\"solver\": \"pbf\","), std::string::npos) << after.str();
  EXPECT_NE(after.str().find("\"viscosity\": 0.02,"), std::string::npos) << after.str();
  // The bad file changed nothing: apart from the good file's two keys, the same as before.
  std::string expected = saved;
  expected.replace(expected.find("\"solver\": \"wcsph\""), 17, "\"solver\": \"pbf\"");
  expected.replace(expected.find("\"viscosity\": 0.004"), 18, "\"viscosity\": 0.02");
  EXPECT_EQ(after.str(), expected);
  wait_frames(*watcher, 2);
  if (HasFatalFailure()) return;
  save_png(grab_window(*watcher), dir + "/preset_loaded.png");
  ASSERT_TRUE(app.running()) << app.output();
  quit_with_escape(app, w);
}

// Save state, let the water run on, Load state: the water is back where it was saved (the
// frame after loading looks like the frame at the save, not like the one before loading).
// A missing state file is a red sentence, and the water runs on. The save and the load are
// made paused, so that the frames compared show the state saved and the state loaded, not
// the water some frames on: read a few frames after the log said so, the frames around
// the save and the load differed by however many frames the log took to show (the load's
// 4.1 to 4.3 against the bound 4.1 in two runs of ten, 2026-12-02).
TEST(Window, StateSaveAndLoadFromThePanel) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  // The whole window is read: the State row sits below the 800 rows of the other tests.
  constexpr int kTallHeight = 1000;
  // A few small fixed steps per frame: the frames around the save and the load are close.
  // (A taller window: at 800 pixels the State row is below the panel's fold.)
  RunningApp app("--scene dam_break --particles 2000 --size 1280x1000 --steps-per-frame 4 "
                 "--set dt_min=0.001 --set dt_max=0.001 --solver pbf",
                 dir + "/app.log", dir, kWidgetLog);
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start(app, &watcher, &w);
  if (HasFatalFailure()) return;
  const std::string focus = "windowfocus --sync " + std::to_string(w);
  const Widget save_button = wait_for_widget(app, "state save");
  if (HasFatalFailure()) return;
  send(focus + " key space");  // paused
  wait_frames(*watcher, 3);
  click(w, save_button);  // the default name, in the working directory
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: saved state " + dir + "/tidepool-state.tpstate")) << app.output();
  wait_frames(*watcher, 2);
  if (HasFatalFailure()) return;
  const Image at_save = grab_window(*watcher, kWidth, kTallHeight);
  save_png(at_save, dir + "/at_save.png");
  send(focus + " key space");  // running
  wait_frames(*watcher, 60);  // 0.24 s of collapse
  if (HasFatalFailure()) return;
  const Image later = grab_window(*watcher, kWidth, kTallHeight);
  save_png(later, dir + "/later.png");

  type_into(w, widget(app, "state path"), dir + "/no-such.tpstate");
  if (HasFatalFailure()) return;
  click(w, widget(app, "state load"));
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: state file '" + dir + "/no-such.tpstate' cannot be opened"))
      << app.output();
  wait_frames(*watcher, 3);
  if (HasFatalFailure()) return;
  const Image refused = grab_window(*watcher, kWidth, kTallHeight);
  save_png(refused, dir + "/refused.png");
  EXPECT_GT(red_pixels(refused, wait_for_widget(app, "state note")), 200) << "the error in red";
  EXPECT_GT(mean_abs_diff(refused, later, kScene), 0.5) << "the water runs on after the refusal";

  send(focus + " key space");  // paused (the button took the path field's focus)
  wait_frames(*watcher, 3);
  if (HasFatalFailure()) return;
  type_into(w, widget(app, "state path"), dir + "/tidepool-state.tpstate");
  if (HasFatalFailure()) return;
  click(w, widget(app, "state load"));
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: loaded state " + dir + "/tidepool-state.tpstate")) << app.output();
  wait_frames(*watcher, 2);
  if (HasFatalFailure()) return;
  const Image loaded = grab_window(*watcher, kWidth, kTallHeight);
  save_png(loaded, dir + "/loaded.png");
  const double to_save = mean_abs_diff(loaded, at_save, kScene), to_later = mean_abs_diff(loaded, later, kScene);
  std::printf("after loading: %.2f from the frame at the save, %.2f from the frame before loading\n", to_save,
              to_later);
  EXPECT_LT(to_save, 0.2 * to_later) << "the water went back to where it was saved";
  ASSERT_TRUE(app.running()) << app.output();
  send(focus + " key Escape");
  ASSERT_TRUE(app.wait_exit(60));
  EXPECT_EQ(app.exit_code(), 0) << app.output();
}

// The gas's state from its panel's Files section: saved, the plume rises on, loaded: the
// frame after the load shows the smoke as it was at the save; a missing file is refused in
// red and the gas runs on.
TEST(Window, GasStateSaveAndLoadFromThePanel) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  constexpr int kTallHeight = 1000;
  RunningApp app("--scene plume --size 1280x1000 --steps-per-frame 1", dir + "/app.log", dir, kWidgetLog);
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start(app, &watcher, &w);
  if (HasFatalFailure()) return;
  wait_frames(*watcher, 20);  // some smoke first
  if (HasFatalFailure()) return;
  click(w, wait_for_widget(app, "files"));
  if (HasFatalFailure()) return;
  click(w, wait_for_widget(app, "state save"));  // the default name, in the working directory
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: saved state " + dir + "/tidepool-gas.tpgas")) << app.output();
  const Image at_save = grab_window(*watcher, kWidth, kTallHeight);
  save_png(at_save, dir + "/at_save.png");
  wait_frames(*watcher, 40);  // the plume rises on
  if (HasFatalFailure()) return;
  const Image later = grab_window(*watcher, kWidth, kTallHeight);
  save_png(later, dir + "/later.png");

  type_into(w, widget(app, "state path"), dir + "/no-such.tpgas");
  if (HasFatalFailure()) return;
  click(w, widget(app, "state load"));
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: cannot open " + dir + "/no-such.tpgas")) << app.output();
  wait_frames(*watcher, 3);
  if (HasFatalFailure()) return;
  const Image refused = grab_window(*watcher, kWidth, kTallHeight);
  EXPECT_GT(red_pixels(refused, wait_for_widget(app, "state note")), 200) << "the error in red";
  EXPECT_GT(mean_abs_diff(refused, later, kScene), 0.5) << "the gas runs on after the refusal";

  type_into(w, widget(app, "state path"), dir + "/tidepool-gas.tpgas");
  if (HasFatalFailure()) return;
  click(w, widget(app, "state load"));
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: loaded state " + dir + "/tidepool-gas.tpgas")) << app.output();
  wait_frames(*watcher, 1);
  if (HasFatalFailure()) return;
  const Image loaded = grab_window(*watcher, kWidth, kTallHeight);
  save_png(loaded, dir + "/loaded.png");
  const double to_save = mean_abs_diff(loaded, at_save, kScene), to_later = mean_abs_diff(loaded, later, kScene);
  std::printf("after loading: %.2f from the frame at the save, %.2f from the frame before loading\n", to_save,
              to_later);
  EXPECT_LT(to_save, 0.5 * to_later) << "the smoke went back to where it was saved";
  ASSERT_TRUE(app.running()) << app.output();
  quit_with_escape(app, w);
}

// ---- a recording cut short: a stop signal, the display gone ------------------------------
namespace {

std::string last_line(const std::string& output) {
  std::string text = output;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text.substr(text.rfind('\n') + 1);
}

// The app's last line says it stopped, why, and how many frames it wrote, and the
// directory holds exactly those frames, each a whole file.
void expect_whole_recording(const RunningApp& app, const std::string& out,
                            const std::string& reason) {
  const std::string line = last_line(app.output());
  std::smatch m;
  ASSERT_TRUE(std::regex_match(
      line, m, std::regex(R"(tidepool: stopped at t = [0-9.]+ s after \d+ steps \()" + reason +
                          R"(\); (\d+) complete frames in (\S+); every file written is complete)")))
      << "last line: " << line << "\n" << app.output();
  EXPECT_EQ(m[2].str(), out);
  const int frames = std::stoi(m[1]);
  const std::vector<std::string> files = ply_files(out);
  ASSERT_EQ(int(files.size()), frames) << "every frame a file, nothing else (no .part files)";
  for (const std::string& name : files) {
    long vertices = 0;
    EXPECT_TRUE(complete_ply(out + "/" + name, &vertices)) << name;
    EXPECT_NEAR(vertices, 2000, 300) << name;
  }
  std::printf("%d whole frames; last line: %s\n", frames, line.c_str());
}

// An X server of the test's own (the one xvfb-run started stays), so that the test can
// kill it under the app. DISPLAY points at it while it lives.
class OwnXServer {
 public:
  OwnXServer() {
    int fds[2];
    if (pipe(fds) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(fds[0]);
      const int null = open("/dev/null", O_WRONLY);
      dup2(null, 1);
      dup2(null, 2);
      const std::string fd = std::to_string(fds[1]);
      execlp("Xvfb", "Xvfb", "-displayfd", fd.c_str(), "-screen", "0", "1280x1024x24",
             "-nolisten", "tcp", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(fds[1]);
    char text[16] = {};
    ssize_t got = 0, n = 0;  // the display number and a newline, once it accepts clients
    while (got < ssize_t(sizeof(text)) - 1 && (n = read(fds[0], text + got, 1)) == 1 &&
           text[got] != '\n')
      ++got;
    close(fds[0]);
    if (got == 0) return;
    display_ = ":" + std::string(text, size_t(got));
    if (const char* old = std::getenv("DISPLAY")) old_display_ = old;
    setenv("DISPLAY", display_.c_str(), 1);
  }
  ~OwnXServer() {
    kill_now();
    if (!old_display_.empty()) setenv("DISPLAY", old_display_.c_str(), 1);
  }
  const std::string& display() const { return display_; }
  void kill_now() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  std::string display_, old_display_;
};

}  // namespace

// SIGTERM (kill) while the window records: the app stops at the end of the frame, every
// frame it wrote is whole, and its last line says so (exit status 130, as headless).
TEST(Window, SigtermWhileRecordingLeavesWholeFramesAndOneLastLine) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  DamBreakInWork run(dir);
  RunningApp& app = run.app;
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  const std::string out = start_recording(app, &watcher, &w, 3);
  if (HasFailure()) return;
  kill(app.pid(), SIGTERM);
  ASSERT_TRUE(app.wait_exit(60)) << app.output();
  EXPECT_EQ(app.exit_code(), 130) << app.output();
  expect_whole_recording(app, out, "SIGTERM");
}

// The X server killed while the window records: the app cannot draw any more, so it
// finishes the recording (every frame whole), prints its closing lines and one last line
// naming the cause, and exits with status 1, where Xlib alone would print "XIO: fatal IO
// error" and exit on the spot.
TEST(Window, LostDisplayFinishesTheRecordingAndSaysSo) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  OwnXServer server;
  ASSERT_FALSE(server.display().empty()) << "could not start Xvfb -displayfd";
  const std::string dir = test_dir();
  DamBreakInWork run(dir);
  RunningApp& app = run.app;
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  const std::string out = start_recording(app, &watcher, &w, 3);
  if (HasFailure()) return;
  watcher.reset();  // our own connection closes while the server still answers
  server.kill_now();
  ASSERT_TRUE(app.wait_exit(60)) << app.output();
  EXPECT_EQ(app.exit_code(), 1) << app.output();
  EXPECT_EQ(app.output().find("XIO"), std::string::npos) << app.output();
  expect_whole_recording(app, out, "the display " + server.display() + " went away");
}

// Record, with "surface mesh (PLY)" chosen beside it: mesh frames (mesh_00000.ply, ...),
// each a complete binary PLY with triangles, until stopped.
TEST(Window, RecordWritesMeshFramesWhenChosen) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  DamBreakInWork run(dir);
  RunningApp& app = run.app;
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start(app, &watcher, &w);
  if (HasFatalFailure()) return;
  click(w, wait_for_widget(app, "record kind"));
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_widget(app, "record kind:mesh ply").found) << "the list did not open:\n" << app.output();
  wait_frames(*watcher, 3);  // where the list settles
  if (HasFatalFailure()) return;
  click(w, widget(app, "record kind:mesh ply"));
  if (HasFatalFailure()) return;
  wait_frames(*watcher, 2);
  if (HasFatalFailure()) return;
  click(w, widget(app, "record"));
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, " per simulated second)")) << app.output();
  std::smatch m;
  const std::string log = app.output();
  ASSERT_TRUE(std::regex_search(log, m, std::regex(R"(recording mesh frames into (\S+) \(30 per)"))) << log;
  const std::string out = m[1];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (ply_files(out).size() < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  click(w, widget(app, "record"));  // now "Stop recording"
  if (HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: recorded ")) << app.output();
  const std::vector<std::string> files = ply_files(out);
  ASSERT_GE(files.size(), 3u) << app.output();
  for (size_t k = 0; k < files.size(); ++k) {
    char name[32];
    std::snprintf(name, sizeof(name), "mesh_%05zu.ply", k);
    EXPECT_EQ(files[k], name);
    std::ifstream in(out + "/" + name, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    const std::string bytes = s.str();
    std::smatch v, f;
    ASSERT_TRUE(std::regex_search(bytes, v, std::regex(R"(element vertex (\d+))"))) << name;
    ASSERT_TRUE(std::regex_search(bytes, f, std::regex(R"(element face (\d+))"))) << name;
    const size_t header = bytes.find("end_header\n") + 11;
    const size_t vertices = std::stoul(v[1]), faces = std::stoul(f[1]);
    EXPECT_GT(faces, 500u) << name;
    EXPECT_EQ(bytes.size(), header + vertices * 9 * 4 + faces * 13) << name << ": complete, with velocities";
  }
  quit_with_escape(app, w);
}
