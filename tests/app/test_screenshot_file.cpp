// The names the Save screenshot button and F12 give their pictures: timestamped, and never
// the name of a file that is already there.
#include <gtest/gtest.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>

#include "app/window/screenshot_file.h"

using namespace tp;

namespace {

// 22 November 2026, 10:30:15 local time (whatever the machine's time zone).
std::time_t local_moment(std::tm* fields) {
  std::tm t{};
  t.tm_year = 2026 - 1900;
  t.tm_mon = 10;
  t.tm_mday = 22;
  t.tm_hour = 10;
  t.tm_min = 30;
  t.tm_sec = 15;
  t.tm_isdst = -1;
  const std::time_t now = std::mktime(&t);
  if (fields) *fields = t;
  return now;
}

std::string fresh_dir(const char* name) {
  const std::string dir = testing::TempDir() + "tidepool_screenshot_file/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

void touch(const std::string& path) { std::ofstream(path) << "taken"; }

}  // namespace

TEST(ScreenshotFile, NameIsTheLocalTimeThenACopyNumber) {
  std::tm t{};
  local_moment(&t);
  EXPECT_EQ(screenshot_file_name(t, 1), "tidepool-20261122-103015.png");
  EXPECT_EQ(screenshot_file_name(t, 2), "tidepool-20261122-103015-2.png");
  EXPECT_EQ(screenshot_file_name(t, 13), "tidepool-20261122-103015-13.png");
  t.tm_mon = 0, t.tm_mday = 3, t.tm_hour = 4, t.tm_min = 5, t.tm_sec = 6;
  EXPECT_EQ(screenshot_file_name(t, 1), "tidepool-20260103-040506.png") << "zero-padded";
}

TEST(ScreenshotFile, FreePathSkipsEveryNameAlreadyTaken) {
  const std::string dir = fresh_dir("taken");
  const std::time_t now = local_moment(nullptr);
  const std::string plain = dir + "/tidepool-20261122-103015.png";
  EXPECT_EQ(free_screenshot_path(dir, now), plain) << "an empty directory";
  EXPECT_EQ(free_screenshot_path(dir + "/", now), plain) << "one slash, not two";
  touch(plain);
  EXPECT_EQ(free_screenshot_path(dir, now), dir + "/tidepool-20261122-103015-2.png");
  touch(dir + "/tidepool-20261122-103015-2.png");
  std::filesystem::create_directory(dir + "/tidepool-20261122-103015-3.png");
  // A link to nothing is a name in use too.
  ASSERT_EQ(symlink("nowhere", (dir + "/tidepool-20261122-103015-4.png").c_str()), 0);
  EXPECT_EQ(free_screenshot_path(dir, now), dir + "/tidepool-20261122-103015-5.png");
  // Another second starts its own series.
  EXPECT_EQ(free_screenshot_path(dir, now + 1), dir + "/tidepool-20261122-103016.png");
  // Nothing was written by looking.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            4);
}

// A directory that is not there names a path (saving it then fails with a message); the
// search does not loop.
TEST(ScreenshotFile, MissingDirectoryStillGivesAName) {
  const std::string dir = fresh_dir("missing") + "/not_here";
  EXPECT_EQ(free_screenshot_path(dir, local_moment(nullptr)),
            dir + "/tidepool-20261122-103015.png");
}
