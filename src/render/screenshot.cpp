#include "render/screenshot.h"

#include <glad/gl.h>
#include <stb_image_write.h>

#include <cerrno>
#include <cstdio>
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

  const std::string part = path + ".part";
  errno = 0;
  if (!stbi_write_png(part.c_str(), width, height, 3, flipped.data(), int(row))) {
    *error = "cannot write screenshot '" + part +
             "': " + (errno ? std::strerror(errno) : "the PNG encoder failed");
    std::remove(part.c_str());
    return false;
  }
  if (std::rename(part.c_str(), path.c_str()) != 0) {
    *error = "cannot rename '" + part + "' to '" + path + "': " + std::strerror(errno);
    std::remove(part.c_str());
    return false;
  }
  return true;
}

}  // namespace tp
