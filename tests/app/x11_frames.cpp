#include "x11_frames.h"

#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include <chrono>
#include <thread>

namespace tp::test {

namespace {

// Xlib's default error handler exits the process; a window that closes while we read it
// (the app quit) must only end the wait.
int g_x_errors = 0;
int count_x_error(Display*, XErrorEvent*) {
  ++g_x_errors;
  return 0;
}

}  // namespace

struct FrameWatcher::Impl {
  Display* display = nullptr;
  Window window = 0;
  ~Impl() {
    if (display) XCloseDisplay(display);
  }
};

FrameWatcher::FrameWatcher(unsigned long window, WindowRect area) : impl_(new Impl), area_(area) {
  impl_->display = XOpenDisplay(nullptr);
  if (!impl_->display) {
    error_ = "cannot open the X display '" + std::string(XDisplayName(nullptr)) + "'";
    return;
  }
  XSetErrorHandler(count_x_error);
  impl_->window = Window(window);
}

FrameWatcher::~FrameWatcher() = default;

std::vector<uint32_t> FrameWatcher::grab(WindowRect area) {
  std::vector<uint32_t> pixels;
  if (!impl_->display) return pixels;
  const int errors_before = g_x_errors;
  XImage* image = XGetImage(impl_->display, impl_->window, area.x, area.y, unsigned(area.width),
                            unsigned(area.height), AllPlanes, ZPixmap);
  XSync(impl_->display, False);
  if (!image || g_x_errors != errors_before) {
    if (image) XDestroyImage(image);
    return pixels;
  }
  pixels.resize(size_t(area.width) * size_t(area.height));
  for (int y = 0; y < area.height; ++y)
    for (int x = 0; x < area.width; ++x)
      pixels[size_t(y) * size_t(area.width) + size_t(x)] = uint32_t(XGetPixel(image, x, y)) & 0xffffffu;
  XDestroyImage(image);
  return pixels;
}

int FrameWatcher::wait_changes(int changes, double timeout_seconds) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration<double>(timeout_seconds);
  std::vector<uint32_t> last = grab(area_);
  if (last.empty()) return 0;
  int seen = 0;
  while (seen < changes && clock::now() < deadline) {
    // Light polling: the watched area is small, and the app needs the CPU more than we do.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::vector<uint32_t> now = grab(area_);
    if (now.empty()) break;  // the window is gone
    if (now != last) {
      ++seen;
      last.swap(now);
    }
  }
  return seen;
}

}  // namespace tp::test
