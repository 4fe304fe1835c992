// OpenGL without a display (tests/app/egl_context.h): the context the GPU machines' interop
// test falls back to, made here on Mesa's EGL (llvmpipe), with the display unset as it is
// there. It must give a current 3.3 core context in which a buffer holds what it was given.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "egl_context.h"

using namespace tp;

TEST(HeadlessGl, AnEglContextWithoutADisplayKeepsABuffersContents) {
  unsetenv("DISPLAY");
  unsetenv("WAYLAND_DISPLAY");
  EglContext gl;
  if (!gl.ok() && (gl.error().find("cannot be opened") != std::string::npos ||
                   gl.error().find("headers were not found") != std::string::npos))
    GTEST_SKIP() << "no EGL here (" << gl.error() << "): skipped";
  ASSERT_TRUE(gl.ok()) << gl.error();
  GLint major = 0, minor = 0, profile = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
  const char* vendor = reinterpret_cast<const char*>(glGetString(GL_VENDOR));
  const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  std::printf("[ headless GL ] %s: OpenGL %d.%d, %s, %s\n", gl.source().c_str(), major, minor,
              vendor ? vendor : "?", renderer ? renderer : "?");
  EXPECT_GE(major * 10 + minor, 33);
  EXPECT_TRUE(profile & GL_CONTEXT_CORE_PROFILE_BIT);

  std::vector<float> data(4096);
  for (size_t k = 0; k < data.size(); ++k) data[k] = 0.25f * float(k) - 7.0f;
  GLuint buffer = 0;
  glGenBuffers(1, &buffer);
  ASSERT_NE(buffer, 0u);
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(data.size() * sizeof(float)), data.data(), GL_DYNAMIC_DRAW);
  std::vector<float> back(data.size(), 0.0f);
  glGetBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(back.size() * sizeof(float)), back.data());
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glDeleteBuffers(1, &buffer);
  EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
  EXPECT_EQ(back, data);
}
