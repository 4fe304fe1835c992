// Shader programs read at run time from one file per stage, so a shader can be edited and
// reloaded without rebuilding. Every failure becomes a RenderError whose message names the
// file and carries the driver's GLSL log: a broken shader is a message, never a crash.
#pragma once

#include <glad/gl.h>

#include <stdexcept>
#include <string>

namespace tp {

class RenderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An owned GL program object (move-only). Uniform locations are looked up by name on use;
// the handful of uniforms per draw makes a cache not worth its code.
class GlProgram {
 public:
  GlProgram() = default;
  ~GlProgram();
  GlProgram(GlProgram&& other) noexcept;
  GlProgram& operator=(GlProgram&& other) noexcept;
  GlProgram(const GlProgram&) = delete;
  GlProgram& operator=(const GlProgram&) = delete;

  // Compiles `dir/<vertex_file>` and `dir/<fragment_file>` and links them. Throws RenderError.
  static GlProgram load(const std::string& dir, const std::string& vertex_file,
                        const std::string& fragment_file);

  GLuint id() const { return id_; }
  void use() const { glUseProgram(id_); }
  GLint uniform(const char* name) const { return glGetUniformLocation(id_, name); }
  // Binds textures[k] to texture unit k and the sampler uniform names[k] to it, k < count;
  // leaves unit 0 active. The program must be in use.
  void bind_textures(const char* const* names, const GLuint* textures, int count) const {
    for (int unit = 0; unit < count; ++unit) {
      glActiveTexture(GLenum(GL_TEXTURE0 + unit));
      glBindTexture(GL_TEXTURE_2D, textures[unit]);
      glUniform1i(uniform(names[unit]), unit);
    }
    glActiveTexture(GL_TEXTURE0);
  }

 private:
  explicit GlProgram(GLuint id) : id_(id) {}
  GLuint id_ = 0;
};

// Reads a whole text file. Throws RenderError naming the path and the system's reason.
std::string read_text_file(const std::string& path);

}  // namespace tp
