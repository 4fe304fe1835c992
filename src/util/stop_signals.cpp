#include "util/stop_signals.h"

#include <atomic>
#include <csignal>
#include <cstdio>

namespace tp {

namespace {

std::atomic<int> g_stop{0};  // set by the handler, read between steps or frames
void on_signal(int signal) { g_stop = signal; }

}  // namespace

void catch_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &action, nullptr);
}

int stop_signal() { return g_stop; }

const char* signal_text(int signal) {
  switch (signal) {
    case SIGINT: return "Ctrl-C (SIGINT)";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP (the terminal closed)";
    default: return "a signal";
  }
}

std::string stopped_line(double simulated_time, uint64_t steps, const std::string& reason,
                         const std::string& frames) {
  char head[128];
  std::snprintf(head, sizeof(head), "tidepool: stopped at t = %.3f s after %llu steps (",
                simulated_time, (unsigned long long)steps);
  return head + reason + ")" + frames + "; every file written is complete";
}

}  // namespace tp
