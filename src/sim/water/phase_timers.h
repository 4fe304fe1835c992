// The step's phase timers: wall time per named phase ("grid", "density", "pressure", ...)
// summed since the last reset, for the statistics and the benchmarks. CPU: the host clock
// after a synchronize (the work is done when the body returns). Device: a start and an end
// event in the stream and no wait; the times are read once the device has passed them
// (collect), at the start of a later step or when the statistics ask.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "sim/water/simulation.h"

namespace tp {

template <class Backend>
class PhaseTimers {
 public:
  // Times `body` as the named phase (`name` must outlive the step: a string literal).
  template <class F>
  void time(const char* name, F&& body) {
    if constexpr (Backend::kIsDevice) {
      const size_t k = pending_.size();
      pending_.push_back(name);
      events_.start(k);
      Backend::set_phase(name);  // named by the messages of a failure in it
      try {
        body();
      } catch (...) {
        Backend::set_phase(nullptr);
        pending_.resize(k);  // no end event: never read this one
        throw;
      }
      Backend::set_phase(nullptr);
      events_.stop(k);
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      body();
      Backend::synchronize();
      add(name, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  }

  void add(const char* name, double ms) {
    for (PhaseTime& p : totals_)
      if (p.name == name) {
        p.total_ms += ms;
        return;
      }
    totals_.push_back(PhaseTime{name, ms});
  }

  // Device: adds the recorded phases' times once the device has finished them (with
  // `wait`, waits for that); keeps them for a later call otherwise.
  void collect(bool wait) {
    if (pending_.empty() || !events_.ready(wait)) return;
    for (size_t k = 0; k < pending_.size(); ++k) add(pending_[k], events_.elapsed_ms(k));
    pending_.clear();
  }
  // At the start of a step: a device that has recorded many steps' phases unread waits
  // for them, so that the events are reused rather than piling up.
  void collect_if_many() { collect(pending_.size() >= kMaxPending); }

  void clear() {
    totals_.clear();
    pending_.clear();
  }
  const std::vector<PhaseTime>& totals() const { return totals_; }

 private:
  std::vector<PhaseTime> totals_;
  typename Backend::PhaseEvents events_;  ///< device: phase timing events, reused
  std::vector<const char*> pending_;      ///< device: recorded, not yet read
  static constexpr size_t kMaxPending = 64;  ///< then the next step waits to read them
};

}  // namespace tp
