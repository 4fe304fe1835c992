#include "render/surface_targets.h"

#include "render/gl_program.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace tp {

namespace {

// `filter` 0: linear where a pass reads between texels (the refracted scene, the
// half-resolution thickness), else nearest (read texel by texel).
GLuint make_texture(GLint internal_format, GLenum format, GLenum type, int width, int height,
                    GLint filter = 0) {
  GLuint texture = 0;
  glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexImage2D(GL_TEXTURE_2D, 0, internal_format, width, height, 0, format, type, nullptr);
  if (filter == 0)
    filter = internal_format == GL_RGBA8 || internal_format == GL_R16F ? GL_LINEAR : GL_NEAREST;
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  return texture;
}

// No colours: a depth-only framebuffer. Several: drawn to as locations 0, 1, ...
GLuint make_fbo(std::initializer_list<GLuint> colors, GLuint depth) {
  GLuint fbo = 0;
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  GLenum buffers[4] = {};
  GLsizei count = 0;
  for (GLuint color : colors) {
    buffers[count] = GLenum(GL_COLOR_ATTACHMENT0 + count);
    glFramebufferTexture2D(GL_FRAMEBUFFER, buffers[count], GL_TEXTURE_2D, color, 0);
    ++count;
  }
  if (count == 0) {
    glDrawBuffer(GL_NONE);
    glReadBuffer(GL_NONE);
  } else if (count > 1) {
    glDrawBuffers(count, buffers);
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

SurfaceTargets::SurfaceTargets() {
  glGenVertexArrays(1, &empty_vao);
  bounds = make_texture(GL_RGBA32F, GL_RGBA, GL_FLOAT, 1, 1);
  bounds_fbo = make_fbo({bounds}, 0);
}

SurfaceTargets::~SurfaceTargets() {
  release_scaled();
  release_window_sized();
  glDeleteFramebuffers(1, &bounds_fbo);
  glDeleteTextures(1, &bounds);
  glDeleteVertexArrays(1, &empty_vao);
}

void SurfaceTargets::draw_water_rect(const GlProgram& program, glm::vec2 grow) const {
  glActiveTexture(GLenum(GL_TEXTURE0 + kBoundsUnit));
  glBindTexture(GL_TEXTURE_2D, bounds);
  glUniform1i(program.uniform("u_bounds"), kBoundsUnit);
  // Texels to NDC: the screen is 2 units across.
  glUniform2f(program.uniform("u_grow"), 2.0f * grow.x / float(std::max(scaled_width_, 1)),
              2.0f * grow.y / float(std::max(scaled_height_, 1)));
  glActiveTexture(GL_TEXTURE0);
  glBindVertexArray(empty_vao);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  glBindVertexArray(0);
}

void SurfaceTargets::release() {
  if (empty()) return;
  // Unbound from every unit the passes use first: a texture a unit still samples keeps
  // its store alive in Mesa after the delete.
  for (int unit = 0; unit <= kBoundsUnit; ++unit) {
    glActiveTexture(GLenum(GL_TEXTURE0 + unit));
    glBindTexture(GL_TEXTURE_2D, 0);
  }
  glActiveTexture(GL_TEXTURE0);
  release_scaled();
  release_window_sized();
}

void SurfaceTargets::release_window_sized() {
  glDeleteFramebuffers(1, &scene_fbo);
  const GLuint textures[] = {scene_color, scene_depth};
  glDeleteTextures(2, textures);
  scene_fbo = 0;
  scene_color = scene_depth = 0;
  width_ = height_ = 0;
}

void SurfaceTargets::release_scaled() {
  const GLuint fbos[] = {thickness_fbo, depth_fbo, temp_fbo, smooth_fbo, normal_fbo, shade_fbo, mesh_fbo};
  glDeleteFramebuffers(7, fbos);
  const GLuint textures[] = {fluid_depth, thickness, depth_raw, depth_temp, depth_smooth,
                             normal,      shade_a,   shade_b,   shade_c};
  glDeleteTextures(9, textures);
  thickness_fbo = depth_fbo = temp_fbo = smooth_fbo = normal_fbo = shade_fbo = mesh_fbo = 0;
  fluid_depth = thickness = depth_raw = depth_temp = depth_smooth = normal = 0;
  shade_a = shade_b = shade_c = 0;
  scaled_width_ = scaled_height_ = thickness_width_ = thickness_height_ = 0;
}

void SurfaceTargets::resize(int width, int height, float scale) {
  scale = std::clamp(scale, kMinSurfaceScale, 1.0f);
  const int scaled_width = std::max(1, int(std::lround(float(width) * scale)));
  const int scaled_height = std::max(1, int(std::lround(float(height) * scale)));
  const bool window_changed = width != width_ || height != height_;
  if (!window_changed && scaled_width == scaled_width_ && scaled_height == scaled_height_) {
    scale_ = scale;
    return;
  }
  release_scaled();
  if (window_changed) release_window_sized();
  if (width <= 0 || height <= 0) return;
  if (window_changed) {
    scene_color = make_texture(GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE, width, height);
    scene_depth =
        make_texture(GL_DEPTH_COMPONENT24, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, width, height);
    scene_fbo = make_fbo({scene_color}, scene_depth);
    width_ = width;
    height_ = height;
  }
  const int w = scaled_width, h = scaled_height;
  fluid_depth = make_texture(GL_DEPTH_COMPONENT24, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, w, h);
  thickness_width_ = (w + 1) / 2;
  thickness_height_ = (h + 1) / 2;
  thickness = make_texture(GL_R16F, GL_RED, GL_FLOAT, thickness_width_, thickness_height_);
  depth_raw = make_texture(GL_R32F, GL_RED, GL_FLOAT, w, h);
  depth_temp = make_texture(GL_RG32F, GL_RG, GL_FLOAT, w, h);    // depth, coverage
  depth_smooth = make_texture(GL_RG32F, GL_RG, GL_FLOAT, w, h);  // depth, coverage
  normal = make_texture(GL_RGBA16F, GL_RGBA, GL_FLOAT, w, h);
  // Read between texels by the composite (linear): see SurfaceShadePass.
  shade_a = make_texture(GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE, w, h, GL_LINEAR);
  shade_b = make_texture(GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE, w, h, GL_LINEAR);
  shade_c = make_texture(GL_RGBA16F, GL_RGBA, GL_FLOAT, w, h, GL_LINEAR);
  // The raw depth is depth-tested against the scene's (a copy): spheres behind the floor
  // (seen from below) or an obstacle are hidden. The thickness, at half resolution (it
  // varies slowly, and its additive blending is the costliest pass in software GL), is not:
  // the particles never leave the tank, so from above the floor nothing of the scene is in
  // front of them.
  thickness_fbo = make_fbo({thickness}, 0);
  depth_fbo = make_fbo({depth_raw}, fluid_depth);
  temp_fbo = make_fbo({depth_temp}, 0);
  smooth_fbo = make_fbo({depth_smooth}, 0);
  normal_fbo = make_fbo({normal}, 0);
  shade_fbo = make_fbo({shade_a, shade_b, shade_c}, 0);
  // The mesh mode writes the surface's depth (with full coverage) and normal itself, in
  // one pass: nothing to smooth or reconstruct.
  mesh_fbo = make_fbo({depth_smooth, normal}, fluid_depth);
  scaled_width_ = w;
  scaled_height_ = h;
  scale_ = scale;
}

void SurfaceTargets::copy_scene_depth() const {
  if (width_ <= 0 || height_ <= 0) return;
  // A copy, so that scene_depth stays the opaque scene's for the passes after the water;
  // depth cannot be filtered: each texel takes one of the window's texels it covers.
  glBindFramebuffer(GL_READ_FRAMEBUFFER, scene_fbo);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, depth_fbo);
  glBlitFramebuffer(0, 0, width_, height_, 0, 0, scaled_width_, scaled_height_, GL_DEPTH_BUFFER_BIT,
                    GL_NEAREST);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

}  // namespace tp
