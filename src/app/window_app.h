// The interactive window: GLFW + OpenGL 3.3 + Dear ImGui around one simulation.
#pragma once

#include "app/cli.h"

namespace tp {

// Runs until the window is closed, Escape, or --frames. Returns the process exit code:
// 0 on success, 2 when it cannot start (bad options, no display, no OpenGL 3.3, missing
// shaders), 1 when the run failed (e.g. the screenshot could not be written).
int run_window(const Options& options);

}  // namespace tp
