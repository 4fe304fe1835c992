// The panel's requests, carried out between frames: reset, scene, the Record toggle
// (water_recording.h), presets and state files (the rest of WaterMode is in water_mode.cpp).
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>

#include "app/water/water_mode.h"
#include "app/window/screenshot_file.h"
#include "sim/scene/preset.h"
#include "sim/water/memory_need.h"
#include "util/paths.h"

namespace tp {

// The requests the panel and the keys left (WindowMode::apply_requests): here, beside the
// files' work that most of them ask for.
void WaterMode::apply_requests() {
  FileControls& files = controls_.files;
  if (replay_.active()) {
    if (replay_.take_over_requested()) take_over("Continue from here");
    // R goes back to the session's start; what would load another simulation (a scene, a
    // state, a preset) ends the replay first.
    if (take_request(controls_.reset_requested)) replay_.request_seek(0);
    if (!files.scene_request.empty() || files.state_load_requested || files.preset_load_requested)
      take_over("a load from the panel");
  }
  if (take_request(controls_.reset_requested)) reset();
  if (const std::string scene = take_request(files.scene_request); !scene.empty()) load_scene(scene);
  if (take_request(files.record_toggle_requested)) {
    if (recording_.active()) {
      recording_.stop(files, "");
    } else {
      runner_.stop();  // a recording steps on this thread (update_threading)
      recording_.start(*setup_.sim, files, controls_.mesh);
    }
  }
  if (take_request(files.session_toggle_requested)) toggle_session();
  if (session_.recording()) {
    files.session_status = "Recording " + session_.path().substr(session_.path().rfind('/') + 1) + ": " +
                           std::to_string(session_.steps()) + " steps";
    if (session_.failed()) {
      files.session_status = "Session stopped: " + session_.error();
      files.session_failed = true;
      session_.stop(runner_);
      files.session_recording = false;
    }
  }
  if (take_request(files.preset_save_requested)) save_preset();
  if (take_request(files.preset_load_requested)) load_preset();
  if (take_request(files.state_save_requested)) save_state();
  if (take_request(files.state_load_requested)) load_state();
}

// F8 and the panel's Record session: a .tpsession named after the time in the working
// directory, beside the screenshots and videos (sim/session/session_recorder.h).
void WaterMode::toggle_session() {
  FileControls& files = controls_.files;
  if (session_.recording()) {
    const std::string path = session_.path();
    session_.stop(runner_);
    files.session_recording = false;
    char figures[96];
    std::snprintf(figures, sizeof figures, "%llu steps, %.1f MB", static_cast<unsigned long long>(session_.steps()),
                  double(session_.bytes()) / 1e6);
    std::fprintf(stderr, "tidepool: saved session %s (%s); replay it with tidepool --replay %s\n", path.c_str(),
                 figures, path.c_str());
    files.session_status = "Saved " + path.substr(path.rfind('/') + 1) + " (" + figures + ")";
    files.session_failed = false;
    return;
  }
  const std::string path = free_screenshot_path(full_path("."), std::time(nullptr), ".tpsession");
  std::string error;
  if (!session_.start(runner_, path, scene_label(setup_.scene, files), &error)) {
    std::fprintf(stderr, "tidepool: no session: %s\n", error.c_str());
    files.session_status = "No session: " + error;
    files.session_failed = true;
    return;
  }
  std::fprintf(stderr, "tidepool: recording session %s\n", path.c_str());
  files.session_recording = true;
  files.session_failed = false;
}

namespace {

std::string format_seconds(double t) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f s", t);
  return text;
}

}  // namespace

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
  recording_.stop(files, "a state was loaded");
  quality_solver_ = params_.solver;  // the saved run's parameters stand
  reset_camera();
  controls_.param_notes.clear();
  std::fprintf(stderr, "tidepool: loaded state %s (t = %.3f s, %d particles)\n",
               full_path(files.state_path).c_str(), loaded_time, last_reset_count_);
}

}  // namespace tp
