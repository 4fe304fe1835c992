// Scenes: a tank, blocks of fluid, a camera and parameter overrides, read from JSON files
// in assets/scenes/ (format in docs/scenes.md), and turned into particles at a given spacing.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/gas.h"
#include "sim/backend/memory.h"  // SceneError
#include "sim/water/simulation.h"

namespace tp {

struct FluidBlock {
  Vec3 lo, hi;             ///< [m] box corners
  Vec3 velocity{0, 0, 0};  ///< [m/s] initial velocity
};

struct FluidSphere {
  Vec3 center;             ///< [m]
  float radius = 0.1f;     ///< [m]
  Vec3 velocity{0, 0, 0};  ///< [m/s] initial velocity
};

struct CameraSetup {
  Vec3 target{0, 0.5f, 0};  ///< [m] point the camera orbits
  float distance = 4.0f;    ///< [m]
  float yaw = 0.0f;         ///< [deg] around +y; 0 looks along -z
  float pitch = 20.0f;      ///< [deg] above the horizon
};

// A gas scene's grid and what is in it (the "gas" object of a scene file; docs/scenes.md).
struct SmokeBlock {
  Vec3 lo, hi;               ///< [m]
  float density = 1.0f;      ///< [1]
  float temperature = 0.0f;  ///< [K] above the ambient
  Vec3 color{1, 1, 1};      ///< dye
};

struct GasScene {
  int dimensions = 3;  ///< 2: one layer of cells through the tank's middle in z
  int cells = 64;      ///< along the tank's longest side (in the plane for 2D)
  unsigned open = 0;   ///< GasGrid::open: sides where the gas flows out
  int no_slip = 0;     ///< the walls hold the gas (viscosity); else it slides
  Vec3 wall_velocity[6] = {};       ///< [m/s] a side's own motion (a lid)
  std::vector<GasSource> sources;   ///< colour as given (0-1)
  std::vector<SmokeBlock> blocks;   ///< smoke at the start
  std::vector<std::pair<std::string, std::string>> params;  ///< GasParams overrides, as text
};

struct Scene {
  std::string name;
  std::string description;
  std::string source;  ///< file it came from
  Vec3 tank_lo{-1, 0, -1}, tank_hi{1, 1, 1};
  /// 3, or 2: the water moves in the plane through the tank's middle in z (z coordinates
  /// of blocks, spheres, obstacles and emitters are put onto it; docs/2d.md).
  int dimensions = 3;
  float spacing = 0.04f;  ///< [m] default particle spacing
  std::vector<FluidBlock> blocks;
  std::vector<FluidSphere> spheres;
  std::vector<Emitter> emitters;
  std::vector<Outflow> outflows;
  std::vector<ObstacleShape> obstacles;  ///< velocity zero; at most kMaxObstacles
  std::vector<BodySpec> bodies;          ///< rigid bodies (docs/scenes.md); at most kMaxBodies
  uint64_t max_particles = 0;            ///< see InitialState::max_particles
  CameraSetup camera;
  std::vector<std::pair<std::string, std::string>> params;  ///< SimParams overrides, as text
  bool is_gas = false;  ///< a gas scene (smoke, ink on a grid): no particles; see `gas`
  GasScene gas;
};

// Limits of a scene file. Larger or deeper files are refused before they are parsed.
constexpr size_t kMaxSceneBytes = size_t(16) << 20;  ///< 16 MB
constexpr int kMaxSceneDepth = 64;                   ///< arrays and objects inside each other
constexpr size_t kMaxSceneItems = 10000;             ///< fluid_blocks, and fluid_spheres, each
constexpr size_t kMaxEmitters = 64;
constexpr float kMinEmitterSpeed = 0.01f, kMaxEmitterSpeed = 50.0f;  ///< [m/s]
constexpr uint64_t kMinMaxParticles = 1000;  ///< the smallest max_particles other than 0

// Parses a scene from JSON text; `source` names it in messages. Throws SceneError, and
// nothing else, with a one-line message "scene file '<source>': <key path> must be ...,
// not ...", or for a syntax error "... JSON syntax error at line L, column C: ...".
Scene parse_scene(const std::string& json_text, const std::string& source);
// Reads and parses a file. Throws SceneError.
Scene load_scene_file(const std::string& path);
// `name_or_path`: a file path (contains '/' or ends in .json) or the name of a scene in
// `scene_dir` ("dam_break" -> scene_dir/dam_break.json). Throws SceneError listing the
// available names when there is no such scene.
Scene find_scene(const std::string& name_or_path, const std::string& scene_dir);
// A file a scene names (a mesh body's): as given when absolute; else in `dir` (the scene
// file's folder), or failing that in the folder above it (so that the shipped scenes'
// "meshes/cup.obj" is assets/meshes/cup.obj); else dir/file, for the error to name.
std::string find_beside(const std::string& file, const std::string& dir);
enum class SceneKind { Any, Water, Gas };
// The scenes in `scene_dir` by name, sorted; of one kind (the files read to tell).
std::vector<std::string> list_scenes(const std::string& scene_dir, SceneKind kind = SceneKind::Any);

// Applies the scene's parameter overrides. Throws SceneError naming params.<key>.
void apply_scene_params(const Scene& scene, SimParams& params);

// Total fluid volume of the scene's blocks and spheres inside the tank [m^3]: exact for a
// sphere wholly inside, a numerical estimate for one cut by the walls. Overlapping shapes
// count twice and obstacles are not subtracted. In a 2D scene the area in the plane [m^2].
double fluid_volume(const Scene& scene);
// About how many fluid particles the scene's blocks and spheres hold at its own spacing
// (volume / s^3; in 2D area / s^2).
double particles_at_own_spacing(const Scene& scene);
// The spacing that gives about `count` particles for the scene's volume of water. A scene
// with emitters and no initial water scales its own spacing so that its particle limit
// (max_particles, or the automatic 100,000) becomes `count`. Never coarser than half the
// smallest body's smallest side: such a scene gets more particles than `count`.
float spacing_for_count(const Scene& scene, uint64_t count);
// That finest spacing the bodies allow (half the smallest body's smallest side, a little
// under); infinity without bodies.
float body_spacing_limit(const Scene& scene);
// Particles on one lattice of spacing s (anchored at the tank's min corner + s/2): the
// points inside any fluid block or sphere (once where they overlap), except those inside
// an obstacle or within s/2 of it, and boundary samples filling a shell two spacings thick
// around the tank. The tank's max faces are rounded down to whole spacings so that the
// walls continue the lattice on every side. Emitters, outflows and obstacles (at rest) are
// copied, and max_particles scaled to spacing s (it counts particles of the scene's own
// spacing, so at another it stands for the same volume of water). The fluid is empty only in a scene with emitters. Throws
// SceneError, before allocating anything, when the simulation would not fit in
// `memory_bytes` (0 = the machine's available memory; see src/sim/water/memory_need.h); with
// emitters, that counts the most fluid particles they may bring (max_particles, or 4 x
// the initial count, at least 100,000), and `diffuse_particles` spray, foam and bubbles
// (the simulation's cap).
InitialState build_initial_state(const Scene& scene, float spacing, uint64_t memory_bytes = 0,
                                 uint64_t diffuse_particles = 0);

// The most particles a simulation accepts.
constexpr uint64_t kMaxParticles = 50'000'000;

}  // namespace tp
