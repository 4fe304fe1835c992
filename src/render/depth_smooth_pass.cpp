#include "render/depth_smooth_pass.h"

namespace tp {

namespace {
constexpr int kMaxRadiusPixels = 24;  // bounds the cost close up
}

DepthSmoothPass::DepthSmoothPass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "fullscreen.vert", "depth_smooth.frag")) {}

void DepthSmoothPass::draw_axis(const CameraView& camera, const SurfaceTargets& targets, int axis,
                                float world_radius, float depth_falloff) const {
  glBindFramebuffer(GL_FRAMEBUFFER, axis == 0 ? targets.temp_fbo : targets.smooth_fbo);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  program_.use();
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, axis == 0 ? targets.depth_raw : targets.depth_temp);
  glUniform1i(program_.uniform("u_depth"), 0);
  glUniform2i(program_.uniform("u_axis"), axis == 0 ? 1 : 0, axis == 0 ? 0 : 1);
  glUniform1f(program_.uniform("u_world_radius"), world_radius);
  glUniform1f(program_.uniform("u_pixels_per_metre_at_1m"),
              camera.projection[1][1] * 0.5f * float(targets.height()));
  glUniform1f(program_.uniform("u_depth_falloff"), depth_falloff);
  glUniform1i(program_.uniform("u_max_radius"), kMaxRadiusPixels);
  glBindVertexArray(targets.empty_vao);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
}

}  // namespace tp
