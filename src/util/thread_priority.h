// Lowering the priority of this process's threads by name (Linux: their names in
// /proc/self/task/*/comm, each thread's own nice value). The window uses it to let a
// software OpenGL driver's rasterizer threads yield to the simulation (app/window/app_window).
#pragma once

#include <string>

namespace tp {

struct LoweredThreads {
  int threads = 0;  ///< threads of the name now at `nice` (or lower still)
  int nice = 0;     ///< the calling thread's nice value plus the step, at most 19
};

// Puts every thread of this process whose name begins with `prefix` at the calling
// thread's nice value plus `step` (at most 19), unless it is already there or lower:
// calling it again lowers only threads that have appeared since. Counts the threads of the
// name that end at that value or lower; none where the platform has no such names. (A
// thread that ends between its name being read and its priority set is not counted.)
LoweredThreads lower_threads_named(const std::string& prefix, int step);

}  // namespace tp
