// Ctrl-C (SIGINT), kill (SIGTERM) and a closed terminal (SIGHUP) ask a run to stop at its
// next check rather than end it on the spot, so that it ends the way a finished run does:
// every file whole, and a last line that says why it stopped. Shared by the headless run
// and the window.
#pragma once

#include <cstdint>
#include <string>

namespace tp {

void catch_stop_signals();  ///< installs the handler for SIGINT, SIGTERM and SIGHUP
int stop_signal();          ///< the signal that asked to stop; 0 while none has
const char* signal_text(int signal);  ///< "Ctrl-C (SIGINT)", "SIGTERM", ...

// The last line of a run that ended early: "tidepool: stopped at t = 1.234 s after 567
// steps (SIGTERM); 12 complete frames in out; every file written is complete" (`frames`:
// the part from "; 12 ..." on, or "" without an export).
std::string stopped_line(double simulated_time, uint64_t steps, const std::string& reason,
                         const std::string& frames);

}  // namespace tp
