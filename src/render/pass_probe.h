// Per-pass GPU time (GL_TIME_ELAPSED queries, read a few frames late so nothing waits)
// and, when asked, a glGetError check after every pass that names the pass at fault.
#pragma once

#include <glad/gl.h>

#include <string>
#include <utility>
#include <vector>

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

  // Mean GPU milliseconds of each pass of recent frames, in drawing order.
  const std::vector<std::pair<std::string, double>>& pass_ms() const { return ms_; }
  // Every GL error seen so far, "GL error 0x0502 after pass 'smooth x'" (error check on).
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  void record(GLenum error);         ///< keeps and prints one error of the current pass
  static constexpr int kFrames = 4;  ///< query sets in flight
  struct Query {
    std::string pass;
    GLuint id = 0;
  };
  std::vector<Query> frames_[kFrames];
  size_t used_[kFrames] = {};  ///< queries issued in each set
  int frame_ = 0;
  size_t next_ = 0;  ///< next query of this frame
  const char* current_ = nullptr;
  bool check_errors_ = false;
  std::vector<std::pair<std::string, double>> ms_;
  std::vector<std::string> errors_;
};

}  // namespace tp
