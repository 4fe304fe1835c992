// The environment the water reflects: an equirectangular image (top row = straight up)
// loaded with stb_image. A missing or unreadable file is one line on stderr and a plain
// sky-coloured texture instead, never an error that stops the app.
#pragma once

#include <glad/gl.h>

#include <string>

namespace tp {

class EnvironmentTexture {
 public:
  explicit EnvironmentTexture(const std::string& path);
  ~EnvironmentTexture();
  EnvironmentTexture(const EnvironmentTexture&) = delete;
  EnvironmentTexture& operator=(const EnvironmentTexture&) = delete;

  GLuint id() const { return id_; }
  bool loaded() const { return loaded_; }  ///< false: the plain-colour fallback

 private:
  GLuint id_ = 0;
  bool loaded_ = false;
};

}  // namespace tp
