// What the command line asks of the window itself, whatever the kind of its scene: its
// size, when it stops, what it saves at the end, and the checks and figures of test and
// benchmark runs. Each mode's own options (the water's colours and render mode) are its
// own; how the simulation starts is the start plan's (app/start/start_plan.h).
#pragma once

#include <string>

namespace tp {

struct WindowOptions {
  int width = 1280, height = 800;  ///< --size, in pixels
  int frames = 0;                  ///< --frames: quit after N drawn frames (0 = run until closed)
  std::string screenshot;          ///< --screenshot PNG: the last frame
  std::string video;               ///< --video MP4: record the view from the first frame (as F9 does)
  double video_fps = 30.0;         ///< --fps: the frame rate of an offline render (--replay with --video)
  bool gl_check = false;           ///< --gl-check: glGetError after every render pass; errors fail the run
  bool hide_panel = false;         ///< --hide-panel: start with the panel and help line hidden (Tab)
  double bench_window = 0.0;       ///< [s] --bench-window: measure the window that long, then quit; 0 none
  bool bench_drag = false;         ///< --bench-drag: a scripted left drag half-way through
  std::string bench_json;          ///< --bench-json FILE for --bench-window's figures, or "-"
};

}  // namespace tp
