#include "render/depth_smooth_pass.h"

#include <algorithm>
#include <cmath>

namespace tp {

namespace {
constexpr int kMaxRadiusPixels = 24;   // bounds the cost close up
constexpr int kMaxOutlineSearch = 12;  // [px] how far an empty pixel looks for water

// Pixels of the pass's targets per metre at 1 m from the eye, at the resolution scale: the
// filter reaches as far on the water at any scale, over fewer texels.
float pixels_per_metre_at_1m(const CameraView& camera, const SurfaceTargets& targets) {
  return camera.projection[1][1] * 0.5f * float(targets.scaled_height());
}
}  // namespace

DepthSmoothPass::DepthSmoothPass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "water_rect.vert", "depth_smooth.frag")) {}

int DepthSmoothPass::outline_search(const CameraView& camera, const SurfaceTargets& targets,
                                    float outline_radius, float nearest_depth) const {
  // 1.5 sigma of the outline blur at the nearest depth any water can have. Farther out its
  // coverage would be under 7 %, never enough to matter; most of the screen is empty, and
  // this search is most of the pass's cost there.
  const float reach = nearest_depth > 0.0f
                          ? std::ceil(1.5f * outline_radius *
                                      pixels_per_metre_at_1m(camera, targets) / nearest_depth)
                          : float(kMaxOutlineSearch);
  return std::clamp(int(reach), 1, kMaxOutlineSearch);
}

void DepthSmoothPass::draw_axis(const CameraView& camera, const SurfaceTargets& targets, int axis,
                                float world_radius, float outline_radius, float nearest_depth,
                                float depth_falloff) const {
  glBindFramebuffer(GL_FRAMEBUFFER, axis == 0 ? targets.temp_fbo : targets.smooth_fbo);
  glViewport(0, 0, targets.scaled_width(), targets.scaled_height());
  // Cleared whole, then drawn only where the output can have water: the pixels with water
  // within the outline search along this axis (and along x before, for the y pass); the
  // rest reads as no water wherever a later pass or the diffuse particles look.
  const GLfloat none[] = {0.0f, 0.0f, 0.0f, 0.0f};
  glClearBufferfv(GL_COLOR, 0, none);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  program_.use();
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, axis == 0 ? targets.depth_raw : targets.depth_temp);
  glUniform1i(program_.uniform("u_depth"), 0);
  glUniform1i(program_.uniform("u_pass"), axis);
  glUniform1f(program_.uniform("u_world_radius"), world_radius);
  glUniform1f(program_.uniform("u_outline_radius"), outline_radius);
  glUniform1f(program_.uniform("u_pixels_per_metre_at_1m"),
              pixels_per_metre_at_1m(camera, targets));
  const int search = outline_search(camera, targets, outline_radius, nearest_depth);
  glUniform1i(program_.uniform("u_outline_search"), search);
  glUniform1f(program_.uniform("u_depth_falloff"), depth_falloff);
  glUniform1i(program_.uniform("u_max_radius"), kMaxRadiusPixels);
  const float margin = float(search + 1);
  targets.draw_water_rect(program_, axis == 0 ? glm::vec2(margin, 1.0f) : glm::vec2(margin));
}

}  // namespace tp
