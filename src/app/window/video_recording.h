// F9, the panel's Record video button and --video FILE: the window's view recorded into an
// MP4 while it runs, for any kind of scene (the frame loop drives it, frame_loop.cpp).
//
// The clock is the wall clock (docs/recording.md): a frame is taken whenever a 1/30 s tick
// has passed since the last one, and it stands for every tick that passed, so the video
// lasts as long as the recording did and plays at the pace the window showed, even when
// the window drew fewer than 30 frames a second (those frames are shown for longer). The
// reads are asynchronous (render/frame_readback.h) and the encoding runs in ffmpeg beside
// the app (util/video_pipe.h): a frame of the window never waits for either.
//
// With a GPU's driver the frame is read as drawn: after the scene and before the panel
// (the default), or after the panel; the red marker and the time recorded are drawn after
// the read, on screen only. With a software driver (llvmpipe) the frame is read as shown,
// after the swap (reading it earlier makes the window wait for the rasterizer): the panel
// is in it unless hidden (Tab), and there is no marker, whose place would be in the video;
// the panel's button and status say that it records.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "app/window/panel_files.h"
#include "util/gif_export.h"

namespace tp {

class FrameReadback;
class VideoPipe;

class VideoRecording {
 public:
  VideoRecording();
  ~VideoRecording();  // stops and waits for the file (close_at_exit)

  // Starts recording a framebuffer of fb_width x fb_height (its width cropped to even, its
  // height to a multiple of 4: yuv420p) into `path`, or a new timestamped name in the
  // working directory when it is "", with the shaders of `shader_dir`. Says what it does,
  // or why it cannot (no ffmpeg, a missing shader), on stderr and in files.video_status.
  // Needs the GL context.
  bool start(const std::string& path, const std::string& shader_dir, int fb_width, int fb_height, double now,
             FileControls& files);
  // Offline (a replay rendered to a video, on the simulated clock): `fps` frames a second,
  // every frame captured waits for the encoder rather than be dropped, and the encoder
  // takes its default preset and all cores (the window does not have to keep up). Call
  // before start.
  void set_offline(double fps) {
    offline_ = true;
    fps_ = fps;
  }
  // Stops taking frames; the file is finished beside the app (status: "Saving ...", then
  // "Saved ..." once poll sees it done).
  void stop(FileControls& files);
  bool recording() const { return recording_; }
  bool with_panel() const { return with_panel_; }
  // The frame is read after the swap (a software driver), rather than during the frame.
  bool reads_shown() const { return shown_; }

  // After the frame's drawing (the scene, or the scene and the panel; reads_shown(): after
  // the swap): reads it when a tick is due.
  void capture_if_due(double now, int fb_width, int fb_height);
  // Once a frame: hands finished reads to the encoder, and says when a stopped video's file
  // is complete (files.video_status).
  void poll(FileControls& files);
  // The red marker and the time recorded, top right, while recording (an ImGui frame under
  // way: drawn on the foreground list, which the frame loop keeps out of the video).
  void draw_marker(double now) const;

  // Stops if recording and waits for the file (the end of a session), and for a GIF under
  // way. Says on stderr what was saved. Needs the GL context while a recording runs.
  void close_at_exit(FileControls& files);

  // The panel's "GIF of its last 5 s": a GIF of the end of the last video saved, beside it,
  // made in the background (util/gif_export.h); poll says when it is done.
  void make_gif(FileControls& files);

  // Whether a video asked for at `path` (as given to start) could not be started or saved
  // (the exit code of --video MP4; F9's videos have names of their own).
  bool failed(const std::string& path) const { return !path.empty() && failed_.count(path) > 0; }

  // Frames in the video so far (repeats included) and frames dropped because the encoder
  // fell behind, of the latest recording.
  long frames() const;
  long dropped() const;

 private:
  void report_finished(FileControls& files, bool wait);
  void take(const uint8_t* pixels, int repeat);  // a finished read, to the encoder

  void report_gif(FileControls& files, bool wait);

  std::unique_ptr<VideoPipe> pipe_;
  std::set<std::string> failed_;  // the paths of the videos that failed
  GifExport gif_;
  std::string last_video_;  // the last video saved
  std::unique_ptr<FrameReadback> readback_;
  std::vector<uint8_t> buffer_;
  bool recording_ = false, saving_ = false, with_panel_ = false, shown_ = false, offline_ = false;
  int width_ = 0, height_ = 0;
  double fps_ = 30.0;
  double start_time_ = 0.0, next_tick_ = 0.0, seconds_ = 0.0;
  long ticks_ = 0;  // ticks captured so far (the video's frames)
  int last_width_ = 0, last_height_ = 0, steady_frames_ = 0;  // the framebuffer's size, and frames since it changed
};

}  // namespace tp
