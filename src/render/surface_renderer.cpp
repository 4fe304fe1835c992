#include "render/surface_renderer.h"

#include <algorithm>
#include <cmath>

namespace tp {

namespace {
// The surface's spheres are larger than the spheres mode's, so that neighbours overlap and
// the depth has no pits between particles for the filter to fill (the water grows by
// about half a spacing at its edges, the usual price).
constexpr float kSurfaceSphereScale = 1.5f;

}  // namespace

SurfaceRenderer::SurfaceRenderer(const std::string& shader_dir, const std::string& environment_path)
    : passes_(std::make_unique<Passes>(shader_dir)), environment_(environment_path) {}

void SurfaceRenderer::reload_shaders(const std::string& shader_dir) {
  passes_ = std::make_unique<Passes>(shader_dir);
}

void SurfaceRenderer::begin_scene(int width, int height, float scale, const glm::vec3& background) {
  targets_.resize(width, height, scale);
  glBindFramebuffer(GL_FRAMEBUFFER, targets_.scene_fbo);
  glViewport(0, 0, width, height);
  glClearColor(background.r, background.g, background.b, 1.0f);
  glClearDepth(1.0);
  glDepthMask(GL_TRUE);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
}

void SurfaceRenderer::end_scene() const { glBindFramebuffer(GL_FRAMEBUFFER, 0); }

void SurfaceRenderer::draw(const CameraView& camera, const FluidDraw& fluid,
                           const SurfaceSettings& settings, PassProbe& probe) const {
  const Passes& p = *passes_;
  const float radius = kSurfaceSphereScale * fluid.radius;
  probe.begin("surface thickness", true);
  p.thickness.draw(camera, targets_, spheres_, fluid.points(), radius, fluid.clip_to_scene);
  probe.end();
  probe.begin("surface depth", true);
  p.depth.draw(camera, targets_, spheres_, fluid.points(), radius, fluid.depth_test_scene);
  probe.end();
  // Where the spheres are on screen: the passes below draw only there.
  probe.begin("surface bounds", true);
  p.bounds.draw(camera, targets_, spheres_, fluid.points(), radius);
  probe.end();
  // The filter reaches `filter_size` particle radii. Its depth term must let a slanted
  // surface through (seen at a grazing angle, its depth changes by more than the filter's
  // radius across it), so it falls off at the filter's radius; steps well beyond that (a
  // splash in front of the pool) stay apart.
  const float world_radius = settings.filter_size * fluid.radius;
  const float falloff = std::max(2.0f * radius, world_radius);
  // The outline's blur: under a particle radius, enough to round the bumps of spheres
  // two radii apart (their ripple falls to a few per cent) and keep a lone droplet.
  const float outline = 0.75f * fluid.radius;
  probe.begin("surface smooth", true);
  p.smooth.draw_axis(camera, targets_, 0, world_radius, outline, fluid.nearest_depth, falloff);
  p.smooth.draw_axis(camera, targets_, 1, world_radius, outline, fluid.nearest_depth, falloff);
  probe.end();
  // The smoothed water reaches this far beyond the spheres' rectangle (its outline's blur).
  const glm::vec2 water(
      float(p.smooth.outline_search(camera, targets_, outline, fluid.nearest_depth) + 1));
  probe.begin("surface normals", true);
  p.normals.draw(camera, targets_, water);
  probe.end();
  // The summed chords count each sphere's volume, which overlaps its neighbours: divided by
  // the share of space the spheres fill, the thickness is the water's, in metres.
  const float sphere_volume = 4.18879f * radius * radius * radius;
  const float spacing = std::max(fluid.spacing, 1e-6f);
  const float fill = std::max(sphere_volume / std::pow(spacing, 3.0f), 0.05f);
  // 2D: a whole layer (one particle per spacing squared) sums to about
  // sphere_volume / spacing^2 of chord per unit area, seen square-on, more or less with the
  // particles' disorder (and the splats' shapes). Scaled so that half of that reads as
  // water kTwoDimensionalDepth deep, and capped there by the shading: the water is evenly
  // deep wherever the layer is whole, and only its thin edges and spray are lighter.
  const float layer = sphere_volume / (spacing * spacing);
  const float thickness_scale =
      fluid.two_d ? 2.0f * kTwoDimensionalDepth / std::max(layer, 1e-6f) : 1.0f / fill;
  shade_and_composite(camera, fluid, settings, thickness_scale, water, probe);
}

void SurfaceRenderer::draw_mesh(const CameraView& camera, const MeshBuffer& mesh, const FluidDraw& fluid,
                                const SurfaceSettings& settings, PassProbe& probe) const {
  const Passes& p = *passes_;
  probe.begin("mesh thickness", true);
  p.mesh.draw_thickness(camera, targets_, mesh);
  probe.end();
  probe.begin("mesh surface", true);
  p.mesh.draw_surface(camera, targets_, mesh, fluid.depth_test_scene);
  probe.end();
  // The mesh's chords are the water's own: no overlap to divide out.
  shade_and_composite(camera, fluid, settings, 1.0f, glm::vec2(1.0f), probe);
}

void SurfaceRenderer::shade_and_composite(const CameraView& camera, const FluidDraw& fluid,
                                          const SurfaceSettings& settings, float thickness_scale,
                                          glm::vec2 water, PassProbe& probe) const {
  const Passes& p = *passes_;
  probe.begin("surface shade", true);
  // One texel more than the composite: its linear lookups reach that far.
  p.shade.draw(camera, targets_, environment_.id(), settings, thickness_scale, water + 1.0f, fluid.two_d,
               fluid.glass);
  probe.end();
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  probe.begin("surface composite");
  p.composite.draw(camera, targets_, water, fluid.clip_to_scene);
  probe.end();
  for (int unit = SurfaceTargets::kBoundsUnit; unit >= 0; --unit) {
    glActiveTexture(GLenum(GL_TEXTURE0 + unit));
    glBindTexture(GL_TEXTURE_2D, 0);
  }
}

}  // namespace tp
