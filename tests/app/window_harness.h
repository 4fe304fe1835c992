// Shared by the window tests (test_window*.cpp): the window's layout, running the app to
// its end or interactively, finding its window, counting frames, sending xdotool input.
#pragma once

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
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include <stb_image_write.h>

#include "image.h"
#include "process.h"
#include "x11_frames.h"


namespace tp::test {


// ---- the window's layout at --size 1280x800 --------------------------------------------
// The panel is an ImGui window at (10, 10), 26 em wide (ImGui's default font is 13 px, so
// x = 10..348), as tall as its open sections (about 490 px with Statistics and Simulation
// open). The help overlay is one line of text at the bottom (about y = 758..790). The
// camera's image centre is shifted right by the panel's width, so the scene is drawn in
// the space beside it. The panel shows FPS and timings and the help line says PAUSED,
// which differ from run to run: pixel comparisons between runs use only kScene.
constexpr int kWidth = 1280, kHeight = 800;
const Rect kScene{360, 0, kWidth, 750};
const Rect kPanelBody{20, 60, 330, 340};  // Statistics text inside the panel
constexpr int kBackground[3] = {41, 43, 51};  // the renderer's clear colour

// The panel's statistics lines (FPS, simulation speed, max speed now, ...): they change
// nearly every frame, so a change there counts a frame.
const WindowRect kFrameCounterArea{18, 60, 322, 100};

// A repeatable run: the pool scene with exactly 3 steps of 0.5 ms per frame. The CPU
// simulation is deterministic for a fixed step and thread count, so two such runs with
// the same number of frames draw the same scene, pixel for pixel.
const std::string kDeterministicPool =
    "--scene pool --particles 4000 --size 1280x800 --steps-per-frame 3 "
    "--set dt_min=0.0005 --set dt_max=0.0005";

// The same pool in a 960x600 window for six frames with OpenGL checks: the runs whose
// screenshots the render-mode tests compare (spheres, surface, mesh).
const std::string kSmallPoolFrames =
    "--scene pool --particles 4000 --size 960x600 --steps-per-frame 3 --set dt_min=0.0005 "
    "--set dt_max=0.0005 --frames 6 --gl-check";

constexpr double kRunTimeout = 240.0;  // [s] for one app run; generous for a loaded machine

// The folder of the running test: $TMPDIR/tidepool_window/<checkout>-<number>/<test>, the
// checkout's folder name and a number from the app's path, so that two checkouts' window
// tests at once (a CI clone beside a working tree) never empty each other's folders (they
// shared $TMPDIR/tidepool_window/<test> before). test_dir() empties it and makes it.
inline std::string test_dir_path() {
  const std::string app = TIDEPOOL_BINARY;  // <checkout>/<build>/bin/tidepool
  std::string dir = app;
  for (int up = 0; up < 3 && dir.rfind('/') != std::string::npos; ++up) dir.resize(dir.rfind('/'));
  const std::string checkout = dir.substr(dir.rfind('/') + 1);  // (npos + 1: all of it)
  const std::string number = std::to_string(std::hash<std::string>{}(app) % 1000000);
  return testing::TempDir() + "tidepool_window/" + (checkout.empty() ? "app" : checkout) + "-" + number + "/" +
         testing::UnitTest::GetInstance()->current_test_info()->name();
}

inline std::string test_dir() {
  const std::string dir = test_dir_path();
  run_command("rm -rf '" + dir + "' && mkdir -p '" + dir + "'");
  return dir;
}

inline std::string quoted(const std::string& s) { return "'" + s + "'"; }

// A tank like the pool's (2 x 1.2 x 1 m, the same camera) with one block of water in it,
// as a scene file. Two such scenes with the same spacing have the same tank, to the pixel.
inline std::string write_scene(
    const std::string& path, const char* block_min, const char* block_max,
    const char* spacing = "0.035",
    const char* camera = R"({ "target": [0.0, 0.3, 0.0], "distance": 3.2, "yaw": 0.0, "pitch": 35.0 })") {
  std::ofstream out(path);
  out << R"({ "name": "test_tank", "tank": { "min": [-1.0, 0.0, -0.5], "max": [1.0, 1.2, 0.5] },
  "particle_spacing": )" << spacing << R"(,
  "fluid_blocks": [ { "min": )" << block_min << R"(, "max": )" << block_max << R"( } ],
  "camera": )" << camera << " }";
  return path;
}

// "tidepool: 150 frames, 450 steps, 0.225 s simulated, max speed 0.215 m/s"
struct ExitLine {
  bool found = false;
  long frames = 0, steps = 0;
  double simulated = 0, max_speed = 0;
};

inline ExitLine parse_exit_line(const std::string& output) {
  static const std::regex re(
      R"(tidepool: (\d+) frames, (\d+) steps, ([-+0-9.eE]+) s simulated, max speed ([-+0-9.eEinfa]+) m/s)");
  ExitLine e;
  std::smatch m;
  if (std::regex_search(output, m, re)) {
    e.found = true;
    e.frames = std::stol(m[1]);
    e.steps = std::stol(m[2]);
    e.simulated = std::strtod(m[3].str().c_str(), nullptr);
    e.max_speed = std::strtod(m[4].str().c_str(), nullptr);
  }
  return e;
}

// Runs the app to the end (--frames) and loads its screenshot.
struct FinishedRun {
  ProcessResult result;
  ExitLine exit;
  Image shot;
};

inline FinishedRun run_to_end(const std::string& args, const std::string& png) {
  FinishedRun r;
  std::remove(png.c_str());
  r.result = run_command("timeout " + std::to_string(int(kRunTimeout)) + " " + tidepool() + " " +
                         args + " --screenshot " + quoted(png));
  r.exit = parse_exit_line(r.result.output);
  r.shot = load_png(png);
  return r;
}

// "<pass> <gpu>/<cpu>" from the app's exit line "tidepool: ms per pass (GPU/CPU): ...".
inline bool pass_time(const std::string& output, const std::string& pass, double* gpu,
                      double* cpu) {
  const size_t line = output.find("ms per pass (GPU/CPU):");
  if (line == std::string::npos) return false;
  const std::string text = output.substr(line, output.find('\n', line) - line);
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("[:,] " + pass + " ([0-9.]+)/([0-9.]+)"))) return false;
  *gpu = std::stod(m[1]);
  *cpu = std::stod(m[2]);
  return true;
}

// For runs with --gl-check.
inline void expect_no_gl_errors(const ProcessResult& r) {
  EXPECT_NE(r.output.find("--gl-check: no OpenGL errors"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("GL error 0x"), std::string::npos) << r.output;
}

#define ASSERT_RAN(run)                                                                     \
  do {                                                                                      \
    ASSERT_EQ((run).result.exit_code, 0) << (run).result.output;                            \
    ASSERT_TRUE((run).exit.found) << "no exit line in:\n" << (run).result.output;           \
    ASSERT_TRUE((run).shot.ok()) << (run).shot.error << "\n" << (run).result.output;        \
  } while (0)

// ---- an app that runs while the test acts on it -------------------------------------------
class RunningApp {
 public:
  // `directory`: the app's working directory (default the test's). `launcher`: a command
  // that runs the app in the same process (as `exec` does), e.g. "setpriv ...".
  RunningApp(const std::string& args, const std::string& log, const std::string& directory = "",
             const std::string& launcher = "")
      : log_(log) {
    const std::string command = "exec " + launcher + " " + tidepool() + " " + args;
    pid_ = fork();
    if (pid_ == 0) {
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
      }
      if (!directory.empty() && chdir(directory.c_str()) != 0) _exit(126);
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~RunningApp() {
    if (running()) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  RunningApp(const RunningApp&) = delete;
  RunningApp& operator=(const RunningApp&) = delete;

  pid_t pid() const { return pid_; }
  bool started() const { return pid_ > 0; }

  bool running() {
    if (pid_ <= 0 || exited_) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      exited_ = true;
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return false;
    }
    return true;
  }

  // Waits for the app to exit by itself; false when it is still running after the timeout.
  bool wait_exit(double timeout_seconds) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
    while (running()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }

  int exit_code() const { return exit_code_; }
  std::string output() const {
    std::ifstream in(log_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  std::string log_;
  pid_t pid_ = -1;
  bool exited_ = false;
  int exit_code_ = -1;
};

inline ProcessResult xdotool(const std::string& args) { return run_command("xdotool " + args); }

// The app's window, once it is mapped (0 when it does not appear in time).
inline unsigned long find_window(RunningApp& app, double timeout_seconds) {
  const ProcessResult r =
      run_command("timeout " + std::to_string(int(timeout_seconds)) +
                  " xdotool search --sync --all --onlyvisible --pid " + std::to_string(app.pid()) +
                  " --name '^Tidepool$'");
  if (r.exit_code != 0) return 0;
  return std::strtoul(r.output.c_str(), nullptr, 10);
}

// Checks what the window tests need before they start anything.
inline void require_display_and_tools() {
  ASSERT_NE(std::getenv("DISPLAY"), nullptr)
      << "no DISPLAY: run the window tests on a desktop or under xvfb-run, e.g.\n"
         "  xvfb-run -a -s \"-screen 0 1280x1024x24\" tp_window_tests";
  ASSERT_EQ(run_command("xdotool version").exit_code, 0)
      << "xdotool is missing: install it (apt-get install xdotool)";
}

// Starts the app and waits for its window and its first frames. Fills *window.
inline void start_and_find_window(RunningApp& app, std::unique_ptr<FrameWatcher>* watcher,
                           unsigned long* window) {
  ASSERT_TRUE(app.started());
  *window = find_window(app, 120);
  ASSERT_NE(*window, 0u) << "the window did not appear within 120 s; app "
                         << (app.running() ? "still running" : "exited") << ":\n"
                         << app.output();
  *watcher = std::make_unique<FrameWatcher>(*window, kFrameCounterArea);
  ASSERT_TRUE((*watcher)->ok()) << (*watcher)->error();
  ASSERT_EQ((*watcher)->wait_changes(3, 120), 3) << "the window shows no new frames:\n" << app.output();
}



// The window's top-left width x height pixels as an Image, read through the X server (as
// the FrameWatcher sees them).
inline Image grab_window(FrameWatcher& watcher, int width = kWidth, int height = kHeight) {
  Image img;
  const std::vector<uint32_t> px = watcher.grab(WindowRect{0, 0, width, height});
  if (px.size() != size_t(width) * size_t(height)) {
    img.error = "could not read the window";
    return img;
  }
  img.width = width;
  img.height = height;
  img.rgb.resize(px.size() * 3);
  for (size_t i = 0; i < px.size(); ++i) {
    img.rgb[3 * i] = uint8_t(px[i] >> 16);
    img.rgb[3 * i + 1] = uint8_t(px[i] >> 8);
    img.rgb[3 * i + 2] = uint8_t(px[i]);
  }
  return img;
}

// Kept beside a test's other files, for a look at what each check saw.
inline void save_png(const Image& img, const std::string& path) {
  if (!stbi_write_png(path.c_str(), img.width, img.height, 3, img.rgb.data(), img.width * 3))
    std::printf("could not write %s\n", path.c_str());
}

// Waits until the window has shown `frames` more frames and, when given, at least
// `min_seconds` have passed, so that events reach the app at a person's pace whatever the
// frame rate (drag mode takes the cursor's speed from the wall clock).
inline void wait_frames(FrameWatcher& watcher, int frames, double min_seconds = 0.0) {
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(watcher.wait_changes(frames, 60), frames) << "the window stopped drawing new frames";
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (waited < min_seconds)
    std::this_thread::sleep_for(std::chrono::duration<double>(min_seconds - waited));
}

// A process's resident memory [kB] (VmRSS), -1 when it cannot be read.
inline long resident_kb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

inline void send(const std::string& xdotool_args) {
  const ProcessResult r = xdotool(xdotool_args);
  ASSERT_EQ(r.exit_code, 0) << "xdotool " << xdotool_args << ": " << r.output;
}

inline std::string at(unsigned long window, int x, int y) {
  return "mousemove --window " + std::to_string(window) + " " + std::to_string(x) + " " + std::to_string(y);
}


// ---- the panel's widgets (the app prints their rectangles with TIDEPOOL_TEST_WIDGETS=1) ----

inline const std::string kWidgetLog = "env TIDEPOOL_TEST_WIDGETS=1";

inline constexpr double kWaitSeconds = 90.0;  // for anything the app does after an input

struct Widget {
  bool found = false;
  bool clipped = false;  ///< scrolled out of the panel's view: a click would miss it
  int x = 0, y = 0, width = 0, height = 0;
  int cx() const { return x + width / 2; }
  int cy() const { return y + height / 2; }
};

// The latest rectangle the app printed for widget `name` (not found when it was printed
// "gone" since: not drawn any more); with `from`, only what it printed from that offset of
// its output on (a list opened since).
inline Widget widget(const RunningApp& app, const std::string& name, size_t from = 0) {
  Widget w;
  const std::string log = app.output();
  const std::regex re("tidepool: widget '" + std::regex_replace(name, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                      R"(' (?:(gone)|(-?\d+) (-?\d+) (\d+) (\d+)( clipped)?))");
  const auto start = log.begin() + std::string::difference_type(std::min(from, log.size()));
  for (auto it = std::sregex_iterator(start, log.end(), re); it != std::sregex_iterator(); ++it) {
    if ((*it)[1].matched) {  // no longer drawn
      w = Widget{};
      continue;
    }
    w.found = true;
    w.x = std::stoi((*it)[2]);
    w.y = std::stoi((*it)[3]);
    w.width = std::stoi((*it)[4]);
    w.height = std::stoi((*it)[5]);
    w.clipped = (*it)[6].matched;
  }
  return w;
}

// Waits until the app's output contains `text` (true) or the timeout passes or it exits.
inline bool wait_for_output(RunningApp& app, const std::string& text, double timeout = kWaitSeconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
  while (app.output().find(text) == std::string::npos) {
    if (!app.running() || std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// Waits for the widget to be drawn where a click reaches it: a section that just opened
// can show it clipped for a frame before the panel grows to hold it.
inline Widget wait_for_widget(RunningApp& app, const std::string& name) {
  wait_for_output(app, "tidepool: widget '" + name + "'");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  Widget w = widget(app, name);
  while ((!w.found || w.clipped) && app.running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    w = widget(app, name);
  }
  return w;
}

// Starts the app with the widget log, waits for its window and for the panel to settle
// (the Phases table appears after the first steps and moves what is below it).
inline void start(RunningApp& app, std::unique_ptr<FrameWatcher>* watcher, unsigned long* w) {
  start_and_find_window(app, watcher, w);
  if (testing::Test::HasFatalFailure()) return;
  wait_frames(**watcher, 6, 1.0);
}

// Escape, as a user quits: the app must be gone within 60 s, with exit code 0.
inline void quit_with_escape(RunningApp& app, unsigned long w) {
  send("windowfocus --sync " + std::to_string(w) + " key Escape");
  ASSERT_TRUE(app.wait_exit(60)) << "Escape did not quit within 60 s";
  ASSERT_EQ(app.exit_code(), 0) << app.output();
}

inline void click(unsigned long w, const Widget& widget) {
  ASSERT_TRUE(widget.found) << "the widget was never drawn";
  ASSERT_FALSE(widget.clipped) << "the widget is in the panel's scrolled-away part: give the window more height";
  send(at(w, widget.cx(), widget.cy()));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // ImGui sees the hover first
  send("click 1");
}

// Clicks into a text field, selects what it holds and types `text` over it.
inline void type_into(unsigned long w, const Widget& field, const std::string& text) {
  click(w, field);
  if (testing::Test::HasFatalFailure()) return;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // Held for a while, as fingers do: ImGui 1.86 polls the keys once a frame, so a press and
  // release within one frame (xdotool's "key") would go unseen.
  send("windowfocus --sync " + std::to_string(w) + " keydown ctrl+a sleep 0.5 keyup ctrl+a");
  send("type --delay 40 " + quoted(text));
}

// The panel's red (an error sentence) inside a widget's rectangle.
inline long red_pixels(const Image& img, const Widget& w) {
  return find_pixels(img, Rect{w.x, w.y, w.x + w.width, w.y + w.height}, [](const uint8_t* p) {
           return p[0] > 200 && p[1] < 130 && p[2] < 130;
         }).count;
}

}  // namespace tp::test
