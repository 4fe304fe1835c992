// The command line: parsed into Options, with one-line errors and the usage text.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/mesh/mesh.h"

namespace tp {

struct Options {
  std::string scene = "dam_break";  ///< name in assets/scenes, or a .json path
  std::string solver;               ///< empty: the scene's params or --preset (default wcsph)
  std::string preset;               ///< --preset FILE: parameters applied after the scene's
  std::string load_state;           ///< --load-state FILE: continue a saved simulation
  std::string replay;               ///< --replay SESSION: replay a recorded session
  std::string save_state;           ///< --save-state FILE: headless, save it at the end
  std::string backend = "auto";     ///< auto | cpu | cuda
  uint64_t particles = 0;           ///< 0 = the scene's own spacing
  double spacing = 0.0;             ///< [m] --spacing; 0 = the scene's (or --particles')
  int cells = 0;                    ///< gas scenes: cells along the longest side; 0 = the scene's
  std::vector<std::pair<std::string, std::string>> sets;  ///< --set key=value, in order
  int threads = 0;                  ///< 0 = all cores
  // Window
  int frames = 0;                   ///< quit after N rendered frames (0 = run until closed)
  std::string screenshot;           ///< write the last frame as PNG
  std::string video;                ///< --video: record the view into this MP4 (window)
  double video_fps = 30.0;          ///< --fps: frames per simulated second of an offline render
  int width = 1280, height = 800;
  std::string color = "water";      ///< water | speed | density | pressure | flat
  std::string render = "spheres";   ///< spheres | surface | mesh
  /// --surface-scale auto|S: the surface mode's resolution scale, chosen each frame or
  /// fixed at S in [0.5, 1] (see SurfaceSettings::auto_scale)
  bool surface_scale_auto = true;
  float surface_scale = 1.0f;
  bool surface_anisotropic = true;
  bool gl_check = false;            ///< glGetError after every render pass; errors fail the run
  bool hide_panel = false;          ///< start with the panel and help line hidden (Tab)
  bool grid_overlay = false;        ///< start with the Debug views' grid overlay on
  // Deterministic window runs (tests): a fixed number of steps per frame instead of
  // following the clock (combine with --set dt_min=X --set dt_max=X for a fixed step).
  int steps_per_frame = 0;          ///< 0 = follow the clock
  // --bench-window SECONDS: measure the window for that long, print figures, quit
  double bench_window = 0.0;        ///< [s] of wall time; 0 = no window benchmark
  bool bench_drag = false;          ///< --bench-drag: a scripted left drag half-way through
  // Quality: "realtime" (the window's default: keeps the clock) or "accurate" (each
  // solver's paper-grade settings, the validation tests'; headless runs' default).
  std::string quality;              ///< "" = the mode's default
  // Headless
  bool headless = false;
  double time = 0.0;                ///< simulated seconds (headless)
  int64_t steps = 0;                ///< steps (headless)
  std::string report;               ///< JSON report path, or "-" for stdout
  std::string export_dir;           ///< PLY frames
  double export_fps = 30.0;
  std::string export_mesh_dir;      ///< surface mesh frames (mesh_00000.ply, ...)
  std::string mesh_format = "ply";  ///< ply | obj
  MeshSettings mesh;                ///< --mesh-cell, --mesh-iso, --mesh-anisotropic
  bool bench = false;
  bool bench_mesh = true;           ///< --bench-mesh off: no mesh figures after each run
  std::string bench_json;           ///< --bench-json FILE, or "-" for stdout
  // --bench matrices: each list as given (one item when the option is a single value; empty
  // when the option is absent). The single fields above hold the first item, so everything
  // but the bench reads them alone; lists of more than one item need --bench.
  std::vector<std::string> scene_list, solver_list, backend_list;
  std::vector<uint64_t> particles_list;
  std::vector<double> spacing_list;
  std::vector<int> threads_list;
  std::vector<int> cells_list;
  bool version = false;
  bool help = false;
  std::set<std::string> given;  ///< the options that appeared on the command line
};

// The number of configurations a --bench run covers: the product of the list lengths
// (an absent option counts as one).
size_t bench_configurations(const Options& options);

// Parses argv. On failure returns false with a one-line message in *error.
bool parse_command_line(int argc, char** argv, Options* options, std::string* error);
std::string usage_text();

}  // namespace tp
