// Running without a window: a water scene's headless run (simulate, export, report); the
// benchmarks are in bench.h, the gas's runs in gas_headless.h. Which one runs is the top's
// choice (src/app/headless_app.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/start/setup.h"
#include "app/start/start_plan.h"
#include "sim/io/frame_recorder.h"
#include "sim/mesh/mesh.h"

namespace tp {

// What a headless run writes, and how long it runs.
struct HeadlessOptions {
  double time = 0.0;                ///< --time: simulated seconds to run to (0: --steps or the default)
  int64_t steps = 0;                ///< --steps: steps to run (0: --time or the default)
  std::string report;               ///< --report: JSON path, or "-" for stdout
  std::string export_dir;           ///< --export: PLY frames (water) or VTK images (gas)
  double export_fps = 30.0;         ///< --export-fps
  std::string export_mesh_dir;      ///< --export-mesh: surface mesh frames (mesh_00000.ply, ...)
  std::string mesh_format = "ply";  ///< --mesh-format: ply | obj
  MeshSettings mesh;                ///< --mesh-cell, --mesh-iso, --mesh-anisotropic
  std::string save_state;           ///< --save-state FILE: the state at the end
  bool bench = false;               ///< a benchmark's run: 300 steps unless --steps or --time
};

// --export and --export-mesh as a headless run (or a replay) goes: each kind of frame in
// its own directory at --export-fps, with a progress line a second at most.
class HeadlessExports {
 public:
  // Starts the directories `o` names; false with the message printed (exit code 2).
  bool start(const HeadlessOptions& o, const Simulation& sim);
  // Whether a frame is due at simulated time t.
  bool due(double t) const;
  // Writes the frames due at the simulation's time; false with the message printed and
  // *stop_reason saying why (exit code 1).
  bool record(Simulation& sim, double wall_seconds, std::string* stop_reason);
  // The closing lines (frames, times, skipped frame times); returns "; N complete frames in
  // DIR" for each directory, for the last line of a run that ended early.
  std::string finish(double last_dt) const;

 private:
  struct Export {
    FrameRecorder recorder;
    const char* option;
    double next_line = 0.0;  // progress: a line at the first frame, then one a second at most
  };
  std::vector<Export> exports_;
  double fps_ = 30.0;
};

// --headless on a water scene: the simulation `plan` starts, run by run_setup. Returns the
// process exit code: 0 on success, 2 on a bad request, 1 on a failed write, 130 when
// interrupted (Ctrl-C).
int run_water_headless(const StartPlan& plan, const HeadlessOptions& run);

// Runs a set-up simulation without a window until --steps or --time (default: one more
// simulated second; with --bench, 300 steps), with --export, --save-state and --report as
// `run` asks. *wall_out is the time spent stepping. Returns the exit code as above;
// 130 after Ctrl-C or SIGTERM, which stop it after the current step.
int run_setup(SimSetup& setup, const HeadlessOptions& run, double* wall_out);

}  // namespace tp
