// Screenshots as numbers: loading a PNG (stb_image, from libstb) and the few statistics the
// window tests judge a frame by. Rectangles are half-open [x0, x1) x [y0, y1) in image
// pixels, y down (PNG order), and are clipped to the image.
#pragma once

#include <stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace tp::test {

struct Rgb {
  double r = 0, g = 0, b = 0;
};

struct Rect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int width() const { return x1 - x0; }
  int height() const { return y1 - y0; }
};

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  ///< width * height * 3, rows top to bottom
  std::string error;         ///< why loading failed (empty when it worked)

  bool ok() const { return width > 0 && height > 0; }
  const uint8_t* at(int x, int y) const { return &rgb[(size_t(y) * size_t(width) + size_t(x)) * 3]; }
  Rect all() const { return Rect{0, 0, width, height}; }
  Rect clip(const Rect& r) const {
    return Rect{std::clamp(r.x0, 0, width), std::clamp(r.y0, 0, height), std::clamp(r.x1, 0, width),
                std::clamp(r.y1, 0, height)};
  }
};

inline Image load_png(const std::string& path) {
  Image image;
  int channels = 0;
  unsigned char* data = stbi_load(path.c_str(), &image.width, &image.height, &channels, 3);
  if (!data) {
    image.width = image.height = 0;
    const char* why = stbi_failure_reason();
    image.error = "cannot load '" + path + "': " + (why ? why : "unknown error");
    return image;
  }
  image.rgb.assign(data, data + size_t(image.width) * size_t(image.height) * 3);
  stbi_image_free(data);
  return image;
}

inline double luminance(const uint8_t* p) { return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]; }

// Largest channel difference between a pixel and a colour.
inline int channel_distance(const uint8_t* p, int r, int g, int b) {
  return std::max({std::abs(p[0] - r), std::abs(p[1] - g), std::abs(p[2] - b)});
}

// The renderer's "water" colour mode: shaded blue spheres, from dark navy (about 8,49,123)
// to the lit highlights (about 100,145,225). Grey things (floor tiles, tank lines, the
// background, panel text) have r, g and b close together and are not water.
inline bool is_water_blue(const uint8_t* p) {
  return p[2] >= 70 && p[2] >= p[0] + 45 && p[2] >= p[1] + 30;
}

// Number of pixels further than `tolerance` (largest channel difference) from a colour.
inline long count_unlike(const Image& image, Rect rect, int r, int g, int b, int tolerance) {
  rect = image.clip(rect);
  long n = 0;
  for (int y = rect.y0; y < rect.y1; ++y)
    for (int x = rect.x0; x < rect.x1; ++x)
      if (channel_distance(image.at(x, y), r, g, b) > tolerance) ++n;
  return n;
}

struct LuminanceStats {
  double min = 0, max = 0, mean = 0, stddev = 0;
};

inline LuminanceStats luminance_stats(const Image& image, Rect rect) {
  rect = image.clip(rect);
  LuminanceStats s;
  s.min = 1e9;
  s.max = -1e9;
  double sum = 0, sum2 = 0;
  long n = 0;
  for (int y = rect.y0; y < rect.y1; ++y)
    for (int x = rect.x0; x < rect.x1; ++x) {
      const double l = luminance(image.at(x, y));
      s.min = std::min(s.min, l);
      s.max = std::max(s.max, l);
      sum += l;
      sum2 += l * l;
      ++n;
    }
  if (n == 0) return LuminanceStats{};
  s.mean = sum / double(n);
  s.stddev = std::sqrt(std::max(0.0, sum2 / double(n) - s.mean * s.mean));
  return s;
}

// Where the pixels for which `pred` holds are: how many, their centroid, bounding box and
// how many columns of the bounding box hold at least one of them.
struct Blob {
  long count = 0;
  double cx = 0, cy = 0;
  Rect box;
  int columns_hit = 0;
};

template <class Pred>
Blob find_pixels(const Image& image, Rect rect, Pred pred) {
  rect = image.clip(rect);
  Blob b;
  b.box = Rect{rect.x1, rect.y1, rect.x0, rect.y0};
  std::vector<char> column(size_t(std::max(rect.width(), 0)), 0);
  double sx = 0, sy = 0;
  for (int y = rect.y0; y < rect.y1; ++y)
    for (int x = rect.x0; x < rect.x1; ++x) {
      if (!pred(image.at(x, y))) continue;
      ++b.count;
      sx += x;
      sy += y;
      b.box.x0 = std::min(b.box.x0, x);
      b.box.y0 = std::min(b.box.y0, y);
      b.box.x1 = std::max(b.box.x1, x + 1);
      b.box.y1 = std::max(b.box.y1, y + 1);
      column[size_t(x - rect.x0)] = 1;
    }
  if (b.count == 0) return Blob{};
  b.cx = sx / double(b.count);
  b.cy = sy / double(b.count);
  for (int x = b.box.x0; x < b.box.x1; ++x) b.columns_hit += column[size_t(x - rect.x0)];
  return b;
}

inline Blob find_water(const Image& image, Rect rect) {
  return find_pixels(image, rect, [](const uint8_t* p) { return is_water_blue(p); });
}

// Mean over the rectangle of the mean absolute channel difference, 0..255. Images of
// different sizes compare as maximally different.
inline double mean_abs_diff(const Image& a, const Image& b, Rect rect) {
  if (a.width != b.width || a.height != b.height) return 255.0;
  rect = a.clip(rect);
  double sum = 0;
  long n = 0;
  for (int y = rect.y0; y < rect.y1; ++y)
    for (int x = rect.x0; x < rect.x1; ++x) {
      const uint8_t *p = a.at(x, y), *q = b.at(x, y);
      sum += (std::abs(p[0] - q[0]) + std::abs(p[1] - q[1]) + std::abs(p[2] - q[2])) / 3.0;
      ++n;
    }
  return n ? sum / double(n) : 0.0;
}

// As mean_abs_diff, over the means of `block` x `block` tiles: what a lossy video's
// chroma subsampling and quantisation blur (a spray dot's edge, a sphere's rim) averages
// out, where a different state (water that moved) still differs tile by tile.
inline double mean_abs_diff_tiles(const Image& a, const Image& b, Rect rect, int block) {
  if (a.width != b.width || a.height != b.height || block < 1) return 255.0;
  rect = a.clip(rect);
  double sum = 0;
  long n = 0;
  for (int y0 = rect.y0; y0 + block <= rect.y1; y0 += block)
    for (int x0 = rect.x0; x0 + block <= rect.x1; x0 += block) {
      double d[3] = {0, 0, 0};
      for (int y = y0; y < y0 + block; ++y)
        for (int x = x0; x < x0 + block; ++x)
          for (int c = 0; c < 3; ++c) d[c] += double(a.at(x, y)[c]) - double(b.at(x, y)[c]);
      sum += (std::abs(d[0]) + std::abs(d[1]) + std::abs(d[2])) / (3.0 * block * block);
      ++n;
    }
  return n ? sum / double(n) : 0.0;
}

// Number of pixels that differ at all (any channel) inside the rectangle.
inline long count_differing(const Image& a, const Image& b, Rect rect) {
  if (a.width != b.width || a.height != b.height) return -1;
  rect = a.clip(rect);
  long n = 0;
  for (int y = rect.y0; y < rect.y1; ++y)
    for (int x = rect.x0; x < rect.x1; ++x)
      if (std::memcmp(a.at(x, y), b.at(x, y), 3) != 0) ++n;
  return n;
}

// Mean colour of `image` over the pixels where `mask` (same size) satisfies `pred`.
template <class Pred>
Rgb mean_color_where(const Image& image, const Image& mask, Rect rect, Pred pred) {
  Rgb m;
  if (image.width != mask.width || image.height != mask.height) return m;
  rect = image.clip(rect);
  long n = 0;
  for (int y = rect.y0; y < rect.y1; ++y)
    for (int x = rect.x0; x < rect.x1; ++x) {
      if (!pred(mask.at(x, y))) continue;
      const uint8_t* p = image.at(x, y);
      m.r += p[0];
      m.g += p[1];
      m.b += p[2];
      ++n;
    }
  if (n) m.r /= double(n), m.g /= double(n), m.b /= double(n);
  return m;
}

inline double color_distance(const Rgb& a, const Rgb& b) {
  return std::sqrt((a.r - b.r) * (a.r - b.r) + (a.g - b.g) * (a.g - b.g) + (a.b - b.b) * (a.b - b.b));
}

}  // namespace tp::test
