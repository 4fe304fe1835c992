#include "sim/water/step_guard.h"

#include <cstdio>

namespace tp {

void StepGuard::accept(RunStats& stats) {
  if (halvings_ == 0) {
    dt_cap_ = INFINITY;
    return;
  }
  const uint64_t found = found_;
  char text[320], part[32] = "half";
  if (halvings_ > 1) std::snprintf(part, sizeof part, "1/%d", 1 << halvings_);
  std::snprintf(text, sizeof text,
                "NaN or infinite values appeared in step %llu (t = %.4f s, in %llu particle%s); "
                "the step was taken again from its start at %s its time step (%.3g ms) and "
                "the simulation goes on. This is a bug: please report it.",
                (unsigned long long)judged_step_, judged_time_, (unsigned long long)found,
                found == 1 ? "" : "s", part, 1000.0 * judged_dt_);
  stats.nonfinite_resets += found;
  if (stats.nonfinite_steps++ == 0) note_ = stats.guard_note = text;
  halvings_ = 0;
  found_ = 0;
  dt_cap_ = INFINITY;
}

void StepGuard::reject(uint64_t nonfinite, RunStats& stats) {
  if (nonfinite == 0) return;
  found_ += nonfinite;
  if (halvings_ < kRetries) {
    halvings_++;
    dt_cap_ = 0.5f * float(judged_dt_);
    return;
  }
  dt_cap_ = INFINITY;
  stats.nonfinite_resets += found_;
  stats.nonfinite_steps++;
  stats.halted = true;
  char text[320];
  std::snprintf(text, sizeof text,
                "The simulation stopped at t = %.4f s: step %llu still gave NaN or infinite values "
                "after halving its time step %d times (to %.3g ms). The particles are as the last "
                "finite step left them; reset the scene to go on. This is a bug: please report it.",
                judged_time_, (unsigned long long)judged_step_, kRetries, 1000.0 * judged_dt_);
  note_ = stats.guard_note = text;
  halvings_ = 0;
  found_ = 0;
}

}  // namespace tp
