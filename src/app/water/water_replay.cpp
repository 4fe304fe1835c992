#include "app/water/water_replay.h"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/window/panel_files.h"
#include "app/window/panel_style.h"
#include "imgui.h"

namespace tp {

namespace {

constexpr double kMaxFrameSeconds = 0.1;  // of wall time played in one frame (a stall)
constexpr double kBudgetSeconds = 0.05;   // of stepping in one frame: slower, not stuck

std::string file_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

}  // namespace

void WaterReplay::open(std::shared_ptr<const SessionContents> session, const std::string& path, double offline_fps) {
  session_ = std::move(session);
  name_ = file_name(path);
  offline_fps_ = offline_fps;
  player_ = std::make_unique<SessionPlayer>(*session_, offline_fps > 0.0 ? 0 : kSnapshotSteps);
  ever_ = true;
}

void WaterReplay::begin(Simulation& sim) {
  if (!player_) return;
  player_->begin(sim);
  threads_ = player_->report().threads;
  // The steps' sums in the order they were recorded (this thread steps the replay).
  if (threads_ > 0) omp_set_num_threads(std::min(threads_, omp_get_num_procs()));
  if (threads_ > omp_get_num_procs())
    std::fprintf(stderr, "tidepool: the session was recorded on %d step threads and this machine has %d core%s: "
                 "the replay may depart from it\n", threads_, omp_get_num_procs(), omp_get_num_procs() == 1 ? "" : "s");
  t0_ = sim.simulated_time();
  steps_before_ = sim.stats().steps;
  std::fprintf(stderr, "tidepool: replaying %s (scene %s, %llu steps, %d step thread%s)%s\n", name_.c_str(),
               player_->report().scene.empty() ? "unnamed" : player_->report().scene.c_str(),
               static_cast<unsigned long long>(player_->total_steps()), threads_, threads_ == 1 ? "" : "s",
               offline() ? ", rendering it offline" : "");
  offline_start_ = last_progress_ = std::chrono::steady_clock::now();
}

void WaterReplay::play(Simulation& sim, double frame_seconds, WindowControls& controls) {
  if (!player_) return;
  if (offline()) {
    // Frame k shows the first state at or after t0 + k / fps.
    ++frame_;
    const double target = t0_ + double(frame_) / offline_fps_;
    if (sim.simulated_time() < target)
      player_->advance(sim, UINT64_MAX, false, [&](Simulation& s) { return s.simulated_time() < target; });
    done_ = player_->finished();
    progress(sim, done_);
    return;
  }
  if (seek_to_ >= 0) {
    const auto t = std::chrono::steady_clock::now();
    player_->seek(sim, uint64_t(seek_to_));
    std::fprintf(stderr, "tidepool: replay: seeked to step %llu (t = %.3f s) in %.0f ms\n",
                 static_cast<unsigned long long>(player_->step()), sim.simulated_time(),
                 1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
    seek_to_ = -1;
    at_end_said_ = false;
    return;
  }
  if (controls.paused) {
    if (take_request(controls.step_requested)) player_->advance(sim, 1);
    return;
  }
  if (player_->finished()) {
    controls.paused = true;  // at the end: paused there (R or the slider go back)
    if (!at_end_said_)
      std::fprintf(stderr, "tidepool: replay: the end of the session at step %llu (t = %.3f s): %s\n",
                   static_cast<unsigned long long>(player_->step()), sim.simulated_time(),
                   replay_departed(player_->report()) ? "it departed from the recording"
                   : player_->report().tolerant && player_->report().checks == 0
                       ? "not judged (the session has no checks)"
                   : player_->report().tolerant ? "within the device comparison's tolerance at every check"
                                                   : "every hash matched");
    at_end_said_ = true;
    return;
  }
  const double target = sim.simulated_time() + std::min(frame_seconds, kMaxFrameSeconds) * speed_;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(kBudgetSeconds);
  player_->advance(sim, UINT64_MAX, false, [&](Simulation& s) {
    return s.simulated_time() < target && std::chrono::steady_clock::now() < deadline;
  });
}

void WaterReplay::request_seek(uint64_t step) { seek_to_ = int64_t(step); }

void WaterReplay::progress(Simulation& sim, bool last) {
  const auto now = std::chrono::steady_clock::now();
  const bool tty = isatty(STDERR_FILENO);
  if (!last && now - last_progress_ < std::chrono::milliseconds(tty ? 250 : 5000)) return;
  last_progress_ = now;
  const double step_share =
      player_->total_steps() ? double(player_->step()) / double(player_->total_steps()) : 1.0;
  const double wall = std::chrono::duration<double>(now - offline_start_).count();
  const double span = sim.simulated_time() - t0_;
  // The whole span as the End record gives it, and the share done by simulated time (the
  // frames' clock); else (a session cut short) the share by steps and the span
  // extrapolated from it, marked "~" (steps are not all as long: a session whose steps
  // shortened as the water sped up read 49 % by steps at 27 % of its time).
  // (A reset recorded in the session sets the clock back: then the span is not the End's.)
  const double end_span = player_->end_time() - t0_;
  const bool known = end_span > 0.0 && span <= end_span + 1e-9;
  const double total = known ? end_span : step_share > 0.0 ? span / step_share : 0.0;
  const double share = known ? std::clamp(span / total, 0.0, 1.0) : step_share;
  constexpr int kBar = 30;
  const int filled = std::clamp(int(share * kBar + 0.5), 0, kBar);
  // Rounded down, and 100 only at the end: step 262 of 263 is 99 % (rounded, it read
  // "100 %" in a line before the last one, which a reader of the output took for the end).
  const double percent = last ? 100.0 : std::min(std::floor(100.0 * share), 99.0);
  std::fprintf(stderr, "%stidepool: rendering [%s%s] %3.0f %%  frame %ld, t = %.2f of %s%.2f s, %.1f frames/s%s",
               tty ? "\r" : "", std::string(size_t(filled), '#').c_str(), std::string(size_t(kBar - filled), '-').c_str(),
               percent, frame_ + 1, span, known ? "" : "~", total, wall > 0.0 ? double(frame_ + 1) / wall : 0.0,
               tty && !last ? "" : "\n");
}

double WaterReplay::video_clock() const {
  if (!offline()) return -1.0;
  // The video starts at 0 (before the first frame); frame k is drawn half a tick past its
  // tick k / fps, so that rounding never makes the video skip or repeat one.
  return frame_ < 0 ? 0.0 : (double(frame_) + 0.5) / offline_fps_;
}

void WaterReplay::draw_bar(WindowControls& controls, float panel_width) {
  if (!player_ || offline()) return;
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const float margin = 10.0f, width = std::max(display.x - panel_width - 2.0f * margin, 320.0f);
  // Above the help line (two lines of text at the window's foot).
  const float above = controls.panel_hidden ? margin : 3.0f * ImGui::GetTextLineHeightWithSpacing() + margin;
  ImGui::SetNextWindowPos(ImVec2(display.x - margin - width, display.y - above), ImGuiCond_Always, ImVec2(0.0f, 1.0f));
  ImGui::SetNextWindowSize(ImVec2(width, 0.0f), ImGuiCond_Always);
  ImGui::SetNextWindowBgAlpha(0.85f);
  ImGui::Begin("Replay", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                   ImGuiWindowFlags_NoSavedSettings);
  WidgetLog& log = controls.widgets;
  if (ImGui::Button(controls.paused ? "Play" : "Pause", ImVec2(70.0f, 0.0f))) {
    controls.paused = !controls.paused;
    if (!controls.paused && player_->finished()) seek_to_ = 0;  // played to the end: again
  }
  note_widget(log, "replay play");
  tooltip("Space");
  ImGui::SameLine();
  if (ImGui::Button("Step")) {
    controls.paused = true;
    controls.step_requested = true;
  }
  note_widget(log, "replay step");
  tooltip("One step of the simulation (S)");
  ImGui::SameLine();
  if (ImGui::Button("Restart")) seek_to_ = 0;
  note_widget(log, "replay restart");
  tooltip("Back to the session's start (R)");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90.0f);
  const double speeds[] = {0.25, 0.5, 1.0, 2.0, 4.0};
  const char* speed_names[] = {"0.25x", "0.5x", "1x", "2x", "4x"};
  int chosen = 2;
  for (int k = 0; k < 5; ++k)
    if (speeds[k] == speed_) chosen = k;
  if (ImGui::Combo("speed", &chosen, speed_names, 5)) speed_ = speeds[chosen];
  tooltip("Simulated seconds per second of wall time, as far as the machine keeps up");
  ImGui::SameLine();
  if (ImGui::Button("Continue from here")) take_over_ = true;
  note_widget(log, "replay continue");
  tooltip("End the replay and play on live from this state: the mouse, the drags and the panel act "
          "again, and F8 records a new session from here");

  ImGui::SameLine();
  if (ImGui::Checkbox("Recorded view", &follow_view_) && follow_view_) view_taken_ = 0;  // (at once)
  note_widget(log, "replay view");
  tooltip("Follow the camera, render mode and colour mode as they were recorded (each change as the replay "
          "meets it; orbit freely in between). Sessions from before 2026-11-30 have none.");

  const uint64_t zero = 0, total = player_->total_steps();
  if (!slider_held_) slider_ = player_->step();
  ImGui::SetNextItemWidth(-1.0f);
  ImGui::SliderScalar("##replay time", ImGuiDataType_U64, &slider_, &zero, &total, "step %llu");
  slider_held_ = ImGui::IsItemActive();
  if (ImGui::IsItemDeactivatedAfterEdit()) seek_to_ = int64_t(slider_);
  note_widget(log, "replay slider");
  tooltip("Drag to seek: the replay goes back to the nearest snapshot (every 120 steps) and plays forward "
          "to the step; Ctrl + click to type one");

  const ReplayReport& r = player_->report();
  char line[256];
  std::snprintf(line, sizeof line, "%s: step %s of %s, t = %.3f s", name_.c_str(), with_thousands(player_->step()).c_str(),
                with_thousands(total).c_str(), last_time_);
  ImGui::TextUnformatted(line);
  ImGui::SameLine();
  if (r.tolerant && r.checks == 0) {  // (a session from before the checks)
    std::snprintf(line, sizeof line, "on %s: not judged (the session has no checks)", r.backend.c_str());
    colored_text(kNoteColor, line);
  } else if (r.tolerant) {  // (another backend than the CPU: judged by the checks, not the hashes)
    if (r.checks_outside > 0)
      std::snprintf(line, sizeof line, "on %s: left the tolerance at step %llu (%s)", r.backend.c_str(),
                    static_cast<unsigned long long>(r.first_outside_step), r.first_outside.c_str());
    else
      std::snprintf(line, sizeof line, "on %s: %d of %d checks within tolerance", r.backend.c_str(), r.checks, r.checks);
    colored_text(r.checks_outside > 0 ? kErrorColor : kDoneColor, line);
    tooltip("On CUDA the sums round otherwise than on the CPU, so the replay is not exact: it is compared with "
            "the statistics recorded every 30 steps (kinetic energy within 25 %, mean density error within "
            "1 point, bodies within a particle spacing). docs/recording.md.");
  } else if (r.mismatches > 0) {
    std::snprintf(line, sizeof line, "departs from the recording at step %llu (%d of %d hashes differ)",
                  static_cast<unsigned long long>(r.first_mismatch_step), r.mismatches, r.hashes);
    colored_text(kErrorColor, line);
  } else {
    std::snprintf(line, sizeof line, "%d of %d hashes match", r.hashes, r.hashes);
    colored_text(kDoneColor, line);
  }
  // (A line always, so that the bar keeps its height and its buttons their places.)
  if (player_->finished())
    colored_text(kNoteColor, "The end of the session" + std::string(r.cut.empty() ? "" : " (" + r.cut + ")") + ".");
  else
    ImGui::TextUnformatted(" ");
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  ImGui::TextWrapped("Replaying: the mouse, the drags and the panel's edits are off until Continue from here.");
  ImGui::PopStyleColor();
  ImGui::End();
}

bool WaterReplay::take_view(SessionView* view) {
  if (!player_ || player_->view_serial() == view_taken_) return false;
  view_taken_ = player_->view_serial();
  return (follow_view_ || offline()) && player_->view(view);
}

bool WaterReplay::stop(Simulation& sim) {
  if (!player_) return false;
  const bool held = player_->let_go(sim);
  last_report_ = player_->report();
  player_.reset();
  return held;
}

int WaterReplay::finish_line(double simulated_time) const {
  if (!ever_) return 0;
  const ReplayReport& r = player_ ? player_->report() : last_report_;
  std::fprintf(stderr, "tidepool: %s\n", replay_summary(r, simulated_time).c_str());
  return replay_departed(r) ? 1 : 0;
}

}  // namespace tp
