#include "render/gl_program.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

namespace tp {

namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.empty() ? "(the driver gave no log)" : text;
}

std::string shader_log(GLuint shader) {
  GLint length = 0;
  glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
  std::vector<char> log(size_t(length > 1 ? length : 1), '\0');
  glGetShaderInfoLog(shader, GLsizei(log.size()), nullptr, log.data());
  return trimmed(log.data());
}

std::string program_log(GLuint program) {
  GLint length = 0;
  glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
  std::vector<char> log(size_t(length > 1 ? length : 1), '\0');
  glGetProgramInfoLog(program, GLsizei(log.size()), nullptr, log.data());
  return trimmed(log.data());
}

GLuint compile(GLenum stage, const std::string& path) {
  const std::string source = read_text_file(path);
  const GLuint shader = glCreateShader(stage);
  const char* text = source.c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    const std::string log = shader_log(shader);
    glDeleteShader(shader);
    throw RenderError("shader '" + path + "' does not compile:\n" + log);
  }
  return shader;
}

}  // namespace

std::string read_text_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw RenderError("cannot read shader file '" + path + "': " + std::strerror(errno) +
                      " (set TIDEPOOL_DATA_DIR to the folder holding shaders/ if it moved)");
  }
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

GlProgram::~GlProgram() {
  if (id_) glDeleteProgram(id_);
}

GlProgram::GlProgram(GlProgram&& other) noexcept : id_(std::exchange(other.id_, 0)) {}

GlProgram& GlProgram::operator=(GlProgram&& other) noexcept {
  if (this != &other) {
    if (id_) glDeleteProgram(id_);
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

GlProgram GlProgram::load(const std::string& dir, const std::string& vertex_file,
                          const std::string& fragment_file) {
  const GLuint vs = compile(GL_VERTEX_SHADER, dir + "/" + vertex_file);
  GLuint fs = 0;
  try {
    fs = compile(GL_FRAGMENT_SHADER, dir + "/" + fragment_file);
  } catch (...) {
    glDeleteShader(vs);
    throw;
  }
  const GLuint program = glCreateProgram();
  glAttachShader(program, vs);
  glAttachShader(program, fs);
  glLinkProgram(program);
  // The program keeps what it needs; the shader objects can go either way.
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = GL_FALSE;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (!ok) {
    const std::string log = program_log(program);
    glDeleteProgram(program);
    throw RenderError("shaders '" + dir + "/" + vertex_file + "' and '" + fragment_file +
                      "' do not link:\n" + log);
  }
  return GlProgram(program);
}

}  // namespace tp
