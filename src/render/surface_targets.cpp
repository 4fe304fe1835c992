#include "render/surface_targets.h"

#include "render/gl_program.h"

namespace tp {

namespace {

GLuint make_texture(GLint internal_format, GLenum format, GLenum type, int width, int height) {
  GLuint texture = 0;
  glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexImage2D(GL_TEXTURE_2D, 0, internal_format, width, height, 0, format, type, nullptr);
  // Linear only where the shading pass reads between texels (the refracted scene, the
  // half-resolution thickness).
  const GLint filter =
      internal_format == GL_RGBA8 || internal_format == GL_R16F ? GL_LINEAR : GL_NEAREST;
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  return texture;
}

// `color` 0: a depth-only framebuffer.
GLuint make_fbo(GLuint color, GLuint depth) {
  GLuint fbo = 0;
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  if (color) {
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, color, 0);
  } else {
    glDrawBuffer(GL_NONE);
    glReadBuffer(GL_NONE);
  }
  if (depth) glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, depth, 0);
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (status != GL_FRAMEBUFFER_COMPLETE)
    throw RenderError(
        "the graphics driver cannot render into the surface mode's off-screen "
        "textures (framebuffer status " +
        std::to_string(status) + ")");
  return fbo;
}

}  // namespace

SurfaceTargets::SurfaceTargets() { glGenVertexArrays(1, &empty_vao); }

SurfaceTargets::~SurfaceTargets() {
  release();
  glDeleteVertexArrays(1, &empty_vao);
}

void SurfaceTargets::release() {
  const GLuint fbos[] = {scene_fbo,  thickness_fbo, depth_fbo, temp_fbo,
                         smooth_fbo, normal_fbo,    opaque_fbo};
  glDeleteFramebuffers(7, fbos);
  const GLuint textures[] = {scene_color, scene_depth,  thickness, depth_raw,
                             depth_temp,  depth_smooth, normal,    opaque_depth};
  glDeleteTextures(8, textures);
  scene_fbo = thickness_fbo = depth_fbo = temp_fbo = smooth_fbo = normal_fbo = opaque_fbo = 0;
  scene_color = scene_depth = thickness = depth_raw = depth_temp = depth_smooth = normal = 0;
  opaque_depth = 0;
  width_ = height_ = thickness_width_ = thickness_height_ = 0;
}

void SurfaceTargets::resize(int width, int height) {
  if (width == width_ && height == height_) return;
  release();
  if (width <= 0 || height <= 0) return;
  scene_color = make_texture(GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE, width, height);
  scene_depth =
      make_texture(GL_DEPTH_COMPONENT24, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, width, height);
  thickness_width_ = (width + 1) / 2;
  thickness_height_ = (height + 1) / 2;
  thickness = make_texture(GL_R16F, GL_RED, GL_FLOAT, thickness_width_, thickness_height_);
  depth_raw = make_texture(GL_R32F, GL_RED, GL_FLOAT, width, height);
  depth_temp = make_texture(GL_RG32F, GL_RG, GL_FLOAT, width, height);  // depth, coverage
  depth_smooth = make_texture(GL_R32F, GL_RED, GL_FLOAT, width, height);
  normal = make_texture(GL_RGBA16F, GL_RGBA, GL_FLOAT, width, height);
  opaque_depth =
      make_texture(GL_DEPTH_COMPONENT24, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, width, height);
  // The raw depth is depth-tested against the scene's: spheres behind the floor (seen from
  // below) are hidden. The thickness, at half resolution (it varies slowly, and its
  // additive blending is the costliest pass in software GL), is not: the particles never
  // leave the tank, so from above the floor nothing of the scene is in front of them.
  scene_fbo = make_fbo(scene_color, scene_depth);
  thickness_fbo = make_fbo(thickness, 0);
  depth_fbo = make_fbo(depth_raw, scene_depth);
  temp_fbo = make_fbo(depth_temp, 0);
  smooth_fbo = make_fbo(depth_smooth, 0);
  normal_fbo = make_fbo(normal, 0);
  opaque_fbo = make_fbo(0, opaque_depth);
  width_ = width;
  height_ = height;
}

void SurfaceTargets::keep_opaque_depth() const {
  if (width_ <= 0 || height_ <= 0) return;
  glBindFramebuffer(GL_READ_FRAMEBUFFER, scene_fbo);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, opaque_fbo);
  glBlitFramebuffer(0, 0, width_, height_, 0, 0, width_, height_, GL_DEPTH_BUFFER_BIT,
                    GL_NEAREST);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

}  // namespace tp
