// The interactive window: its platform (app/window/app_window.h), its one frame loop
// (app/window/frame_loop.h) and the mode the scene's kind picks, water or gas, passing from
// one to the other when the scene list chooses a scene of the other kind.
#pragma once

#include "app/cli.h"

namespace tp {

// Runs until the window is closed, Escape, or --frames. Returns the process exit code:
// 0 on success, 2 when it cannot start (bad options, no display, no OpenGL 3.3, missing
// shaders), 1 when the run failed (e.g. the screenshot could not be written).
int run_window(const Options& options);

}  // namespace tp
