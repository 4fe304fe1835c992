// The off-screen textures of the screen-space surface and the framebuffers that write them.
// resize() rebuilds them when the window's size or the resolution scale changes. The
// opaque scene is at the window's size; the water's passes up to the shading are at the
// scaled size (the scale a fraction of the window per axis, see ResolutionController), and
// SurfaceCompositePass brings the water back to the window's resolution.
//
//   window's size
//     scene colour + scene depth  the opaque scene (floor, obstacles) behind the water:
//                                 refracted; its depth is also what lies behind the water
//                                 for the passes drawn after it (diffuse bubbles)
//   scaled size
//     fluid depth                 a copy of the scene's depth (copy_scene_depth, shrunk
//                                 below scale 1), which the fluid's spheres are
//                                 depth-tested against and drawn into
//     thickness                   summed sphere thickness (additive), half the scaled size
//     depth raw -> temp -> smooth linear eye depth of the nearest sphere [m], 0 = no fluid;
//                                 smoothed along x into temp, then along y into smooth,
//                                 each with the outline's coverage in its second channel
//     normal                      view-space normals reconstructed from the smoothed depth
//     shade a, b, c               the shaded water, less what lies behind it, for the
//                                 composite (see SurfaceShadePass)
//   1 x 1
//     bounds                      the rectangle on screen that holds the water's spheres
//                                 (FluidBoundsPass); the passes after it draw only there
//                                 (draw_water_rect)
#pragma once

#include <glad/gl.h>

#include "render/gl_program.h"
#include "render/render_types.h"

namespace tp {

class SurfaceTargets {
 public:
  SurfaceTargets();
  ~SurfaceTargets();
  SurfaceTargets(const SurfaceTargets&) = delete;
  SurfaceTargets& operator=(const SurfaceTargets&) = delete;

  // (Re)creates the textures whose size differs from the one asked for: the window's
  // `width` x `height`, and that times `scale` (clamped to [kMinSurfaceScale, 1]).
  void resize(int width, int height, float scale);
  // Deletes the sized textures and their framebuffers (the next resize makes them again).
  // At 1280x900 they hold about 60 MB, which Mesa's software GL keeps in the process's
  // heap: the spheres mode gives them back rather than keep what the surface last drew at.
  void release();
  bool empty() const { return width_ == 0 && scaled_width_ == 0; }
  int width() const { return width_; }
  int height() const { return height_; }
  float scale() const { return scale_; }
  int scaled_width() const { return scaled_width_; }
  int scaled_height() const { return scaled_height_; }
  int thickness_width() const { return thickness_width_; }
  int thickness_height() const { return thickness_height_; }

  // Copies scene_depth into fluid_depth, shrunk below scale 1 (each texel takes one of the
  // window's it covers), for the fluid's depth pass. Leaves framebuffer 0 bound. (Faster in
  // Mesa's software GL than drawing the floor and the obstacles again at that size.)
  void copy_scene_depth() const;

  GLuint scene_color = 0, scene_depth = 0;
  GLuint fluid_depth = 0;
  GLuint thickness = 0, depth_raw = 0, depth_temp = 0, depth_smooth = 0, normal = 0;
  GLuint shade_a = 0, shade_b = 0, shade_c = 0;
  GLuint bounds = 0;
  // Framebuffers, named by what they write (shade_fbo: shade a, b and c).
  GLuint scene_fbo = 0, thickness_fbo = 0, depth_fbo = 0, temp_fbo = 0, smooth_fbo = 0,
         normal_fbo = 0, shade_fbo = 0, bounds_fbo = 0;
  GLuint mesh_fbo = 0;  ///< the mesh mode: depth smooth and normal, depth-tested in fluid depth
  GLuint empty_vao = 0;  ///< for rectangles made from gl_VertexID

  // Draws the water's rectangle (see `bounds`), grown by `grow` scaled texels along x and
  // y, with `program`, whose vertex stage is shaders/water_rect.vert, in use (into a target
  // of any size: the rectangle is in NDC). Binds `bounds` to texture unit kBoundsUnit.
  void draw_water_rect(const GlProgram& program, glm::vec2 grow) const;
  static constexpr int kBoundsUnit = 7;

 private:
  void release_window_sized();
  void release_scaled();
  int width_ = 0, height_ = 0;
  float scale_ = 1.0f;
  int scaled_width_ = 0, scaled_height_ = 0;
  int thickness_width_ = 0, thickness_height_ = 0;
};

}  // namespace tp
