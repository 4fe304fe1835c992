// The display an offline render makes for itself on a machine without one
// (src/app/window/virtual_display.h): what it says when it cannot, and that the one it
// starts takes windows and is gone, with DISPLAY as it was, once it stops.
#include <GLFW/glfw3.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "app/window/virtual_display.h"

using namespace tp;

namespace {

// DISPLAY set to `value` (unset for null) for a scope, then put back.
struct DisplayVariable {
  bool had;
  std::string old;
  explicit DisplayVariable(const char* value) : had(std::getenv("DISPLAY") != nullptr) {
    if (had) old = std::getenv("DISPLAY");
    if (value)
      setenv("DISPLAY", value, 1);
    else
      unsetenv("DISPLAY");
  }
  ~DisplayVariable() {
    if (had)
      setenv("DISPLAY", old.c_str(), 1);
    else
      unsetenv("DISPLAY");
  }
};

std::string display_now() {
  const char* d = std::getenv("DISPLAY");
  return d ? d : "(unset)";
}

// Whether GLFW can open a window on the current DISPLAY.
bool glfw_opens_a_window() {
  if (glfwInit() != GLFW_TRUE) return false;
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  GLFWwindow* w = glfwCreateWindow(64, 48, "probe", nullptr, nullptr);
  const bool ok = w != nullptr;
  if (w) glfwDestroyWindow(w);
  glfwTerminate();
  return ok;
}

}  // namespace

TEST(VirtualDisplay, WithoutTheServerItSaysWhatToInstallAndChangesNothing) {
  DisplayVariable unset(nullptr);
  EXPECT_FALSE(has_display());
  VirtualDisplay display;
  std::string error;
  EXPECT_FALSE(display.start(320, 240, &error, "/nonexistent/Xvfb"));
  EXPECT_NE(error.find("no display"), std::string::npos) << error;
  EXPECT_NE(error.find("apt install xvfb"), std::string::npos) << error;
  EXPECT_FALSE(display.running());
  EXPECT_EQ(display_now(), "(unset)");
  error.clear();
  EXPECT_FALSE(display.start(320, 240, &error, "no-such-program-tidepool-test"));
  EXPECT_NE(error.find("no no-such-program-tidepool-test"), std::string::npos) << error;
}

TEST(VirtualDisplay, AServerThatEndsOrHangsIsReportedAndLeftNoProcess) {
  DisplayVariable unset(nullptr);
  VirtualDisplay display;
  std::string error;
  EXPECT_FALSE(display.start(320, 240, &error, "/bin/false"));
  EXPECT_NE(error.find("ended without opening a display"), std::string::npos) << error;
  EXPECT_FALSE(display.running());
  // One that never answers: given up after the timeout, killed.
  const std::string script = std::filesystem::temp_directory_path() / ("tp_hang_" + std::to_string(getpid()) + ".sh");
  {
    std::ofstream(script) << "#!/bin/sh\nexec sleep 30\n";
  }
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  error.clear();
  EXPECT_FALSE(display.start(320, 240, &error, script, 0.5));
  EXPECT_NE(error.find("did not open a display within 0.5 s"), std::string::npos) << error;
  EXPECT_FALSE(display.running());
  EXPECT_EQ(display_now(), "(unset)");
  std::filesystem::remove(script);
}

TEST(VirtualDisplay, TheServerItStartsTakesAWindowAndIsGoneOnceStopped) {
  DisplayVariable unset(nullptr);
  VirtualDisplay display;
  std::string error;
  if (!display.start(320, 240, &error)) {
    if (error.find("apt install xvfb") != std::string::npos) GTEST_SKIP() << "no Xvfb here: " << error;
    FAIL() << error;
  }
  ASSERT_TRUE(display.running());
  EXPECT_EQ(display.name().rfind(":", 0), 0u) << display.name();
  EXPECT_EQ(display_now(), display.name());
  EXPECT_TRUE(has_display());
  EXPECT_TRUE(glfw_opens_a_window()) << "a window on " << display.name();
  const std::string name = display.name();
  display.stop();
  EXPECT_FALSE(display.running());
  EXPECT_EQ(display_now(), "(unset)") << "DISPLAY as it was";
  {
    DisplayVariable gone(name.c_str());
    EXPECT_FALSE(glfw_opens_a_window()) << "the server on " << name << " has ended";
  }
  // With a DISPLAY set before, it is put back.
  {
    DisplayVariable before(":12345");
    ASSERT_TRUE(display.start(200, 100, &error)) << error;
    EXPECT_NE(display_now(), ":12345");
    display.stop();
    EXPECT_EQ(display_now(), ":12345");
  }
}
