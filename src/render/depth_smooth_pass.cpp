#include "render/depth_smooth_pass.h"

#include <algorithm>
#include <cmath>

namespace tp {

namespace {
constexpr int kMaxRadiusPixels = 24;    // bounds the cost close up
constexpr int kMaxOutlineSearch = 12;  // [px] how far an empty pixel looks for water
}

DepthSmoothPass::DepthSmoothPass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "fullscreen.vert", "depth_smooth.frag")) {}

void DepthSmoothPass::draw_axis(const CameraView& camera, const SurfaceTargets& targets, int axis,
                                float world_radius, float outline_radius,
                                float nearest_depth, float depth_falloff) const {
  glBindFramebuffer(GL_FRAMEBUFFER, axis == 0 ? targets.temp_fbo : targets.smooth_fbo);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  program_.use();
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, axis == 0 ? targets.depth_raw : targets.depth_temp);
  glUniform1i(program_.uniform("u_depth"), 0);
  glUniform1i(program_.uniform("u_pass"), axis);
  glUniform1f(program_.uniform("u_world_radius"), world_radius);
  glUniform1f(program_.uniform("u_outline_radius"), outline_radius);
  const float pixels_per_metre_at_1m = camera.projection[1][1] * 0.5f * float(targets.height());
  glUniform1f(program_.uniform("u_pixels_per_metre_at_1m"), pixels_per_metre_at_1m);
  // How far an empty pixel looks for water: 1.5 sigma of the outline blur at the nearest
  // depth any water can have. Farther out its coverage would be under 7 %, never enough
  // to matter; most of the screen is empty, and this search is most of the pass's cost
  // there.
  const float reach = nearest_depth > 0.0f
                          ? std::ceil(1.5f * outline_radius * pixels_per_metre_at_1m / nearest_depth)
                          : float(kMaxOutlineSearch);
  glUniform1i(program_.uniform("u_outline_search"),
              std::clamp(int(reach), 1, kMaxOutlineSearch));
  glUniform1f(program_.uniform("u_depth_falloff"), depth_falloff);
  glUniform1i(program_.uniform("u_max_radius"), kMaxRadiusPixels);
  glBindVertexArray(targets.empty_vao);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
}

}  // namespace tp
