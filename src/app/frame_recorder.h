// PLY frames at a fixed rate of simulated time: --export DIR headless, and the panel's
// Record toggle. Files are DIR/frame_00000.ply, frame_00001.ply, ... (ParaView opens the
// numbered group as one time series), each written atomically by write_ply.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>

#include "sim/simulation.h"

namespace tp {

// "DIR/frame_00042.ply".
std::string frame_file_name(const std::string& dir, int frame);

// Creates `dir` and any missing parents. Returns false and a sentence on failure (including
// when `dir` exists and is not a directory).
bool make_directories(const std::string& dir, std::string* error);

// Whether `dir` already holds frame_*.ply files (a recording there would mix two runs).
bool holds_frames(const std::string& dir);

// "tidepool-export-20261122-103015" for that local time: the panel's default directory.
std::string default_export_dir(std::time_t now);

class FrameRecorder {
 public:
  // Begins a recording into `dir` (created if missing) at `fps` frames per simulated
  // second, the first frame due at once. With `fresh_only`, a directory that already holds
  // frames is refused. Returns false and a sentence on failure (nothing is recording then).
  bool start(const std::string& dir, double fps, bool fresh_only, std::string* error);
  void stop() { active_ = false; }

  bool active() const { return active_; }
  // Whether a frame is due at simulated time `t` [s].
  bool due(double t) const { return active_ && t >= next_time_; }
  // Writes the simulation's particles as the next frame if one is due; frame times that
  // fell inside the last step are skipped, not invented (each file records its own time).
  // On a write error the recording stops and the sentence goes to *error; returns false.
  bool record(Simulation& sim, std::string* error);

  const std::string& dir() const { return dir_; }
  double fps() const { return fps_; }
  int frames() const { return frames_; }
  uint64_t bytes() const { return bytes_; }         ///< written so far
  int skipped() const { return skipped_; }          ///< frame times inside a step
  double first_time() const { return first_time_; }  ///< [s] simulated time of frame 0
  double last_time() const { return last_time_; }   ///< [s] of the latest frame

 private:
  bool active_ = false;
  std::string dir_;
  double fps_ = 30.0;
  double next_time_ = 0.0;
  int frames_ = 0;
  uint64_t bytes_ = 0;
  int skipped_ = 0;
  double first_time_ = 0.0, last_time_ = 0.0;
};

// "12 frames, 3.4 MB": the recording so far.
std::string recording_summary(const FrameRecorder& recorder);

}  // namespace tp
