// A GIF of a video's last seconds: the panel's "GIF of its last 5 s" under a saved video
// (docs/recording.md). A GIF is what a chat, an issue tracker or a forum post plays
// inline; an MP4 is not, everywhere.
//
// Made by the ffmpeg program from the MP4 (the frames are there already, at full quality),
// in a process of its own at a low priority, in the background: the window goes on while
// it works, and polls it. One pass of a filter graph: the clip's frames at `fps`, scaled to
// `width`, split in two; a palette of 256 colours made from the one (stats_mode=diff: the
// colours of what moves count most, which is the water), the other mapped to it with an
// ordered dither (no crawling noise between frames, and smaller files than diffusion's).
// Written as PATH.part and renamed when complete.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace tp {

struct GifOptions {
  std::string video;    ///< the MP4 to take it from
  std::string path;     ///< the .gif to write
  double seconds = 5.0; ///< its last seconds (all of it when shorter)
  int width = 480;      ///< [px] the height follows the video's shape
  double fps = 15.0;    ///< frames per second
};

// ffmpeg's arguments (the program first) for `options`.
std::vector<std::string> gif_command(const std::string& ffmpeg, const GifOptions& options);

class GifExport {
 public:
  GifExport() = default;
  ~GifExport();  // waits for a GIF under way (a minute at most, then stops it), and keeps it
  GifExport(const GifExport&) = delete;
  GifExport& operator=(const GifExport&) = delete;

  // Starts making options.path. false with a sentence in *error: ffmpeg missing (what to
  // install), the video missing, options out of range, one under way already.
  bool start(const GifOptions& options, std::string* error);
  bool busy() const { return pid_ > 0; }
  // Without waiting (`wait`: until it ends, a minute at most, after which ffmpeg is stopped
  // and that is the failure): true once the GIF under way has ended, with
  // *ok and, when not, a sentence in *error. false while it works or when none was started.
  bool poll(bool wait, bool* ok, std::string* error);
  const std::string& path() const { return options_.path; }

 private:
  GifOptions options_;
  pid_t pid_ = -1;
};

}  // namespace tp
