// The panel's Debug views section: the debug colourings, the density error histogram, the
// grid overlay and the particle inspector (docs/debug-views.md). Part of the panel
// (panel.cpp draws it, and includes this header); needs imgui.h through panel_style.h in its .cpp only.
#pragma once

#include "app/water/panel_sim.h"
#include "render/render_types.h"

namespace tp {

void debug_section(PanelSim& sim, RenderSettings& render);

}  // namespace tp
