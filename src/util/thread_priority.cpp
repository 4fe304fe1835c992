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

int lower_threads_named(const std::string& prefix, int step) {
#ifdef __linux__
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return 0;
  int lowered = 0;
  while (const dirent* entry = readdir(tasks)) {
    char* end = nullptr;
    const long tid = std::strtol(entry->d_name, &end, 10);
    if (tid <= 0 || *end != '\0') continue;
    std::ifstream comm(std::string("/proc/self/task/") + entry->d_name + "/comm");
    std::string name;
    if (!std::getline(comm, name) || name.compare(0, prefix.size(), prefix) != 0) continue;
    errno = 0;
    const int now = getpriority(PRIO_PROCESS, id_t(tid));  // a thread's own, on Linux
    if (errno != 0) continue;
    const int wanted = std::min(now + step, 19);
    if (wanted > now && setpriority(PRIO_PROCESS, id_t(tid), wanted) == 0) ++lowered;
  }
  closedir(tasks);
  return lowered;
#else
  (void)prefix;
  (void)step;
  return 0;
#endif
}

}  // namespace tp
