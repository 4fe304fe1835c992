// Video from a real window under Xvfb (issue 38 part 1): F9 and the panel's Record video
// button record an MP4 beside the screenshots that ffprobe reads with the window's size, a
// frame count of 30 a second of the time recorded, and the water in its frames; as a GPU's
// driver reads the frame (the view without the panel, the red marker only on screen) and
// as a software driver does (the window as shown); and without ffmpeg the button says
// what to install while the app runs on. Run as the other window tests (test_window.cpp).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
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

const std::regex kVideoName(R"(tidepool-\d{8}-\d{6}(-\d+)?\.mp4)");

// The timestamped videos in `dir` (not a NAME.mp4.part being written).
std::vector<std::string> videos_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, kVideoName)) names.push_back(name);
  }
  return names;
}

double probed(const std::string& text, const std::string& key) {
  const size_t at = text.find(key + "=");
  return at == std::string::npos ? -1.0 : std::atof(text.c_str() + at + key.size() + 1);
}

// At 800 pixels wide the panel's body, a near-black grey, fills most of this rectangle (as in
// test_window_screenshot.cpp).
const Rect kPanelArea{20, 60, 330, 340};
bool panel_grey(const uint8_t* p) {
  return std::max({std::abs(p[0] - 19), std::abs(p[1] - 19), std::abs(p[2] - 21)}) <= 4;
}
// The recording marker's corner, top right.
const Rect kMarkerCorner{600, 0, 800, 50};
// (Its dot blinks between a bright and a dark red: either counts.)
bool marker_red(const uint8_t* p) { return p[0] > 90 && p[1] < 60 && p[2] < 60 && p[0] > 3 * p[1]; }

void require_ffmpeg() {
  ASSERT_EQ(run_command("ffmpeg -version && ffprobe -version").exit_code, 0)
      << "the ffmpeg package is missing: sudo apt install ffmpeg (scripts/setup.sh test installs it)";
}

struct Recorded {
  bool gif = false;  // asked: the panel's "GIF of its last 5 s" once the video is saved
  std::string path, probe;
  Image middle;  // a frame from the middle of the video
  std::string gif_path, gif_probe;
  Image gif_middle;
};

// Starts the app in the test's directory with `launcher`, records about `seconds` with F9 (stopped with
// the panel's button when `stop_with_button`), quits with Escape; the video's file, what
// ffprobe says of it, and its middle frame. `marker_on_screen` gets the red pixels of the
// window's top-right corner while it records.
void record(const std::string& launcher, double seconds, bool stop_with_button, Recorded* out,
            long* marker_on_screen) {
  require_display_and_tools();
  if (testing::Test::HasFatalFailure()) return;
  require_ffmpeg();
  if (testing::Test::HasFatalFailure()) return;
  const std::string work = test_dir() + "/work";
  std::filesystem::create_directories(work);
  RunningApp app("--scene pool --particles 2000 --size 800x1000 --frames 1000000", work + "/app.log", work,
                 kWidgetLog + " " + launcher);
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start(app, &watcher, &w);
  if (testing::Test::HasFatalFailure()) return;
  send("windowfocus --sync " + std::to_string(w) + " key F9");
  ASSERT_TRUE(wait_for_output(app, "tidepool: recording video ")) << app.output();
  wait_frames(*watcher, 3, seconds);
  if (testing::Test::HasFatalFailure()) return;
  const Image window = grab_window(*watcher, 800, 600);
  *marker_on_screen = find_pixels(window, kMarkerCorner, marker_red).count;
  if (stop_with_button) {
    const Widget button = wait_for_widget(app, "video");
    click(w, button);
  } else {
    send("windowfocus --sync " + std::to_string(w) + " key F9");
  }
  if (testing::Test::HasFatalFailure()) return;
  ASSERT_TRUE(wait_for_output(app, "tidepool: saved video ")) << app.output();
  EXPECT_TRUE(app.running()) << "the app runs on after a video";
  if (out->gif) {
    const Widget button = wait_for_widget(app, "gif");
    ASSERT_TRUE(button.found) << "no GIF button under the saved video";
    click(w, button);
    ASSERT_TRUE(wait_for_output(app, "tidepool: saved GIF ", 60.0)) << app.output();
  }
  quit_with_escape(app, w);
  if (testing::Test::HasFatalFailure()) return;
  const std::vector<std::string> videos = videos_in(work);
  ASSERT_EQ(videos.size(), 1u) << app.output();
  out->path = work + "/" + videos[0];
  EXPECT_NE(app.output().find("tidepool: saved video " + out->path + " (800x1000, "), std::string::npos)
      << app.output();
  out->probe = run_command("ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                           "stream=codec_name,pix_fmt,width,height,nb_read_frames:format=duration -of default=nw=1 '" +
                           out->path + "'")
                   .output;
  const double duration = probed(out->probe, "duration");
  const std::string png = work + "/middle.png";
  run_command("ffmpeg -v error -y -ss " + std::to_string(duration / 2) + " -i '" + out->path +
              "' -frames:v 1 '" + png + "'");
  out->middle = load_png(png);
  if (!out->gif) return;
  out->gif_path = out->path.substr(0, out->path.size() - 4) + ".gif";
  out->gif_probe = run_command("ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                               "stream=codec_name,width,height,nb_read_frames -of default=nw=1 '" +
                               out->gif_path + "'")
                       .output;
  const std::string gif_png = work + "/gif_middle.png";
  run_command("ffmpeg -v error -y -i '" + out->gif_path + "' -vf 'select=eq(n\\,15)' -frames:v 1 '" + gif_png + "'");
  out->gif_middle = load_png(gif_png);
}

// Checks what any recording must be: H.264 yuv420p at the window's size, 30 frames a second
// of its length (which is about the time recorded), the water in its middle frame.
void expect_a_video_of_the_water(const Recorded& r, double seconds) {
  std::printf("%s\n%s", r.path.c_str(), r.probe.c_str());
  EXPECT_NE(r.probe.find("codec_name=h264"), std::string::npos) << r.probe;
  EXPECT_NE(r.probe.find("pix_fmt=yuv420p"), std::string::npos) << r.probe;
  EXPECT_EQ(probed(r.probe, "width"), 800.0);
  EXPECT_EQ(probed(r.probe, "height"), 1000.0);
  const double duration = probed(r.probe, "duration"), frames = probed(r.probe, "nb_read_frames");
  EXPECT_GT(duration, seconds - 0.5) << "it lasts as long as the recording (wall clock)";
  EXPECT_LT(duration, seconds + 8.0);
  EXPECT_NEAR(frames, duration * 30.0, 1.5) << "30 frames a second";
  ASSERT_TRUE(r.middle.ok()) << r.middle.error;
  const Blob water = find_water(r.middle, r.middle.all());
  std::printf("middle frame: %ld water pixels\n", water.count);
  EXPECT_GT(water.count, 20000) << "the water is in the video (not a black frame)";
}

}  // namespace

// A GPU driver's way (forced here: the frame read as drawn, converted on the GPU): F9
// starts, the red marker shows in the window's corner, the panel's button stops; the video
// holds the view without the panel and without the marker.
TEST(Window, F9AndTheButtonRecordAVideoOfTheViewWithoutThePanel) {
  Recorded r;
  long marker = 0;
  record("TIDEPOOL_VIDEO_READ=drawn", 3.0, true, &r, &marker);
  if (HasFatalFailure()) return;
  expect_a_video_of_the_water(r, 3.0);
  const long panel = find_pixels(r.middle, kPanelArea, panel_grey).count;
  const long marker_in_video = find_pixels(r.middle, kMarkerCorner, marker_red).count;
  std::printf("marker on screen %ld px, in the video %ld px; panel grey in the video %ld px\n", marker,
              marker_in_video, panel);
  EXPECT_GT(marker, 30) << "a red marker in the window's corner while it records";
  EXPECT_LT(marker_in_video, 5) << "not in the video";
  EXPECT_LT(panel, kPanelArea.width() * kPanelArea.height() / 100) << "the panel is not in the video";
}

// A software driver's way (llvmpipe, as here by default): the window as shown, panel
// included, and no marker drawn over it.
TEST(Window, OnASoftwareDriverTheVideoIsTheWindowAsShown) {
  Recorded r;
  long marker = 0;
  record("TIDEPOOL_VIDEO_READ=shown", 3.0, false, &r, &marker);
  if (HasFatalFailure()) return;
  expect_a_video_of_the_water(r, 3.0);
  const long panel = find_pixels(r.middle, kPanelArea, panel_grey).count;
  std::printf("marker on screen %ld px; panel grey in the video %ld px\n", marker, panel);
  EXPECT_GT(panel, kPanelArea.width() * kPanelArea.height() / 2) << "the panel, as the window shows it";
  EXPECT_LT(marker, 5) << "no marker: it would be in the video";
}

// The panel's "GIF of its last 5 s" under a saved video of 3 s: a GIF beside it, of the
// same name, 480 pixels wide with the window's shape, 15 frames a second of all of it,
// the water in its frames (dithered to 256 colours, it still reads as water).
TEST(Window, AGifOfTheSavedVideosEndFromThePanel) {
  Recorded r;
  r.gif = true;
  long marker = 0;
  record("", 3.0, false, &r, &marker);
  if (HasFatalFailure()) return;
  std::printf("%s\n%s", r.gif_path.c_str(), r.gif_probe.c_str());
  EXPECT_NE(r.gif_probe.find("codec_name=gif"), std::string::npos) << r.gif_probe;
  EXPECT_EQ(probed(r.gif_probe, "width"), 480.0);
  EXPECT_EQ(probed(r.gif_probe, "height"), 600.0);
  const double seconds = probed(r.probe, "duration");
  EXPECT_NEAR(probed(r.gif_probe, "nb_read_frames"), std::min(seconds, 5.0) * 15.0, 2.0);
  ASSERT_TRUE(r.gif_middle.ok()) << r.gif_middle.error;
  const Blob water = find_water(r.gif_middle, r.gif_middle.all());
  std::printf("GIF frame 15: %ld water pixels\n", water.count);
  EXPECT_GT(water.count, 5000) << "the water is in the GIF";
}

// Without ffmpeg on the PATH, F9 says what to install (on stderr and in the panel, in red)
// and the app runs on; Escape quits it as usual.
TEST(Window, WithoutFfmpegF9SaysWhatToInstall) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string work = test_dir() + "/work";
  std::filesystem::create_directories(work);
  RunningApp app("--scene pool --particles 2000 --size 800x1000 --frames 1000000", work + "/app.log", work,
                 kWidgetLog + " PATH=/nonexistent");
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start(app, &watcher, &w);
  if (HasFatalFailure()) return;
  send("windowfocus --sync " + std::to_string(w) + " key F9");
  ASSERT_TRUE(wait_for_output(app, "tidepool: no video: ")) << app.output();
  EXPECT_NE(app.output().find("tidepool: no video: video needs the ffmpeg program, which is not installed: "
                              "sudo apt install ffmpeg"),
            std::string::npos)
      << app.output();
  const Widget status = wait_for_widget(app, "video status");
  ASSERT_TRUE(status.found);
  wait_frames(*watcher, 3);
  if (HasFatalFailure()) return;
  const Image window = grab_window(*watcher, 800, 1000);
  std::printf("status at %d %d (%d x %d)\n", status.x, status.y, status.width, status.height);
  EXPECT_GT(red_pixels(window, status), 20) << "the panel says it in red";
  EXPECT_TRUE(app.running());
  EXPECT_TRUE(videos_in(work).empty());
  quit_with_escape(app, w);
}

// Recording while the window is resized, larger and smaller, in a gas scene (where the
// monkey found it): the app keeps running (a read at GLFW's size, one frame behind the
// window's, went past llvmpipe's back buffer and crashed it), and the video keeps its
// first size and decodes whole.
TEST(Window, RecordingWhileTheWindowIsResizedKeepsRunning) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  require_ffmpeg();
  if (HasFatalFailure()) return;
  const std::string work = test_dir() + "/work";
  std::filesystem::create_directories(work);
  RunningApp app("--scene smoke_obstacles --size 1234x704 --frames 1000000", work + "/app.log", work);
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start(app, &watcher, &w);
  if (HasFatalFailure()) return;
  const std::string window = std::to_string(w);
  send("windowfocus --sync " + window + " key F9");
  ASSERT_TRUE(wait_for_output(app, "tidepool: recording video ")) << app.output();
  for (const char* size : {"1280 800", "900 700", "1000 900", "800 600", "1200 700", "700 500"}) {
    send("windowsize --sync " + window + " " + size + " key F12");  // (a screenshot right after: the same read)
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    ASSERT_TRUE(app.running()) << "the app ended (exit code " << app.exit_code() << ", 128 + a signal) after a resize to "
                               << size << ":\n" << app.output();
  }
  send("windowfocus --sync " + window + " key F9");
  ASSERT_TRUE(wait_for_output(app, "tidepool: saved video ")) << app.output();
  send("windowfocus --sync " + window + " key Escape");
  ASSERT_TRUE(app.wait_exit(60)) << "Escape did not quit within 60 s";
  EXPECT_EQ(app.exit_code(), 0) << app.output();
  const std::vector<std::string> videos = videos_in(work);
  ASSERT_EQ(videos.size(), 1u) << app.output();
  const std::string probe =
      run_command("ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=width,height,nb_read_frames "
                  "-of default=nw=1 '" + work + "/" + videos[0] + "'").output;
  std::printf("%s", probe.c_str());
  EXPECT_EQ(probed(probe, "width"), 1234.0) << probe;
  EXPECT_EQ(probed(probe, "height"), 704.0) << probe;
  EXPECT_GE(probed(probe, "nb_read_frames"), 90.0) << "about 5 s at 30 frames a second";
  int screenshots = 0;
  const std::string out = app.output();
  for (size_t at = out.find(".png ("); at != std::string::npos; at = out.find(".png (", at + 1)) ++screenshots;
  EXPECT_EQ(screenshots, 6) << "a screenshot after each resize";
}
