#include "render/driver_scenes.h"

#include <glad/gl.h>

#include <cstring>

namespace tp {

DriverScenes::DriverScenes() {
  const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  llvmpipe_ = renderer != nullptr && std::strstr(renderer, "llvmpipe") != nullptr;
}

void DriverScenes::recycle() const {
  if (!llvmpipe_) return;
  const GLboolean scissor = glIsEnabled(GL_SCISSOR_TEST);
  glDisable(GL_SCISSOR_TEST);  // (whole clears: a scene's worth of work each)
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  for (int k = 0; k < kClears; ++k) {
    glClear(GL_COLOR_BUFFER_BIT);
    glFlush();
  }
  if (scissor) glEnable(GL_SCISSOR_TEST);
}

}  // namespace tp
