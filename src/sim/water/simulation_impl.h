// SimulationImpl<Backend>: the particle simulation, written once and instantiated for each
// backend (instantiate_cpu.cpp with g++ and OpenMP, instantiate_cuda.cu with nvcc). It owns
// the particle state, the two grids (fluid, rebuilt every step; boundary, built at reset)
// and the step. What it holds as objects: the scene's objects (scene_objects.h), the NaN
// guard (step_guard.h) and the step's record (step_record.h), the phase timers
// (phase_timers.h), the spray, foam and bubbles (diffuse.h) and the surface mesher
// (sim/mesh/surface_mesh.h). This file declares it; its members are defined in files that
// each call only what the files below them define:
//   shared_phases.h      the phases every solver shares and the step's verdict
//   wcsph.h, pcisph.h, pbf.h, dfsph.h   each method's own phases, over the shared ones
//   simulation_step.h    the step: its phase list, the solver it runs, the guard's retakes
//   simulation_state.h   reset, capture and restore
//   simulation_output.h  what the host and the renderer read
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/boundary.h"
#include "kernels/density.h"
#include "kernels/forces.h"
#include "kernels/pbf.h"
#include "kernels/surface_tension.h"
#include "kernels/wcsph.h"
#include "sim/mesh/surface_mesh.h"
#include "sim/neighbors/neighbor_grid.h"
#include "sim/neighbors/neighbor_list.h"
#include "sim/water/diffuse.h"
#include "sim/water/fluid_state.h"
#include "sim/water/params.h"
#include "sim/water/phase_timers.h"
#include "sim/water/scene_objects.h"
#include "sim/water/simulation.h"
#include "sim/water/step_guard.h"
#include "sim/water/step_record.h"

namespace tp {

// Sum of W over an infinite cubic (2D: square) lattice of the given spacing (including the
// origin), for a kernel normalised for that dimension (CubicKernel::make_for). The fluid
// mass is rho0 / this sum, so that a particle inside a block at the initial spacing sits
// exactly at rest density; boundary samples get volume (2D: area) 1 / this sum.
float lattice_kernel_sum(const CubicKernel& kernel, float spacing, int dimensions = 3);
// Sum of |grad W|^2 over the same lattice (PCISPH's delta, PBF's relaxation scale).
float lattice_gradient_sum(const CubicKernel& kernel, float spacing, int dimensions = 3);

template <class Backend>
class SimulationImpl;

// One struct per solver (kernels/solver_list.h), each with a step() that runs its phases
// and returns the time step taken; defined in src/sim/water/<name>.h.
#define TP_SOLVER_DECLARE(type, name, label)        \
  template <class Backend>                          \
  struct type {                                     \
    static double step(SimulationImpl<Backend>& sim); \
  };
TP_SOLVERS(TP_SOLVER_DECLARE)
#undef TP_SOLVER_DECLARE

template <class Backend>
class SimulationImpl final : public Simulation {
 public:
  template <class T>
  using Buffer = typename Backend::template Buffer<T>;

  SimulationImpl() : params_(default_params()) {}

  // ---- Simulation interface -------------------------------------------------------------
  void reset(const InitialState& state) override;
  double step() override;
  int advance(double seconds, double budget_ms) override;
  SimParams& params() override { return params_; }
  void set_mouse(const MouseForce& force) override;
  std::optional<Vec3> pick(const Ray& ray) const override;
  void publish(PublishTarget& target, ColorField field) override;
  void publish_diffuse(PublishTarget& target) override { diffuse_.publish(target); }
  uint diffuse_count() const override { return diffuse_.size(); }
  std::vector<DiffuseParticle> diffuse_snapshot() override { return diffuse_.snapshot(); }
  void add_diffuse(const std::vector<DiffuseParticle>& particles) override {
    diffuse_.add(particles, diffuse_.capacity(params_), stats_.diffuse);
  }
  Snapshot snapshot() override;
  void build_mesh(const MeshSettings& settings, TriangleMesh* out, MeshTimes* times) override;
  void publish_mesh(MeshTarget& target) override;
  void build_splats(const MeshSettings& settings, std::vector<Vec4>* out) override;
  void release_mesher() override { mesher_.reset(); }
  void publish_splats(PublishTarget& target) override;
  RunStats stats() override;
  RunStats stats_as_stepped() override;
  double simulated_time() const override { return stats_.simulated_time; }
  // The previous step's length [s] (0 before the first); unlike stats(), never settles.
  double last_dt() const { return stats_.steps ? stats_.last_dt : 0.0; }
  std::vector<ObstacleShape> obstacles() const override { return objects_.obstacles(); }
  bool move_obstacle(int index, Vec3 center) override { return objects_.move_obstacle(index, center); }
  std::vector<Emitter> emitters() const override { return objects_.emitters(); }
  std::vector<BodySpec> bodies() const override { return objects_.bodies().bodies(); }
  Vec3 body_fluid_force(size_t k) const override {
    return k < objects_.bodies().size() ? objects_.bodies().fluid_force(k) : Vec3{0, 0, 0};
  }
  Vec3 body_fluid_torque(size_t k) const override {
    return k < objects_.bodies().size() ? objects_.bodies().fluid_torque(k) : Vec3{0, 0, 0};
  }
  std::optional<Vec3> wall_fluid_force(Vec3 lo, Vec3 hi) override;
  void measure_walls(bool on) override { measuring_walls_ = on; }
  std::optional<BodyHit> pick_body(const Ray& ray) const override {
    std::optional<BodyHit> best;
    const auto& bodies = objects_.bodies().bodies();
    for (size_t k = 0; k < bodies.size(); ++k) {
      const float t = ray_hit(solid_of(bodies[k]), ray.origin, ray.direction);
      if (t < 0.0f || (best && t >= best->distance)) continue;
      const Vec3 p = ray.origin + ray.direction * t;
      best = BodyHit{int(k), p, to_local(bodies[k].pose, p), t};
    }
    return best;
  }
  bool grab_body(int index, Vec3 local, Vec3 target) override {
    return objects_.bodies().grab(index, local, target, length(Vec3{params_.gravity_x, params_.gravity_y, params_.gravity_z}));
  }
  void move_grab(Vec3 target) override { objects_.bodies().move_grab(target); }
  void release_body() override { objects_.bodies().release(); }
  int grabbed_body() const override { return objects_.bodies().grabbed(); }
  std::vector<Outflow> outflows() const override { return objects_.outflows(); }
  SimState capture() override;
  void restore(const SimState& state) override;
  std::string take_guard_note() override;
  bool halted() const override { return stats_.halted; }
  void inject_nan_for_test(uint index, int attempts) override { guard_.inject(index, attempts); }
  uint particle_count() const override { return fluid.n; }
  uint boundary_count() const override { return wall_n_ + objects_.sample_count(); }
  float spacing() const override { return spacing_; }
  Vec3 tank_lo() const override { return tank_lo_; }
  int dimensions() const override { return dimensions_; }
  Vec3 tank_hi() const override { return tank_hi_; }
  GridGeometry grid_geometry() const override {
    const GridView& g = grid_.view();
    return GridGeometry{g.origin, 1.0f / g.inv_cell, g.dims};
  }
  float mass() const override { return mass_; }
  BackendInfo backend() const override { return Backend::describe(); }

  // ---- Shared phases, used by the solvers (shared_phases.h) -----------------------------
  // Times `body` as the named phase (PhaseTimers).
  template <class F>
  void phase(const char* name, F&& body) {
    timers_.time(name, body);
  }
  void sort_particles();   ///< grid build + reorder (skipped when already sorted)
  void ensure_density();   ///< densities (and the pending error) for the current positions
  void compute_density();  ///< density at the current positions; records the error
  // The same, and in the same pass each particle's neighbour sum for its pressure's
  // stiffness (density_and_gradient_sum: PCISPH's delta, DFSPH's stiffness) into
  // fluid.spare_f, free between grid builds, where the solver reads it.
  void density_and_gradient_sums();
  // A solver's own pass has put the density at the current positions into fluid.density
  // and its compression into fluid.scratch (PCISPH's, which gathers delta's sums with it).
  void density_computed();
  void integrate();  ///< symplectic Euler with constants().dt, then the tank clamp
  /// PCISPH: viscosity, gravity and the mouse into fluid.acceleration (and
  /// velocity_inv_density from the velocity and density), before its pressure solve.
  void nonpressure_accelerations();
  /// Surface tension and adhesion (kernels/surface_tension.h) at `positions` (where the
  /// neighbour lists were built; fluid.density there): adds `scale` times their
  /// acceleration to target's xyz (the acceleration, or with scale dt the velocity).
  /// Uses fluid.aux for the normals. Nothing at all when both coefficients are 0.
  void add_surface_forces(const Vec4* positions, Vec4* target, float scale);
  // PBF's end of step: positions become fluid.predicted, velocities as the solver left
  // them; speed limit, tank clamp and NaN count as in integrate(). The solver has
  // recorded the end state's density error already (record_state_error).
  void commit_predicted();
  // Records the density error of the state whose per-particle compression is in
  // fluid.scratch (a solver that computed the end state's density itself: PBF).
  void record_state_error();
  void sort_by_predicted();  ///< grid build on fluid.predicted, every array reordered
  // An iterative solver's work this step: iterations used, mean compression reached.
  void record_iterations(int iterations, double error);
  // The solver of the previous step (-1 after a reset): PCISPH warm-starts its pressure
  // only from its own.
  int previous_solver() const { return previous_solver_; }
  // Simulated seconds since the solver in use took over from another (-1 when it has run
  // since the reset: the water was placed, not left by another method).
  double solver_time() const { return switched_at_ < 0.0 ? -1.0 : stats_.simulated_time - switched_at_; }
  // The mean compression the other solver left at that switch (a share of rho0).
  float compression_at_switch() const { return switched_compression_; }
  // Whether the pressures the last step left (fluid.pressure, fluid.divergence_impulse)
  // are that step's, for a solver that starts from them (DFSPH): not after a reset, a
  // restored state (which does not carry them: a restored run then starts as a fresh
  // one does, and a retaken step as a clean one from its start) or an undone step.
  bool pressures_kept() const { return pressures_kept_; }
  // An iterative solver's own cap on the time step, learnt from its convergence (PCISPH).
  float solver_dt_limit() const { return solver_dt_limit_; }
  void set_solver_dt_limit(float dt) { solver_dt_limit_ = clampf(dt, params_.dt_min, params_.dt_max); }
  // The time step a solver chose, halved as often as the NaN guard has asked in this step.
  float limit_dt(float dt) const { return guard_.limit_dt(dt); }
  // The time step's maxima in one reduction: speed, acceleration and, with `density`, the
  // largest rho / rho0 of the current densities (else 0). Records the speed in the
  // statistics. This is the step's one wait on a GPU (the record's read): it also brings
  // the verdict on the work since the last one, and is the point the step's start is saved
  // at (step_guard.h); it throws StepRetaken when that work was undone.
  struct FlowMaxima {
    float speed, acceleration, density_ratio;
  };
  FlowMaxima flow_maxima(bool density);
  // The water's extent along gravity, for a solver's cap on its step (PCISPH's and PBF's
  // holding steps): record_extent() before flow_maxima() reduces it with the flow's maxima
  // (no wait of its own), `third` (may be null) into the record's third slot, and
  // extent_seen() reads it after: the depths of the deepest and the highest particle, plus
  // a spacing.
  void record_extent(const float* third);
  float extent_seen() const;
  // What a solver reduces without a wait, read at the next wait (step_record.h).
  StepRecorder<Backend>& recorder() { return record_; }
  StepConstants& constants() { return constants_; }
  const GridView& grid_view() const { return grid_.view(); }
  // Each fluid particle's fluid neighbours, as found by the latest grid build (in the
  // order of that build: current positions, or PBF's predicted ones).
  NeighborList fluid_list() const { return lists_.fluid(); }
  // The boundary samples next to fluid and the fluid around each (NeighborLists::samples),
  // for the walls' pressure; searched once per grid build, on the first call.
  SampleLists sample_lists(uint first = 0);  ///< with `first`: of the samples from it on only
  BoundaryView boundary_view();
  // The same samples where their velocity takes them in dt (the tank's stay): what a
  // solver's predicted positions are measured against, so that a moving body makes room
  // in the step that moves it, not one step late (pcisph.h).
  BoundaryView boundary_view_ahead(float dt);

  FluidState<Backend> fluid;

  // Public only because nvcc requires that functions enclosing device lambdas are.
  void refresh_constants();
  void measure_pending();
  void add_measure(double mean, float max);
  void step_diffuse(double dt);  ///< after each step: spray, foam and bubbles (if on)
  void place_boundary_samples(const InitialState& s, float lattice_sum);
  void place_obstacle_samples();
  void advance_obstacles();  ///< with the step's dt, once known (integrate; PBF: pbf_predict)
  // The fluid's force on each listed sample of a body (kernels/body_coupling.h) and the
  // bodies' sums of them, for the next step's move: the pressure solvers' after their
  // pressures and forces are final; PBF's in each iteration (`predicted_lambda`: the
  // predicted positions with lambda in w), added up from `first` on.
  void gather_body_forces(bool in_solve = false);  ///< in_solve: for DfsphBodies (RigidBodies::sum_forces)
  void publish_body_sums();  ///< the bodies' sums into the step record (integrate, commit_predicted)
  // PBF: the bodies' share of a correction pass from these multipliers, times the pass's
  // weight (pbf_final_weight's damped last pass moves the water by that share only, and
  // the bodies must take the same).
  void gather_body_forces_pbf(const Vec4* predicted_lambda, bool first, float weight);
  void sum_body_forces() { objects_.sum_body_forces(); }
  // Per particle a change of velocity a body gave it (xyz) and the body (w, -1: none), given
  // back to the bodies as -m dv / dt at `position`, added to their latest sums.
  void take_back_pushes(const Vec4* pushes, const Vec4* position) {
    objects_.bodies().take_back_pushes(pushes, position, fluid.n, constants_.mass, constants_.dt);
  }
  bool has_bodies() const { return objects_.bodies().size() > 0; }
  // PBF, while measure_walls is on: per particle, its displacement by the tank in this
  // step (pbf_wall_share), sized for the particles; nullptr when not measuring. The step
  // that fills it calls walls_measured().
  Vec4* wall_moves() {
    if (!measuring_walls_) return nullptr;
    if (wall_moves_.size() < fluid.n) wall_moves_.resize(fluid.n);
    return wall_moves_.data();
  }
  void walls_measured() { walls_measured_at_ = stats_.steps; }
  std::optional<Vec3> pbf_wall_force(Vec3 lo, Vec3 hi);  ///< wall_fluid_force on PBF
  // DFSPH's bodies inside its solves (dfsph.h): the bodies, and their samples' velocities
  // with the bodies' solve offsets (RigidBodies::solve_offsets).
  RigidBodies<Backend>& rigid_bodies() { return objects_.bodies(); }
  void offset_body_sample_velocities() { objects_.offset_body_sample_velocities(boundary_velocity_.data() + wall_n_); }
  void save_step_start();
  void restore_step_start();
  void inject_nan(Vec4* values);
  void count_nonfinite();
  template <class F>
  void all_or_nothing(F&& change);  ///< simulation_state.h
  void reset_state(const InitialState& state);
  void restore_state(const SimState& state);
  static void validate_initial(const InitialState& state);  ///< throws std::invalid_argument
  void publish_debug(PublishTarget& target, ColorField field);  ///< publish()'s debug views

 private:
  double guarded_solve(int solver);  ///< solve, retaken until its verdict is given
  double solve(int solver);
  // Reads the record if anything was written to it (the wait) and acts on it: a completed
  // step whose particles went non-finite or whose lists overflowed is undone (its start
  // restored, the NaN guard's halving), lists that overflowed grow. In a solve (flow_maxima)
  // it throws StepRetaken when the solve must start again; elsewhere the next step retakes
  // the undone one. Returns whether something was undone.
  bool settle(bool in_solve);
  struct StepRetaken {};
  // The neighbour lists; `mark`: the listed boundary samples marked in the same pass
  // (NeighborLists::build), for the solvers that ask for sample_lists() every step.
  void build_lists(const Vec4* positions, bool mark = true);
  // The lists' overflow goes into the record's slot for builds before the step's save
  // point, or after it (a completed step's, judged with it).
  Max3* overflow_slot(typename StepRecorder<Backend>::Field* field);
  MeshInput mesh_input();  ///< the fluid as the mesher reads it (settled; the mesher made)

  SimParams params_;
  MouseForce mouse_{};
  StepConstants constants_{};
  NeighborGrid<Backend> grid_, boundary_grid_;
  NeighborLists<Backend> lists_;  ///< rebuilt with every fluid grid build
  // Boundary samples: the tank's [0, wall_n_), then the obstacles' (see BoundaryView).
  Buffer<Vec4> boundary_, boundary_spare_, boundary_velocity_;
  Buffer<Vec4> boundary_ahead_;  ///< boundary_view_ahead's positions
  Buffer<float> boundary_pressure_;
  Buffer<Vec4> wall_moves_;  ///< wall_moves()
  Buffer<Vec4> listed_force_;  ///< gather_body_forces_pbf: the force on each listed sample
  bool measuring_walls_ = false;
  // The particles are in the order the last step left them: nothing (a snapshot's density,
  // ensure_density) has sorted them since, so the step's per-particle terms that a sort does
  // not carry (position_term, wall_moves_) still belong to them (wall_fluid_force).
  bool as_stepped_ = false;
  uint64_t walls_measured_at_ = ~uint64_t(0);  ///< stats_.steps when the step that filled wall_moves_ began
  Buffer<Vec4> staging_;  ///< publish() without interop (CUDA only)
  uint wall_n_ = 0;
  float spacing_ = 0.0f, mass_ = 0.0f, lattice_grad2_ = 0.0f;
  int dimensions_ = 3;  ///< 2: the plane z = tank_lo_.z (kernels/dimension.h)
  // The rest density the solver uses: follows params_.rest_density by at most a factor
  // of two per simulated second, so that a slider moved from 1000 to 100 lets the fluid
  // swell over a few seconds instead of releasing a 10x pressure in one step.
  float rest_density_ = 0.0f;
  static constexpr double kRestDensityDoublingTime = 1.0;  // [s]
  static constexpr float kMinSoundToFlow = 1.5f;
  Vec3 tank_lo_{0, 0, 0}, tank_hi_{1, 1, 1};
  Vec3 wall_clear_lo_{0, 0, 0}, wall_clear_hi_{0, 0, 0};  ///< no tank sample within h inside
  // Positions sorted for the current grid / density valid for the current positions.
  bool sorted_ = false, density_valid_ = false;
  // The grid and the neighbour lists index the particle arrays as they stand (their
  // order and count), built at positions at most one step old (a step moves the particles
  // but neither reorders nor adds them): good enough for the spray, foam and bubbles,
  // which then need no sort of their own (step_diffuse).
  bool listed_ = false;
  // The end state of the latest step has not had its density error recorded yet.
  bool pending_measure_ = false;
  double time_debt_ = 0.0;

  RunStats stats_;
  double error_sum_ = 0.0;  // sum over measured states of the per-state mean error
  uint64_t measured_ = 0;
  uint64_t iteration_sum_ = 0, iteration_steps_ = 0;
  int previous_solver_ = -1;  ///< the solver of the last step (-1 after a reset)
  double switched_at_ = -1.0;  ///< [s] when the solver in use took over from another; -1: since the reset
  float switched_compression_ = 0.0f;  ///< the mean compression then
  bool pressures_kept_ = false;  ///< pressures_kept()
  float solver_dt_limit_ = 1e-3f;
  PhaseTimers<Backend> timers_;
  SceneObjects<Backend> objects_;
  DiffuseParticles<Backend> diffuse_;
  std::unique_ptr<SurfaceMesher<Backend>> mesher_;  ///< made at the first build_mesh()

  // The step's verdict (step_guard.h): the record, the guard, and the step's start (its
  // particles are in fluid.start_*; here the host values a step changes, as one tuple of
  // references, and the scene objects').
  StepRecorder<Backend> record_;
  StepGuard guard_;
  bool start_saved_ = false;  ///< this solve has saved its start (its lists are its own)
  bool solving_ = false;      ///< in guarded_solve: measures go to the record
  double undone_time_ = 0.0;  ///< [s] of earlier steps this step() call undid
  auto step_values() {
    return std::tie(stats_, error_sum_, measured_, iteration_sum_, iteration_steps_, solver_dt_limit_,
                    pending_measure_);
  }
  struct StepStart {
    std::tuple<RunStats, double, uint64_t, uint64_t, uint64_t, float, bool> values;
    typename SceneObjects<Backend>::Moment objects;
  } start_;
};

}  // namespace tp
