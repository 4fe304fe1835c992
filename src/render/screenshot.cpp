#include "render/screenshot.h"

#include <glad/gl.h>
#include <stb_image_write.h>

#include "util/atomic_file.h"

#include <cstring>
#include <string>
#include <vector>

namespace tp {

bool save_screenshot(const std::string& path, int width, int height, std::string* error) {
  if (width <= 0 || height <= 0) {
    *error = "cannot save screenshot '" + path + "': the window has no pixels (minimised?)";
    return false;
  }
  const size_t row = size_t(width) * 3;
  std::vector<unsigned char> pixels(row * size_t(height));
  // Through a frame of our own: the back buffer blitted into it, then read. A plain read of
  // the window is clipped by llvmpipe to the size it knew before it checks the window's,
  // and after a resize it copied past its buffer's end (the monkey test: F12 right after a
  // resize); a blit checks first. Where the window is smaller, the picture is black.
  GLuint fbo = 0, color = 0;
  glGenRenderbuffers(1, &color);
  glBindRenderbuffer(GL_RENDERBUFFER, color);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glBindRenderbuffer(GL_RENDERBUFFER, 0);
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
  const bool complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  if (complete) {
    GLfloat clear[4];
    glGetFloatv(GL_COLOR_CLEAR_VALUE, clear);
    GLboolean scissor = glIsEnabled(GL_SCISSOR_TEST);
    glDisable(GL_SCISSOR_TEST);
    glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glClearColor(clear[0], clear[1], clear[2], clear[3]);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    glReadBuffer(GL_BACK);
    glBlitFramebuffer(0, 0, width, height, 0, 0, width, height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
    if (scissor) glEnable(GL_SCISSOR_TEST);
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  glDeleteFramebuffers(1, &fbo);
  glDeleteRenderbuffers(1, &color);
  if (!complete) {
    *error = "cannot save screenshot '" + path + "': no frame of " + std::to_string(width) + "x" +
             std::to_string(height) + " pixels on this OpenGL";
    return false;
  }
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
