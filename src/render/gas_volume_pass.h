// A 3D gas grid (GasField) as a volume: per pixel, the eye ray is marched front to back
// through the grid's box, each sample's light (rgb, already lit by the simulation) added
// under the transmittance left in front of it, and stopped by a solid cell (which
// ObstaclePass has drawn opaque before) or once nearly opaque (shaders/gas_volume.frag).
// The march is the costly part (a few hundred texture lookups per pixel, and in Mesa's
// software GL on two cores), so it runs at a fraction of the window's resolution
// (GasLook::volume_scale) into an off-screen RGBA16F texture, only where the box's back
// faces are (which also covers the eye inside the box), and a second draw of the box blends
// that texture, upsampled bilinearly, premultiplied over the framebuffer
// (shaders/gas_composite.frag). Both halves are this one pass.
#pragma once

#include <glad/gl.h>

#include <string>

#include "render/gas_field.h"
#include "render/gl_program.h"
#include "render/render_types.h"

namespace tp {

class GasVolumePass {
 public:
  explicit GasVolumePass(const std::string& shader_dir);  ///< throws RenderError
  ~GasVolumePass();
  GasVolumePass(const GasVolumePass&) = delete;
  GasVolumePass& operator=(const GasVolumePass&) = delete;

  // Blends the field (when ready) over the bound framebuffer's current viewport, whatever
  // is drawn there, without depth test. `look` must be clamped (clamp_gas_look). Restores
  // the framebuffer binding and viewport it found; leaves blending and face culling off,
  // the depth test on (GL_LESS), depth writes untouched, texture unit 0 active.
  // Throws RenderError when the driver cannot render into the off-screen texture.
  void draw(const CameraView& camera, const GasField& field, const GasLook& look);

 private:
  void resize(int width, int height);  ///< the off-screen texture, when its size changes

  GlProgram march_;
  GlProgram composite_;
  GLuint vao_ = 0;
  GLuint vbo_ = 0;     ///< the unit cube [0, 1]^3, 36 vertices wound counter-clockwise outside
  GLuint target_ = 0;  ///< RGBA16F: premultiplied gas colour, opacity
  GLuint fbo_ = 0;
  int width_ = 0, height_ = 0;
};

}  // namespace tp
