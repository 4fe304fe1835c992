// The screen-space fluid surface, pass by pass (one file per pass beside this one):
//   thickness   summed sphere thickness          fluid_thickness_pass
//   depth       sphere eye depth                 fluid_depth_pass
//   bounds      the spheres' rectangle on screen fluid_bounds_pass
//   smooth x/y  separable bilateral filter       depth_smooth_pass
//   normals     from the smoothed depth          surface_normal_pass
//   shade       refraction, absorption, Fresnel  surface_shade_pass
//   composite   into the window, upsampled       surface_composite_pass
// All but the last are drawn at a resolution scale, a fraction of the window per axis in
// [kMinSurfaceScale, 1] (dynamic resolution: see ResolutionController); the composite
// brings the water back to the window's resolution with an upsampling that keeps the
// outline smooth and sharp. The passes after the bounds draw only the rectangle of the
// screen that the water covers, grown by what their filters reach.
// The scene behind the water (the tank floor, the obstacles) is drawn into SurfaceTargets
// first, by the caller, between begin_scene() and end_scene().
#pragma once

#include <memory>
#include <string>

#include "render/depth_smooth_pass.h"
#include "render/environment_texture.h"
#include "render/fluid_bounds_pass.h"
#include "render/fluid_depth_pass.h"
#include "render/fluid_thickness_pass.h"
#include "render/mesh_buffer.h"
#include "render/mesh_surface_pass.h"
#include "render/pass_probe.h"
#include "render/sphere_points.h"
#include "render/surface_composite_pass.h"
#include "render/surface_normal_pass.h"
#include "render/surface_shade_pass.h"
#include "render/surface_targets.h"

namespace tp {

struct FluidDraw {
  GLuint vbo = 0;
  size_t count = 0;
  /// vbo holds ellipsoid splats, 3 Vec4 per particle (Renderer::splats()), not positions
  bool ellipsoids = false;
  PointSource points() const { return PointSource{vbo, count, ellipsoids}; }
  float radius = 0.02f;   ///< [m] the spheres mode's radius (half a spacing at size 1)
  float spacing = 0.04f;  ///< [m] particle spacing
  /// [m] no particle is nearer the eye than this (the tank's nearest corner); 0 = unknown
  float nearest_depth = 0.0f;
  /// Obstacles or bodies are in the scene: the thickness stops at the scene's depth (see
  /// FluidThicknessPass), and refraction does not pick up what lies in front of the water
  /// (SurfaceCompositePass). Without them only the floor is there, below every particle.
  bool clip_to_scene = false;
  /// Something of the scene may stand in front of a particle (obstacles, bodies, or the eye below
  /// the floor): the sphere depth is tested against the scene's (FluidDepthPass).
  bool depth_test_scene = true;
  /// 2D: one layer of particles in a plane seen square-on; its summed chords are scaled to
  /// kTwoDimensionalDepth of water where the layer is whole.
  bool two_d = false;
  /// The tank's faces, for the water against the glass (SurfaceGlass; none: no tank).
  SurfaceGlass glass;
};

class SurfaceRenderer {
 public:
  // Loads the shaders (throws RenderError) and the environment image (never throws).
  SurfaceRenderer(const std::string& shader_dir, const std::string& environment_path);

  // Rebuilds the programs; on failure keeps the old ones and throws RenderError.
  void reload_shaders(const std::string& shader_dir);

  // Resizes the targets (the window's size, and `scale` of it for the water's passes) and
  // binds the framebuffer the scene behind the water goes into, cleared to `background`.
  // The caller draws the scene, then calls draw().
  void begin_scene(int width, int height, float scale, const glm::vec3& background);
  // After the scene: framebuffer 0 bound again. The scene's depth stays as drawn, for the
  // passes after the water: the diffuse bubbles, and the shading when there are
  // obstacles.
  void end_scene() const;

  // Every pass up to the composite, which draws into framebuffer 0 (depth-tested against
  // what is there). Leaves framebuffer 0 bound. The passes drawn at the resolution scale
  // are timed as `scaled` (see PassProbe::last_frame).
  void draw(const CameraView& camera, const FluidDraw& fluid, const SurfaceSettings& settings,
            PassProbe& probe) const;
  // The mesh mode: the mesh's thickness, depth and normals (MeshSurfacePass) instead of
  // the spheres', then the same shading and composite. `fluid` gives the scene flags.
  void draw_mesh(const CameraView& camera, const MeshBuffer& mesh, const FluidDraw& fluid,
                 const SurfaceSettings& settings, PassProbe& probe) const;
  float scale() const { return targets_.scale(); }  ///< of the targets, as resized last
  // Gives back the targets' memory while neither the surface nor the mesh is drawn (the
  // next begin_scene makes them again, at the size then).
  void release_targets() { targets_.release(); }
  bool holds_targets() const { return !targets_.empty(); }

  // The off-screen textures, for passes drawn after the water (the diffuse bubbles read
  // the opaque scene's depth and the water's smoothed depth).
  const SurfaceTargets& targets() const { return targets_; }

 private:
  struct Passes {
    FluidThicknessPass thickness;
    FluidDepthPass depth;
    FluidBoundsPass bounds;
    DepthSmoothPass smooth;
    SurfaceNormalPass normals;
    SurfaceShadePass shade;
    SurfaceCompositePass composite;
    MeshSurfacePass mesh;
    explicit Passes(const std::string& dir)
        : thickness(dir),
          depth(dir),
          bounds(dir),
          smooth(dir),
          normals(dir),
          shade(dir),
          composite(dir),
          mesh(dir) {}
  };
  // Shade and composite, shared by both modes: `thickness_scale` turns the thickness
  // target into metres, `water` is how far the water reaches beyond its rectangle.
  void shade_and_composite(const CameraView& camera, const FluidDraw& fluid, const SurfaceSettings& settings,
                           float thickness_scale, glm::vec2 water, PassProbe& probe) const;
  std::unique_ptr<Passes> passes_;
  SurfaceTargets targets_;
  SpherePoints spheres_;
  EnvironmentTexture environment_;
};

}  // namespace tp
