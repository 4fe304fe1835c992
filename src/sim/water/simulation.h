// The solver library's public face: what the app, the tests and the benchmarks see.
// No GL, no windows; the renderer receives particles through a PublishTarget.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/obstacle.h"
#include "kernels/sim_params.h"
#include "sim/backend/backend_kind.h"
#include "sim/backend/publish_values.h"
#include "sim/bodies/body_spec.h"
#include "sim/mesh/mesh.h"

namespace tp {

// A nozzle that adds water: a disk (or rectangle) through `position`, perpendicular to
// `velocity`, filled with a square lattice at the particle spacing. A layer is laid down
// each time the previous one has moved one spacing away (or less often, to keep to
// `rate`), and a point is skipped while any particle is closer than 0.9 spacings to it,
// so emitted water never overlaps what is there.
struct Emitter {
  Vec3 position{0, 0.5f, 0};   ///< [m] centre of the nozzle
  Vec3 velocity{1, 0, 0};      ///< [m/s] of the emitted water; its direction is the axis
  int shape = 0;               ///< 0 disk (radius), 1 rectangle (width x height)
  float radius = 0.1f;         ///< [m] disk
  float width = 0.2f;          ///< [m] rectangle: side across, horizontal when it can be
  float height = 0.2f;         ///< [m] rectangle: the other side
  float rate = 0.0f;           ///< [particles/s] most it adds; 0 = as many as fit the nozzle
  float start = 0.0f;          ///< [s] simulated time it starts
  float stop = -1.0f;          ///< [s] simulated time it stops; < 0 = never
};

// A box that removes every fluid particle that enters it (a drain, a channel's end).
struct Outflow {
  Vec3 lo{0, 0, 0}, hi{0, 0, 0};  ///< [m]
};
constexpr size_t kMaxOutflows = 8;  ///< per scene (each step tests every particle against each)

// The initial particles of a scene at a given spacing (see scene.h, which builds it).
struct InitialState {
  Vec3 tank_lo{0, 0, 0};        ///< [m] inner faces of the tank
  Vec3 tank_hi{1, 1, 1};
  float spacing = 0.05f;        ///< [m] particle spacing s; kernel support h = 2 s
  /// 3, or 2: a simulation in the plane z = tank_lo.z, which must equal tank_hi.z (the
  /// fluid, boundary samples, obstacles' centres and emitters in it; kernels/dimension.h).
  int dimensions = 3;
  std::vector<Vec4> fluid;      ///< fluid positions (w ignored)
  std::vector<Vec4> velocity;   ///< initial velocities (empty = at rest)
  std::vector<Vec4> boundary;   ///< boundary samples: xyz position, w = volume [m^3]
  std::vector<ObstacleShape> obstacles;  ///< at most kMaxObstacles; sampled by the simulation
  std::vector<Emitter> emitters;
  std::vector<Outflow> outflows;
  /// Rigid bodies (at most kMaxBodies): where they are and how they move now. At a reset
  /// the fluid inside a body (or within 0.4 spacings of its surface) is removed.
  std::vector<BodySpec> bodies;
  /// Most fluid particles emitters may bring the count to; 0 = four times the initial
  /// count, at least 100,000 (emitters pause at the limit and resume when outflows make room).
  uint64_t max_particles = 0;
};

// The most fluid particles emitters may bring a scene of `initial` particles to when it
// sets no max_particles: four times as many, at least 100,000.
inline uint64_t automatic_max_particles(uint64_t initial) {
  return 4 * initial > 100000 ? 4 * initial : 100000;
}

// A ray in world space, for picking the fluid under the cursor.
struct Ray {
  Vec3 origin;
  Vec3 direction;  ///< unit length
};

// Which per-particle value the renderer colours by (published in the w lane).
enum class ColorField {
  Speed = 0,
  Density = 1,
  Pressure = 2,
  Neighbors = 3,     ///< fluid and boundary neighbours within h (debug view)
  Vorticity = 4,     ///< |omega| [1/s], the SPH curl of the velocity (debug view)
  DensityError = 5,  ///< [%] the compression the statistics report, max(rho/rho0 - 1, 0)
};

// Where publish_mesh() writes the mesh last built: the renderer's vertex buffer holds the
// positions then the normals (2 x vertices Vec4, w = 0), its index buffer 3 indices per
// triangle. On the CUDA path map_device may give device pointers into both GL buffers
// (interop) and the mesh is copied on the device; otherwise the host copy goes to upload().
class MeshTarget {
 public:
  virtual ~MeshTarget() = default;
  virtual bool map_device(size_t vertices, size_t triangles, Vec4** vertex_out, uint32_t** index_out) {
    (void)vertices, (void)triangles, (void)vertex_out, (void)index_out;
    return false;
  }
  virtual void unmap() {}  ///< after a map_device that returned true
  virtual void upload(const TriangleMesh& mesh) = 0;
};

// A host copy of the particles in id order (ids are the initial particles' indices, then
// the emitted ones' in order of birth; outflows leave gaps).
struct Snapshot {
  std::vector<uint> id;
  std::vector<Vec4> position;
  std::vector<Vec4> velocity;
  std::vector<float> density;
  /// [Pa] the pressure the latest step applied (WCSPH: the Tait equation's; PCISPH: the
  /// one its loop converged to). PBF has no pressure (its multipliers are not one): zeros.
  std::vector<float> pressure;
};

// Diffuse particles (spray, foam, bubbles) by kind. See kernels/diffuse.h.
struct DiffuseCounts {
  uint spray = 0, foam = 0, bubbles = 0;
  uint capacity = 0;      ///< the cap in use (the parameter, or the backend's default)
  uint64_t spawned = 0;   ///< since the last reset
  uint total() const { return spray + foam + bubbles; }
};

// One diffuse particle as tests and scenes see it.
struct DiffuseParticle {
  Vec3 position;     ///< [m]
  Vec3 velocity;     ///< [m/s]
  int kind = 0;      ///< DiffuseKind: 0 spray, 1 foam, 2 bubble (reclassified every step)
  float lifetime = 1.0f;  ///< [s] left (only foam ages)
};

struct PhaseTime {
  std::string name;
  double total_ms = 0.0;  ///< wall time summed over all steps since reset
};

// Statistics since the last reset. Density error as in the foundation issue: for each
// fluid particle max(rho/rho0 - 1, 0), rho recomputed from the positions at the end of a
// step; the mean is over particles and steps, the max the largest single value.
struct RunStats {
  uint64_t steps = 0;
  double simulated_time = 0.0;     ///< [s]
  double last_dt = 0.0;            ///< [s]
  double density_error_mean = 0.0;
  double density_error_max = 0.0;
  double last_density_error = 0.0;  ///< mean over particles, latest measured state
  double max_speed = 0.0;           ///< [m/s] over the run
  double last_max_speed = 0.0;      ///< [m/s] latest step
  double stiffness_in_use = 0.0;    ///< [Pa] WCSPH: the stiffness, raised if the flow needs it
  uint64_t nonfinite_resets = 0;    ///< particles found with a NaN/inf state (a bug), over
                                    ///< every attempt; the guard threw those states away
  uint64_t nonfinite_steps = 0;     ///< steps that met one and were repeated at half the step
  bool halted = false;              ///< the guard gave up: the simulation stopped (until reset)
  std::string guard_note;           ///< the guard's latest sentence for the user ("" = none)
  int last_solver = -1;             ///< SolverKind of the latest step (-1: none since the reset)
  int last_iterations = 0;          ///< PCISPH/PBF: solver iterations of the latest step
  double last_solver_error = 0.0;   ///< PCISPH/PBF: mean predicted compression reached
  double mean_iterations = 0.0;     ///< PCISPH/PBF: over the steps they ran
  DiffuseCounts diffuse;            ///< spray, foam and bubbles alive after the latest step
  uint64_t emitted = 0;             ///< fluid particles added by emitters
  uint64_t removed = 0;             ///< fluid particles removed by outflows
  bool emitters_paused = false;     ///< the latest step's emitters were at max_particles
  double neighbors_per_particle = 0.0;  ///< fluid neighbours within h (self included), mean
                                        ///< over particles at the latest neighbour search
  double boundary_neighbors_per_particle = 0.0;  ///< boundary samples within h, likewise
  std::vector<PhaseTime> phases;
};

// Where the fluid's neighbour grid lies (Simulation::grid_geometry): cell (i, j, k) spans
// origin + cell * (i, j, k) to origin + cell * (i + 1, j + 1, k + 1).
struct GridGeometry {
  Vec3 origin{0, 0, 0};  ///< [m] the corner of cell (0, 0, 0)
  float cell = 0.0f;     ///< [m] cell size, the kernel support h = 2 spacings
  Int3 dims{0, 0, 0};    ///< cells per axis
};

// Everything a simulation needs to continue exactly as it would have (state files,
// src/sim/io/state_file.h). `initial` holds the tank, spacing, the tank's boundary samples,
// the obstacles where they are now, emitters, outflows, and the fluid in memory order.
struct SimState {
  InitialState initial;
  std::vector<uint> id;          ///< per fluid particle, memory order
  std::vector<float> pressure;   ///< per fluid particle (PCISPH warm-starts from it)
  SimParams params{};
  std::vector<Vec3> obstacle_target;
  std::vector<double> emitter_travel;
  /// Per body: the fluid's force and torque of the latest step, which the next step moves
  /// it by (rigid_bodies.h: the coupling lags one step).
  std::vector<Vec3> body_force, body_torque;
  std::vector<DiffuseParticle> diffuse;  ///< in birth order
  double diffuse_time = 0.0;
  double diffuse_spawn_time = 0.0;  ///< [s] up to the last update, since the last spawning
  float mass = 0.0f;             ///< [kg] fixed at the first reset, whatever rho0 is now
  float rest_density = 0.0f;     ///< the ramp's current value (see SimulationImpl)
  float solver_dt_limit = 0.0f;
  bool pending_measure = false;
  int previous_solver = -1;
  // What the solvers carry from one step to the next beyond the pressures (their warm
  // starts: PBF's multipliers and DFSPH's pressures count only when kept from their own
  // last step; DFSPH's divergence impulse, zeros after another solver's step; the time and
  // compression of the last switch, which DFSPH eases from). An empty array (a state file
  // from before they were kept): none, as after a reset.
  bool pressures_kept = false;
  double switched_at = -1.0;
  float switched_compression = 0.0f;
  MouseForce mouse{};           ///< the mouse force steps feel until it changes
  std::vector<float> divergence_impulse;
  uint next_id = 0;
  double time_debt = 0.0;
  RunStats stats;                ///< (phases are not kept)
  double error_sum = 0.0;
  uint64_t measured = 0, iteration_sum = 0, iteration_steps = 0;
};

class Simulation {
 public:
  virtual ~Simulation() = default;

  // Replaces all particles; parameters are kept. Throws std::invalid_argument with a
  // readable sentence when the state is unusable (no fluid, spacing <= 0, ...).
  virtual void reset(const InitialState& state) = 0;
  // One time step; its size is chosen by the solver within [dt_min, dt_max]. Returns it.
  virtual double step() = 0;
  // Steps until `seconds` of simulated time have passed or `budget_ms` of wall time is
  // spent (the window's frame budget; <= 0 means no budget). Returns the steps taken.
  virtual int advance(double seconds, double budget_ms) = 0;

  virtual SimParams& params() = 0;  ///< live parameters, edited by the panel
  virtual void set_mouse(const MouseForce& force) = 0;
  // The first point where the ray meets the fluid (a particle within one spacing of it).
  virtual std::optional<Vec3> pick(const Ray& ray) const = 0;

  virtual void publish(PublishTarget& target, ColorField field) = 0;
  // The diffuse particles, one Vec4 each: xyz position, w = kind + fade, with kind 0 spray,
  // 1 foam, 2 bubble and fade in [0, 1) the share of its last second a foam particle has
  // left (0.999 for spray and bubbles). Same targets as publish().
  virtual void publish_diffuse(PublishTarget& target) = 0;
  virtual uint diffuse_count() const = 0;
  // Diffuse particles now, in no particular order; and adding some (tests, scenes). Added
  // ones count against the cap like spawned ones.
  virtual std::vector<DiffuseParticle> diffuse_snapshot() = 0;
  virtual void add_diffuse(const std::vector<DiffuseParticle>& particles) = 0;
  // The particles in id order, with densities of the current positions (computed if
  // needed, which is why this is not const).
  virtual Snapshot snapshot() = 0;
  virtual RunStats stats() = 0;
  // The statistics as the latest step left them, without bringing the densities up to date
  // (no neighbour search): the density error is the one the solver measured last. For a
  // caller that publishes every step (the window's simulation thread), where stats()
  // would add a neighbour search to each PBF step.
  virtual RunStats stats_as_stepped() { return stats(); }
  // Simulated time [s]; unlike stats(), never computes anything (stats() brings the
  // densities up to date, which costs a neighbour search when the last step moved the
  // particles).
  virtual double simulated_time() const = 0;

  // Obstacles as they are now (centre, velocity of the latest move).
  virtual std::vector<ObstacleShape> obstacles() const = 0;
  // Moves obstacle `index` so that its centre reaches `center` during the next step; the
  // fluid feels it move at the velocity that implies (limited to keep the step stable).
  // The centre is kept inside the tank. Returns false for an unknown index.
  virtual bool move_obstacle(int index, Vec3 center) = 0;
  virtual std::vector<Emitter> emitters() const = 0;
  // Rigid bodies as they are now (pose and motion in each BodySpec), and the fluid's force
  // and torque on each that its latest move used.
  virtual std::vector<BodySpec> bodies() const { return {}; }
  virtual Vec3 body_fluid_force(size_t index) const { (void)index; return Vec3{0, 0, 0}; }
  virtual Vec3 body_fluid_torque(size_t index) const { (void)index; return Vec3{0, 0, 0}; }
  // The fluid's force [N] on the tank's wall samples within the box [lo, hi], as the last
  // step's pressure (and the walls' viscosity) pushed them: the pressure on the floor as a
  // gauge in it reads it (a force over an area), rather than the pressure of the water
  // beside it. The pressure solvers (WCSPH, PCISPH, DFSPH: both its solves); PBF, which
  // has no pressure and whose walls push the water by moving it (its samples' share of the
  // position corrections and the projection into the tank, pbf_wall_share), only for a
  // step taken while measure_walls is on, and then for the water's particles in the box
  // (the force is minus their momentum from the walls over the step's length). nullopt
  // before a step, where not measured, and once something has re-sorted the particles
  // since the step (a snapshot does: read the force before it). For tests and measurements: a pass over the
  // walls' samples (PBF: a pass per correction pass while measuring).
  virtual std::optional<Vec3> wall_fluid_force(Vec3 lo, Vec3 hi) { (void)lo, (void)hi; return std::nullopt; }
  virtual void measure_walls(bool on) { (void)on; }
  // The body the ray meets first: its index, the point (world) and that point in the body's
  // frame, for a grab.
  struct BodyHit {
    int index = -1;
    Vec3 point{0, 0, 0}, local{0, 0, 0};
    float distance = 0.0f;
  };
  virtual std::optional<BodyHit> pick_body(const Ray& ray) const { (void)ray; return std::nullopt; }
  // The mouse joint: body `index`'s point `local` pulled towards `target` (a soft spring,
  // Box2D's b2MouseJoint) from the next step on; move_grab() moves the target, release_body()
  // lets go. false for a kinematic body or an unknown index.
  virtual bool grab_body(int index, Vec3 local, Vec3 target) { (void)index, (void)local, (void)target; return false; }
  virtual void move_grab(Vec3 target) { (void)target; }
  virtual void release_body() {}
  virtual int grabbed_body() const { return -1; }
  // The whole state, and back. restore() replaces everything (throws
  // std::invalid_argument, leaving the simulation as it was, when the state is unusable);
  // the restored simulation then steps exactly as the captured one would have.
  virtual SimState capture() = 0;
  virtual void restore(const SimState& state) = 0;
  virtual std::vector<Outflow> outflows() const = 0;

  // The NaN guard (src/sim/water/step_guard.h): a step that ends with a NaN or infinite value
  // is repeated from its start at half the time step, a few times at most; then the
  // simulation stops (halted() until reset() or restore(); step() does nothing). The
  // sentence for the user, the first time a step is repeated and when it stops: given
  // once, "" afterwards (stats().guard_note keeps the latest for the panel).
  virtual std::string take_guard_note() { return ""; }
  virtual bool halted() const { return false; }
  // TEST HOOK, never called by the app: NaN goes into the acceleration (WCSPH, PCISPH) or
  // the corrected position (PBF) of particle `index` (memory order) just before the
  // integration, in each of the next `attempts` attempts at a step (1: the step fails
  // once and its retry runs clean; more than the guard's retries: it stops).
  virtual void inject_nan_for_test(uint index, int attempts) { (void)index, (void)attempts; }

  // The water's surface as a triangle mesh (src/sim/mesh/surface_mesh.h, docs/mesh.md), built on
  // this simulation's backend from the particles as they are now: its own phase, called
  // at most once per displayed or exported state. Throws std::invalid_argument for
  // settings it cannot use (the sentence says which), leaving the simulation as it was.
  // `out` nullptr: the mesh stays on the backend for publish_mesh() (the window on CUDA).
  virtual void build_mesh(const MeshSettings& settings, TriangleMesh* out, MeshTimes* times = nullptr) = 0;
  // The mesh of the last build_mesh() into the renderer's buffers: on the device through
  // the target's interop when it gives one, else through the host. (No build yet: empty.)
  virtual void publish_mesh(MeshTarget& target) = 0;
  // The same kernels without the mesh, for the surface mode's ellipsoid splats: 3 Vec4 per
  // fluid particle, laid out as SurfaceMesher::splats() says (src/sim/mesh/surface_mesh.h).
  // `out` nullptr: they stay on the backend for publish_splats().
  virtual void build_splats(const MeshSettings& settings, std::vector<Vec4>* out) = 0;
  // The splats of the last build_splats() as 3 Vec4 per particle, as publish() writes
  // particles (interop on CUDA when the target gives it).
  virtual void publish_splats(PublishTarget& target) = 0;
  // Gives back what the mesher holds (its lattice and output arrays, sized by the largest
  // water and the finest mesh it has built): the window calls it when neither the mesh
  // nor the splats are drawn, so that memory follows the draw mode. The next build makes
  // them again.
  virtual void release_mesher() = 0;

  virtual uint particle_count() const = 0;
  virtual uint boundary_count() const = 0;
  virtual float spacing() const = 0;
  virtual Vec3 tank_lo() const = 0;
  /// 2 or 3; in 2D the particles stay in the plane z = tank_lo().z = tank_hi().z.
  virtual int dimensions() const = 0;
  virtual Vec3 tank_hi() const = 0;
  /// The fluid's neighbour grid as the last reset set it up: the corner of cell (0, 0, 0),
  /// the cell size (h) and the cells per axis (in 2D one layer, on the plane). A particle
  /// outside it counts in the nearest edge cell (kernels/grid.h).
  virtual GridGeometry grid_geometry() const = 0;
  virtual float mass() const = 0;
  virtual BackendInfo backend() const = 0;
};

// Makes a simulation on the given backend with default parameters. Throws
// std::runtime_error when that backend is not compiled in or cannot start.
std::unique_ptr<Simulation> make_simulation(BackendKind kind);

/// Whether the CPU backend runs its per-particle loops a block of lanes a call (the
/// default where the build has AVX2 or AVX-512; TIDEPOOL_SCALAR=1 turns it off). The two
/// paths' sums round otherwise, so a session records it and its replay sets it.
bool cpu_lanes();
void set_cpu_lanes(bool on);

}  // namespace tp
