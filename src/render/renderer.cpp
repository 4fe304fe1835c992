#include "render/renderer.h"

#include <algorithm>

#include "kernels/common.h"

namespace tp {

Renderer::Renderer(const std::string& shader_dir, const std::string& environment_path)
    : shader_dir_(shader_dir),
      spheres_(std::make_unique<SpherePass>(shader_dir)),
      tank_(std::make_unique<TankPass>(shader_dir)),
      surface_(std::make_unique<SurfaceRenderer>(shader_dir, environment_path)),
      diffuse_(std::make_unique<DiffusePass>(shader_dir)),
      obstacle_pass_(std::make_unique<ObstaclePass>(shader_dir)),
      body_pass_(std::make_unique<BodyPass>(shader_dir)),
      gas_volume_(std::make_unique<GasVolumePass>(shader_dir)),
      gas_plane_(std::make_unique<GasPlanePass>(shader_dir)),
      grid_pass_(std::make_unique<GridOverlayPass>(shader_dir)) {
  glGenBuffers(1, &marker_vbo_);
  glBindBuffer(GL_ARRAY_BUFFER, marker_vbo_);
  glBufferData(GL_ARRAY_BUFFER, sizeof(Vec4), nullptr, GL_DYNAMIC_DRAW);
  glGenBuffers(1, &highlight_vbo_);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

Renderer::~Renderer() {
  glDeleteBuffers(1, &marker_vbo_);
  glDeleteBuffers(1, &highlight_vbo_);
}

void Renderer::reload_shaders() {
  // Build them all first so a failure leaves the running passes untouched.
  auto spheres = std::make_unique<SpherePass>(shader_dir_);
  auto tank = std::make_unique<TankPass>(shader_dir_);
  auto diffuse = std::make_unique<DiffusePass>(shader_dir_);
  auto obstacles = std::make_unique<ObstaclePass>(shader_dir_);
  auto bodies = std::make_unique<BodyPass>(shader_dir_);
  auto gas_volume = std::make_unique<GasVolumePass>(shader_dir_);
  auto gas_plane = std::make_unique<GasPlanePass>(shader_dir_);
  auto grid = std::make_unique<GridOverlayPass>(shader_dir_);
  surface_->reload_shaders(shader_dir_);  // keeps its old programs when this throws
  spheres_ = std::move(spheres);
  tank_ = std::move(tank);
  diffuse_ = std::move(diffuse);
  obstacle_pass_ = std::move(obstacles);
  body_pass_ = std::move(bodies);
  gas_volume_ = std::move(gas_volume);
  gas_plane_ = std::move(gas_plane);
  grid_pass_ = std::move(grid);
  grid_pass_->upload(grid_overlay_);
  if (have_tank_) tank_->set_box(tank_lo_, tank_hi_);
}

void Renderer::set_tank(const glm::vec3& lo, const glm::vec3& hi) {
  tank_lo_ = lo;
  tank_hi_ = hi;
  have_tank_ = true;
  tank_->set_box(lo, hi);
}

void Renderer::draw(const CameraView& camera, const RenderSettings& settings,
                    const Marker& marker) {
  probe_.begin_frame();
  if (recycle_scenes_) {  // (after the surface's targets went, or the first frame: render/driver_scenes.h)
    driver_scenes_.recycle();
    recycle_scenes_ = false;
  }
  const bool surface = settings.mode == RenderMode::Surface || settings.mode == RenderMode::Mesh;
  if (surface) {
    const float scale = surface_scale_for(settings.surface);
    probe_.tag_frame(scale);  // its times tell the controller about this scale
    // The scene behind the water, into a texture the water refracts.
    probe_.begin("scene to texture");
    surface_->begin_scene(camera.framebuffer_width, camera.framebuffer_height, scale,
                          settings.background);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDisable(GL_BLEND);
    glDisable(GL_CULL_FACE);
    tank_->draw_floor(camera);
    // The obstacles and the bodies: refracted where they are under or behind the water,
    // and in the depth that the fluid's spheres are tested against (a copy), so particles
    // behind them (or inside them) leave no surface in front of them.
    obstacle_pass_->draw(camera, obstacles_);
    body_pass_->draw(camera, bodies_);
    // The far walls too (they are behind the water wherever they show through it): a ray
    // bent down into the water near the back meets the back wall, not the floor.
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(GL_FALSE);
    if (settings.show_walls) tank_->draw_walls(camera);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
    surface_->end_scene();
    probe_.end();
  }

  probe_.begin("floor");
  glViewport(0, 0, camera.framebuffer_width, camera.framebuffer_height);
  glClearColor(settings.background.r, settings.background.g, settings.background.b, 1.0f);
  glClearDepth(1.0);
  glDepthMask(GL_TRUE);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);

  tank_->draw_floor(camera);
  probe_.end();

  if (!obstacles_.empty()) {
    // Opaque, before the fluid: the spheres are depth-tested against them, and so is the
    // surface's shading, which writes the smoothed surface's depth.
    probe_.begin("obstacles");
    obstacle_pass_->draw(camera, obstacles_);
    probe_.end();
  }
  if (!bodies_.empty()) {
    // The same for the rigid bodies.
    probe_.begin("bodies");
    body_pass_->draw(camera, bodies_);
    probe_.end();
  }

  if (surface) {
    FluidDraw fluid;
    fluid.vbo = particles_.vbo();
    fluid.count = particles_.count();
    if (settings.surface.anisotropic && splats_.count() >= 3) {
      fluid.vbo = splats_.vbo();
      fluid.count = splats_.count() / 3;
      fluid.ellipsoids = true;
    }
    fluid.radius = settings.particle_radius * settings.size_scale;
    fluid.spacing = 2.0f * settings.particle_radius;
    fluid.nearest_depth = nearest_tank_depth(camera);
    fluid.clip_to_scene = !obstacles_.empty() || !bodies_.empty();
    fluid.two_d = settings.two_d;
    if (have_tank_) fluid.glass = SurfaceGlass{tank_lo_, tank_hi_, fluid.spacing};
    // The floor is the tank's bottom face, below every particle: seen from above it hides
    // none of them.
    const float eye_y = glm::inverse(camera.view)[3].y;
    fluid.depth_test_scene = fluid.clip_to_scene || !have_tank_ || eye_y <= tank_lo_.y;
    if (settings.mode == RenderMode::Mesh && mesh_.triangle_count() > 0)
      surface_->draw_mesh(camera, mesh_, fluid, settings.surface, probe_);
    else if (fluid.count > 0)
      surface_->draw(camera, fluid, settings.surface, probe_);
    glViewport(0, 0, camera.framebuffer_width, camera.framebuffer_height);
  } else {
    probe_.begin("spheres");
    draw_spheres(camera, settings);
    probe_.end();
    // What the surface last drew at is not kept: memory follows the mode shown, not the
    // modes and window sizes seen before (a window that had drawn the surface at 1600x1200
    // held 36 MB more as spheres than one that had drawn it at 1280x900).
    if (surface_->holds_targets()) {
      surface_->release_targets();
      // llvmpipe's scenes that only the surface's passes reached still hold its textures
      // and triangles: emptied before the next frame.
      recycle_scenes_ = true;  // (a no-op elsewhere than llvmpipe)
    }
  }

  probe_.begin("diffuse");
  draw_diffuse(camera, settings);
  probe_.end();

  if (!grid_overlay_.cells.empty()) {
    // Over the water, depth-tested against it (the cells' edges at its surface show).
    probe_.begin("grid overlay");
    grid_pass_->draw(camera, grid_overlay_);
    probe_.end();
  }

  // The gas, in every mode (the gas app uses the spheres one, with no particles), over the
  // opaque scene. The far walls are behind all of it: they go first, then the gas, then
  // the edges and the marker over it. (Walls drawn after the gas would tint it everywhere
  // but over the obstacles, which hide them: a ghost of the obstacles in dense smoke.)
  const bool gas = gas_.ready();
  if (gas) {
    probe_.begin("walls");
    begin_translucent();
    if (settings.show_walls) tank_->draw_wall_faces(camera);
    end_translucent();
    probe_.end();
    draw_gas(camera, clamp_gas_look(settings.gas));
  }

  probe_.begin(gas ? "edges and marker" : "walls and marker");
  draw_overlays(camera, settings, marker, /*wall_faces=*/!gas);
  probe_.end();
}

float Renderer::surface_scale_for(const SurfaceSettings& settings) {
  if (!settings.auto_scale) {
    // Fixed: the controller waits there, and goes on from it when switched back on.
    resolution_.reset(settings.fixed_scale);
    return resolution_.scale();
  }
  // The last frame whose timer queries all came back (a few frames ago); a frame drawn at
  // another scale, or in the spheres mode (tag 0), is passed over by the controller.
  const PassProbe::FrameTime& frame = probe_.last_frame();
  if (frame.fresh) resolution_.update({frame.gpu_ms, frame.scaled_gpu_ms, frame.tag});
  return resolution_.scale();
}

float Renderer::nearest_tank_depth(const CameraView& camera) const {
  if (!have_tank_) return 0.0f;
  // Eye depth is linear in the position, so over the box it is least at a corner.
  float nearest = 1e30f;
  for (int k = 0; k < 8; ++k) {
    const glm::vec3 corner(k & 1 ? tank_hi_.x : tank_lo_.x, k & 2 ? tank_hi_.y : tank_lo_.y,
                           k & 4 ? tank_hi_.z : tank_lo_.z);
    nearest = std::min(nearest, -(camera.view * glm::vec4(corner, 1.0f)).z);
  }
  return std::max(nearest, 0.0f);  // the eye inside the tank: unknown
}

void Renderer::draw_spheres(const CameraView& camera, const RenderSettings& settings) const {
  SphereDraw fluid;
  fluid.vbo = particles_.vbo();
  fluid.count = particles_.count();
  fluid.radius = settings.particle_radius * settings.size_scale;
  fluid.color_mode = int(settings.color_mode);
  fluid.range = settings.color_range;
  fluid.flat_color = settings.flat_color;
  fluid.disc = settings.two_d;
  spheres_->draw(camera, fluid);
}

void Renderer::draw_diffuse(const CameraView& camera, const RenderSettings& settings) const {
  DiffuseDraw diffuse;
  diffuse.vbo = diffuse_particles_.vbo();
  diffuse.count = diffuse_particles_.count();
  diffuse.radius = settings.diffuse_size * settings.particle_radius;
  const float fluid_radius = settings.particle_radius * settings.size_scale;
  if (settings.mode == RenderMode::Surface) {
    // The smoothed surface lies about one and a half drawn radii (the surface's spheres)
    // in front of the centres of the particles at the top, and foam sits among those
    // centres, up to about half a spacing deeper: a flat sprite cut by the surface would
    // show as a sliver.
    diffuse.surface_pull = 3.0f * fluid_radius;
    const SurfaceTargets& targets = surface_->targets();
    diffuse.opaque_depth = targets.scene_depth;
    diffuse.water_depth = particles_.count() > 0 ? targets.depth_smooth : 0;
    diffuse.absorption = settings.surface.absorption;
  } else {
    diffuse.surface_pull = 1.2f * fluid_radius;  // in front of the top spheres' caps
  }
  diffuse_->draw(camera, diffuse);
}

void Renderer::draw_gas(const CameraView& camera, const GasLook& look) {
  // Blended over everything drawn so far, without depth: a ray stops at a solid cell (an
  // obstacle), and the floor is the box's bottom face. Both leave the depth test on and
  // blending off, as the floor left them.
  if (gas_.two_d()) {
    probe_.begin("gas plane");
    gas_plane_->draw(camera, gas_, look);
  } else {
    probe_.begin("gas volume");
    gas_volume_->draw(camera, gas_, look);
  }
  probe_.end();
}

void Renderer::begin_translucent() const {
  // Translucent things last, depth-tested against the opaque scene but not writing depth.
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glDepthMask(GL_FALSE);
}

void Renderer::end_translucent() const {
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
}

void Renderer::draw_overlays(const CameraView& camera, const RenderSettings& settings,
                             const Marker& marker, bool wall_faces) {
  begin_translucent();
  if (settings.show_walls) {
    if (wall_faces) tank_->draw_wall_faces(camera);
    tank_->draw_edges(camera);
  }

  if (marker.visible) {
    const Vec4 center{marker.position.x, marker.position.y, marker.position.z, 0.0f};
    glBindBuffer(GL_ARRAY_BUFFER, marker_vbo_);
    glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof(Vec4), &center);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    SphereDraw ball;
    ball.vbo = marker_vbo_;
    ball.count = 1;
    ball.radius = marker.radius;
    ball.color_mode = int(ColorMode::Flat);
    ball.flat_color = marker.color;
    ball.disc = settings.two_d;
    // The marker sits on the fluid surface, half inside it: draw it once faint through
    // everything (so it is never lost) and once brighter where it is in front.
    glDisable(GL_DEPTH_TEST);
    ball.alpha = 0.25f;
    spheres_->draw(camera, ball);
    glEnable(GL_DEPTH_TEST);
    ball.alpha = 0.45f;
    spheres_->draw(camera, ball);
  }

  if (!highlight_.empty()) {
    // The inspected particle and its neighbours, over everything: they are usually inside
    // the water.
    glDisable(GL_DEPTH_TEST);
    SphereDraw ball;
    ball.color_mode = int(ColorMode::Flat);
    ball.radius = highlight_radius_;
    ball.alpha = 0.8f;
    ball.disc = settings.two_d;
    if (highlight_.size() > 1) {
      const size_t n = highlight_.size() - 1;
      glBindBuffer(GL_ARRAY_BUFFER, highlight_vbo_);
      if (n > highlight_capacity_) {
        highlight_capacity_ = std::max(n, size_t(64));
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(highlight_capacity_ * sizeof(Vec4)), nullptr, GL_DYNAMIC_DRAW);
      }
      glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(n * sizeof(Vec4)), highlight_.data() + 1);
      glBindBuffer(GL_ARRAY_BUFFER, 0);
      ball.vbo = highlight_vbo_;
      ball.count = n;
      ball.flat_color = glm::vec3(1.0f, 0.85f, 0.15f);
      spheres_->draw(camera, ball);
    }
    glBindBuffer(GL_ARRAY_BUFFER, marker_vbo_);
    glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof(Vec4), highlight_.data());
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    ball.vbo = marker_vbo_;
    ball.count = 1;
    ball.radius = 1.4f * highlight_radius_;
    ball.flat_color = glm::vec3(1.0f, 0.2f, 1.0f);  // magenta: in none of the colour maps
    ball.alpha = 0.95f;
    spheres_->draw(camera, ball);
    glEnable(GL_DEPTH_TEST);
  }

  end_translucent();
  glDisable(GL_DEPTH_TEST);
}

}  // namespace tp
