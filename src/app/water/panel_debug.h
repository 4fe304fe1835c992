// The panel's Debug views section: the debug colourings, the density error histogram, the
// grid overlay and the particle inspector (docs/debug-views.md). Part of the panel
// (panel.cpp draws it); needs imgui.h through panel_style.h in its .cpp only.
#pragma once

#include "app/water/panel.h"

namespace tp {

void debug_section(PanelSim& sim, RenderSettings& render);

}  // namespace tp
