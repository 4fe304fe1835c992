#include "util/video_pipe.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "util/process.h"

namespace tp {

namespace {

bool executable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

}  // namespace

size_t video_frame_bytes(const VideoPipeOptions& options) {
  const size_t pixels = size_t(options.width) * size_t(options.height);
  return options.pixel_format == "yuv420p" ? pixels * 3 / 2 : pixels * 4;
}

std::string find_ffmpeg(std::string* error) {
  const char* chosen = std::getenv("TIDEPOOL_FFMPEG");
  if (chosen && *chosen) {
    if (executable(chosen)) return chosen;
    *error = std::string("TIDEPOOL_FFMPEG=") + chosen + " is not an executable program";
    return "";
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    if (executable(dir + "/ffmpeg")) return dir + "/ffmpeg";
    start = end + 1;
  }
  *error = "video needs the ffmpeg program, which is not installed: sudo apt install ffmpeg";
  return "";
}

VideoPipe::~VideoPipe() {
  std::string ignored;
  close(&ignored);
}

bool VideoPipe::open(const VideoPipeOptions& options, std::string* error) {
  if (is_open()) {
    *error = "a video is being written already";
    return false;
  }
  if (options.width <= 0 || options.height <= 0 || options.width % 2 || options.height % 2) {
    *error = "a video's width and height must be even and positive (" + std::to_string(options.width) + "x" +
             std::to_string(options.height) + ")";
    return false;
  }
  if (options.pixel_format != "rgba" && options.pixel_format != "bgra" && options.pixel_format != "yuv420p") {
    *error = "unknown pixel format '" + options.pixel_format + "' for a video";
    return false;
  }
  if (!(options.fps > 0.0 && options.fps <= 240.0)) {
    *error = "a video's frame rate must be between 0 and 240 per second";
    return false;
  }
  const std::string program = find_ffmpeg(error);
  if (program.empty()) return false;
  signal(SIGPIPE, SIG_IGN);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *error = std::string("cannot start the video encoder: ") + std::strerror(errno);
    return false;
  }
  const std::string part = options.path + ".part";
  const std::string size = std::to_string(options.width) + "x" + std::to_string(options.height);
  std::vector<std::string> args = {program, "-hide_banner", "-loglevel", "error", "-y",
                                   "-f", "rawvideo", "-pix_fmt", options.pixel_format, "-s", size,
                                   "-framerate", number(options.fps), "-i", "pipe:0"};
  // RGB frames are converted by ffmpeg, with the matrix the stream is tagged with (its
  // default would be BT.601).
  if (options.pixel_format != "yuv420p")
    args.insert(args.end(), {"-vf", std::string(options.flip_rows ? "vflip," : "") +
                                        "scale=out_color_matrix=bt709:out_range=tv"});
  // zerolatency: no lookahead and no B-frames, so the encoder holds few frames (less memory,
  // a quick end) and needs less CPU. Tagged BT.709, limited range: what the window's
  // frames are, and what players assume of HD video.
  args.insert(args.end(), {"-c:v", "libx264", "-preset", options.preset, "-tune", "zerolatency", "-crf", "20",
                           "-threads", std::to_string(std::max(options.threads, 0)),
                           "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709",
                           "-color_trc", "bt709", "-color_range", "tv", "-movflags", "+faststart", "-f", "mp4", part});
  const pid_t pid = spawn_helper(args, fds[0], options.nice, error);
  ::close(fds[0]);
  if (pid < 0) {
    ::close(fds[1]);
    return false;
  }
  options_ = options;
  pid_ = pid;
  fd_ = fds[1];
  fcntl(fd_, F_SETPIPE_SZ, 1 << 20);  // (fewer switches between the writer and ffmpeg; best effort)
  closing_ = ended_ = failed_ = false;
  failure_.clear();
  written_ = dropped_ = 0;
  queue_.clear();
  try {
    thread_ = std::thread([this] { writer(); });
  } catch (const std::exception& e) {  // (no thread: the encoder is ended here)
    ::close(fd_);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = fd_ = -1;
    *error = std::string("cannot start the video's writer thread: ") + e.what();
    return false;
  }
  return true;
}

bool VideoPipe::push(std::vector<uint8_t>* rgba, int repeat) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!is_open() || closing_ || failed_) return false;
  if (options_.wait_when_full) {
    room_.wait(lock, [this] { return closing_ || failed_ || int(queue_.size()) < std::max(options_.queue_frames, 1); });
    if (closing_ || failed_) return false;
  }
  if (int(queue_.size()) >= std::max(options_.queue_frames, 1)) {
    queue_.back().repeat += repeat < 1 ? 1 : repeat;
    dropped_ += repeat < 1 ? 1 : repeat;
    return false;
  }
  Frame frame;
  frame.rgba.swap(*rgba);
  frame.repeat = repeat < 1 ? 1 : repeat;
  if (!spares_.empty()) {
    rgba->swap(spares_.back());
    spares_.pop_back();
  }
  queue_.push_back(std::move(frame));
  wake_.notify_one();
  return true;
}

bool VideoPipe::write_all(const uint8_t* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= size_t(n);
  }
  return true;
}

void VideoPipe::writer() {
  const size_t frame_bytes = video_frame_bytes(options_);
  for (;;) {
    Frame frame;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) break;  // closing, and all written
      frame = std::move(queue_.front());
      queue_.pop_front();
    }
    room_.notify_one();
    bool ok = frame.rgba.size() == frame_bytes;  // (push's callers give whole frames)
    for (int k = 0; ok && k < frame.repeat; ++k) ok = write_all(frame.rgba.data(), frame_bytes);
    std::lock_guard<std::mutex> lock(mutex_);
    if (ok) written_ += frame.repeat;
    spares_.push_back(std::move(frame.rgba));
    if (!ok && !failed_) {
      failed_ = true;
      failure_ = "the video encoder (ffmpeg) stopped taking frames; see its message above";
      queue_.clear();
      closing_ = true;
      room_.notify_all();
      break;
    }
  }
  // The end: ffmpeg sees the end of its input, encodes what it holds and writes the index.
  ::close(fd_);
  int status = 0;
  pid_t waited;
  do waited = waitpid(pid_, &status, 0);
  while (waited < 0 && errno == EINTR);
  const bool exited_well = waited == pid_ && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  const std::string part = options_.path + ".part";
  std::lock_guard<std::mutex> lock(mutex_);
  if (!failed_ && !exited_well) {
    failed_ = true;
    failure_ = "the video encoder (ffmpeg) failed (" +
               (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                  : "signal " + std::to_string(WTERMSIG(status))) +
               "); see its message above";
  }
  if (!failed_ && std::rename(part.c_str(), options_.path.c_str()) != 0) {
    failed_ = true;
    failure_ = "cannot rename " + part + " to " + options_.path + ": " + std::strerror(errno);
  }
  if (failed_ && access(part.c_str(), F_OK) == 0) failure_ += " (what was written is in " + part + ")";
  // The frames go back to the system now rather than with the pipe: the window keeps its
  // last pipe (for the figures of the video saved), and a queue of 12 frames at 1280x900
  // kept 8 to 26 MB resident after the video was saved.
  queue_.clear();
  std::vector<std::vector<uint8_t>>().swap(spares_);
  ended_ = true;
}

void VideoPipe::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!is_open()) return;
  closing_ = true;
  wake_.notify_one();
  room_.notify_all();
}

bool VideoPipe::finished() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return is_open() && ended_;
}

bool VideoPipe::close(std::string* error) {
  if (!is_open()) return true;
  finish();
  if (thread_.joinable()) thread_.join();
  pid_ = -1;
  fd_ = -1;
  if (failed_) {
    *error = failure_;
    return false;
  }
  return true;
}

size_t VideoPipe::frames_held() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size() + spares_.size();
}

int64_t VideoPipe::frames_written() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return written_;
}

int64_t VideoPipe::frames_dropped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dropped_;
}

}  // namespace tp
