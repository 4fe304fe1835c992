#include "util/gif_export.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>

#include "util/process.h"
#include "util/video_pipe.h"

namespace tp {

namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

}  // namespace

std::vector<std::string> gif_command(const std::string& ffmpeg, const GifOptions& options) {
  const std::string graph = "fps=" + number(options.fps) + ",scale=" + std::to_string(options.width) +
                            ":-2:flags=lanczos,split[a][b];[a]palettegen=stats_mode=diff[p];"
                            "[b][p]paletteuse=dither=bayer:bayer_scale=3:diff_mode=rectangle";
  // ("file:": a name with a colon in it is not taken for a protocol.)
  return {ffmpeg, "-hide_banner", "-loglevel", "error", "-y", "-sseof", "-" + number(options.seconds),
          "-i",   "file:" + options.video, "-filter_complex", graph, "-loop", "0", "-f", "gif",
          "file:" + options.path + ".part"};
}

GifExport::~GifExport() {
  bool ok = false;
  std::string ignored;
  poll(true, &ok, &ignored);
}

bool GifExport::start(const GifOptions& options, std::string* error) {
  if (busy()) {
    *error = "a GIF is being made already";
    return false;
  }
  if (!(options.seconds > 0.0 && options.seconds <= 60.0) || options.width < 16 || options.width > 4096 ||
      !(options.fps > 0.0 && options.fps <= 50.0)) {
    *error = "a GIF takes 0 to 60 s, 16 to 4096 pixels wide, 0 to 50 frames a second";
    return false;
  }
  struct stat st {};
  if (stat(options.video.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    *error = "no video " + options.video + " to make a GIF of";
    return false;
  }
  const std::string program = find_ffmpeg(error);
  if (program.empty()) return false;
  const pid_t pid = spawn_helper(gif_command(program, options), -1, 10, error);
  if (pid < 0) return false;
  options_ = options;
  pid_ = pid;
  return true;
}

bool GifExport::poll(bool wait, bool* ok, std::string* error) {
  if (pid_ <= 0) return false;
  int status = 0;
  pid_t waited;
  // Waiting: a minute at most (a 5 s clip takes seconds), then it is stopped.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    waited = waitpid(pid_, &status, WNOHANG);
    if (waited < 0 && errno == EINTR) continue;
    if (waited != 0 || !wait) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      do waited = waitpid(pid_, &status, 0);
      while (waited < 0 && errno == EINTR);
      break;
    }
    usleep(20000);
  }
  if (waited == 0) return false;  // at work
  pid_ = -1;
  const std::string part = options_.path + ".part";
  *ok = waited > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!*ok) {
    *error = "ffmpeg could not make the GIF (" +
             (waited > 0 && WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status)) : "it was stopped") +
             "; its words are on the terminal)";
    std::remove(part.c_str());
    return true;
  }
  if (std::rename(part.c_str(), options_.path.c_str()) != 0) {
    *ok = false;
    *error = "cannot rename " + part + " to " + options_.path;
  }
  return true;
}

}  // namespace tp
