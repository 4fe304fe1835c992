// The screen-space fluid surface, pass by pass (one file per pass beside this one):
//   thickness   summed sphere thickness          fluid_thickness_pass
//   depth       sphere eye depth                 fluid_depth_pass
//   smooth x/y  separable bilateral filter       depth_smooth_pass
//   normals     from the smoothed depth          surface_normal_pass
//   shade       refraction, absorption, Fresnel  surface_shade_pass
// The scene behind the water (the tank floor, the obstacles) is drawn into SurfaceTargets
// first, by the caller, between begin_scene() and end_scene().
#pragma once

#include <memory>
#include <string>

#include "render/depth_smooth_pass.h"
#include "render/environment_texture.h"
#include "render/fluid_depth_pass.h"
#include "render/fluid_thickness_pass.h"
#include "render/pass_probe.h"
#include "render/sphere_instances.h"
#include "render/surface_normal_pass.h"
#include "render/surface_shade_pass.h"
#include "render/surface_targets.h"

namespace tp {

struct FluidDraw {
  GLuint vbo = 0;
  size_t count = 0;
  float radius = 0.02f;   ///< [m] the spheres mode's radius (half a spacing at size 1)
  float spacing = 0.04f;  ///< [m] particle spacing
  /// [m] no particle is nearer the eye than this (the tank's nearest corner); 0 = unknown
  float nearest_depth = 0.0f;
  /// Obstacles are in the scene: the thickness stops at the scene's depth (see
  /// FluidThicknessPass), and refraction does not pick up what lies in front of the water
  /// (SurfaceShadePass; end_scene must have kept the opaque depth). Without them only the
  /// floor is there, below every particle.
  bool clip_to_scene = false;
};

class SurfaceRenderer {
 public:
  // Loads the shaders (throws RenderError) and the environment image (never throws).
  SurfaceRenderer(const std::string& shader_dir, const std::string& environment_path);

  // Rebuilds the programs; on failure keeps the old ones and throws RenderError.
  void reload_shaders(const std::string& shader_dir);

  // Resizes the targets and binds the framebuffer the scene behind the water goes into,
  // cleared to `background`. The caller draws the scene, then calls draw().
  void begin_scene(int width, int height, const glm::vec3& background);
  // After the scene: framebuffer 0 bound again, and with `keep_depth` the scene's depth
  // copied to targets().opaque_depth first (for the diffuse bubbles, and for the shading
  // when there are obstacles).
  void end_scene(bool keep_depth) const;

  // Every pass up to the shading, which draws into framebuffer 0 (depth-tested against
  // what is there). Leaves framebuffer 0 bound.
  void draw(const CameraView& camera, const FluidDraw& fluid, const SurfaceSettings& settings,
            PassProbe& probe) const;

  // The off-screen textures, for passes drawn after the water (the diffuse bubbles read
  // the opaque scene's depth and the water's smoothed depth).
  const SurfaceTargets& targets() const { return targets_; }

 private:
  struct Passes {
    FluidThicknessPass thickness;
    FluidDepthPass depth;
    DepthSmoothPass smooth;
    SurfaceNormalPass normals;
    SurfaceShadePass shade;
    explicit Passes(const std::string& dir)
        : thickness(dir), depth(dir), smooth(dir), normals(dir), shade(dir) {}
  };
  std::unique_ptr<Passes> passes_;
  SurfaceTargets targets_;
  SphereInstances spheres_;
  EnvironmentTexture environment_;
};

}  // namespace tp
