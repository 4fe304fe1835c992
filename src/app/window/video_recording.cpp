#include "app/window/video_recording.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <system_error>

#include "app/window/screenshot_file.h"
#include "imgui.h"
#include "render/frame_readback.h"
#include "util/video_pipe.h"

namespace tp {

namespace {

constexpr double kVideoFps = 30.0;

std::string file_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

std::string megabytes(const std::string& path) {
  struct stat st {};
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", stat(path.c_str(), &st) == 0 ? double(st.st_size) / 1e6 : 0.0);
  return text;
}

std::string clock_text(double seconds) {
  const int whole = int(seconds);
  char text[32];
  std::snprintf(text, sizeof text, "%d:%02d.%d", whole / 60, whole % 60, int((seconds - whole) * 10.0));
  return text;
}

}  // namespace

VideoRecording::VideoRecording() = default;

VideoRecording::~VideoRecording() {
  if (pipe_) {
    std::string ignored;
    pipe_->close(&ignored);
  }
}

bool VideoRecording::start(const std::string& path, const std::string& shader_dir, int fb_width, int fb_height,
                           double now, FileControls& files) {
  if (recording_) return true;
  if (saving_) report_finished(files, true);  // the previous video's end first
  std::string target = path;
  if (target.empty()) {
    std::error_code ignored;
    const std::string directory = std::filesystem::current_path(ignored).string();
    target = free_screenshot_path(directory.empty() ? "." : directory, std::time(nullptr), ".mp4");
  }
  VideoPipeOptions options;
  options.path = target;
  options.width = fb_width & ~1;   // (yuv420p's chroma is of 2 x 2 blocks; the readback packs
  options.height = fb_height & ~3;  //  two chroma rows to a row of its target)
  options.fps = offline_ ? fps_ : kVideoFps;
  auto pipe = std::make_unique<VideoPipe>();
  // How the frames are read (render/frame_readback.h) decides what the encoder is given:
  // yuv420p from the GPU, or the frame as shown, BGRA, for ffmpeg to convert (and there
  // the encoder shares the cores with a software rasterizer: its cheapest preset).
  const ReadbackSource source = preferred_readback_source();
  if (source == ReadbackSource::Shown) {
    options.pixel_format = "bgra";
    options.flip_rows = true;
    options.preset = "ultrafast";
    options.threads = 1;
  }
  if (offline_) {
    options.wait_when_full = true;
    options.preset = "medium";  // (x264's default)
    options.threads = 0;        // (all cores)
  }
  std::unique_ptr<FrameReadback> readback;
  std::string error;
  if (options.width <= 0 || options.height <= 0) error = "the window has no pixels to record";
  if (error.empty()) {
    try {
      readback = std::make_unique<FrameReadback>(source, options.width, options.height, shader_dir,
                                                 [this](const uint8_t* pixels, int repeat) { take(pixels, repeat); });
    } catch (const std::exception& e) {  // a shader missing or broken, GL objects, memory
      error = e.what();
    }
  }
  if (error.empty()) {
    try {
      pipe->open(options, &error);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  if (!error.empty()) {
    std::fprintf(stderr, "tidepool: no video: %s\n", error.c_str());
    files.video_status = "No video: " + error;
    files.video_failed = true;
    failed_.insert(target);
    return false;
  }
  pipe_ = std::move(pipe);
  readback_ = std::move(readback);
  files.video_saved = false;  // (the GIF button waits for this video)
  last_video_.clear();
  width_ = options.width;
  height_ = options.height;
  fps_ = options.fps;
  recording_ = true;
  shown_ = source == ReadbackSource::Shown;
  with_panel_ = files.video_with_panel && !shown_;
  start_time_ = next_tick_ = now;
  seconds_ = 0.0;
  ticks_ = 0;
  last_width_ = fb_width;
  last_height_ = fb_height;
  steady_frames_ = 1000;  // (not resizing)
  files.video_recording = true;
  files.video_failed = false;
  files.video_status = "Recording " + file_name(target);
  std::fprintf(stderr, "tidepool: recording video %s (%dx%d, %g frames/s, %s)\n", target.c_str(), width_, height_,
               fps_,
               shown_        ? "the window as shown: software GL"
               : with_panel_ ? "with the panel"
                             : "the view without the panel");
  return true;
}

void VideoRecording::take(const uint8_t* pixels, int repeat) {
  buffer_.resize(readback_->frame_bytes());  // (a buffer back from the encoder: already this size)
  std::memcpy(buffer_.data(), pixels, buffer_.size());
  pipe_->push(&buffer_, repeat);  // (a full queue drops the frame: counted)
}

void VideoRecording::capture_if_due(double now, int fb_width, int fb_height) {
  if (!recording_) return;
  // For two frames after the window's size changed, nothing is read (the ticks wait for
  // the next read, which stands for them): a software driver reallocates its back buffer
  // when it sees the new size, which may be after GLFW reported it, and a read in between
  // went past the buffer's end inside the driver (llvmpipe, found by the monkey test).
  if (fb_width != last_width_ || fb_height != last_height_) {
    last_width_ = fb_width;
    last_height_ = fb_height;
    steady_frames_ = 0;
  }
  if (steady_frames_ < 2) {
    ++steady_frames_;
    return;
  }
  // For two seconds of frames after a size change, the careful read (frame_readback.h).
  const bool resizing = steady_frames_ < 2 + long(2.0 * fps_);
  if (resizing) ++steady_frames_;
  if (now < next_tick_) return;
  // Every tick up to now is this frame's: the video keeps the wall clock's time. A gap of
  // more than a second (the window minimised, the machine asleep) is cut to one: the video
  // holds the frame a second rather than for the whole gap.
  long due = long(std::floor((now - next_tick_) * fps_)) + 1;
  if (due > long(fps_)) {
    start_time_ += double(due - long(fps_)) / fps_;
    due = long(fps_);
  }
  readback_->read(fb_width, fb_height, int(due), resizing);
  ticks_ += due;
  next_tick_ = start_time_ + double(ticks_) / fps_;
  seconds_ = now - start_time_;
}

void VideoRecording::stop(FileControls& files) {
  if (!recording_) return;
  readback_->collect(true);
  readback_.reset();  // (the callback it holds is done with)
  std::vector<uint8_t>().swap(buffer_);  // (a frame: 4.6 MB at 1280x900)
  pipe_->finish();
  recording_ = false;
  saving_ = true;
  files.video_recording = false;
  files.video_status = "Saving " + file_name(pipe_->path()) + " ...";
}

void VideoRecording::report_finished(FileControls& files, bool wait) {
  if (!saving_ || !pipe_) return;
  if (!wait && !pipe_->finished()) return;
  std::string error;
  const bool ok = pipe_->close(&error);
  saving_ = false;
  const long written = long(pipe_->frames_written()), dropped = long(pipe_->frames_dropped());
  char figures[160];
  std::snprintf(figures, sizeof figures, "%ld frames, %.1f s%s", written, double(written) / fps_,
                dropped ? (", " + std::to_string(dropped) + " of them repeats where the encoder fell behind").c_str() : "");
  if (!ok) {
    files.video_saved = false;
    last_video_.clear();
    failed_.insert(pipe_->path());
    std::fprintf(stderr, "tidepool: video not saved: %s\n", error.c_str());
    files.video_status = "Video not saved: " + error;
    files.video_failed = true;
    return;
  }
  std::fprintf(stderr, "tidepool: saved video %s (%dx%d, %s, %s)\n", pipe_->path().c_str(), width_, height_, figures,
               megabytes(pipe_->path()).c_str());
  files.video_status = "Saved " + file_name(pipe_->path()) + " (" + figures + ")";
  files.video_failed = false;
  files.video_saved = written > 0;
  last_video_ = pipe_->path();
}

void VideoRecording::make_gif(FileControls& files) {
  if (last_video_.empty() || gif_.busy()) return;
  GifOptions options;
  options.video = last_video_;
  options.path = std::filesystem::path(last_video_).replace_extension(".gif").string();
  if (options.path == last_video_) options.path += ".gif";  // (a video named NAME.gif)
  options.width = std::min(480, width_ & ~1);
  std::string error;
  if (!gif_.start(options, &error)) {
    std::fprintf(stderr, "tidepool: no GIF: %s\n", error.c_str());
    files.gif_status = "No GIF: " + error;
    files.gif_failed = true;
    return;
  }
  files.gif_busy = true;
  files.gif_failed = false;
  files.gif_status = "Making " + file_name(options.path) + " ...";
}

void VideoRecording::report_gif(FileControls& files, bool wait) {
  bool ok = false;
  std::string error;
  files.gif_busy = gif_.busy();  // (a mode that began while the GIF was made knows it too)
  if (!gif_.poll(wait, &ok, &error)) return;
  files.gif_busy = false;
  files.gif_failed = !ok;
  if (!ok) {
    std::fprintf(stderr, "tidepool: GIF not saved: %s\n", error.c_str());
    files.gif_status = "GIF not saved: " + error;
    return;
  }
  std::fprintf(stderr, "tidepool: saved GIF %s (%s)\n", gif_.path().c_str(), megabytes(gif_.path()).c_str());
  files.gif_status = "Saved " + file_name(gif_.path()) + " (" + megabytes(gif_.path()) + ")";
}

void VideoRecording::poll(FileControls& files) {
  report_gif(files, false);
  if (recording_ && pipe_->finished()) {  // the encoder ended by itself: a failure to say
    stop(files);
    report_finished(files, true);
    return;
  }
  if (recording_) {
    readback_->collect(false);
    files.video_status = "Recording " + file_name(pipe_->path()) + ": " + clock_text(seconds_);
    if (pipe_->frames_dropped() > 0)
      files.video_status += " (" + std::to_string(pipe_->frames_dropped()) + " frames repeated: the encoder is behind)";
    return;
  }
  report_finished(files, false);
}

void VideoRecording::draw_marker(double now) const {
  if (!recording_ || shown_) return;
  ImDrawList* list = ImGui::GetForegroundDrawList();
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const float em = ImGui::GetFontSize();
  const std::string text = "REC " + clock_text(now - start_time_);
  const ImVec2 size = ImGui::CalcTextSize(text.c_str());
  const ImVec2 corner(display.x - size.x - 2.2f * em, 0.6f * em);
  list->AddRectFilled(ImVec2(corner.x - 0.5f * em, corner.y - 0.3f * em),
                      ImVec2(display.x - 0.4f * em, corner.y + size.y + 0.3f * em), IM_COL32(0, 0, 0, 150), 4.0f);
  // The dot blinks once a second.
  const bool lit = std::fmod(now - start_time_, 1.0) < 0.7;
  list->AddCircleFilled(ImVec2(corner.x + 0.45f * em, corner.y + 0.5f * size.y), 0.45f * em,
                        lit ? IM_COL32(230, 30, 30, 255) : IM_COL32(110, 20, 20, 255));
  list->AddText(ImVec2(corner.x + 1.3f * em, corner.y), IM_COL32(255, 255, 255, 255), text.c_str());
}

void VideoRecording::close_at_exit(FileControls& files) {
  stop(files);
  report_finished(files, true);
  report_gif(files, true);
}

long VideoRecording::frames() const { return pipe_ ? long(pipe_->frames_written()) : 0; }
long VideoRecording::dropped() const { return pipe_ ? long(pipe_->frames_dropped()) : 0; }

}  // namespace tp
