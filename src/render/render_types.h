// What the app tells the renderer each frame: the camera, the look, the mouse marker and
// the obstacles. Plain data; the renderer never sees the simulation, only these, the
// ParticleBuffers and the GasField.
#pragma once

#include <glm/glm.hpp>

#include <memory>
#include <string>
#include <vector>

namespace tp {

// How particles are coloured from their w value (see ParticleBuffer).
enum class ColorMode {
  Water = 0,     ///< w = speed: deep blue at rest to near-white when fast
  Speed = 1,     ///< w = speed on a perceptual map (viridis)
  Density = 2,   ///< w = rho/rho0 on a diverging map centred on 1
  Pressure = 3,  ///< w = pressure [Pa] on a sequential map
  Flat = 4,      ///< one colour, w ignored
  // Debug views (the panel's Debug views section):
  Neighbors = 5,     ///< w = fluid and boundary neighbours within h, viridis
  Vorticity = 6,     ///< w = |omega| [1/s], inferno
  DensityError = 7,  ///< w = compression [%], grey to red
};
constexpr int kColorModeCount = 8;

const char* color_mode_name(ColorMode mode);  ///< "water", "speed", ...
bool parse_color_mode(const std::string& text, ColorMode* mode);
std::string color_mode_names();  ///< "water, speed, density, pressure, flat, neighbours, ..."

// What the fluid is drawn as.
enum class RenderMode {
  Spheres = 0,  ///< one shaded sphere per particle, coloured by ColorMode
  Surface = 1,  ///< screen-space fluid surface (refraction, absorption, reflection)
  Mesh = 2,     ///< the simulation's triangle mesh, shaded as the surface (docs/mesh.md)
};
constexpr int kRenderModeCount = 3;
const char* render_mode_name(RenderMode mode);  ///< "spheres", "surface", "mesh"
bool parse_render_mode(const std::string& text, RenderMode* mode);

// The screen-space surface's look (see SurfaceRenderer). Edited live in the panel.
struct SurfaceSettings {
  float filter_size = 6.0f;      ///< smoothing radius in particle radii (world space)
  float thickness_scale = 1.0f;  ///< multiplies the summed sphere thickness
  /// Beer-Lambert absorption per metre of thickness, per channel: red goes first, so
  /// thick water turns blue-green.
  glm::vec3 absorption{3.2f, 1.3f, 0.45f};
  float reflectivity = 1.0f;  ///< multiplies the Fresnel (Schlick) reflection
  float refraction = 1.0f;    ///< bends the view ray (1 = water's index, 1.33)
  /// The resolution of the surface's passes up to the shading, a fraction of the window's
  /// per axis (the last pass brings the water back to the window's resolution): picked
  /// every frame to keep the frame rate (ResolutionController) while auto_scale is on,
  /// else fixed_scale. Either way within [kMinSurfaceScale, 1].
  bool auto_scale = true;
  float fixed_scale = 1.0f;
  /// Ellipsoid splats: each particle stretched along its neighbourhood (the mesh's
  /// anisotropic kernels, Yu & Turk 2013) instead of a sphere: flat water stays flat, thin
  /// sheets stay thin (docs/rendering.md).
  bool anisotropic = true;
};
/// The least resolution scale: half the window per axis, a quarter of its pixels. Further
/// down the surface's shape and highlights would coarsen visibly (its outline and the floor
/// seen through it keep the window's resolution at any scale).
constexpr float kMinSurfaceScale = 0.5f;

// How a gas (smoke, ink) grid is drawn (see GasVolumePass, GasPlanePass). Edited live in
// the panel; the renderer clamps every field to its range (clamp_gas_look) before use.
struct GasLook {
  /// Extinction of the 3D ray march [1/m per unit density]: a ray through d metres of
  /// density rho keeps exp(-extinction * rho * d) of what lies behind. [0, 1e4]
  float extinction = 40.0f;
  /// The 2D plane's opacity per unit density: alpha = 1 - exp(-plane_opacity * rho). [0, 1e4]
  float plane_opacity = 3.0f;
  /// The ray march's resolution, a fraction of the window's per axis (composited back
  /// with bilinear upsampling): the march is the costly part. [0.25, 1]
  float volume_scale = 0.5f;
  /// The ray march's step in cells (of the smallest cell side). [0.5, 4]
  float step_cells = 1.0f;
};
// `look` with every field in its range; NaN takes the default.
GasLook clamp_gas_look(const GasLook& look);

// [m] How deep the surface mode draws 2D water (RenderSettings::two_d): one layer of
// particles is a few millimetres of water, which would look like clear glass; shaded as
// this depth of water (absorption, tint) it looks like the 3D tanks' water seen through
// their side (the 3D dam break's tank is 1 m deep).
constexpr float kTwoDimensionalDepth = 1.0f;

struct RenderSettings {
  RenderMode mode = RenderMode::Spheres;
  SurfaceSettings surface;
  ColorMode color_mode = ColorMode::Water;
  glm::vec2 color_range{0.0f, 2.5f};  ///< values mapped to the two ends of the colour map
  float particle_radius = 0.02f;      ///< [m] drawn radius before size_scale
  float size_scale = 1.0f;
  /// Radius of the spray, foam and bubble sprites, in particle radii (particle_radius).
  float diffuse_size = 0.4f;
  glm::vec3 background{0.16f, 0.17f, 0.20f};
  glm::vec3 flat_color{0.16f, 0.45f, 0.85f};
  bool show_walls = true;
  /// The simulation is 2D (a plane seen square-on): particles are drawn as flat discs, and
  /// the surface's thickness is that of water kTwoDimensionalDepth deep (SurfaceRenderer).
  bool two_d = false;
  /// The Debug views' grid overlay: the neighbour grid's occupied cells drawn over the
  /// water (the app hands the renderer the cells while it is on; GridOverlayPass).
  bool grid_overlay = false;
  GasLook gas;  ///< the gas grid's look (when the renderer's GasField holds one)
};

// Default colour_range of a mode for a fluid of the given typical pressure scale [Pa].
glm::vec2 default_color_range(ColorMode mode, float pressure_scale);

struct CameraView {
  glm::mat4 view{1.0f};
  glm::mat4 projection{1.0f};
  int framebuffer_width = 1;
  int framebuffer_height = 1;
};

// A translucent ball where the mouse force acts.
struct Marker {
  bool visible = false;
  glm::vec3 position{0.0f};
  float radius = 0.03f;
  glm::vec3 color{1.0f, 0.6f, 0.2f};
};

// A rigid obstacle to draw (see ObstaclePass), copied by the app from the simulation each
// frame. The kinds match kernels/obstacle.h's ShapeKind.
enum class ObstacleKind : int { Box = 0, Sphere = 1 };

struct ObstacleDraw {
  int kind = int(ObstacleKind::Box);  ///< ObstacleKind
  glm::vec3 center{0.0f};             ///< [m]
  glm::vec3 half_extent{0.0f};        ///< [m] box: half its size along x, y, z
  float radius = 0.0f;                ///< [m] sphere
  bool highlighted = false;           ///< under the cursor with ctrl held, or being dragged
};

// A rigid body to draw (see BodyPass), copied by the app from the simulation's published
// bodies each frame. The kinds match kernels/rigid_body.h's BodyShapeKind.
enum class BodyKind : int { Sphere = 0, Box = 1, Capsule = 2, Mesh = 3 };

struct BodyDraw {
  int kind = int(BodyKind::Box);     ///< BodyKind
  glm::vec3 position{0.0f};          ///< [m] the centre
  glm::vec4 orientation{1, 0, 0, 0}; ///< unit quaternion (w, x, y, z): body frame to world
  glm::vec3 half_extent{0.0f};       ///< [m] box: half its size along its own x, y, z
  float radius = 0.0f;               ///< [m] sphere, capsule
  float half_height = 0.0f;          ///< [m] capsule: half its cylinder's length (own y)
  /// Mesh: its triangles in the body's frame, three corners each, as (position, normal)
  /// pairs [m]; the pass uploads each such list once and keeps it while it is drawn.
  std::shared_ptr<const std::vector<glm::vec3>> mesh;
  bool highlighted = false;          ///< under the cursor with ctrl held, or being dragged
};

// One render pass's recent mean times (see PassProbe).
struct PassTime {
  std::string pass;
  double gpu_ms = 0.0;  ///< on the GPU (timer queries)
  double cpu_ms = 0.0;  ///< issuing its GL calls on this thread
};

}  // namespace tp
