// --replay SESSION: a session the window recorded (F8, src/sim/session) played again
// without a window, on the CPU with the step threads it was recorded with, its hashes
// checked; a progress line a second on standard error and the verdict at the end. With
// --backend cuda (or auto, where a GPU is) on the GPU, compared with the session's checks
// within the device comparison's tolerance (src/sim/session/session_replay.h). With
// --export and --export-mesh it writes the replayed run's frames (bodies included) for
// Blender or ParaView, as a headless run writes them.
#pragma once

#include <string>

#include "app/headless/headless.h"

namespace tp {

// Returns the exit code: 0 when every hash matched (on CUDA: every check within the
// tolerance), 1 when the replay departed from the
// session (said at the first step where it did), 2 when the file cannot be read or the
// backend asked for is not there, 130 on
// Ctrl-C (1 also when an export fails; 2 when its directory cannot be made). `threads` >
// 0: steps on that many threads instead of the session's (a replay on other threads may
// depart: said). `backend`: --backend as given ("" for the CPU). `run`: its export
// directories and rate (the rest is the session's).
int run_replay(const std::string& path, int threads, const std::string& backend, const HeadlessOptions& run);

}  // namespace tp
