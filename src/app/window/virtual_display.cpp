#include "app/window/virtual_display.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace tp {

namespace {

bool set(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && v[0] != '\0';
}

// `program` as exec would find it: itself when it names a path, else the first executable
// of that name on PATH; empty when there is none.
std::string find_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0 ? program : std::string();
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = dirs.find(':', start);
    std::string dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return std::string();
}

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  return text;
}

double now_s() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

}  // namespace

bool has_display() { return set("DISPLAY"); }

bool VirtualDisplay::start(int width, int height, std::string* error, const std::string& server,
                           double timeout_s) {
  stop();
  const std::string program = find_program(server);
  if (program.empty()) {
    *error = "there is no display, and no " + server +
             " to make one for the render: install it (Debian: apt install xvfb), or run on a "
             "desktop";
    return false;
  }
  // The server writes the number of the display it took, and a newline, to this pipe once
  // it accepts clients (-displayfd): no number to guess, no race with another server.
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *error = std::string("cannot start ") + server + ": " + std::strerror(errno);
    return false;
  }
  const std::string screen = std::to_string(width > 0 ? width : 1280) + "x" + std::to_string(height > 0 ? height : 800) + "x24";
  const std::string fd = std::to_string(fds[1]);
  std::vector<std::string> args = {program, "-displayfd", fd, "-screen", "0", screen, "-nolisten", "tcp", "-noreset"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("cannot start ") + server + ": " + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (pid == 0) {
    // The child: ends with this process however it ends (a kill -9 too), quietly.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    fcntl(fds[1], F_SETFD, 0);  // the write end stays open across exec
    const int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  pid_ = pid;
  std::string number;
  bool done = false, closed = false;
  const double until = now_s() + timeout_s;
  while (!done) {
    const double left = until - now_s();
    if (left <= 0.0) break;
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, int(left * 1000.0) + 1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    char c = 0;
    const ssize_t got = read(fds[0], &c, 1);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {  // the server ended without a display
      closed = true;
      break;
    }
    if (c == '\n')
      done = !number.empty();
    else if (c >= '0' && c <= '9')
      number += c;
  }
  close(fds[0]);
  if (!done) {
    int status = 0;
    // A server that ended closed its end of the pipe first: it may not be a zombie yet when
    // the read sees the end (a loaded machine reported /bin/false as "did not open a
    // display within 20 s" after half a second), so give it a moment to be reaped.
    bool ended = waitpid(pid_, &status, WNOHANG) == pid_;
    for (int k = 0; closed && !ended && k < 200; ++k) {
      usleep(10000);
      ended = waitpid(pid_, &status, WNOHANG) == pid_;
    }
    if (!ended) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    pid_ = -1;
    *error = ended ? program + " ended without opening a display (exit status " +
                         std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")"
                   : program + " did not open a display within " + seconds(timeout_s) + " s";
    return false;
  }
  name_ = ":" + number;
  had_display_ = set("DISPLAY");
  if (had_display_) old_display_ = std::getenv("DISPLAY");
  setenv("DISPLAY", name_.c_str(), 1);
  return true;
}

void VirtualDisplay::stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  int status = 0;
  // A server that does not end within 5 s is killed.
  for (int k = 0; k < 50; ++k) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    usleep(100000);
  }
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  if (had_display_)
    setenv("DISPLAY", old_display_.c_str(), 1);
  else
    unsetenv("DISPLAY");
  name_.clear();
}

}  // namespace tp
