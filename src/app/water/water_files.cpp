// The panel's Files section, carried out between frames: PLY recording, presets and
// state files (the rest of WaterMode is in water_mode.cpp).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

#include "app/water/water_mode.h"
#include "sim/scene/preset.h"
#include "sim/water/memory_need.h"
#include "util/paths.h"

namespace tp {

namespace {

std::string format_seconds(double t) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f s", t);
  return text;
}

}  // namespace

void WaterMode::toggle_recording() {
  FileControls& files = controls_.files;
  if (recorder_.active()) {
    stop_recording("");
    return;
  }
  std::string dir = files.record_dir;
  if (files.record_dir_automatic) {
    // A fresh timestamped name, with -2, -3, ... when that one already holds frames.
    const std::string base = default_export_dir(std::time(nullptr));
    dir = base;
    const RecordKind kind = RecordKind(files.record_kind);
    for (int copy = 2; holds_frames(dir, kind); ++copy) dir = base + "-" + std::to_string(copy);
    files.record_dir = dir;
  }
  runner_.stop();  // a recording steps on this thread (update_threading)
  std::string error;
  const RecordKind kind = RecordKind(std::clamp(files.record_kind, 0, 2));
  if (!recorder_.start(dir, files.record_fps, true, &error, kind, controls_.mesh)) {
    files.record_status = "Not recording: " + error;
    files.record_failed = true;
    std::fprintf(stderr, "tidepool: not recording: %s\n", error.c_str());
    return;
  }
  files.recording = true;
  files.record_failed = false;
  record_debt_ = 0.0;
  std::fprintf(stderr, "tidepool: recording %s into %s (%g per simulated second)\n",
               kind == RecordKind::Points ? "PLY frames" : "mesh frames", full_path(dir).c_str(),
               double(files.record_fps));
  record_frame_if_due();  // the state as it is now is the first frame
}

void WaterMode::stop_recording(const std::string& why) {
  if (!recorder_.active()) return;
  recorder_.stop();
  FileControls& files = controls_.files;
  files.recording = false;
  files.record_status = "Recorded " + recording_summary(recorder_) + " in " + recorder_.dir() +
                        (why.empty() ? "" : " (stopped: " + why + ")");
  std::fprintf(stderr, "tidepool: recorded %s in %s%s\n", recording_summary(recorder_).c_str(),
               full_path(recorder_.dir()).c_str(),
               why.empty() ? "" : (" (stopped: " + why + ")").c_str());
}

void WaterMode::record_frame_if_due() {
  if (!recorder_.due(setup_.sim->stats().simulated_time)) return;
  std::string error;
  if (recorder_.record(*setup_.sim, &error)) {
    controls_.files.record_status = "recording: " + recording_summary(recorder_);
    return;
  }
  // A full disk or a directory that went away: stop, say why, carry on simulating.
  FileControls& files = controls_.files;
  files.recording = false;
  files.record_failed = true;
  files.record_status = "Recording stopped after " + recording_summary(recorder_) + ": " + error;
  std::fprintf(stderr, "tidepool: recording stopped: %s\n", error.c_str());
}

void WaterMode::step_once() {
  setup_.sim->step();
  if (recorder_.active()) record_frame_if_due();
}

void WaterMode::advance_recording(double seconds, double budget_ms) {
  // As Simulation::advance does it, with a look at the recording after every step.
  const auto start = std::chrono::steady_clock::now();
  record_debt_ += seconds;
  while (record_debt_ > 0.0 && recorder_.active()) {
    const double before = setup_.sim->stats().simulated_time;
    step_once();
    record_debt_ -= setup_.sim->stats().simulated_time - before;
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (budget_ms > 0.0 && ms >= budget_ms) {
      record_debt_ = 0.0;  // slow motion rather than a spiral
      break;
    }
  }
  if (!recorder_.active()) record_debt_ = 0.0;
}

void WaterMode::save_preset() {
  FileControls& files = controls_.files;
  std::string error;
  files.preset_failed = files.preset_path.empty() ||
                        !save_preset_file(files.preset_path, params_, &error);
  if (files.preset_path.empty()) error = "type a file name for the preset first";
  files.preset_note = files.preset_failed ? "Preset not saved: " + error
                                          : "Saved the parameters to " + files.preset_path;
  if (files.preset_failed)
    std::fprintf(stderr, "tidepool: preset not saved: %s\n", error.c_str());
  else
    std::fprintf(stderr, "tidepool: saved preset %s\n", full_path(files.preset_path).c_str());
}

void WaterMode::load_preset() {
  FileControls& files = controls_.files;
  try {
    const Preset preset = load_preset_file(files.preset_path);
    SimParams& params = params_;
    const int previous_cap = params.diffuse_cap;
    apply_preset(preset, params);  // all or nothing
    quality_solver_ = params.solver;  // the file's values stand, whatever its solver
    files.preset_failed = false;
    files.preset_note = "Loaded " + std::to_string(preset.params.size()) + " parameters from " +
                        files.preset_path;
    controls_.param_notes.clear();
    const std::string note =
        keep_diffuse_cap_in_memory(params, previous_cap, backend_kind_);
    if (!note.empty()) controls_.param_notes.push_back(note);
    std::fprintf(stderr, "tidepool: loaded preset %s\n", full_path(files.preset_path).c_str());
  } catch (const PresetError& e) {
    files.preset_failed = true;
    files.preset_note = e.what();
    std::fprintf(stderr, "tidepool: %s\n", e.what());
  }
}

void WaterMode::save_state() {
  FileControls& files = controls_.files;
  std::string error;
  if (files.state_path.empty()) error = "type a file name for the state first";
  double saved_time = 0.0;
  if (error.empty())
    with_sim([&](Simulation& sim) {
      if (tp::save_state(setup_, files.state_path, &error)) saved_time = sim.simulated_time();
    });
  files.state_failed = !error.empty();
  files.state_note = files.state_failed
                         ? "State not saved: " + error
                         : "Saved the simulation at t = " + format_seconds(saved_time) + " to " +
                               files.state_path;
  if (files.state_failed)
    std::fprintf(stderr, "tidepool: state not saved: %s\n", error.c_str());
  else
    std::fprintf(stderr, "tidepool: saved state %s\n", full_path(files.state_path).c_str());
}

void WaterMode::load_state() {
  FileControls& files = controls_.files;
  double loaded_time = 0.0;
  try {
    with_sim([&](Simulation& sim) {
      tp::load_state(setup_, files.state_path);
      after_new_particles(sim);
      loaded_time = sim.simulated_time();
    });
  } catch (const SetupError& e) {
    // The running simulation is untouched.
    files.state_failed = true;
    files.state_note = e.what();
    std::fprintf(stderr, "tidepool: %s\n", e.what());
    return;
  }
  files.state_failed = false;
  files.state_note = "Loaded " + files.state_path + ": t = " + format_seconds(loaded_time) +
                     ", " + std::to_string(last_reset_count_) + " particles";
  stop_recording("a state was loaded");
  quality_solver_ = params_.solver;  // the saved run's parameters stand
  reset_camera();
  controls_.param_notes.clear();
  std::fprintf(stderr, "tidepool: loaded state %s (t = %.3f s, %d particles)\n",
               full_path(files.state_path).c_str(), loaded_time, last_reset_count_);
}

}  // namespace tp
