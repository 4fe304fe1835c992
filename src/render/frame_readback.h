// The window's frames read back for a video without waiting for them (the video recorder,
// app/window/video_recording.h), in one of two ways:
//
// - Drawn (a GPU's driver): during the frame, after the scene (or after the panel), the
//   back buffer is copied into a texture, converted to yuv420p on the GPU
//   (shaders/video_yuv.frag: the encoder then only encodes, and reads 1.5 bytes a pixel
//   instead of 4) and read into the next of a ring of pixel buffer objects with a fence
//   behind it. glReadPixels into a GL_PIXEL_PACK_BUFFER returns at once; a read is handed
//   over only once its fence has passed, a frame or two later.
// - Shown (a software driver, such as Mesa's llvmpipe under Xvfb): there every use of the
//   back buffer during the frame makes the window wait for the software rasterizer to
//   finish the scene, where it would otherwise go on with the next frame: measured here,
//   -20 to -25 % frames/s, even for a read of one pixel or a copy into a texture. So the
//   frame is read after the swap, from the back buffer as shown (with the panel unless it
//   is hidden): blitted into a frame of the video's size and read from there as BGRA into
//   the pixel buffer ring (a read straight from the window could run past llvmpipe's
//   buffer when the window had just been resized), and the encoder converts it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "render/gl_program.h"

namespace tp {

enum class ReadbackSource {
  Drawn,  ///< the back buffer during the frame, converted to yuv420p on the GPU
  Shown,  ///< the front buffer after the swap, BGRA (rows bottom first)
};

// Which way suits this GL: Shown for a software renderer (GL_RENDERER names llvmpipe,
// softpipe or swrast), else Drawn. $TIDEPOOL_VIDEO_READ=drawn|shown chooses (tests run both).
ReadbackSource preferred_readback_source();

class FrameReadback {
 public:
  // What a finished read is handed to: `pixels` (frame_bytes(), valid during the call) and
  // the read's tag.
  using Take = std::function<void(const uint8_t* pixels, int tag)>;

  // Frames of `width` x `height` (width even, height a multiple of 4). Drawn loads its
  // shaders from `shader_dir`: throws RenderError naming a missing or broken one. Needs the
  // GL context (and it current when destroyed).
  FrameReadback(ReadbackSource source, int width, int height, const std::string& shader_dir, Take take,
                int ring = 3);
  ~FrameReadback();
  FrameReadback(const FrameReadback&) = delete;
  FrameReadback& operator=(const FrameReadback&) = delete;

  ReadbackSource source() const { return source_; }
  // yuv420p, top row first (Drawn); BGRA, bottom row first (Shown).
  size_t frame_bytes() const;

  // Starts reading the frame (Drawn: the back buffer, after drawing and before the swap;
  // Shown: the front buffer, right after the swap) of framebuffer_width x
  // framebuffer_height; `tag` comes back with the pixels. A framebuffer whose size is no
  // longer the video's is scaled to fit (Drawn) or cut and padded with black (Shown).
  // Leaves the default framebuffer bound and the viewport as it was. With every buffer of
  // the ring still in flight, waits for the oldest and hands it over first.
  // `resizing` (Shown): the window's size changed lately; the frame is then blitted into a
  // frame of the video's own and read from there, which llvmpipe checks against the
  // window's size first (a plain read of the window is clipped to the size llvmpipe knew,
  // and a resize just before it made it copy past its buffer's end); otherwise it is read
  // from the window, which costs a third as much here.
  void read(int framebuffer_width, int framebuffer_height, int tag, bool resizing = false);

  // Hands over, oldest first, every read whose transfer has finished (all of them, waiting,
  // with `wait`).
  void collect(bool wait = false);

 private:
  struct Slot {
    unsigned buffer = 0;
    void* fence = nullptr;  // GLsync
    int tag = 0;
  };
  // Maps slot's finished read and gives it to take_; false only when not `wait`ing and the
  // transfer is not done yet.
  bool hand_over(Slot& slot, bool wait);
  void convert(int framebuffer_width, int framebuffer_height);  // Drawn: into yuv_fbo_
  void read_shown(int framebuffer_width, int framebuffer_height, bool resizing);

  ReadbackSource source_;
  int width_, height_;
  Take take_;
  GlProgram program_;                           // Drawn
  unsigned frame_texture_ = 0, frame_fbo_ = 0;  // the frame, width x height RGBA8
  unsigned yuv_texture_ = 0, yuv_fbo_ = 0;      // Drawn: width x 3 height / 2, R8
  unsigned vao_ = 0;
  std::vector<Slot> slots_;
  int next_ = 0;     // the slot the next read uses
  int pending_ = 0;  // reads in flight, the oldest at next_ - pending_
};

}  // namespace tp
