// The Dear ImGui panel: statistics, simulation controls, every SimParams field (generated
// from the parameter table) and the render settings; plus a one-line help overlay.
// It edits the parameters directly and leaves requests (reset, step, ...) in AppControls
// for the frame loop to carry out.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "app/window/frame_stats.h"
#include "app/window/panel_common.h"
#include "app/water/panel_bodies.h"
#include "app/water/panel_sim.h"
#include "app/start/setup.h"
#include "render/render_types.h"
#include "sim/mesh/mesh.h"
#include "sim/water/params.h"

namespace tp {

// The water's window controls: the ones every mode's panel has (WindowControls), and the
// water's own.
struct AppControls : WindowControls {
  Quality quality = Quality::Realtime;   ///< the panel's quality; the frame loop applies it
  bool quality_chosen = false;           ///< picked in the panel this frame (even the same)
  bool behind_shown = false;             ///< the "slower than real time" advice is showing
  bool lockstep = false;                 ///< --steps-per-frame: no clock to keep, no advice
  bool obstacles = false;                ///< the scene has obstacles: the help line says ctrl+left
  bool bodies = false;                   ///< the scene has rigid bodies: so it does
  BodyPanel bodies_panel;                ///< the Bodies section's fields and request
  int particle_target = 0;               ///< the panel's particle count, applied by Reset
  std::vector<std::string> param_notes;  ///< what clamp_params changed after the last edit
  SimParams start_params{};              ///< the parameters the run started with
  /// The surface mode's resolution scale in the last frame, filled by the mode for the panel.
  float surface_scale = 1.0f;
  /// The mesh mode's settings (edited here, sent to the simulation by the frame loop) and
  /// what its latest mesh cost: "110,232 triangles in 38.1 ms", or why there is none.
  MeshSettings mesh;
  std::string mesh_status;
  bool mesh_failed = false;
};

// A solver's display name, "WCSPH" (kernels/solver_list.h); "?" when out of range.
const char* solver_label(int kind);

// The Parameters section that shows a table entry while `active_solver` runs: "Fluid",
// "Time step", ..., or the solver's label for a parameter tagged with that solver.
// nullptr when it is not shown there: another solver's parameter, or the solver choice
// itself (which sits in the Simulation section).
const char* param_section(const ParamInfo& info, int active_solver);

// The panel section of the spray, foam and bubble parameters (diffuse, diffuse_*): they
// have a collapsing header of their own rather than a group under Parameters.
inline constexpr char kDiffuseSection[] = "Spray and foam";

// "Spray 1,234  Foam 5,678  Bubbles 90  of 200,000": the live counts by kind and the cap
// (left out while the cap is unknown, 0).
std::string diffuse_counts_text(const DiffuseCounts& counts);

// The "Spray and foam" section's contents: the on/off checkbox, the live counts and the
// diffuse_* parameters; a cap raised beyond the memory of `backend` is put back with a
// note. Needs an ImGui frame under way.
void diffuse_section(SimParams& p, const DiffuseCounts& counts, AppControls& controls,
                     BackendKind backend = BackendKind::Cpu);

// The Parameters section's contents: the shared parameters and the running solver's, each
// note of a clamped value under its own slider, and Restore start values. Needs an ImGui
// frame under way.
void parameters_section(SimParams& p, AppControls& controls);

// The particle count at which a simulation that runs at `speed` (simulated s per wall s)
// with `particles` would keep real time, with 10 % to spare, in hundreds: the cost of a
// simulated second grows as count^(4/3), in 2D count^(3/2) (realtime_count.h). 0 when it
// keeps up already.
uint64_t realtime_particle_suggestion(double speed, uint64_t particles, int dimensions = 3);

// "Emitted 1,234, removed 56": what the emitters added and the outflows took since reset.
std::string flow_counts_text(const RunStats& stats);

// The Render section's resolution control of the surface mode: the Auto resolution
// checkbox (switched off, the scale stays at `current`, the one in use), the Resolution
// slider while it is off, and `current` as text. Needs an ImGui frame under way.
void surface_resolution(SurfaceSettings& surface, float current);

PanelExtent draw_panel(PanelSim& sim, const RunStats& stats, const FrameStats& frame,
                       RenderSettings& render, AppControls& controls);

// Bottom-left: the controls, and the state when it is not obvious (paused).
// In 2D (`dimensions` 2) both the right and the middle drag pan.
void draw_help_overlay(const AppControls& controls, const SimParams& params, int dimensions = 3);

}  // namespace tp
