#include "render/pass_probe.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace tp {

namespace {
constexpr int kHuntFrames = 3;  // frames of per-pass checks after an error was seen
}  // namespace

PassProbe::PassProbe() {
  if (const char* pass = std::getenv("TIDEPOOL_TEST_GL_ERROR")) inject_in_ = pass;
}

PassProbe::~PassProbe() {
  for (auto& frame : frames_)
    for (Query& q : frame) glDeleteQueries(1, &q.id);
}

void PassProbe::set_error_check(bool on) {
  check_errors_ = on;
  if (!on) return;
  for (GLenum e = glGetError(); e != GL_NO_ERROR; e = glGetError())
    record(e, "at start-up, before any pass");
}

void PassProbe::record(GLenum error, const char* where) {
  char text[200];
  std::snprintf(text, sizeof(text), "GL error 0x%04x %s", unsigned(error), where);
  errors_.emplace_back(text);
  if (reported_.insert(text).second) std::fprintf(stderr, "tidepool: %s\n", text);
}

void PassProbe::check_frame() {
  // Errors left now came after the last pass's end(): from the panel, a screenshot, or
  // (while no pass is checked) from any pass of the last frame.
  GLenum error = GL_NO_ERROR;
  for (GLenum e = glGetError(); e != GL_NO_ERROR; e = glGetError())
    if (error == GL_NO_ERROR) error = e;
  if (hunt_frames_ > 0) {
    if (error != GL_NO_ERROR) {
      record(error, "after the last render pass of a frame (in the panel or a screenshot)");
      if (error == hunted_) hunted_ = GL_NO_ERROR;  // found
    }
    if (--hunt_frames_ == 0 && hunted_ != GL_NO_ERROR)
      record(hunted_, "in one frame; it did not come back when each pass was checked");
    if (hunt_frames_ == 0) hunted_ = GL_NO_ERROR;
    return;
  }
  if (error == GL_NO_ERROR) return;
  hunted_ = error;  // find the pass: check after each one for the next few frames
  hunt_frames_ = kHuntFrames;
}

void PassProbe::begin_frame() {
  if (!check_errors_) check_frame();
  // The set about to be reused was issued kFrames - 1 frames ago: read what has finished.
  frame_ = (frame_ + 1) % kFrames;
  // The list follows the passes of that frame, in their order: a pass that no longer runs
  // (the other render mode's) drops out, a new one comes in with its first time.
  std::vector<PassTime> updated;
  FrameTime frame;
  frame.tag = tags_[frame_];
  frame.fresh = used_[frame_] > 0;
  for (size_t k = 0; k < used_[frame_]; ++k) {
    const Query& q = frames_[frame_][k];
    GLint ready = 0;
    glGetQueryObjectiv(q.id, GL_QUERY_RESULT_AVAILABLE, &ready);
    if (!ready) {
      frame.fresh = false;  // a frame's sum without some of its passes would mislead
      continue;
    }
    GLuint64 ns = 0;
    glGetQueryObjectui64v(q.id, GL_QUERY_RESULT, &ns);
    PassTime t{q.pass, double(ns) * 1e-6, q.cpu_ms};
    frame.gpu_ms += t.gpu_ms;
    if (q.scaled) frame.scaled_gpu_ms += t.gpu_ms;
    for (const PassTime& old : times_)
      if (old.pass == q.pass) {  // means over about 10 frames
        t.gpu_ms = old.gpu_ms + 0.1 * (t.gpu_ms - old.gpu_ms);
        t.cpu_ms = old.cpu_ms + 0.1 * (t.cpu_ms - old.cpu_ms);
      }
    updated.push_back(t);
  }
  if (!updated.empty()) times_ = std::move(updated);
  if (frame.fresh) last_frame_ = frame;
  last_frame_.fresh = frame.fresh;
  next_ = 0;
  used_[frame_] = 0;
  tags_[frame_] = 0.0f;
}

void PassProbe::begin(const char* pass, bool scaled) {
  std::vector<Query>& frame = frames_[frame_];
  if (next_ == frame.size()) {
    frame.push_back(Query{});
    glGenQueries(1, &frame.back().id);
  }
  Query& q = frame[next_++];
  used_[frame_] = next_;
  q.pass = pass;
  q.scaled = scaled;
  current_ = pass;
  glBeginQuery(GL_TIME_ELAPSED, q.id);
  started_ = std::chrono::steady_clock::now();
}

void PassProbe::end() {
  glEndQuery(GL_TIME_ELAPSED);
  frames_[frame_][next_ - 1].cpu_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_).count();
  if (!inject_in_.empty() && inject_in_ == current_) glEnable(GLenum(0));  // GL_INVALID_ENUM
  if (!check_errors_ && hunt_frames_ == 0) return;
  const std::string where = std::string("after pass '") + current_ + "'";
  for (GLenum e = glGetError(); e != GL_NO_ERROR; e = glGetError()) {
    record(e, where.c_str());
    if (e == hunted_) hunted_ = GL_NO_ERROR;  // found
  }
}

}  // namespace tp
