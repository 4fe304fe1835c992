// The gas window's panel: statistics (frame rate, real-time ratio, the pressure solver's
// iterations and residual, the divergence it leaves, the smoke's mass, ms per phase and
// per render pass), the grid's resolution with Reset, the scenes, every GasParams field
// (the parameter table's sliders, as the water's), the mouse tool and the look. Like the
// water's panel it edits settings in place and leaves requests for the frame loop.
#pragma once

#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "app/window/frame_stats.h"
#include "app/window/panel_common.h"
#include "render/render_types.h"
#include "sim/gas/gas_sim.h"
#include "sim/scene/scene.h"

namespace tp {

// What a left drag does to the gas: push adds smoke (dye of `colour`) and carries the gas
// along with the cursor; stir only carries it.
enum class GasMouseMode : int { Push = 0, Stir = 1 };

struct GasMouse {
  int mode = int(GasMouseMode::Push);  ///< GasMouseMode
  float radius = 0.08f;   ///< [m] of the source around the cursor
  float amount = 8.0f;    ///< [1/s] smoke added per second at its centre (push)
  float strength = 1.0f;  ///< the gas is pulled toward this times the cursor's velocity
  glm::vec3 color{1.0f, 1.0f, 1.0f};  ///< the dye pushed in
};

struct GasControls {
  WindowControls common;     ///< pause, step, reset, screenshots, scenes, state files, widgets
  int cells = 0;          ///< the panel's grid: cells along the longest side, applied by Reset
  int running_cells = 0;  ///< the grid's now
  GasShade shade;         ///< the view, the sun, the range of the colour maps
  bool auto_range = true;  ///< the colour maps' top follows the flow (see auto_view_range)
  GasMouse mouse;
  GasParams start_params{};              ///< what "Restore start values" goes back to
  std::vector<std::string> param_notes;  ///< what clamping changed after the last edit
};

// What the panel shows of the running gas.
struct GasPanelSim {
  const Scene& scene;
  GasParams& params;  ///< edited by the panel
  const GasStats& stats;
  const GasGrid& grid;
  BackendKind backend = BackendKind::Cpu;
  std::string device;  ///< "CPU (OpenMP, 2 threads)"
};

PanelExtent draw_gas_panel(GasPanelSim& sim, const FrameStats& frame, RenderSettings& render,
                           GasControls& controls);

// The top of the speed view's map (the largest speed) or the vorticity view's (that speed
// over four cells: a shear across four cells at the top speed), for the maps' Auto.
float auto_view_range(int view, float max_speed, float dx);

// Bottom-left: the gas window's mouse and keys (in 2D both drags pan, as the water's 2D).
void draw_gas_help(const GasControls& controls, bool obstacles, bool two_d);

// About how long a step of a grid `cells` along its longest side would take, from the
// running grid's `ms_per_step` (the cost grows with the cell count); 0 when unknown.
double estimated_step_ms(const Scene& scene, int cells, const GasGrid& running, double ms_per_step);

// The window's Reset refuses a grid whose step would take longer than this: the window
// steps the gas in its frame, so it would answer the mouse and the keys less than once a
// second (a monkey's slider dragged to 256 on the plume, then R: 171x256x171 cells, 1.9 GB,
// 5.4 s a frame, and the scene list could no longer be opened). `--cells N` still starts
// any grid that fits in memory.
constexpr double kWindowLongestStepMs = 1000.0;

// The most cells along the longest side whose step is estimated within `ms` (at least
// the smallest grid), for the refusal's message.
int most_cells_within(const Scene& scene, double ms, const GasGrid& running, double ms_per_step);

// "32x48x32 cells of 0.03125 m (3D), 12.3 MB": what the Reset with `cells` would make of
// `scene` (gas_setup), or why it cannot.
std::string gas_grid_text(const Scene& scene, int cells, BackendKind backend);

}  // namespace tp
