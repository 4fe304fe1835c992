// The panel's scene choice (in the Simulation section) and its Files section: recording PLY
// frames and saving or loading parameter presets. Like the rest of the panel it only
// leaves requests; the mode running in the frame loop (the water's water_mode.cpp, the
// gas's gas_mode.cpp) carries them out and fills in what happened.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tp {

struct Scene;

struct FileControls {
  // Scenes
  std::vector<std::string> scene_names;  ///< the scenes of assets/scenes, for the list
  std::vector<std::string> gas_scene_names;  ///< those of them that are gas (marked in the list)
  std::string scene_dir;                 ///< where they are (to tell which one is running)
  std::string scene_path;                ///< the scene file field
  std::string scene_request;             ///< a scene name or file to switch to; "" none
  std::string scene_error;               ///< why the last switch failed (red); "" none
  // Record
  std::string record_dir;                ///< the directory field
  bool record_dir_automatic = true;      ///< it holds the default timestamped name
  float record_fps = 30.0f;              ///< frames per simulated second
  int record_kind = 0;                   ///< 0 particles (PLY points), 1 mesh PLY, 2 mesh OBJ (RecordKind)
  bool record_toggle_requested = false;  ///< the Record button (start or stop)
  bool recording = false;                ///< set by the frame loop
  std::string record_status;             ///< "recording: 12 frames, 3.4 MB", or the last result
  bool record_failed = false;            ///< the status is an error (red)
  // Video (F9; the frame loop records, app/window/video_recording.h)
  bool video_toggle_requested = false;   ///< the Record video button or F9 (start or stop)
  bool video_with_panel = false;         ///< the video shows the panel too
  bool video_as_shown = false;           ///< software GL: the video is the window as shown (set by the loop)
  bool video_recording = false;          ///< set by the frame loop
  std::string video_status;              ///< "Saved NAME (12.3 s, ...)", or why not
  bool video_failed = false;             ///< the status is an error (red)
  bool video_saved = false;              ///< a video was saved: a GIF of its end can be made
  bool gif_requested = false;            ///< the "GIF of its last 5 s" button
  bool gif_busy = false;                 ///< set by the frame loop while ffmpeg makes it
  std::string gif_status;                ///< "Making NAME ...", "Saved NAME (1.2 MB)", or why not
  bool gif_failed = false;
  // Session (F8; the water's mode records, sim/session)
  bool session_toggle_requested = false;  ///< the Record session button or F8 (start or stop)
  bool session_recording = false;         ///< set by the mode
  std::string session_status;             ///< "Recording NAME: 120 steps", "Saved ...", or why not
  bool session_failed = false;
  bool sessions = false;                  ///< the mode records sessions (the water's; not the gas's)
  // Presets
  std::string preset_path = "tidepool-preset.json";
  bool preset_save_requested = false;
  bool preset_load_requested = false;
  std::string preset_note;               ///< what the last save or load did, or why it failed
  bool preset_failed = false;
  // State (the whole simulation, src/sim/io/state_file.h)
  std::string state_path = "tidepool-state.tpstate";
  bool state_save_requested = false;
  bool state_load_requested = false;
  std::string state_note;                ///< what the last save or load did, or why it failed
  bool state_failed = false;
};

// The name shown for the running scene: its name in assets/scenes, or its file's name.
std::string scene_label(const Scene& scene, const FileControls& files);

// For tests that drive the panel from outside (TIDEPOOL_TEST_WIDGETS=1): where named
// widgets are, in window coordinates, so that a test can click them like a person would.
struct WidgetRect {
  int x = 0, y = 0, width = 0, height = 0;
  bool clipped = false;  ///< its centre lies outside the panel's visible part (scrolled away)
  bool operator==(const WidgetRect& o) const {
    return x == o.x && y == o.y && width == o.width && height == o.height && clipped == o.clipped;
  }
  bool operator!=(const WidgetRect& o) const { return !(*this == o); }
};
struct WidgetLog {
  bool enabled = false;
  std::map<std::string, WidgetRect> rects;   ///< this frame's
  std::map<std::string, WidgetRect> printed;  ///< as last printed
  std::map<std::string, WidgetRect> before;   ///< the frame before's
};
// Records the last ImGui item's rectangle under `name` when the log is enabled.
void note_widget(WidgetLog& log, const std::string& name);
// Records the current ImGui window's rectangle under `name` when the log is enabled.
void note_window(WidgetLog& log, const std::string& name);
// Prints "tidepool: widget 'NAME' X Y W H" to stderr for each rectangle that is new or has
// moved since last printed and has stood still for two frames (a list that opens is placed
// over its first frames: a test clicking where it stood one frame missed), with " clipped"
// after it while a click at its centre would miss (the panel's scrolled part), and "tidepool: widget 'NAME' gone" for each printed one not
// drawn this frame; then starts the next frame's record.
void print_widget_changes(WidgetLog& log);

// The scene row: the list of shipped scenes, a file field with Load, and the last error.
// Needs an ImGui frame under way.
void scene_rows(const Scene& scene, FileControls& files, WidgetLog& log);

// The state rows: the file field, Save state, Load state and the note; `what` is the
// field's tooltip (what the file holds).
void state_rows(FileControls& files, WidgetLog& log, const char* what);

// The video row: Record video / Stop video (F9), "with panel", and the status below it.
void video_rows(FileControls& files, WidgetLog& log);

// The Files section: Record (directory, frame rate, toggle, status), presets (path, Save
// preset, Load preset, note), state files and the video row. Needs an ImGui frame under way.
void files_section(FileControls& files, WidgetLog& log);

}  // namespace tp
