// Per-pass GPU time (GL_TIME_ELAPSED queries, read a few frames late so nothing waits),
// per-pass CPU time (the wall time the pass's GL calls take to issue) and, when asked, a glGetError check after every pass that names the pass at fault.
#pragma once

#include <glad/gl.h>

#include <chrono>

#include <string>
#include <utility>
#include <vector>

#include "render/render_types.h"

namespace tp {

class PassProbe {
 public:
  PassProbe() = default;
  ~PassProbe();
  PassProbe(const PassProbe&) = delete;
  PassProbe& operator=(const PassProbe&) = delete;

  // Turning it on reports errors left from before (start-up) as such, not as a pass's.
  void set_error_check(bool on);
  void begin_frame();            ///< collects finished queries
  void begin(const char* pass);  ///< starts timing a pass
  void end();                    ///< stops it; checks glGetError when enabled

  // Each pass's recent mean times, in drawing order.
  const std::vector<PassTime>& pass_times() const { return times_; }
  // Every GL error seen so far, "GL error 0x0502 after pass 'smooth x'" (error check on).
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  void record(GLenum error);         ///< keeps and prints one error of the current pass
  static constexpr int kFrames = 4;  ///< query sets in flight
  struct Query {
    std::string pass;
    GLuint id = 0;
    double cpu_ms = 0.0;
  };
  std::vector<Query> frames_[kFrames];
  size_t used_[kFrames] = {};  ///< queries issued in each set
  int frame_ = 0;
  size_t next_ = 0;  ///< next query of this frame
  const char* current_ = nullptr;
  std::chrono::steady_clock::time_point started_;  ///< CPU clock at begin()
  bool check_errors_ = false;
  std::vector<PassTime> times_;
  std::vector<std::string> errors_;
};

}  // namespace tp
