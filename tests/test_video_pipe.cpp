// The video encoder pipe (src/util/video_pipe.h): frames in, an MP4 out that ffprobe and
// ffmpeg read back with the frames, size, duration and colours given; frames repeated
// where asked; the file only under its name once complete; a missing or failing encoder
// a sentence, never a crash. (Skips, saying why, where the ffmpeg program is missing: the
// app runs without it; scripts/setup.sh installs it for the tests.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "util/gif_export.h"
#include "util/video_pipe.h"

using namespace tp;

namespace {

std::string run(const std::string& command) {
  std::string out;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

bool have_ffmpeg() {
  std::string error;
  return !find_ffmpeg(&error).empty() && system("command -v ffprobe > /dev/null 2>&1") == 0;
}

#define REQUIRE_FFMPEG()                                                                          \
  if (!have_ffmpeg()) GTEST_SKIP() << "the ffmpeg and ffprobe programs are not installed "       \
                                      "(sudo apt install ffmpeg; scripts/setup.sh test does it)"

// One stream's "key=value" lines from ffprobe.
std::string probe(const std::string& path) {
  return run("ffprobe -v error -count_frames -select_streams v:0 -show_entries "
             "stream=codec_name,pix_fmt,width,height,nb_read_frames,color_space:format=duration "
             "-of default=nw=1 '" + path + "'");
}

double value(const std::string& probed, const std::string& key) {
  const size_t at = probed.find(key + "=");
  return at == std::string::npos ? -1.0 : std::atof(probed.c_str() + at + key.size() + 1);
}

// Frame `index` decoded as RGB24 rows, top first.
std::vector<uint8_t> decode_rgb(const std::string& path, int index, int width, int height) {
  const std::string raw = path + ".frame.rgb";  // (beside the video: tests may run at once)
  run("ffmpeg -v error -y -i '" + path + "' -vf 'select=eq(n\\," + std::to_string(index) +
      ")' -frames:v 1 -f rawvideo -pix_fmt rgb24 '" + raw + "'");
  std::vector<uint8_t> rgb(size_t(width) * size_t(height) * 3);
  FILE* f = std::fopen(raw.c_str(), "rb");
  if (!f) return {};
  const size_t got = std::fread(rgb.data(), 1, rgb.size(), f);
  std::fclose(f);
  return got == rgb.size() ? rgb : std::vector<uint8_t>{};
}

// A yuv420p frame of one colour: luma y, chroma u, v (limited range values).
std::vector<uint8_t> flat_yuv(int width, int height, uint8_t y, uint8_t u, uint8_t v) {
  std::vector<uint8_t> f(size_t(width) * size_t(height) * 3 / 2);
  const size_t luma = size_t(width) * size_t(height), chroma = luma / 4;
  std::fill(f.begin(), f.begin() + long(luma), y);
  std::fill(f.begin() + long(luma), f.begin() + long(luma + chroma), u);
  std::fill(f.begin() + long(luma + chroma), f.end(), v);
  return f;
}

// A 320 x 240 video written off the clock (push waits rather than drop), as the offline
// render writes one.
VideoPipeOptions offline_options(const std::string& path) {
  VideoPipeOptions options;
  options.path = path;
  options.width = 320;
  options.height = 240;
  options.wait_when_full = true;
  return options;
}

// `count` grey frames, frame k of luma `luma(k)`; false at the first that push refuses.
template <class Luma>
bool push_greys(VideoPipe& pipe, int count, Luma luma) {
  for (int k = 0; k < count; ++k) {
    std::vector<uint8_t> frame = flat_yuv(320, 240, uint8_t(luma(k)), 128, 128);
    if (!pipe.push(&frame, 1)) return false;
  }
  return true;
}

}  // namespace

// 30 frames shown once and 5 shown three times at 30 frames/s: 45 frames, 1.5 s, H.264
// yuv420p tagged BT.709; the grey and the red frames come back as grey and red. The file has
// its name only once closed (NAME.part before).
TEST(VideoPipe, FramesAndRepeatsMakeAnMp4OfTheirLengthAndColours) {
  REQUIRE_FFMPEG();
  const std::string path = testing::TempDir() + "tp_video_pipe.mp4";
  std::remove(path.c_str());
  VideoPipeOptions options;
  options.path = path;
  options.width = 64;
  options.height = 48;
  options.queue_frames = 64;  // (nothing repeated for want of the encoder here)
  VideoPipe pipe;
  std::string error;
  ASSERT_TRUE(pipe.open(options, &error)) << error;
  EXPECT_EQ(video_frame_bytes(options), size_t(64 * 48 * 3 / 2));
  // BT.709 limited: grey 50 % is Y 126, U = V = 128; pure red is Y 63, U 102, V 240.
  for (int k = 0; k < 30; ++k) {
    std::vector<uint8_t> frame = flat_yuv(64, 48, 126, 128, 128);
    ASSERT_TRUE(pipe.push(&frame, 1));
  }
  for (int k = 0; k < 5; ++k) {
    std::vector<uint8_t> frame = flat_yuv(64, 48, 63, 102, 240);
    ASSERT_TRUE(pipe.push(&frame, 3));
  }
  EXPECT_NE(access(path.c_str(), F_OK), 0) << "the file is NAME.part until closed";
  EXPECT_GE(pipe.frames_held(), 1u) << "the last frame pushed is queued or kept as a spare";
  ASSERT_TRUE(pipe.close(&error)) << error;
  EXPECT_EQ(pipe.frames_held(), 0u) << "a finished pipe gives its frames back";
  EXPECT_NE(access((path + ".part").c_str(), F_OK), 0);
  EXPECT_EQ(pipe.frames_written(), 45);
  EXPECT_EQ(pipe.frames_dropped(), 0);
  const std::string probed = probe(path);
  std::printf("%s", probed.c_str());
  EXPECT_NE(probed.find("codec_name=h264"), std::string::npos) << probed;
  EXPECT_NE(probed.find("pix_fmt=yuv420p"), std::string::npos) << probed;
  EXPECT_NE(probed.find("color_space=bt709"), std::string::npos) << probed;
  EXPECT_EQ(value(probed, "width"), 64.0);
  EXPECT_EQ(value(probed, "height"), 48.0);
  EXPECT_EQ(value(probed, "nb_read_frames"), 45.0) << "the last frames are in the file: the encoder was flushed";
  EXPECT_NEAR(value(probed, "duration"), 1.5, 0.05);
  const std::vector<uint8_t> grey = decode_rgb(path, 10, 64, 48), red = decode_rgb(path, 40, 64, 48);
  ASSERT_FALSE(grey.empty());
  ASSERT_FALSE(red.empty());
  const uint8_t* g = &grey[(24 * 64 + 32) * 3];
  const uint8_t* r = &red[(24 * 64 + 32) * 3];
  std::printf("frame 10: %d %d %d; frame 40: %d %d %d\n", g[0], g[1], g[2], r[0], r[1], r[2]);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(g[c], 128, 6) << c;
  EXPECT_GT(r[0], 230);
  EXPECT_LT(r[1], 25);
  EXPECT_LT(r[2], 25);
}

// Offline (a replay rendered off the clock): with a queue of one frame, 120 frames pushed
// as fast as they come all reach the file; push waits for the encoder instead of dropping.
TEST(VideoPipe, OfflineEveryFramePushedIsInTheVideo) {
  REQUIRE_FFMPEG();
  const std::string path = testing::TempDir() + "tp_video_pipe_offline.mp4";
  std::remove(path.c_str());
  VideoPipeOptions options = offline_options(path);
  options.queue_frames = 1;
  VideoPipe pipe;
  std::string error;
  ASSERT_TRUE(pipe.open(options, &error)) << error;
  ASSERT_TRUE(push_greys(pipe, 120, [](int k) { return 16 + k; })) << "every frame taken";
  ASSERT_TRUE(pipe.close(&error)) << error;
  EXPECT_EQ(pipe.frames_written(), 120);
  EXPECT_EQ(pipe.frames_dropped(), 0);
  EXPECT_EQ(value(probe(path), "nb_read_frames"), 120.0);
}

// BGRA rows bottom first (OpenGL's order), as the window reads a frame on a software
// driver: the first rows given are the bottom of the picture.
TEST(VideoPipe, BgraRowsBottomFirstComeOutUpright) {
  REQUIRE_FFMPEG();
  const std::string path = testing::TempDir() + "tp_video_bgra.mp4";
  VideoPipeOptions options;
  options.path = path;
  options.width = 32;
  options.height = 32;
  options.pixel_format = "bgra";
  options.flip_rows = true;
  options.preset = "ultrafast";
  VideoPipe pipe;
  std::string error;
  ASSERT_TRUE(pipe.open(options, &error)) << error;
  std::vector<uint8_t> frame(32 * 32 * 4);
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      uint8_t* p = &frame[size_t(y * 32 + x) * 4];
      const bool bottom = y < 16;  // the first rows: the bottom
      p[0] = bottom ? 0 : 255;     // B
      p[1] = 0;                    // G
      p[2] = bottom ? 255 : 0;     // R
      p[3] = 255;
    }
  std::vector<uint8_t> copy = frame;
  ASSERT_TRUE(pipe.push(&copy, 2));
  ASSERT_TRUE(pipe.close(&error)) << error;
  const std::vector<uint8_t> rgb = decode_rgb(path, 0, 32, 32);
  ASSERT_FALSE(rgb.empty());
  const uint8_t* top = &rgb[(4 * 32 + 16) * 3];
  const uint8_t* bottom = &rgb[(28 * 32 + 16) * 3];
  std::printf("top %d %d %d, bottom %d %d %d\n", top[0], top[1], top[2], bottom[0], bottom[1], bottom[2]);
  EXPECT_GT(top[2], 245) << "blue on top";
  EXPECT_LT(top[0], 8);
  EXPECT_LT(top[1], 8) << "converted with the BT.709 matrix the stream is tagged with (BT.601's gives 14)";
  EXPECT_GT(bottom[0], 245) << "red at the bottom";
  EXPECT_LT(bottom[1], 8) << "converted with the BT.709 matrix (BT.601's gives 23)";
  EXPECT_LT(bottom[2], 8);
  EXPECT_EQ(value(probe(path), "nb_read_frames"), 2.0);
}

// Without ffmpeg, with a chosen program that is not there, with a size yuv420p cannot take,
// or with an encoder that fails: a sentence each, nothing written, nothing thrown.
TEST(VideoPipe, AMissingOrFailingEncoderIsASentence) {
  const std::string path = testing::TempDir() + "tp_video_missing.mp4";
  std::string error;
  VideoPipeOptions options;
  options.path = path;
  options.width = 32;
  options.height = 32;
  {
    ASSERT_EQ(setenv("TIDEPOOL_FFMPEG", "/nonexistent/ffmpeg", 1), 0);
    VideoPipe pipe;
    EXPECT_FALSE(pipe.open(options, &error));
    EXPECT_NE(error.find("TIDEPOOL_FFMPEG=/nonexistent/ffmpeg is not an executable program"), std::string::npos)
        << error;
    unsetenv("TIDEPOOL_FFMPEG");
  }
  {
    const char* old = std::getenv("PATH");
    const std::string saved = old ? old : "";
    setenv("PATH", "/nonexistent", 1);
    VideoPipe pipe;
    error.clear();
    EXPECT_FALSE(pipe.open(options, &error));
    setenv("PATH", saved.c_str(), 1);
    EXPECT_NE(error.find("sudo apt install ffmpeg"), std::string::npos) << error;
  }
  {
    VideoPipeOptions odd = options;
    odd.width = 33;
    VideoPipe pipe;
    error.clear();
    EXPECT_FALSE(pipe.open(odd, &error));
    EXPECT_NE(error.find("even"), std::string::npos) << error;
  }
  {
    // An "encoder" that exits at once without reading: the frames find a closed pipe.
    ASSERT_EQ(setenv("TIDEPOOL_FFMPEG", "/bin/false", 1), 0);
    VideoPipe pipe;
    error.clear();
    ASSERT_TRUE(pipe.open(options, &error)) << error;
    unsetenv("TIDEPOOL_FFMPEG");
    for (int k = 0; k < 50; ++k) {
      std::vector<uint8_t> frame = flat_yuv(32, 32, 100, 128, 128);
      pipe.push(&frame, 1);
    }
    EXPECT_FALSE(pipe.close(&error));
    std::printf("%s\n", error.c_str());
    EXPECT_NE(error.find("ffmpeg"), std::string::npos) << error;
    EXPECT_NE(access(path.c_str(), F_OK), 0) << "no file under the video's name";
  }
}

// A GIF of a video's last seconds (util/gif_export.h): 4 s at 30 frames/s, dark for the
// first 2 s and bright for the last 2; the GIF of its last 2 s at 15 frames/s, 160 px wide,
// has 30 frames, all bright, the video's shape, and its name only once complete. A video
// shorter than asked gives all of it.
TEST(GifExport, TheLastSecondsOfAVideoBecomeAGifOfTheirLength) {
  REQUIRE_FFMPEG();
  const std::string video = testing::TempDir() + "tp_gif_source.mp4";
  const std::string gif = testing::TempDir() + "tp_gif_last.gif";
  std::remove(gif.c_str());
  {
    VideoPipe pipe;
    std::string error;
    ASSERT_TRUE(pipe.open(offline_options(video), &error)) << error;
    ASSERT_TRUE(push_greys(pipe, 120, [](int k) { return k < 60 ? 30 : 200; }));
    ASSERT_TRUE(pipe.close(&error)) << error;
  }
  GifOptions options;
  options.video = video;
  options.path = gif;
  options.seconds = 2.0;
  options.width = 160;
  options.fps = 15.0;
  GifExport job;
  std::string error;
  ASSERT_TRUE(job.start(options, &error)) << error;
  EXPECT_TRUE(job.busy());
  std::string second_error;
  EXPECT_FALSE(job.start(options, &second_error)) << "one at a time";
  bool ok = false;
  bool ended = false;
  for (int k = 0; k < 600 && !ended; ++k) {  // (polled as the window does, a minute at most)
    ended = job.poll(false, &ok, &error);
    if (!ended) {
      EXPECT_NE(access(gif.c_str(), F_OK), 0) << "the GIF has its name only once complete";
      usleep(100000);
    }
  }
  ASSERT_TRUE(ended) << "no GIF within a minute";
  ASSERT_TRUE(ok) << error;
  EXPECT_FALSE(job.busy());
  const std::string probed = probe(gif);
  std::printf("%s", probed.c_str());
  EXPECT_NE(probed.find("codec_name=gif"), std::string::npos) << probed;
  EXPECT_EQ(value(probed, "width"), 160.0);
  EXPECT_EQ(value(probed, "height"), 120.0);
  EXPECT_NEAR(value(probed, "nb_read_frames"), 30.0, 2.0) << "2 s at 15 frames/s";
  for (int index : {0, 29}) {
    const std::vector<uint8_t> rgb = decode_rgb(gif, index, 160, 120);
    ASSERT_FALSE(rgb.empty()) << "frame " << index;
    EXPECT_GT(rgb[(60 * 160 + 80) * 3], 150) << "frame " << index << " is of the bright end, not the dark start";
  }
  // All of a video shorter than the seconds asked.
  options.seconds = 10.0;
  options.path = testing::TempDir() + "tp_gif_all.gif";
  ASSERT_TRUE(job.start(options, &error)) << error;
  ASSERT_TRUE(job.poll(true, &ok, &error));
  ASSERT_TRUE(ok) << error;
  EXPECT_NEAR(value(probe(options.path), "nb_read_frames"), 60.0, 2.0) << "4 s at 15 frames/s";
}

TEST(GifExport, AMissingVideoOrEncoderOrABrokenFileIsASentence) {
  GifOptions options;
  options.video = testing::TempDir() + "tp_gif_no_such_video.mp4";
  options.path = testing::TempDir() + "tp_gif_none.gif";
  GifExport job;
  std::string error;
  EXPECT_FALSE(job.start(options, &error));
  EXPECT_NE(error.find("no video " + options.video), std::string::npos) << error;
  // A file that is not a video: ffmpeg fails, and that is said; no GIF, no .part left.
  options.video = testing::TempDir() + "tp_gif_not_a_video.mp4";
  {
    FILE* f = std::fopen(options.video.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("not a video\n", f);
    std::fclose(f);
  }
  if (have_ffmpeg()) {
    error.clear();
    ASSERT_TRUE(job.start(options, &error)) << error;
    bool ok = true;
    ASSERT_TRUE(job.poll(true, &ok, &error));
    EXPECT_FALSE(ok);
    EXPECT_NE(error.find("ffmpeg could not make the GIF"), std::string::npos) << error;
    EXPECT_NE(access(options.path.c_str(), F_OK), 0);
    EXPECT_NE(access((options.path + ".part").c_str(), F_OK), 0);
  }
  ASSERT_EQ(setenv("TIDEPOOL_FFMPEG", "/nonexistent/ffmpeg", 1), 0);
  error.clear();
  EXPECT_FALSE(job.start(options, &error));
  unsetenv("TIDEPOOL_FFMPEG");
  EXPECT_NE(error.find("TIDEPOOL_FFMPEG=/nonexistent/ffmpeg"), std::string::npos) << error;
  options.seconds = -1.0;
  error.clear();
  EXPECT_FALSE(job.start(options, &error));
  EXPECT_NE(error.find("0 to 60 s"), std::string::npos) << error;
}
