// What the backend tells the host about a step, without a wait: reductions whose results
// stay in the backend's memory (Backend::*_to), read together in one copy at the step's
// one wait (read), or when the host needs the state (statistics, snapshots, captures).
// On a GPU that is the only point where the host waits for a step (step_guard.h says when
// that is and what is judged there); the CPU reads for free.
#pragma once

#include "kernels/common.h"
#include "kernels/rigid_body.h"
#include "sim/neighbors/neighbor_list.h"

namespace tp {

template <class Backend>
class StepRecorder {
 public:
  template <class T>
  using Buffer = typename Backend::template Buffer<T>;
  using SumMax = typename Backend::SumMax;
  struct Record {
    Max3 flow;        ///< the time step's maxima: speed, acceleration and density ratio
    Max3 extra;       ///< a solver's own maxima, read with them (PCISPH: its depths)
    Max3 over;        ///< lists' overflow (fluid, boundary, samples): builds before the save
    Max3 over_done;   ///< the same, of builds after the save point (a completed step's)
    SumMax error;     ///< a measured state's compression: sum and max
    SumMax first;     ///< PBF: its first iteration's compression (sum)
    SumMax nonfinite; ///< the particles a step left non-finite (sum)
    Vec4 bodies[2 * kMaxBodies];  ///< per body: the fluid's force and torque on it (xyz)
  };
  enum Field : unsigned {
    kFlow = 1u, kExtra = 2u, kOver = 4u, kOverDone = 8u, kError = 16u, kFirst = 32u, kNonfinite = 64u,
    kBodies = 128u
  };

  // Ready for a new simulation: nothing written, nothing to read. The record starts as
  // zeros: read() copies all of it, and the fields a step did not write would otherwise be
  // a device's fresh memory (never used, the written mask says which are, but compute-
  // sanitizer's initcheck counts every such word: 1,300 in 8 steps on the H200).
  void reset() {
    record_.resize(1);
    const Record zero{};
    Backend::copy_from_host(record_.data(), &zero, 1);
    written_ = 0;
    error_n_ = first_n_ = 0;
  }
  bool ready() const { return record_.size() != 0; }  ///< false before the first reset
  // The record where the backend keeps it (its fields' addresses, not to be read here).
  Record* slots() { return record_.data(); }
  bool written(Field field) const { return (written_ & field) != 0; }
  bool any_written() const { return written_ != 0; }
  void mark(Field field) { written_ |= field; }
  void unmark(Field field) { written_ &= ~unsigned(field); }  ///< not to be read after all

  // max over i < n of f(i) into `slot`, a field of slots() (with what it held since the
  // last read).
  template <class F>
  void max3(Max3* slot, Field field, uint n, F f) {
    NeighborLists<Backend>::record_max3(n, f, slot, written(field));
    mark(field);
  }
  // sum and max over i < n of f(i) into `slot` (the sum with what it held).
  template <class F>
  void sum_max(SumMax* slot, Field field, uint n, F f) {
    if (written(field))  // counts: exact in a float below 2^24
      Backend::reduce_sum_max_to(n + 1, [=] TP_HD(uint i) { return i < n ? f(i) : float(slot->sum); }, slot);
    else
      Backend::reduce_sum_max_to(n, f, slot);
    mark(field);
  }
  // A state's mean compression over `n` particles, from `err` per particle.
  void error(const float* err, uint n) {
    sum_max(&slots()->error, kError, n, [=] TP_HD(uint i) { return err[i]; });
    error_n_ = n;
  }
  // PBF's first iteration's mean compression.
  void first_error(const float* err, uint n) {
    sum_max(&slots()->first, kFirst, n, [=] TP_HD(uint i) { return err[i]; });
    first_n_ = n;
  }

  // Reads the record when anything was written to it since the last read (on a GPU the
  // wait) and returns the fields written; seen() holds their values.
  unsigned read() {
    const unsigned w = written_;
    if (w) Backend::copy_to_host(&seen_, record_.data(), 1);
    written_ = 0;
    return w;
  }
  const Record& seen() const { return seen_; }
  // The means of what was read: error() and first_error() over their particles (NaN when
  // the field was not in `fields`, or no particle was counted).
  double mean_error(unsigned fields) const {
    return (fields & kError) && error_n_ ? seen_.error.sum / error_n_ : NAN;
  }
  double mean_first_error(unsigned fields) const {
    return (fields & kFirst) && first_n_ ? seen_.first.sum / first_n_ : NAN;
  }

 private:
  Buffer<Record> record_;
  Record seen_{};
  unsigned written_ = 0;
  uint error_n_ = 0, first_n_ = 0;  ///< the counts the means divide by
};

}  // namespace tp
