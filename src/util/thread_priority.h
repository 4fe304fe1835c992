// Lowering the priority of this process's threads by name (Linux: their names in
// /proc/self/task/*/comm, each thread's own nice value). The window uses it to let a
// software OpenGL driver's rasterizer threads yield to the simulation (app/window/app_window).
#pragma once

#include <string>

namespace tp {

// Raises by `step` (to at most 19) the nice value of every thread of this process whose name
// begins with `prefix`. Returns how many threads it lowered; 0 where there are none or the
// platform has no such names.
int lower_threads_named(const std::string& prefix, int step);

}  // namespace tp
