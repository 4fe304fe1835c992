#include "app/water/water_recording.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "util/paths.h"

namespace tp {

void WaterRecording::start(Simulation& sim, FileControls& files, const MeshSettings& mesh) {
  std::string dir = files.record_dir;
  if (files.record_dir_automatic) {
    // A fresh timestamped name, with -2, -3, ... when that one already holds frames.
    const std::string base = default_export_dir(std::time(nullptr));
    dir = base;
    const RecordKind kind = RecordKind(files.record_kind);
    for (int copy = 2; holds_frames(dir, kind); ++copy) dir = base + "-" + std::to_string(copy);
    files.record_dir = dir;
  }
  std::string error;
  const RecordKind kind = RecordKind(std::clamp(files.record_kind, 0, 2));
  if (!recorder_.start(dir, files.record_fps, true, &error, kind, mesh)) {
    files.record_status = "Not recording: " + error;
    files.record_failed = true;
    std::fprintf(stderr, "tidepool: not recording: %s\n", error.c_str());
    return;
  }
  files.recording = true;
  files.record_failed = false;
  debt_ = 0.0;
  std::fprintf(stderr, "tidepool: recording %s into %s (%g per simulated second)\n",
               kind == RecordKind::Points ? "PLY frames" : "mesh frames", full_path(dir).c_str(),
               double(files.record_fps));
  record_if_due(sim, files);  // the state as it is now is the first frame
}

void WaterRecording::stop(FileControls& files, const std::string& why) {
  if (!recorder_.active()) return;
  recorder_.stop();
  files.recording = false;
  files.record_status = "Recorded " + recording_summary(recorder_) + " in " + recorder_.dir() +
                        (why.empty() ? "" : " (stopped: " + why + ")");
  std::fprintf(stderr, "tidepool: recorded %s in %s%s\n", recording_summary(recorder_).c_str(),
               full_path(recorder_.dir()).c_str(),
               why.empty() ? "" : (" (stopped: " + why + ")").c_str());
}

void WaterRecording::record_if_due(Simulation& sim, FileControls& files) {
  if (!recorder_.due(sim.stats().simulated_time)) return;
  std::string error;
  if (recorder_.record(sim, &error)) {
    files.record_status = "recording: " + recording_summary(recorder_);
    return;
  }
  // A full disk or a directory that went away: stop, say why, carry on simulating.
  files.recording = false;
  files.record_failed = true;
  files.record_status = "Recording stopped after " + recording_summary(recorder_) + ": " + error;
  std::fprintf(stderr, "tidepool: recording stopped: %s\n", error.c_str());
}

void WaterRecording::step_once(Simulation& sim, FileControls& files) {
  sim.step();
  if (recorder_.active()) record_if_due(sim, files);
}

void WaterRecording::advance(Simulation& sim, FileControls& files, double seconds, double budget_ms) {
  const auto start = std::chrono::steady_clock::now();
  debt_ += seconds;
  while (debt_ > 0.0 && recorder_.active()) {
    const double before = sim.stats().simulated_time;
    step_once(sim, files);
    debt_ -= sim.stats().simulated_time - before;
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (budget_ms > 0.0 && ms >= budget_ms) {
      debt_ = 0.0;  // slow motion rather than a spiral
      break;
    }
  }
  if (!recorder_.active()) debt_ = 0.0;
}

std::string WaterRecording::closing_words() const {
  if (recorder_.frames() == 0) return "";
  return "; " + std::to_string(recorder_.frames()) + " complete frames in " + full_path(recorder_.dir());
}

}  // namespace tp
