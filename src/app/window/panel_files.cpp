#include "app/window/panel_files.h"

#include <algorithm>
#include <cstdio>

#include "app/window/panel_style.h"
#include "sim/scene/scene.h"
#include "imgui.h"
#include "imgui_stdlib.h"

namespace tp {

std::string scene_label(const Scene& scene, const FileControls& files) {
  const std::string& source = scene.source;
  for (const std::string& name : files.scene_names)
    if (source == files.scene_dir + "/" + name + ".json") return name;
  const size_t slash = source.rfind('/');
  return slash == std::string::npos ? source : source.substr(slash + 1);
}

void note_widget(WidgetLog& log, const std::string& name) {
  // A window's first frame lays it out before it is placed (a list that opens): not yet.
  if (!log.enabled || ImGui::IsWindowAppearing()) return;
  const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
  const ImVec2 centre((lo.x + hi.x) * 0.5f, (lo.y + hi.y) * 0.5f);
  const bool clipped = !ImGui::IsRectVisible(centre, ImVec2(centre.x + 1.0f, centre.y + 1.0f));
  log.rects[name] = WidgetRect{int(lo.x), int(lo.y), int(hi.x - lo.x), int(hi.y - lo.y), clipped};
}

void note_window(WidgetLog& log, const std::string& name) {
  if (!log.enabled || ImGui::IsWindowAppearing()) return;
  const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  log.rects[name] = WidgetRect{int(pos.x), int(pos.y), int(size.x), int(size.y), false};
}

void print_widget_changes(WidgetLog& log) {
  if (!log.enabled) return;
  for (const auto& [name, rect] : log.rects) {
    const auto printed = log.printed.find(name);
    if (printed != log.printed.end() && printed->second == rect) continue;
    // Not until it stands where it stood the frame before: a list that opened at 818x649
    // was drawn below its combo one frame and above it the next, and the monkey's click on
    // the first place closed it (four scene switches in two minutes missed so).
    const auto before = log.before.find(name);
    if (before == log.before.end() || !(before->second == rect)) continue;
    std::fprintf(stderr, "tidepool: widget '%s' %d %d %d %d%s\n", name.c_str(), rect.x, rect.y,
                 rect.width, rect.height, rect.clipped ? " clipped" : "");
    log.printed[name] = rect;
  }
  // What was drawn before and not in this frame (the panel hidden, a section closed, a
  // list shut): "gone", so that a test does not click where it was.
  for (auto it = log.printed.begin(); it != log.printed.end();) {
    if (log.rects.count(it->first)) {
      ++it;
      continue;
    }
    std::fprintf(stderr, "tidepool: widget '%s' gone\n", it->first.c_str());
    it = log.printed.erase(it);
  }
  log.before.swap(log.rects);
  log.rects.clear();
}

void scene_rows(const Scene& scene, FileControls& files, WidgetLog& log) {
  const std::string current = scene_label(scene, files);
  // Tall enough for every shipped scene without scrolling (water and gas: a dozen).
  const bool open = ImGui::BeginCombo("Scene", current.c_str(), ImGuiComboFlags_HeightLarge);
  if (!open) {
    // While the list is open, the last item is the list's window, not the combo.
    note_widget(log, "scene");
    tooltip(scene.description.empty() ? nullptr : scene.description.c_str());
  }
  if (open) {
    note_window(log, "scene list");  // (the open list is the current window: where to scroll it)
    for (const std::string& name : files.scene_names) {
      const bool gas = std::find(files.gas_scene_names.begin(), files.gas_scene_names.end(), name) !=
                       files.gas_scene_names.end();
      const std::string label = gas ? name + "  (gas)##" + name : name;
      if (ImGui::Selectable(label.c_str(), name == current)) files.scene_request = name;
      note_widget(log, "scene:" + name);
    }
    ImGui::EndCombo();
  }
  const float em = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(em * 17.0f);
  const bool enter = ImGui::InputTextWithHint("##scene_path", "scene file (.json)",
                                              &files.scene_path,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  note_widget(log, "scene path");
  tooltip("A scene file to load (format in docs/scenes.md), or the name of a shipped "
          "scene. Enter or Load opens it; a file with a mistake leaves the running scene as "
          "it is and says what is wrong.");
  ImGui::SameLine();
  if (ImGui::Button("Load") || enter) {
    if (files.scene_path.empty())
      files.scene_error = "Type the path of a scene file first.";
    else
      files.scene_request = files.scene_path;
  }
  note_widget(log, "scene load");
  if (!files.scene_error.empty()) {
    colored_text(kErrorColor, files.scene_error);
    note_widget(log, "scene error");
  }
}

namespace {

// A recording's status under its button: red when it failed, the note colour while it
// runs, plain once done; nothing when empty.
void status_row(const std::string& status, bool failed, bool running, WidgetLog& log, const char* name) {
  if (status.empty()) return;
  colored_text(failed ? kErrorColor : running ? kNoteColor : ImGui::GetStyleColorVec4(ImGuiCol_Text), status);
  note_widget(log, name);
}

void record_rows(FileControls& files, WidgetLog& log) {
  const float em = ImGui::GetFontSize();
  ImGui::TextDisabled("Record frames");
  ImGui::BeginDisabled(files.recording);
  const char* kinds[] = {"particles (PLY points)", "surface mesh (PLY)", "surface mesh (OBJ)"};
  const char* names[] = {"points", "mesh ply", "mesh obj"};  // for the widget log (tests)
  files.record_kind = std::clamp(files.record_kind, 0, 2);
  ImGui::SetNextItemWidth(-1.0f);
  if (ImGui::BeginCombo("##record_kind", kinds[files.record_kind])) {
    for (int k = 0; k < 3; ++k) {
      if (ImGui::Selectable(kinds[k], k == files.record_kind)) files.record_kind = k;
      note_widget(log, std::string("record kind:") + names[k]);
    }
    ImGui::EndCombo();
  }
  note_widget(log, "record kind");
  tooltip("What each frame holds: the particles (frame_00000.ply, ...), or the water's "
          "surface as a closed triangle mesh with normals (mesh_00000.ply or .obj, built with "
          "the mesh settings under Rendering; PLY adds each vertex's velocity). docs/mesh.md.");
  ImGui::SetNextItemWidth(-1.0f);  // the panel's width
  if (ImGui::InputText("##record_dir", &files.record_dir)) files.record_dir_automatic = false;
  note_widget(log, "record dir");
  tooltip("Directory for the frames, created when recording starts (relative to the working "
          "directory). The frames are frame_00000.ply, frame_00001.ply, ...: ParaView opens "
          "them as one time series.");
  ImGui::EndDisabled();
  if (ImGui::Button(files.recording ? "Stop recording" : "Record"))
    files.record_toggle_requested = true;
  note_widget(log, "record");
  ImGui::SameLine();
  ImGui::BeginDisabled(files.recording);
  ImGui::SetNextItemWidth(em * 4.0f);
  ImGui::InputFloat("fps, simulated##record", &files.record_fps, 0.0f, 0.0f, "%g");
  files.record_fps = std::clamp(files.record_fps, 0.1f, 1000.0f);
  tooltip("The simulation may run slower than real time; the frames are spaced in simulated "
          "time, as with --export-fps.");
  ImGui::EndDisabled();
  status_row(files.record_status, files.record_failed, files.recording, log, "record status");
}

void preset_rows(FileControls& files, WidgetLog& log) {
  ImGui::TextDisabled("Parameter preset");
  ImGui::SetNextItemWidth(-1.0f);
  ImGui::InputText("##preset_path", &files.preset_path);
  note_widget(log, "preset path");
  tooltip("A JSON file with every simulation parameter (the solver too), for --preset FILE "
          "or Load preset. Loading sets all of them or, when the file has a mistake, none.");
  if (ImGui::Button("Save preset")) files.preset_save_requested = true;
  note_widget(log, "preset save");
  ImGui::SameLine();
  if (ImGui::Button("Load preset")) files.preset_load_requested = true;
  note_widget(log, "preset load");
  if (!files.preset_note.empty()) {
    colored_text(files.preset_failed ? kErrorColor : kDoneColor, files.preset_note);
    note_widget(log, "preset note");
  }
}

}  // namespace

void state_rows(FileControls& files, WidgetLog& log, const char* what) {
  ImGui::TextDisabled("Simulation state");
  ImGui::SetNextItemWidth(-1.0f);
  ImGui::InputText("##state_path", &files.state_path);
  note_widget(log, "state path");
  tooltip(what);
  if (ImGui::Button("Save state")) files.state_save_requested = true;
  note_widget(log, "state save");
  ImGui::SameLine();
  if (ImGui::Button("Load state")) files.state_load_requested = true;
  note_widget(log, "state load");
  if (!files.state_note.empty()) {
    colored_text(files.state_failed ? kErrorColor : kDoneColor, files.state_note);
    note_widget(log, "state note");
  }
}

void video_rows(FileControls& files, WidgetLog& log) {
  if (files.video_recording) {  // red while it records
    ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.75f, 0.12f, 0.12f, 1.0f));
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(0.88f, 0.2f, 0.2f, 1.0f));
  }
  if (ImGui::Button(files.video_recording ? "Stop video" : "Record video")) files.video_toggle_requested = true;
  if (files.video_recording) ImGui::PopStyleColor(2);
  note_widget(log, "video");
  tooltip("Records the view into an MP4 (H.264) named after the time "
          "(tidepool-YYYYMMDD-HHMMSS.mp4) in the working directory, 30 frames per second of "
          "wall time, until you press it again. Key: F9. Needs the ffmpeg program. docs/recording.md.");
  ImGui::SameLine();
  ImGui::BeginDisabled(files.video_recording || files.video_as_shown);
  bool with_panel = files.video_with_panel || files.video_as_shown;
  if (ImGui::Checkbox("with the panel", &with_panel) && !files.video_as_shown) files.video_with_panel = with_panel;
  note_widget(log, "video panel");
  ImGui::EndDisabled();
  if (files.video_as_shown)
    tooltip("With a software OpenGL driver the video is the window as shown (reading the view "
            "alone would slow the window by a fifth): hide the panel with Tab to leave it out.");
  status_row(files.video_status, files.video_failed, files.video_recording, log, "video status");
  if (files.video_saved && !files.video_recording) {
    ImGui::BeginDisabled(files.gif_busy);
    if (ImGui::Button("GIF of its last 5 s")) files.gif_requested = true;
    note_widget(log, "gif");
    ImGui::EndDisabled();
    tooltip("Makes a GIF of the last 5 seconds of the video just saved, beside it (the same "
            "name, .gif): 480 pixels wide, 15 frames a second, for a chat or an issue tracker. "
            "Needs the ffmpeg program. docs/recording.md.");
    status_row(files.gif_status, files.gif_failed, files.gif_busy, log, "gif status");
  }
  if (!files.sessions) return;
  if (ImGui::Button(files.session_recording ? "Stop session" : "Record session"))
    files.session_toggle_requested = true;
  note_widget(log, "session");
  tooltip("Records the play session into a .tpsession file named after the time in the working "
          "directory: the state now, then every input as the simulation applied it and a check of "
          "the particles every 30 steps. tidepool --replay FILE plays it again, to the bit on the "
          "CPU. Key: F8. docs/recording.md.");
  status_row(files.session_status, files.session_failed, files.session_recording, log, "session status");
}

void files_section(FileControls& files, WidgetLog& log) {
  record_rows(files, log);
  ImGui::Separator();
  preset_rows(files, log);
  ImGui::Separator();
  state_rows(files, log,
             "A file with the whole simulation: particles, obstacles, emitters, spray and foam, "
             "time and parameters. Loading it continues exactly where it was saved "
             "(also: --load-state FILE).");
  ImGui::Separator();
  video_rows(files, log);
}

}  // namespace tp
