#include "render/frame_readback.h"

#include <glad/gl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

namespace tp {

namespace {

// A texture of `format` with an FBO drawing into it.
void make_target(GLenum internal, GLenum format, GLenum filter, int width, int height, unsigned* texture,
                 unsigned* fbo) {
  glGenTextures(1, texture);
  glBindTexture(GL_TEXTURE_2D, *texture);
  glTexImage2D(GL_TEXTURE_2D, 0, GLint(internal), width, height, 0, format, GL_UNSIGNED_BYTE, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GLint(filter));
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GLint(filter));
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindTexture(GL_TEXTURE_2D, 0);
  glGenFramebuffers(1, fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, *texture, 0);
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (status != GL_FRAMEBUFFER_COMPLETE) throw RenderError("the video's frame buffer is incomplete on this GL");
}

}  // namespace

ReadbackSource preferred_readback_source() {
  const char* chosen = std::getenv("TIDEPOOL_VIDEO_READ");
  if (chosen && std::strcmp(chosen, "drawn") == 0) return ReadbackSource::Drawn;
  if (chosen && std::strcmp(chosen, "shown") == 0) return ReadbackSource::Shown;
  const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const std::string name = renderer ? renderer : "";
  for (const char* software : {"llvmpipe", "softpipe", "swrast", "Software Rasterizer"})
    if (name.find(software) != std::string::npos) return ReadbackSource::Shown;
  return ReadbackSource::Drawn;
}

FrameReadback::FrameReadback(ReadbackSource source, int width, int height, const std::string& shader_dir, Take take,
                             int ring)
    : source_(source),
      width_(std::max(width & ~1, 2)),
      height_(std::max(height & ~3, 4)),
      take_(std::move(take)),
      slots_(size_t(std::max(ring, 1))) {
  if (source_ == ReadbackSource::Drawn) {
    program_ = GlProgram::load(shader_dir, "fullscreen.vert", "video_yuv.frag");
    make_target(GL_RGBA8, GL_RGBA, GL_LINEAR, width_, height_, &frame_texture_, &frame_fbo_);
    make_target(GL_R8, GL_RED, GL_NEAREST, width_, height_ * 3 / 2, &yuv_texture_, &yuv_fbo_);
    glGenVertexArrays(1, &vao_);
  } else {
    make_target(GL_RGBA8, GL_RGBA, GL_NEAREST, width_, height_, &frame_texture_, &frame_fbo_);
  }
  for (Slot& slot : slots_) {
    glGenBuffers(1, &slot.buffer);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, slot.buffer);
    glBufferData(GL_PIXEL_PACK_BUFFER, GLsizeiptr(frame_bytes()), nullptr, GL_STREAM_READ);
  }
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
}

FrameReadback::~FrameReadback() {
  for (Slot& slot : slots_) {
    if (slot.fence) glDeleteSync(GLsync(slot.fence));
    glDeleteBuffers(1, &slot.buffer);
  }
  glDeleteFramebuffers(1, &frame_fbo_);
  glDeleteTextures(1, &frame_texture_);
  if (source_ == ReadbackSource::Drawn) {
    glDeleteVertexArrays(1, &vao_);
    glDeleteFramebuffers(1, &yuv_fbo_);
    glDeleteTextures(1, &yuv_texture_);
  }
}

size_t FrameReadback::frame_bytes() const {
  const size_t pixels = size_t(width_) * size_t(height_);
  return source_ == ReadbackSource::Drawn ? pixels * 3 / 2 : pixels * 4;
}

bool FrameReadback::hand_over(Slot& slot, bool wait) {
  if (slot.fence) {
    const GLenum state = glClientWaitSync(GLsync(slot.fence), wait ? GL_SYNC_FLUSH_COMMANDS_BIT : 0,
                                          wait ? GLuint64(5'000'000'000) : 0);
    // Waiting, a transfer not done in 5 s is still taken: the map below waits for it (given
    // up, its frame was lost and its slot reused with the fence still set).
    if (state == GL_TIMEOUT_EXPIRED && !wait) return false;
    glDeleteSync(GLsync(slot.fence));
    slot.fence = nullptr;
  }
  glBindBuffer(GL_PIXEL_PACK_BUFFER, slot.buffer);
  const void* pixels = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, GLsizeiptr(frame_bytes()), GL_MAP_READ_BIT);
  if (pixels) {
    take_(static_cast<const uint8_t*>(pixels), slot.tag);
    glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
  }
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  return true;
}

void FrameReadback::collect(bool wait) {
  const int ring = int(slots_.size());
  while (pending_ > 0) {
    Slot& oldest = slots_[size_t((next_ - pending_ + ring) % ring)];
    if (!hand_over(oldest, wait)) return;
    --pending_;
  }
}

void FrameReadback::convert(int framebuffer_width, int framebuffer_height) {
  // The back buffer into the frame texture: as it is (a window larger than the video by the
  // pixel or few its size was rounded down by: the top-left part), or scaled to fit and
  // centred when the window's size has changed since the recording began.
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, frame_fbo_);
  const int over_x = framebuffer_width - width_, over_y = framebuffer_height - height_;
  if (over_x >= 0 && over_x < 4 && over_y >= 0 && over_y < 4) {
    glBlitFramebuffer(0, over_y, width_, framebuffer_height, 0, 0, width_, height_, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  } else {
    glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    const double scale = std::min(double(width_) / framebuffer_width, double(height_) / framebuffer_height);
    const int w = std::max(1, int(framebuffer_width * scale)), h = std::max(1, int(framebuffer_height * scale));
    const int x0 = (width_ - w) / 2, y0 = (height_ - h) / 2;
    glBlitFramebuffer(0, 0, framebuffer_width, framebuffer_height, x0, y0, x0 + w, y0 + h, GL_COLOR_BUFFER_BIT,
                      GL_LINEAR);
  }
  // yuv420p on the GPU.
  glBindFramebuffer(GL_FRAMEBUFFER, yuv_fbo_);
  glViewport(0, 0, width_, height_ * 3 / 2);
  program_.use();
  const char* names[] = {"u_frame"};
  const GLuint textures[] = {frame_texture_};
  program_.bind_textures(names, textures, 1);
  glUniform2i(program_.uniform("u_size"), width_, height_);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glUseProgram(0);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, yuv_fbo_);
  glReadBuffer(GL_COLOR_ATTACHMENT0);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width_, height_ * 3 / 2, GL_RED, GL_UNSIGNED_BYTE, nullptr);
}

void FrameReadback::read_shown(int framebuffer_width, int framebuffer_height, bool resizing) {
  // The back buffer: a software driver's swap copies it out and leaves it as it was (its
  // front buffer reads back black under Xvfb).
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  const int w = std::min(width_, framebuffer_width), h = std::min(height_, framebuffer_height);
  // The top rows of a window taller than the video (rows bottom first: the last ones).
  const int y0 = std::max(0, framebuffer_height - height_);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  if (!resizing) {
    if (w < width_ || h < height_) {
      // A window made smaller than the video: black where it has no pixels.
      const std::vector<uint8_t> black(frame_bytes(), 0);
      glBufferSubData(GL_PIXEL_PACK_BUFFER, 0, GLsizeiptr(black.size()), black.data());
    }
    glPixelStorei(GL_PACK_ROW_LENGTH, width_);
    glReadPixels(0, y0, w, h, GL_BGRA, GL_UNSIGNED_BYTE, nullptr);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    return;
  }
  // Lately resized: through the video's own frame (see read()).
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, frame_fbo_);
  glViewport(0, 0, width_, height_);
  if (w < width_ || h < height_) {
    GLfloat clear[4];
    glGetFloatv(GL_COLOR_CLEAR_VALUE, clear);
    glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glClearColor(clear[0], clear[1], clear[2], clear[3]);
  }
  glBlitFramebuffer(0, y0, w, y0 + h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, frame_fbo_);
  glReadPixels(0, 0, width_, height_, GL_BGRA, GL_UNSIGNED_BYTE, nullptr);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
}

void FrameReadback::read(int framebuffer_width, int framebuffer_height, int tag, bool resizing) {
  if (framebuffer_width <= 0 || framebuffer_height <= 0) return;
  const int ring = int(slots_.size());
  if (pending_ == ring) {  // every buffer in flight: the oldest must come out first
    hand_over(slots_[size_t(next_)], true);
    --pending_;
  }
  GLint viewport[4];
  glGetIntegerv(GL_VIEWPORT, viewport);
  const GLboolean blend = glIsEnabled(GL_BLEND), depth = glIsEnabled(GL_DEPTH_TEST),
                  scissor = glIsEnabled(GL_SCISSOR_TEST), cull = glIsEnabled(GL_CULL_FACE);
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_CULL_FACE);

  Slot& slot = slots_[size_t(next_)];
  glBindBuffer(GL_PIXEL_PACK_BUFFER, slot.buffer);
  if (source_ == ReadbackSource::Drawn) convert(framebuffer_width, framebuffer_height);
  else read_shown(framebuffer_width, framebuffer_height, resizing);
  slot.fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  slot.tag = tag;
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  next_ = (next_ + 1) % ring;
  ++pending_;

  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
  if (blend) glEnable(GL_BLEND);
  if (depth) glEnable(GL_DEPTH_TEST);
  if (scissor) glEnable(GL_SCISSOR_TEST);
  if (cull) glEnable(GL_CULL_FACE);
}

}  // namespace tp
