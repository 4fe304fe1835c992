#include "util/process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstring>

extern char** environ;

namespace tp {

pid_t spawn_helper(const std::vector<std::string>& args, int stdin_fd, int nice, std::string* error) {
  if (args.empty()) {
    *error = "no program to start";
    return -1;
  }
  std::vector<std::string> copies = args;
  std::vector<char*> argv;
  for (std::string& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stdin_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0);
  else posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, copies[0].c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    *error = "cannot start " + args[0] + ": " + std::strerror(spawned);
    return -1;
  }
  if (nice > 0) setpriority(PRIO_PROCESS, id_t(pid), std::min(nice, 19));
  return pid;
}

}  // namespace tp
