#include "render/environment_texture.h"

#include <stb_image.h>

#include <cstdio>

namespace tp {

EnvironmentTexture::EnvironmentTexture(const std::string& path) {
  glGenTextures(1, &id_);
  glBindTexture(GL_TEXTURE_2D, id_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  int width = 0, height = 0, channels = 0;
  unsigned char* pixels = stbi_load(path.c_str(), &width, &height, &channels, 3);
  if (pixels) {
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB8, width, height, 0, GL_RGB, GL_UNSIGNED_BYTE, pixels);
    stbi_image_free(pixels);
    loaded_ = true;
  } else {
    const char* why = stbi_failure_reason();
    std::fprintf(stderr,
                 "tidepool: cannot load the environment texture '%s' (%s); the water reflects "
                 "a plain sky colour instead\n",
                 path.c_str(), why ? why : "unknown reason");
    const unsigned char sky[3] = {150, 180, 215};
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB8, 1, 1, 0, GL_RGB, GL_UNSIGNED_BYTE, sky);
  }
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindTexture(GL_TEXTURE_2D, 0);
}

EnvironmentTexture::~EnvironmentTexture() { glDeleteTextures(1, &id_); }

}  // namespace tp
