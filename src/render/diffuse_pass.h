// Diffuse particles (spray, foam and bubbles; Ihmsen et al. 2012) as small soft point
// sprites, blended over the fluid without writing depth (shaders/diffuse.vert, .frag). The
// particles come from their own ParticleBuffer: one Vec4 each, xyz the position and w the
// kind (0 spray, 1 foam, 2 bubble) plus the fade in [0, 1) that their alpha follows.
//
// Spray and foam are depth-tested against what is drawn (the floor, the spheres or the
// surface's smoothed depth), nearer by `surface_pull` so that foam on the water is not
// hidden by it. In the surface mode the bubbles lie behind the water's surface: they are
// tested against the opaque scene's depth instead, and dimmed by the water in front of
// them (see DiffuseDraw::water_depth).
#pragma once

#include <glad/gl.h>

#include <string>

#include "render/gl_program.h"
#include "render/render_types.h"

namespace tp {

struct DiffuseDraw {
  GLuint vbo = 0;
  size_t count = 0;
  float radius = 0.008f;      ///< [m] sprite radius
  float surface_pull = 0.0f;  ///< [m] spray and foam are depth-tested this much nearer
  /// Surface mode: the depth of the opaque scene behind the water (a depth texture of the
  /// framebuffer's size, SurfaceTargets::scene_depth) and the water's smoothed eye depth
  /// [m] (SurfaceTargets::depth_smooth, at the surface's resolution scale; 0 = no water
  /// drawn this frame: then the bubbles are not dimmed). Both 0 in the spheres mode, where
  /// the bubbles are depth-tested against the spheres like the rest.
  GLuint opaque_depth = 0;
  GLuint water_depth = 0;
  glm::vec3 absorption{0.0f};  ///< [1/m] the water's, per channel
};

class DiffusePass {
 public:
  explicit DiffusePass(const std::string& shader_dir);  ///< throws RenderError
  ~DiffusePass();
  DiffusePass(const DiffusePass&) = delete;
  DiffusePass& operator=(const DiffusePass&) = delete;

  // Into the bound framebuffer, whose depth buffer holds the opaque scene and the fluid.
  // Leaves blending off, depth writes on, the depth test on in the spheres mode and off in
  // the surface mode, and texture unit 0 active.
  void draw(const CameraView& camera, const DiffuseDraw& particles) const;

 private:
  GlProgram program_;
  GLuint vao_ = 0;
  float max_point_pixels_ = 32.0f;  ///< [px] half the driver's largest point size
};

}  // namespace tp
