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

TEST(Window, F8RecordsASessionThatReplaysExactly) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string work = test_dir() + "/work";
  std::filesystem::create_directories(work);
  RunningApp app("--scene floating --size 900x700 --frames 1000000", work + "/app.log", work, kWidgetLog);
  std::unique_ptr<FrameWatcher> watcher;
  unsigned long w = 0;
  start(app, &watcher, &w);
  if (HasFatalFailure()) return;
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
  if (HasFatalFailure()) return;
  send("windowfocus --sync " + window + " key F8");
  ASSERT_TRUE(wait_for_output(app, "tidepool: saved session ")) << app.output();
  send("windowfocus --sync " + window + " key Escape");
  ASSERT_TRUE(app.wait_exit(60)) << "Escape did not quit within 60 s";
  EXPECT_EQ(app.exit_code(), 0) << app.output();

  std::smatch m;
  const std::string out = app.output();
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(saved session (\S+\.tpsession) \((\d+) steps)"))) << out;
  const std::string path = m[1];
  const int steps = std::stoi(m[2]);
  EXPECT_GT(steps, 50) << "the session spans the drag and the switches";
  const ProcessResult replay = run_command(tidepool() + " --replay '" + path + "' 2>&1");
  std::printf("%s", replay.output.c_str());
  EXPECT_EQ(replay.exit_code, 0) << replay.output;
  std::smatch r;
  ASSERT_TRUE(std::regex_search(replay.output, r, std::regex(R"(replayed (\d+) steps .*: (\d+) of (\d+) hashes match)")))
      << replay.output;
  EXPECT_EQ(std::stoi(r[1]), steps);
  EXPECT_EQ(r[2], r[3]) << "every hash matches";
  EXPECT_GE(std::stoi(r[3]), 3);
}
