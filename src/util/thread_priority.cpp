#include "util/thread_priority.h"

#include <algorithm>
#include <fstream>

#ifdef __linux__
#include <dirent.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstdlib>
#endif

namespace tp {

LoweredThreads lower_threads_named(const std::string& prefix, int step) {
  LoweredThreads result;
#ifdef __linux__
  result.nice = std::min(getpriority(PRIO_PROCESS, 0) + step, 19);  // (0: the calling thread)
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return result;
  while (const dirent* entry = readdir(tasks)) {
    char* end = nullptr;
    const long tid = std::strtol(entry->d_name, &end, 10);
    if (tid <= 0 || *end != '\0') continue;
    std::ifstream comm(std::string("/proc/self/task/") + entry->d_name + "/comm");
    std::string name;
    if (!std::getline(comm, name) || name.compare(0, prefix.size(), prefix) != 0) continue;
    errno = 0;
    const int now = getpriority(PRIO_PROCESS, id_t(tid));  // a thread's own, on Linux
    if (errno != 0) continue;  // (it ended)
    if (now >= result.nice || setpriority(PRIO_PROCESS, id_t(tid), result.nice) == 0) ++result.threads;
  }
  closedir(tasks);
#else
  (void)prefix;
  result.nice = step;
#endif
  return result;
}

}  // namespace tp
