// Per-pass GPU time (GL_TIME_ELAPSED queries, read a few frames late so nothing waits),
// per-pass CPU time (the wall time the pass's GL calls take to issue) and GL errors named
// by the pass that caused them. Always on: one glGetError a frame; when it sees an error,
// the next frames check after every pass, which names the pass when the error comes back,
// and each distinct error is reported once. --gl-check checks after every pass throughout.
// Test seam: TIDEPOOL_TEST_GL_ERROR=<pass name> makes that pass raise GL_INVALID_ENUM.
#pragma once

#include <glad/gl.h>

#include <chrono>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "render/render_types.h"

namespace tp {

class PassProbe {
 public:
  PassProbe();
  ~PassProbe();
  PassProbe(const PassProbe&) = delete;
  PassProbe& operator=(const PassProbe&) = delete;

  // Turning it on reports errors left from before (start-up) as such, not as a pass's.
  void set_error_check(bool on);
  void begin_frame();  ///< collects finished queries; the once-a-frame error check
  // Starts timing a pass. `scaled`: it is drawn at the frame's tag's resolution scale
  // (see last_frame).
  void begin(const char* pass, bool scaled = false);
  void end();  ///< stops it; checks glGetError when enabled or hunting
  // A number that goes with this frame's times (the surface's resolution scale), set any
  // time before the next begin_frame.
  void tag_frame(float tag) { tags_[frame_] = tag; }

  // Each pass's recent mean times, in drawing order.
  const std::vector<PassTime>& pass_times() const { return times_; }
  // The GPU times of the last frame whose queries all finished, summed, as begin_frame
  // collected it (a few frames late): all its passes, those begun as `scaled`, and the
  // frame's tag. `fresh`: collected by the latest begin_frame (false: none was complete).
  struct FrameTime {
    double gpu_ms = 0.0, scaled_gpu_ms = 0.0;
    float tag = 0.0f;
    bool fresh = false;
  };
  const FrameTime& last_frame() const { return last_frame_; }
  // Every GL error seen so far, "GL error 0x0502 after pass 'smooth x'".
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  void record(GLenum error, const char* where);  ///< keeps it; prints it the first time
  void check_frame();                            ///< the always-on check, between two frames
  static constexpr int kFrames = 4;              ///< query sets in flight
  struct Query {
    std::string pass;
    GLuint id = 0;
    double cpu_ms = 0.0;
    bool scaled = false;
  };
  std::vector<Query> frames_[kFrames];
  size_t used_[kFrames] = {};  ///< queries issued in each set
  float tags_[kFrames] = {};   ///< each set's tag_frame
  FrameTime last_frame_;
  int frame_ = 0;
  size_t next_ = 0;  ///< next query of this frame
  const char* current_ = nullptr;
  std::chrono::steady_clock::time_point started_;  ///< CPU clock at begin()
  bool check_errors_ = false;
  int hunt_frames_ = 0;          ///< frames left with per-pass checks after an error
  GLenum hunted_ = GL_NO_ERROR;  ///< the error being hunted, until a pass shows it
  std::set<std::string> reported_;
  std::string inject_in_;  ///< TIDEPOOL_TEST_GL_ERROR: the pass that raises an error
  std::vector<PassTime> times_;
  std::vector<std::string> errors_;
};

}  // namespace tp
