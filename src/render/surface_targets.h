// The off-screen textures of the screen-space surface, all at the window's size, and the
// framebuffers that write them. resize() rebuilds them when the window's size changes.
//
//   scene colour + scene depth   the opaque scene (floor, obstacles) behind the water: refracted
//   thickness                    summed sphere thickness (additive), half resolution
//   depth raw -> temp -> smooth  linear eye depth of the nearest sphere [m], 0 = no fluid;
//                                smoothed along x into temp (with the outline's coverage),
//                                then along y into smooth
//   normal                       view-space normals reconstructed from the smoothed depth
//   opaque depth                 a copy of the scene depth made before the fluid's spheres
//                                are drawn into it (keep_opaque_depth): what lies behind
//                                the water, for passes drawn after it (diffuse bubbles)
#pragma once

#include <glad/gl.h>

namespace tp {

class SurfaceTargets {
 public:
  SurfaceTargets();
  ~SurfaceTargets();
  SurfaceTargets(const SurfaceTargets&) = delete;
  SurfaceTargets& operator=(const SurfaceTargets&) = delete;

  // (Re)creates every texture at this size when it differs from the current one.
  void resize(int width, int height);
  int width() const { return width_; }
  int height() const { return height_; }
  int thickness_width() const { return thickness_width_; }
  int thickness_height() const { return thickness_height_; }

  // Copies scene_depth into opaque_depth: call it after drawing the scene, before the
  // fluid's depth pass draws into scene_depth. Leaves framebuffer 0 bound.
  void keep_opaque_depth() const;

  GLuint scene_color = 0, scene_depth = 0, thickness = 0;
  GLuint depth_raw = 0, depth_temp = 0, depth_smooth = 0, normal = 0, opaque_depth = 0;
  // Framebuffers, named by what they write.
  GLuint scene_fbo = 0, thickness_fbo = 0, depth_fbo = 0, temp_fbo = 0, smooth_fbo = 0,
         normal_fbo = 0, opaque_fbo = 0;
  GLuint empty_vao = 0;  ///< for full-screen triangles made from gl_VertexID

 private:
  void release();
  int width_ = 0, height_ = 0;
  int thickness_width_ = 0, thickness_height_ = 0;
};

}  // namespace tp
