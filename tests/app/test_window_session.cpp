// Sessions from a real window under Xvfb (issue 38 part 2): F8 records, while the water is
// dragged, a body floats and the solver is switched by key on the window's own simulation
// thread; `tidepool --replay` then plays the file headless and reaches the recorded state
// to the bit (every hash matches). Run as the other window tests (test_window.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <thread>

#include "image.h"
#include "process.h"
#include "x11_frames.h"

using namespace tp::test;
#include "window_harness.h"

namespace {

// Records a session in the real window with F8 around a drag and two solver keys; its path
// and its step count.
void record_session(const std::string& work, std::string* path, int* steps) {
  RunningApp app("--scene floating --size 900x700 --frames 1000000", work + "/app.log", work, kWidgetLog);
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start(app, &watcher, &w);
  if (testing::Test::HasFatalFailure()) return;
  const std::string window = std::to_string(w);
  send("windowfocus --sync " + window + " key F8");
  ASSERT_TRUE(wait_for_output(app, "tidepool: recording session ")) << app.output();
  // A drag through the water, a switch to DFSPH and one to PCISPH, on the window's thread.
  send("mousemove --window " + window + " 600 420 mousedown 1 sleep 0.3 mousemove --window " + window +
       " 700 430 sleep 0.3 mousemove --window " + window + " 800 440 sleep 0.3 mouseup 1");
  wait_frames(*watcher, 3, 0.5);
  send("windowfocus --sync " + window + " key 4");
  wait_frames(*watcher, 3, 0.8);
  send("windowfocus --sync " + window + " key 2");
  wait_frames(*watcher, 3, 0.8);
  // An orbit: the view (recorded as View records) that the replays follow.
  send("mousemove --window " + window + " 600 300 mousedown 3 sleep 0.2 mousemove --window " + window +
       " 520 260 sleep 0.2 mouseup 3");
  wait_frames(*watcher, 3, 0.5);
  if (testing::Test::HasFatalFailure()) return;
  send("windowfocus --sync " + window + " key F8");
  ASSERT_TRUE(wait_for_output(app, "tidepool: saved session ")) << app.output();
  send("windowfocus --sync " + window + " key Escape");
  ASSERT_TRUE(app.wait_exit(60)) << "Escape did not quit within 60 s";
  EXPECT_EQ(app.exit_code(), 0) << app.output();

  std::smatch m;
  const std::string out = app.output();
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(saved session (\S+\.tpsession) \((\d+) steps)"))) << out;
  *path = m[1];
  *steps = std::stoi(m[2]);
}

}  // namespace

TEST(Window, F8RecordsASessionThatReplaysExactly) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string work = test_dir() + "/work";
  std::filesystem::create_directories(work);
  std::string path;
  int steps = 0;
  record_session(work, &path, &steps);
  if (HasFatalFailure()) return;
  EXPECT_GT(steps, 50) << "the session spans the drag and the switches";
  // Headless, with the replayed run's frames written for Blender as it goes.
  const ProcessResult replay =
      run_command(tidepool() + " --replay '" + path + "' --headless --export '" + work + "/frames' 2>&1");
  std::printf("%s", replay.output.c_str());
  EXPECT_EQ(replay.exit_code, 0) << replay.output;
  std::smatch r;
  ASSERT_TRUE(std::regex_search(replay.output, r, std::regex(R"(replayed (\d+) steps .*: (\d+) of (\d+) hashes match)")))
      << replay.output;
  EXPECT_EQ(std::stoi(r[1]), steps);
  EXPECT_EQ(r[2], r[3]) << "every hash matches";
  EXPECT_GE(std::stoi(r[3]), 3);
  // The frames: 30 a simulated second from the session's start, with the bodies' poses.
  std::smatch e;
  ASSERT_TRUE(std::regex_search(replay.output, e, std::regex(R"(export: (\d+) frames)"))) << replay.output;
  const int frames = std::stoi(e[1]);
  EXPECT_GE(frames, 10);
  EXPECT_TRUE(std::filesystem::exists(work + "/frames/frame_00000.ply"));
  EXPECT_TRUE(std::filesystem::exists(work + "/frames/frame_" + std::string(5 - std::to_string(frames - 1).size(), '0') +
                                      std::to_string(frames - 1) + ".ply"));
  bool bodies = false;
  for (const auto& entry : std::filesystem::directory_iterator(work + "/frames"))
    bodies |= entry.path().filename().string().find("bod") != std::string::npos;
  EXPECT_TRUE(bodies) << "the bodies' poses go out with the frames";

  // --backend auto: on a GPU the replay runs there, judged by the session's checks within
  // the device comparison's tolerance; without one (as here) on the CPU, exact, saying why.
  const ProcessResult automatic = run_command(tidepool() + " --replay '" + path + "' --headless --backend auto 2>&1");
  std::printf("%s", automatic.output.c_str());
  EXPECT_EQ(automatic.exit_code, 0) << automatic.output;
  std::smatch a;
  if (automatic.output.find(" on CUDA: ") != std::string::npos) {
    ASSERT_TRUE(std::regex_search(automatic.output, a, std::regex(R"(on CUDA: (\d+) of (\d+) checks within)")))
        << automatic.output;
    EXPECT_EQ(a[1], a[2]) << "every check within the tolerance";
  } else {
    EXPECT_NE(automatic.output.find("tidepool: backend: CPU (auto: "), std::string::npos) << automatic.output;
    ASSERT_TRUE(std::regex_search(automatic.output, a, std::regex(R"((\d+) of (\d+) hashes match)")))
        << automatic.output;
    EXPECT_EQ(a[1], a[2]);
    // Asked for CUDA where there is none: said, exit code 2, nothing replayed.
    const ProcessResult cuda = run_command(tidepool() + " --replay '" + path + "' --headless --backend cuda 2>&1");
    EXPECT_EQ(cuda.exit_code, 2) << cuda.output;
    EXPECT_NE(cuda.output.find("tidepool: --backend cuda: "), std::string::npos) << cuda.output;
    EXPECT_EQ(cuda.output.find("tidepool: replayed "), std::string::npos) << cuda.output;
  }
}

// The replay in the window and rendered offline (issue 38): the session plays in the
// window to its end and pauses there, F12 saves the view; the time slider, clicked at its
// start, seeks back; Continue from here hands the water back. Then --video renders the
// same session offline on the simulated clock: one frame every 1/30 s of it, at the size
// asked, and its last frame is the window's view of the same state.
TEST(Window, AReplayPlaysInTheWindowSeeksAndRendersOfflineAsTheWindowDraws) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  ASSERT_EQ(run_command("ffmpeg -version && ffprobe -version").exit_code, 0) << "the ffmpeg package is missing";
  const std::string work = test_dir() + "/work";
  std::filesystem::create_directories(work);
  std::string path;
  int steps = 0;
  record_session(work, &path, &steps);
  if (HasFatalFailure()) return;

  Image shown;
  {
    RunningApp app("--replay '" + path + "' --size 900x700 --frames 1000000", work + "/replay.log", work, kWidgetLog);
    std::unique_ptr<FrameWatcher> watcher;
    unsigned long w = 0;
    start(app, &watcher, &w);
    if (HasFatalFailure()) return;
    const std::string window = std::to_string(w);
    ASSERT_TRUE(wait_for_output(app, "tidepool: replay: the end of the session at step " + std::to_string(steps) +
                                         " (t = ",
                                180.0))
        << app.output();
    EXPECT_NE(app.output().find("every hash matched"), std::string::npos) << app.output();
    // On the CPU because a replay is exact there, not because --backend said so.
    EXPECT_NE(app.output().find("backend: CPU (a replay runs on the CPU"), std::string::npos) << app.output();
    EXPECT_EQ(app.output().find("requested with --backend"), std::string::npos) << app.output();
    send("windowfocus --sync " + window + " key F12");
    ASSERT_TRUE(wait_for_output(app, "tidepool: saved ")) << app.output();
    std::smatch m;
    const std::string out = app.output();
    ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(tidepool: saved (\S+\.png) )"))) << out;
    shown = load_png(m[1]);
    ASSERT_TRUE(shown.ok()) << shown.error;
    // The slider's left end: back to the start (a snapshot's step, then forward).
    const Widget slider = wait_for_widget(app, "replay slider");
    ASSERT_TRUE(slider.found) << app.output();
    send(at(w, slider.x + 3, slider.cy()));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    send("click 1");
    ASSERT_TRUE(wait_for_output(app, "tidepool: replay: seeked to step ")) << app.output();
    std::smatch s;
    const std::string seeked = app.output();
    ASSERT_TRUE(std::regex_search(seeked, s, std::regex(R"(seeked to step (\d+) )"))) << seeked;
    std::printf("seeked to step %s of %d\n", s[1].str().c_str(), steps);
    EXPECT_LT(std::stoi(s[1]), steps / 10) << "the slider's left end is the session's start";
    wait_frames(*watcher, 3, 0.5);
    click(w, wait_for_widget(app, "replay continue"));
    ASSERT_TRUE(wait_for_output(app, "Continue from here: the replay ends at step ")) << app.output();
    send("windowfocus --sync " + window + " key Escape");
    ASSERT_TRUE(app.wait_exit(60)) << "Escape did not quit within 60 s";
    EXPECT_EQ(app.exit_code(), 0) << app.output();
    // The replay's lines count the session's steps as the slider does (from its start);
    // the take-over line gives the simulation's count too, which the exit line goes on from.
    const std::string end = app.output();
    std::smatch c, t;
    ASSERT_TRUE(std::regex_search(end, c, std::regex(R"(the replay ends at step (\d+) of (\d+) \(the simulation's step (\d+), t = )")))
        << end;
    EXPECT_EQ(std::stoi(c[2]), steps);
    EXPECT_GE(std::stoi(c[1]), std::stoi(s[1]));
    EXPECT_LE(std::stoi(c[1]), steps);
    EXPECT_GE(std::stoll(c[3]), std::stoll(c[1]));
    ASSERT_TRUE(std::regex_search(end, t, std::regex(R"(tidepool: \d+ frames, (\d+) steps, )"))) << end;
    EXPECT_GE(std::stoll(t[1]), std::stoll(c[3])) << "live on from the simulation's step";
  }

  const std::string video = work + "/offline.mp4";
  const ProcessResult offline =
      run_command(tidepool() + " --replay '" + path + "' --video '" + video + "' --size 900x700 --fps 30 2>&1");
  EXPECT_EQ(offline.exit_code, 0) << offline.output;
  // The progress line of the end (the last one: a slow machine prints one every 5 s too).
  std::smatch f;
  const size_t end_line = offline.output.rfind("100 %  frame ");
  ASSERT_NE(end_line, std::string::npos) << offline.output;
  const std::string end_text = offline.output.substr(end_line);
  ASSERT_TRUE(std::regex_search(end_text, f, std::regex(R"(100 %  frame (\d+), t = ([0-9.]+) of)")))
      << offline.output;
  const int rendered = std::stoi(f[1]);
  // Rendered to the session's end: the simulation's count is the session's steps and those
  // before its start, which the exit line says.
  std::smatch before;
  ASSERT_TRUE(std::regex_search(offline.output, before, std::regex(R"(tidepool: \d+ frames, (\d+) steps \((\d+) of them before the session's start\))")))
      << offline.output;
  EXPECT_EQ(std::stoll(before[1]) - std::stoll(before[2]), steps) << offline.output;
  const double span = std::stod(f[2]);
  // Frame k shows the first state at or after k / 30 s, and the frames end with the one
  // that reached the session's end: ceil(30 span) + 1 frames, with the span printed to
  // 1/100 s (CI: 63 frames for "t = 2.03", a span of 2.0334 s or more).
  EXPECT_GE(rendered, span * 30.0 + 1.0 - 0.5) << "a frame every 1/30 s of the session, and its start";
  EXPECT_LE(rendered, span * 30.0 + 2.0 + 0.5) << "a frame every 1/30 s of the session, and its start";
  const std::string probe = run_command("ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                                        "stream=width,height,nb_read_frames -of default=nw=1 '" + video + "'").output;
  std::printf("%s", probe.c_str());
  EXPECT_NE(probe.find("width=900"), std::string::npos) << probe;
  EXPECT_NE(probe.find("height=700"), std::string::npos) << probe;
  EXPECT_NE(probe.find("nb_read_frames=" + std::to_string(rendered)), std::string::npos)
      << "every frame rendered is in it (" << rendered << " rendered)\n" << offline.output;
  const std::string first = work + "/first.png", last = work + "/last.png";
  run_command("ffmpeg -v error -y -i '" + video + "' -frames:v 1 '" + first + "'");
  run_command("ffmpeg -v error -y -i '" + video + "' -vf 'select=eq(n\\," + std::to_string(rendered - 1) +
              ")' -frames:v 1 '" + last + "'");
  const Image a = load_png(first), b = load_png(last);
  ASSERT_TRUE(a.ok() && b.ok()) << a.error << b.error;
  const Rect all{0, 0, 900, 700};
  // Per pixel, H.264 at crf 20 in yuv420p (the video's colours at half resolution) costs
  // a busy frame of spray dots about 3 of 255 by itself (2.9 to 3.3 measured on the same
  // state); over 8 x 8 tiles that noise averages out and a moved state does not.
  const double to_last = mean_abs_diff_tiles(b, shown, all, 8), to_first = mean_abs_diff_tiles(a, shown, all, 8);
  std::printf("the window's view at the end against the video's last frame: %.2f per 8x8 tile (%.2f per pixel), "
              "its first: %.2f (%.2f)\n",
              to_last, mean_abs_diff(b, shown, all), to_first, mean_abs_diff(a, shown, all));
  EXPECT_LT(to_last, 1.5) << "the offline render draws what the window drew (see last.png and the F12 png)";
  EXPECT_LT(to_last, 0.5 * to_first) << "and the comparison tells states apart";

  // The same render on a machine without a display: it starts one of its own (Xvfb), and
  // draws the same frames.
  const std::string bare = work + "/offline_no_display.mp4";
  const ProcessResult headless = run_command("env -u DISPLAY -u WAYLAND_DISPLAY " + tidepool() + " --replay '" +
                                             path + "' --video '" + bare + "' --size 900x700 --fps 30 2>&1");
  EXPECT_EQ(headless.exit_code, 0) << headless.output;
  EXPECT_NE(headless.output.find("tidepool: no display: rendering on a virtual one (Xvfb :"), std::string::npos)
      << headless.output;
  const std::string bare_probe = run_command("ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                                             "stream=width,height,nb_read_frames -of default=nw=1 '" + bare + "'").output;
  EXPECT_NE(bare_probe.find("nb_read_frames=" + std::to_string(rendered)), std::string::npos) << bare_probe;
  const std::string bare_last = work + "/last_no_display.png";
  run_command("ffmpeg -v error -y -i '" + bare + "' -vf 'select=eq(n\\," + std::to_string(rendered - 1) +
              ")' -frames:v 1 '" + bare_last + "'");
  const Image c = load_png(bare_last);
  ASSERT_TRUE(c.ok()) << c.error;
  const double bare_to_last = mean_abs_diff_tiles(c, b, all, 8);
  std::printf("the last frame rendered without a display against the one with: %.2f per 8x8 tile\n", bare_to_last);
  EXPECT_LT(bare_to_last, 1.0) << "the same frames without a display (see last_no_display.png and last.png)";
  EXPECT_EQ(run_command("pgrep -f '[X]vfb -displayfd'").exit_code, 1) << "no server left behind";
}
