// Writing a video: raw frames piped to the ffmpeg program (Debian's ffmpeg package), which
// encodes them as H.264 in an MP4 (yuv420p, BT.709, the form every common player takes).
// The window hands it frames already in yuv420p (converted on the GPU,
// render/frame_readback.h), so that ffmpeg only encodes; RGBA frames are taken too.
// Why a pipe rather than linking libavcodec: the encoder runs in a process of its own, on
// cores of its own, and can neither crash the app nor stall its frame loop; nothing in
// the app depends on libav's API, which changes between Debian releases; and without
// ffmpeg the app builds and runs the same (only this says what to install).
//
// The frames go to a queue that a writer thread of this object empties into the pipe, so
// push() never waits for the encoder: a frame that finds the queue full is dropped, and
// the frame queued before it is shown for its time instead (counted: the video keeps its
// length and the window its pace). At the end the writer thread
// writes what is queued, closes the pipe (ffmpeg then encodes the frames it still holds
// and writes the file's index: the known pitfall of videos that lose their end) and waits
// for ffmpeg; the file is written as NAME.part and renamed to NAME only then, so a reader
// never sees half a video. finish() asks for that end without waiting (the window goes on
// drawing while ffmpeg finishes); close() waits for it. (The process ignores SIGPIPE
// from the first open on: an encoder that dies is an error to report, not a reason to quit.)
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tp {

struct VideoPipeOptions {
  std::string path;        ///< the .mp4 to write
  int width = 0;           ///< [px] even (yuv420p): the caller crops odd sizes
  int height = 0;          ///< [px] even
  double fps = 30.0;       ///< frames per second of the video
  /// The frames pushed: "yuv420p" (BT.709, limited range, top row first: W x H luma, then
  /// the U and V planes, (W/2) x (H/2) each), "rgba" or "bgra" (4 bytes a pixel).
  std::string pixel_format = "yuv420p";
  bool flip_rows = false;  ///< rgba and bgra: the first row is the bottom one (OpenGL's order; ffmpeg flips)
  int queue_frames = 12;   ///< frames that may wait for the encoder before push drops one (at least 1)
  /// Offline (a replay rendered off the clock): push waits for room in the queue rather
  /// than drop a frame, so that every frame rendered is in the video.
  bool wait_when_full = false;
  /// x264's preset: "veryfast" (a third of the default's CPU time, a few per cent larger)
  /// or "ultrafast" (a third of that again, files about 2.5 times larger).
  std::string preset = "veryfast";
  int threads = 2;         ///< the encoder's threads (0: as many as it likes)
  /// The encoder's niceness. 0: at 10 (the app's threads first) the default window here
  /// drew as many frames a second (28.1 to 29.1 against 28.3 to 28.4) while the encoder,
  /// starved, repeated 6 to 48 % of the video's frames; at 0, none.
  int nice = 0;
};

// The bytes of one frame of `options`' size and pixel format.
size_t video_frame_bytes(const VideoPipeOptions& options);

// The ffmpeg program to run: $TIDEPOOL_FFMPEG if set, else "ffmpeg" found on PATH. Returns
// its path, or "" with a sentence in *error that says what to install.
std::string find_ffmpeg(std::string* error);

class VideoPipe {
 public:
  VideoPipe() = default;
  ~VideoPipe();  // closes (and keeps what was written) if still open
  VideoPipe(const VideoPipe&) = delete;
  VideoPipe& operator=(const VideoPipe&) = delete;

  // Starts ffmpeg writing options.path (as path.part until close). false with a sentence
  // in *error when ffmpeg is missing, the size is not even and positive, or it cannot start.
  bool open(const VideoPipeOptions& options, std::string* error);
  bool is_open() const { return pid_ > 0; }

  // One frame (video_frame_bytes of it), shown `repeat` times (a slow frame loop repeats a
  // frame so that the video keeps the wall clock's time). The buffer is taken (swapped
  // with a spare one, which comes back in *rgba). false when the queue was full (the frame
  // is dropped, and the one queued before it repeated `repeat` times more) or the encoder
  // has failed.
  bool push(std::vector<uint8_t>* rgba, int repeat = 1);

  // Asks for the end (above) without waiting; push() refuses frames from then on.
  void finish();
  // Whether the end has come (after finish(): the file renamed into place, or a failure).
  bool finished() const;
  // finish(), then waits for the end. false with a sentence in *error when the encoder
  // failed (what it wrote is kept as path.part for a look). Safe to call twice.
  bool close(std::string* error);

  // Frame buffers the pipe holds (queued for the encoder, or spare for the next push); none
  // once it has finished.
  size_t frames_held() const;
  int64_t frames_written() const;  ///< frames of the video (repeats included)
  int64_t frames_dropped() const;  ///< frames of the video that repeat the one before for want of the encoder
  const std::string& path() const { return options_.path; }

 private:
  void writer();
  bool write_all(const uint8_t* data, size_t size);

  VideoPipeOptions options_;
  pid_t pid_ = -1;
  int fd_ = -1;  // the pipe into ffmpeg's standard input
  std::thread thread_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable room_;  // push (wait_when_full): the writer took a frame
  struct Frame {
    std::vector<uint8_t> rgba;
    int repeat = 1;
  };
  std::deque<Frame> queue_;
  std::vector<std::vector<uint8_t>> spares_;
  bool closing_ = false;
  bool ended_ = false;  // the writer thread has waited for ffmpeg
  bool failed_ = false;
  std::string failure_;
  int64_t written_ = 0, dropped_ = 0;
};

}  // namespace tp
