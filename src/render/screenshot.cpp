#include "render/screenshot.h"

#include <glad/gl.h>
#include <stb_image_write.h>

#include "util/atomic_file.h"

#include <cstring>
#include <vector>

namespace tp {

bool save_screenshot(const std::string& path, int width, int height, std::string* error) {
  if (width <= 0 || height <= 0) {
    *error = "cannot save screenshot '" + path + "': the window has no pixels (minimised?)";
    return false;
  }
  const size_t row = size_t(width) * 3;
  std::vector<unsigned char> pixels(row * size_t(height));
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  // GL's first row is the bottom of the image; PNG's is the top.
  std::vector<unsigned char> flipped(pixels.size());
  for (int y = 0; y < height; ++y)
    std::memcpy(&flipped[size_t(y) * row], &pixels[size_t(height - 1 - y) * row], row);

  std::vector<unsigned char> png;
  const auto append = [](void* context, void* data, int size) {
    auto* out = static_cast<std::vector<unsigned char>*>(context);
    out->insert(out->end(), static_cast<unsigned char*>(data), static_cast<unsigned char*>(data) + size);
  };
  if (!stbi_write_png_to_func(append, &png, width, height, 3, flipped.data(), int(row))) {
    *error = "cannot encode screenshot '" + path + "' as PNG";
    return false;
  }
  if (!write_file_atomic(path, png.data(), png.size(), error)) return false;
  return true;
}

}  // namespace tp
