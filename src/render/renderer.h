// The frame's 3D drawing, in order: clear, tank floor, obstacles (ObstaclePass), rigid
// bodies (BodyPass), fluid
// (spheres, the screen-space surface, or the mesh: see SurfaceRenderer), spray, foam and bubbles
// (DiffusePass), the grid overlay (GridOverlayPass), translucent walls, gas (GasVolumePass, or GasPlanePass for a 2D grid),
// edges, mouse marker. The app draws its panel afterwards.
// Holds every GL resource of the scene; construct it with a current GL 3.3 context.
#pragma once

#include <glad/gl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "render/body_pass.h"
#include "render/diffuse_pass.h"
#include "render/driver_scenes.h"
#include "render/gas_field.h"
#include "render/gas_plane_pass.h"
#include "render/gas_volume_pass.h"
#include "render/grid_overlay_pass.h"
#include "render/obstacle_pass.h"
#include "render/particle_buffer.h"
#include "render/pass_probe.h"
#include "render/render_types.h"
#include "render/resolution_controller.h"
#include "render/sphere_pass.h"
#include "render/surface_renderer.h"
#include "render/tank_pass.h"

namespace tp {

class Renderer {
 public:
  // Loads the shaders from `shader_dir`. Throws RenderError naming the file and GLSL log.
  // `environment_path`: the image the surface mode's water reflects (a missing one is a
  // message and a plain colour).
  Renderer(const std::string& shader_dir, const std::string& environment_path);
  ~Renderer();  ///< deletes the GL objects it made (with the context still current)
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  // Reloads every shader; on failure keeps the old ones and throws RenderError.
  void reload_shaders();

  void set_tank(const glm::vec3& lo, const glm::vec3& hi);
  // The obstacles as they are now; drawn until replaced (the app sets them every frame).
  void set_obstacles(std::vector<ObstacleDraw> obstacles) { obstacles_ = std::move(obstacles); }
  // The rigid bodies as they are now; drawn until replaced (the app sets them every frame).
  void set_bodies(std::vector<BodyDraw> bodies) { bodies_ = std::move(bodies); }
  // The particle inspector's particle (first) and its neighbours, drawn over everything
  // as flat spheres of `radius` (magenta, and yellow); empty: none. Kept until replaced.
  void set_highlight(std::vector<Vec4> points, float radius) {
    highlight_ = std::move(points);
    highlight_radius_ = radius;
  }
  // The Debug views' grid overlay (GridOverlayPass): the occupied cells, drawn over the
  // water in every mode; no cells: none. Kept until replaced.
  void set_grid_overlay(GridOverlayDraw grid) {
    grid_overlay_ = std::move(grid);
    grid_pass_->upload(grid_overlay_);
  }
  ParticleBuffer& particles() { return particles_; }
  // Spray, foam and bubbles (see DiffusePass): drawn when it holds any.
  ParticleBuffer& diffuse_particles() { return diffuse_particles_; }
  // The surface mode's ellipsoid splats (RenderSettings::surface.anisotropic): 3 Vec4 per
  // particle as Simulation::build_splats() lays them out; drawn instead of the spheres
  // while it holds any (cleared: the spheres again).
  ParticleBuffer& splats() { return splats_; }
  // The water's triangle mesh (the mesh mode; see MeshBuffer): drawn when it holds any,
  // else the mesh mode draws the screen-space surface until one arrives.
  MeshBuffer& mesh() { return mesh_; }
  // The gas simulation's grid (smoke, ink: see GasField): drawn while ready(), as a volume
  // (3D) or a plane (one cell thick), with RenderSettings::gas. The gas app leaves the
  // particle buffers empty.
  GasField& gas() { return gas_; }

  void draw(const CameraView& camera, const RenderSettings& settings, const Marker& marker);

  // glGetError after every pass, each error reported once on stderr and kept (tests).
  void set_error_check(bool on) { probe_.set_error_check(on); }
  const std::vector<std::string>& gl_errors() const { return probe_.errors(); }
  const std::string& shader_dir() const { return shader_dir_; }
  // GPU and CPU milliseconds per pass, recent means, in drawing order.
  const std::vector<PassTime>& pass_times() const { return probe_.pass_times(); }
  // The resolution scale the surface mode's passes were last drawn at (see
  // SurfaceSettings::auto_scale): what the panel shows.
  float surface_scale() const { return surface_->scale(); }

 private:
  void draw_spheres(const CameraView& camera, const RenderSettings& settings) const;
  void draw_diffuse(const CameraView& camera, const RenderSettings& settings) const;
  float nearest_tank_depth(const CameraView& camera) const;  ///< [m], 0 = eye inside
  // The surface's resolution scale for this frame: fixed, or from the frames measured.
  float surface_scale_for(const SurfaceSettings& settings);
  void draw_gas(const CameraView& camera, const GasLook& look);
  void begin_translucent() const;  ///< blending on, depth-tested, no depth writes
  void end_translucent() const;    ///< blending off, depth writes on
  // The walls (their faces only with `wall_faces`), edges and marker.
  void draw_overlays(const CameraView& camera, const RenderSettings& settings, const Marker& marker,
                     bool wall_faces);

  // Every GL object has an owner that deletes it: the passes own their programs, VAOs
  // and VBOs, the ParticleBuffer its VBO, and the destructor marker_vbo_.
  std::string shader_dir_;
  std::unique_ptr<SpherePass> spheres_;
  std::unique_ptr<TankPass> tank_;
  std::unique_ptr<SurfaceRenderer> surface_;
  std::unique_ptr<DiffusePass> diffuse_;
  std::unique_ptr<ObstaclePass> obstacle_pass_;
  std::unique_ptr<BodyPass> body_pass_;
  std::unique_ptr<GasVolumePass> gas_volume_;
  std::unique_ptr<GasPlanePass> gas_plane_;
  std::unique_ptr<GridOverlayPass> grid_pass_;
  GridOverlayDraw grid_overlay_;
  std::vector<ObstacleDraw> obstacles_;
  std::vector<BodyDraw> bodies_;
  PassProbe probe_;
  DriverScenes driver_scenes_;  ///< llvmpipe's scenes (render/driver_scenes.h)
  bool recycle_scenes_ = true;  ///< before the next frame: the first (what the mode before left), or after the surface
  ResolutionController resolution_;  ///< the surface's scale while it is automatic
  glm::vec3 tank_lo_{0.0f}, tank_hi_{0.0f};
  bool have_tank_ = false;
  ParticleBuffer particles_;
  ParticleBuffer diffuse_particles_;
  ParticleBuffer splats_;
  MeshBuffer mesh_;
  GasField gas_;
  GLuint marker_vbo_ = 0;  ///< one Vec4: the marker's centre (then the inspected particle's)
  GLuint highlight_vbo_ = 0;  ///< the inspected particle's neighbours
  size_t highlight_capacity_ = 0;
  std::vector<Vec4> highlight_;
  float highlight_radius_ = 0.0f;
};

}  // namespace tp
