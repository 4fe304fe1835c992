#include "app/frame_recorder.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sim/io.h"

namespace tp {

std::string frame_file_name(const std::string& dir, int frame) {
  char name[32];
  std::snprintf(name, sizeof(name), "frame_%05d.ply", frame);
  return (dir.empty() || dir.back() == '/' ? dir : dir + "/") + name;
}

bool make_directories(const std::string& dir, std::string* error) {
  if (dir.empty()) {
    *error = "no directory given";
    return false;
  }
  std::string path;
  for (size_t i = 0; i <= dir.size(); ++i) {
    if ((i == dir.size() || dir[i] == '/') && !path.empty() &&
        mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
      *error = "cannot create directory '" + path + "': " + std::strerror(errno);
      return false;
    }
    if (i < dir.size()) path += dir[i];
  }
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *error = "'" + dir + "' is not a directory";
    return false;
  }
  return true;
}

bool holds_frames(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return false;
  bool found = false;
  while (dirent* e = readdir(d)) {
    const std::string f = e->d_name;
    if (f.rfind("frame_", 0) == 0 && f.size() > 10 && f.compare(f.size() - 4, 4, ".ply") == 0) {
      found = true;
      break;
    }
  }
  closedir(d);
  return found;
}

std::string default_export_dir(std::time_t now) {
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  if (std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &local) == 0) stamp[0] = '\0';
  return std::string("tidepool-export-") + stamp;
}

bool FrameRecorder::start(const std::string& dir, double fps, bool fresh_only, std::string* error) {
  active_ = false;
  if (!(fps > 0.0)) {
    *error = "the frame rate must be above 0 frames per second";
    return false;
  }
  if (!make_directories(dir, error)) return false;
  // A directory that exists but cannot be written is refused now, not at the first frame.
  if (!check_writable(frame_file_name(dir, 0), error)) return false;
  if (fresh_only && holds_frames(dir)) {
    *error = "'" + dir + "' already holds frame_*.ply files; choose another directory or empty it";
    return false;
  }
  dir_ = dir;
  fps_ = fps;
  next_time_ = -1e300;  // the first frame is due at once, whatever the simulated time
  frames_ = skipped_ = 0;
  bytes_ = 0;
  first_time_ = last_time_ = 0.0;
  active_ = true;
  return true;
}

bool FrameRecorder::record(Simulation& sim, std::string* error) {
  const double t = sim.simulated_time();
  if (!due(t)) return true;
  const std::string path = frame_file_name(dir_, frames_);
  if (!write_ply(path, sim.snapshot(), error, t)) {
    active_ = false;
    return false;
  }
  struct stat st;
  if (stat(path.c_str(), &st) == 0) bytes_ += uint64_t(st.st_size);
  if (frames_ == 0) {
    first_time_ = t;
    next_time_ = t;
  }
  last_time_ = t;
  ++frames_;
  // One frame per step at most: when a step is longer than a frame interval, the frame
  // times it spans are not invented.
  next_time_ += 1.0 / fps_;
  while (next_time_ <= t) {
    next_time_ += 1.0 / fps_;
    ++skipped_;
  }
  return true;
}

std::string recording_summary(const FrameRecorder& recorder) {
  char text[96];
  std::snprintf(text, sizeof(text), "%d frame%s, %.1f MB", recorder.frames(),
                recorder.frames() == 1 ? "" : "s", double(recorder.bytes()) / 1e6);
  return text;
}

}  // namespace tp
