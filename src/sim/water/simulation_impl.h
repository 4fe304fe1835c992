// Simulation<Backend>: the solver driver, written once and instantiated for each backend
// (instantiate_cpu.cpp with g++ and OpenMP, instantiate_cuda.cu with nvcc). It owns the
// particle state, the two grids (fluid, rebuilt every step; boundary, built at reset) and
// the phases every solver shares: grid build, density, integration, statistics.
// The methods' own phases live in one file each (wcsph.h, ...).
#pragma once

#include <algorithm>
#include <chrono>
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
#include "kernels/diffuse.h"
#include "kernels/density.h"
#include "kernels/forces.h"
#include "kernels/pbf.h"
#include "kernels/surface_tension.h"
#include "kernels/wcsph.h"
#include "sim/water/fluid_state.h"
#include "sim/neighbors/neighbor_grid.h"
#include "sim/neighbors/neighbor_list.h"
#include "sim/water/params.h"
#include "sim/water/simulation.h"
#include "sim/mesh/surface_mesh.h"

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
// and returns the time step taken; defined in src/sim/<name>.h.
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
  // reset() and restore() without their roll-back (all_or_nothing).
  void reset_state(const InitialState& state);
  void restore_state(const SimState& state);
  static void validate_initial(const InitialState& state);  // throws std::invalid_argument
  template <class F>
  void all_or_nothing(F&& change);
  double step() override;
  int advance(double seconds, double budget_ms) override;
  SimParams& params() override { return params_; }
  void set_mouse(const MouseForce& force) override {
    mouse_ = force;
    if (dimensions_ == 2) {  // in the plane, whatever the caller's ray met
      mouse_.point.z = tank_lo_.z;
      mouse_.velocity.z = 0.0f;
    }
  }
  std::optional<Vec3> pick(const Ray& ray) const override;
  void publish(PublishTarget& target, ColorField field) override;
  // Diffuse particles: src/sim/diffuse.h.
  void publish_diffuse(PublishTarget& target) override;
  uint diffuse_count() const override;
  std::vector<DiffuseParticle> diffuse_snapshot() override;
  void add_diffuse(const std::vector<DiffuseParticle>& particles) override;
  Snapshot snapshot() override;
  void build_mesh(const MeshSettings& settings, TriangleMesh* out, MeshTimes* times) override;
  void publish_mesh(MeshTarget& target) override;
  void build_splats(const MeshSettings& settings, std::vector<Vec4>* out) override;
  void publish_splats(PublishTarget& target) override;
  RunStats stats() override;
  RunStats stats_as_stepped() override;
  double simulated_time() const override { return stats_.simulated_time; }
  std::vector<ObstacleShape> obstacles() const override { return obstacles_; }
  bool move_obstacle(int index, Vec3 center) override;
  std::vector<Emitter> emitters() const override { return emitters_; }
  std::vector<Outflow> outflows() const override { return outflows_; }
  SimState capture() override;          // src/sim/water/sim_state.h
  void restore(const SimState& state) override;
  // The NaN guard: src/sim/step_guard.h.
  std::string take_guard_note() override;
  bool halted() const override { return stats_.halted; }
  void inject_nan_for_test(uint index, int attempts) override {
    inject_index_ = index;
    inject_attempts_ = attempts;
  }
  uint particle_count() const override { return fluid.n; }
  uint boundary_count() const override { return wall_n_ + obstacle_n_; }
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

  // ---- Shared phases, used by the solvers ----------------------------------------------
  // Times `body` as the named phase. CPU: host clock after a synchronize (the work is
  // done when body() returns). Device: a start and an end event in the stream and no
  // wait; the times are read at the start of the next step, once the device has passed
  // them (its time-step reductions have already waited for most of the step), or when
  // stats() asks for them.
  template <class F>
  void phase(const char* name, F&& body) {
    if constexpr (Backend::kIsDevice) {
      const size_t k = pending_phases_.size();
      pending_phases_.push_back(name);
      phase_events_.start(k);
      Backend::set_phase(name);  // named by the messages of a failure in it
      try {
        body();
      } catch (...) {
        Backend::set_phase(nullptr);
        pending_phases_.resize(k);  // no end event: never read this one
        throw;
      }
      Backend::set_phase(nullptr);
      phase_events_.stop(k);
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      body();
      Backend::synchronize();
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      add_phase_time(name, ms);
    }
  }
  void add_phase_time(const char* name, double ms) {
    for (PhaseTime& p : phases_)
      if (p.name == name) {
        p.total_ms += ms;
        return;
      }
    phases_.push_back(PhaseTime{name, ms});
  }
  // Device: adds the recorded phases' times once the device has finished them (with
  // `wait`, waits for that); keeps them for a later call otherwise.
  void collect_phase_times(bool wait) {
    if (pending_phases_.empty() || !phase_events_.ready(wait)) return;
    for (size_t k = 0; k < pending_phases_.size(); ++k)
      add_phase_time(pending_phases_[k], phase_events_.elapsed_ms(k));
    pending_phases_.clear();
  }

  void sort_particles();   ///< grid build + reorder (skipped when already sorted)
  void ensure_density();   ///< densities (and the pending error) for the current positions
  void compute_density();  ///< density at the current positions; records the error
  // A solver's own pass has put the density at the current positions into fluid.density
  // and its compression into fluid.scratch (PCISPH's, which gathers delta's sums with it).
  void density_computed() {
    density_valid_ = true;
    measure_pending();
  }
  void integrate();        ///< symplectic Euler with constants().dt, then the tank clamp
  /// PCISPH: viscosity, gravity and the mouse into fluid.acceleration (and
  /// velocity_inv_density from the velocity and density), before its pressure solve.
  void nonpressure_accelerations();
  /// Surface tension and adhesion (kernels/surface_tension.h) at `positions` (where the
  /// neighbour lists were built; fluid.density there): adds `scale` times their
  /// acceleration to target's xyz (the acceleration, or with scale dt the velocity).
  /// Uses fluid.aux for the normals. Nothing at all when both coefficients are 0.
  void add_surface_forces(const Vec4* positions, Vec4* target, float scale);
  void publish_debug(PublishTarget& target, ColorField field);  ///< publish()'s debug views
  // PBF's end of step: positions become fluid.predicted, velocities as the solver left
  // them; speed limit, tank clamp and NaN count as in integrate(). The solver has
  // recorded the end state's density error already (record_state_error).
  void commit_predicted();
  // Records the density error of the state whose per-particle compression is in
  // fluid.scratch (a solver that computed the end state's density itself: PBF).
  void record_state_error() {
    pending_measure_ = true;
    measure_pending();
  }
  void sort_by_predicted();  ///< grid build on fluid.predicted, every array reordered
  // An iterative solver's work this step: iterations used, mean compression reached.
  void record_iterations(int iterations, double error);
  // The solver of the previous step (-1 after a reset): PCISPH warm-starts its pressure
  // only from its own.
  int previous_solver() const { return previous_solver_; }
  // An iterative solver's own cap on the time step, learnt from its convergence (PCISPH).
  float solver_dt_limit() const { return solver_dt_limit_; }
  void set_solver_dt_limit(float dt) { solver_dt_limit_ = clampf(dt, params_.dt_min, params_.dt_max); }
  // The time step a solver chose, halved as often as the NaN guard has asked in this step.
  float limit_dt(float dt) const { return fminf(dt, dt_cap_); }
  // The time step's maxima in one reduction: speed, acceleration and, with `density`, the
  // largest rho / rho0 of the current densities (else 0). Records the speed in the
  // statistics. This is the step's one wait on a GPU (read_record): it also brings the
  // verdict on the work since the last one, and is the point the step's start is saved
  // at (step_guard.h); it throws StepRetaken when that work was undone.
  struct FlowMaxima {
    float speed, acceleration, density_ratio;
  };
  FlowMaxima flow_maxima(bool density);

  // ---- What the backend tells the host (src/sim/water/step_guard.h) ---------------------------
  // Reductions whose results stay in the backend's memory (Backend::*_to: no wait on a
  // GPU), read together in one copy at the step's one wait, or when the host needs the
  // state (stats, snapshots, captures): settle().
  using SumMax = typename Backend::SumMax;
  struct StepRecord {
    Max3 flow;        ///< flow_maxima's speed, acceleration and density ratio
    Max3 extra;       ///< a solver's own maxima, read with them (PCISPH: its depths)
    Max3 over;        ///< lists' overflow (fluid, boundary, samples): builds before the save
    Max3 over_done;   ///< the same, of builds after the save point (a completed step's)
    SumMax error;     ///< a measured state's compression: sum and max (measure_pending)
    SumMax first;     ///< PBF: its first iteration's compression (sum)
    SumMax nonfinite; ///< the particles a step left non-finite (sum)
  };
  enum RecordField : unsigned {
    kFlow = 1u, kExtra = 2u, kOver = 4u, kOverDone = 8u, kError = 16u, kFirst = 32u, kNonfinite = 64u
  };
  // The record where the backend keeps it (its fields' addresses, not to be read here).
  StepRecord* record() { return record_.data(); }
  // max over i < n of f(i) into `slot`, a field of record() (with what it held since the
  // last read).
  template <class F>
  void record_max3(Max3* slot, RecordField bit, uint n, F f);
  // sum and max over i < n of f(i) into `slot` (the sum with what it held).
  template <class F>
  void record_sum_max(SumMax* slot, RecordField bit, uint n, F f);
  // The values read at the last wait.
  const StepRecord& seen() const { return seen_; }
  // Reads the record if anything was written to it (the wait) and acts on it: a completed
  // step whose particles went non-finite or whose lists overflowed is undone (its start
  // restored, the NaN guard's halving), lists that overflowed grow. In a solve (flow_maxima)
  // it throws StepRetaken when the solve must start again; elsewhere the next step retakes
  // the undone one. Returns whether something was undone.
  bool settle(bool in_solve);
  struct StepRetaken {};
  // PBF's first iteration's mean compression, read at the next wait (record_iterations).
  void record_first_error(const float* err, uint n);

  StepConstants& constants() { return constants_; }
  const GridView& grid_view() const { return grid_.view(); }
  // Each fluid particle's fluid neighbours, as found by the latest grid build (in the
  // order of that build: current positions, or PBF's predicted ones).
  NeighborList fluid_list() const { return lists_.fluid(); }
  // The boundary samples next to fluid and the fluid around each (NeighborLists::samples),
  // for the walls' pressure; searched once per grid build, on the first call.
  SampleLists sample_lists();
  BoundaryView boundary_view() {
    return BoundaryView{boundary_.data(),     boundary_velocity_.data(), boundary_pressure_.data(),
                        boundary_grid_.view(), obstacle_grid_.view(),     wall_n_,
                        wall_n_ + obstacle_n_,  lists_.boundary(),        wall_clear_lo_,
                        wall_clear_hi_,         obstacle_lo_,             obstacle_hi_,
                        lists_.boundary_active()};
  }

  FluidState<Backend> fluid;
  DiffuseState<Backend> diffuse_;

  // Public only because nvcc requires that functions enclosing device lambdas are.
  void refresh_constants();
  void measure_pending();
  void add_measure(double mean, float max);
  void step_diffuse(double dt);  ///< after each step: spray, foam and bubbles (if on)
  void update_diffuse();
  void count_diffuse();
  uint count_diffuse_kind(DiffuseKind kind);
  uint diffuse_capacity() const;  ///< the cap in use
  // Scene objects: src/sim/scene_objects.h.
  void setup_scene_objects(const InitialState& s);
  void place_boundary_samples(const InitialState& s, float lattice_sum);
  void copy_obstacles_to_constants();
  void place_obstacle_samples();
  void plan_obstacle_motion();
  void advance_obstacles();
  void remove_outflow();
  void emit_particles();
  double emitter_gap(size_t k) const;
  void advance_emitters(double dt);
  template <class T>
  void compact(Buffer<T>& data, Buffer<T>& spare, const uint* place, uint n);
  // The NaN guard: src/sim/step_guard.h.
  double guarded_solve(int solver);
  double solve(int solver);
  void save_step_start();
  void restore_step_start();
  void inject_nan(Vec4* values);
  void count_nonfinite();
  void undo_step(uint64_t nonfinite);
  void accept_step();

 private:
  SimParams params_;
  MouseForce mouse_{};
  StepConstants constants_{};
  NeighborGrid<Backend> grid_, boundary_grid_, obstacle_grid_;
  NeighborLists<Backend> lists_;  ///< rebuilt with every fluid grid build
  // The neighbour lists; `mark`: the listed boundary samples marked in the same pass
  // (NeighborLists::build), for the solvers that ask for sample_lists() every step.
  void build_lists(const Vec4* positions, bool mark = true);
  // Boundary samples: the tank's [0, wall_n_), then the obstacles' (see BoundaryView).
  Buffer<Vec4> boundary_, boundary_spare_, boundary_velocity_;
  Buffer<float> boundary_pressure_;
  Buffer<Vec4> obstacle_local_, obstacle_world_;  ///< per obstacle sample, unsorted
  Buffer<uint> obstacle_owner_;
  Buffer<Vec4> emit_x_, emit_v_;   ///< an emitted layer's candidates
  Buffer<uint> object_flags_;      ///< outflow's survivors / emitter's free points, scanned
  Buffer<Vec4> staging_;  ///< publish() without interop (CUDA only)
  uint wall_n_ = 0, obstacle_n_ = 0;
  float spacing_ = 0.0f, mass_ = 0.0f, lattice_grad2_ = 0.0f;
  int dimensions_ = 3;  ///< 2: the plane z = tank_lo_.z (kernels/dimension.h)
  // The rest density the solver uses: follows params_.rest_density by at most a factor
  // of two per simulated second, so that a slider moved from 1000 to 100 lets the fluid
  // swell over a few seconds instead of releasing a 10x pressure in one step.
  float rest_density_ = 0.0f;
  static constexpr double kRestDensityDoublingTime = 1.0;  // [s]
  static constexpr float kMinSoundToFlow = 1.5f;
  Vec3 tank_lo_{0, 0, 0}, tank_hi_{1, 1, 1};
  // See BoundaryView: where no tank sample / no obstacle sample is within h.
  Vec3 wall_clear_lo_{0, 0, 0}, wall_clear_hi_{0, 0, 0};
  Vec3 obstacle_lo_{0, 0, 0}, obstacle_hi_{0, 0, 0};

  // Positions sorted for the current grid / density valid for the current positions.
  bool sorted_ = false, density_valid_ = false;
  // The end state of the latest step has not had its density error recorded yet.
  bool pending_measure_ = false;
  double time_debt_ = 0.0;

  RunStats stats_;
  double error_sum_ = 0.0;  // sum over measured states of the per-state mean error
  uint64_t measured_ = 0;
  uint64_t iteration_sum_ = 0, iteration_steps_ = 0;
  int previous_solver_ = -1;  ///< the solver of the last step (-1 after a reset)
  float solver_dt_limit_ = 1e-3f;
  std::vector<PhaseTime> phases_;
  typename Backend::PhaseEvents phase_events_;  ///< device: phase timing events, reused
  std::vector<const char*> pending_phases_;     ///< device: recorded, not yet read
  static constexpr size_t kMaxPendingPhases = 64;  ///< then the next step waits to read them
  std::vector<ObstacleShape> obstacles_;
  std::unique_ptr<SurfaceMesher<Backend>> mesher_;  ///< made at the first build_mesh()
  MeshInput mesh_input();  ///< the fluid as the mesher reads it (settled; the mesher made)
  std::vector<Vec3> obstacle_target_;  ///< where move_obstacle() asked each to go
  static constexpr float kMaxObstacleSpeed = 20.0f;  ///< [m/s]
  std::vector<Emitter> emitters_;
  std::vector<double> emitter_travel_;           ///< [m] moved since the last layer
  std::vector<std::vector<Vec3>> emitter_points_;  ///< one layer, nozzle coordinates
  static constexpr float kEmitMinDistance = 0.9f;  ///< [spacings]
  uint64_t max_particles_ = 0;
  uint next_id_ = 0;  ///< the id the next emitted particle gets
  std::vector<Outflow> outflows_;
  double diffuse_time_ = 0.0;  ///< [s] simulated since the diffuse particles' last update
  static constexpr double kDiffuseInterval = 0.0025;  ///< [s] see step_diffuse
  // The NaN guard (src/sim/water/step_guard.h): the host side of the step's start (its particles
  // are in fluid.start_*), this attempt's non-finite particles, the cap on its time step.
  // The host values a step changes besides the obstacles, as one tuple of references.
  auto step_values() {
    return std::tie(stats_, error_sum_, measured_, iteration_sum_, iteration_steps_, solver_dt_limit_,
                    pending_measure_, emitter_travel_);
  }
  struct StepStart {
    std::tuple<RunStats, double, uint64_t, uint64_t, uint64_t, float, bool, std::vector<double>> values;
    std::vector<ObstacleShape> obstacles;
  } start_;
  // The record (see StepRecord): in the backend's memory, the host's copy of the last read,
  // the fields written since then, and the counts their means divide by.
  Buffer<StepRecord> record_;
  StepRecord seen_{};
  unsigned written_ = 0;
  uint error_n_ = 0, first_n_ = 0;
  // The verdict: whether this solve has saved its start yet (a list built after that is
  // the step's own, judged at the next wait), whether a completed step awaits its verdict,
  // and that step's number, start time and time step (for the guard's sentences).
  bool step_saved_ = false, verdict_pending_ = false;
  bool solving_ = false;  ///< in guarded_solve: measures go to the record
  uint64_t judged_step_ = 0;
  double judged_time_ = 0.0, judged_dt_ = 0.0;
  double undone_time_ = 0.0;    ///< [s] of earlier steps this step() call undid
  int guard_halvings_ = 0;      ///< the NaN guard's halvings of the step being retaken
  uint64_t guard_found_ = 0;    ///< non-finite particles over its failed attempts
  float dt_cap_ = INFINITY;
  static constexpr int kGuardRetries = 6;  ///< halvings before it stops: 1/64 of the step
  std::string guard_note_;                 ///< not yet taken by take_guard_note()
  uint inject_index_ = 0;                  ///< the test hook's particle
  int inject_attempts_ = 0;                ///< attempts it still poisons
};

// ---- implementation -------------------------------------------------------------------

// reset() and the roll-back it shares with restore(): src/sim/sim_state.h.

template <class B>
void SimulationImpl<B>::reset_state(const InitialState& s) {
  validate_initial(s);
  clamp_params(params_);
  spacing_ = s.spacing;
  dimensions_ = s.dimensions;
  tank_lo_ = s.tank_lo;
  tank_hi_ = s.tank_hi;
  const CubicKernel kernel = CubicKernel::make_for(dimensions_, 2.0f * spacing_);
  const float lattice_sum = lattice_kernel_sum(kernel, spacing_, dimensions_);
  mass_ = params_.rest_density / lattice_sum;
  lattice_grad2_ = lattice_gradient_sum(kernel, spacing_, dimensions_);
  rest_density_ = params_.rest_density;

  // The grids cover the tank plus one kernel support of boundary samples around it, in
  // cells of h (see kernels/grid.h); in 2D one layer of cells, on the plane.
  const float pad = kernel.h + spacing_, zpad = dimensions_ == 2 ? 0.0f : pad;
  const Vec3 lo = tank_lo_ - Vec3{pad, pad, zpad};
  const Vec3 hi = tank_hi_ + Vec3{pad, pad, zpad};
  grid_.configure(lo, hi, kernel.h);
  boundary_grid_.configure(lo, hi, kernel.h);
  const float zclear = dimensions_ == 2 ? -INFINITY : kernel.h;  // no walls in z
  wall_clear_lo_ = tank_lo_ + Vec3{kernel.h, kernel.h, zclear};
  wall_clear_hi_ = tank_hi_ - Vec3{kernel.h, kernel.h, zclear};

  const uint n = uint(s.fluid.size());
  fluid.resize(n);
  std::vector<Vec4> host(s.fluid);
  B::copy_from_host(fluid.position.data(), host.data(), n);
  if (s.velocity.empty()) host.assign(n, Vec4{0, 0, 0, 0});
  else host = s.velocity;
  B::copy_from_host(fluid.velocity.data(), host.data(), n);
  std::vector<uint> ids(n);
  for (uint i = 0; i < n; ++i) ids[i] = i;
  B::copy_from_host(fluid.id.data(), ids.data(), n);
  next_id_ = n;
  {
    // Until the first step computes them: rest density and no pressure (what publish()
    // shows when the colour is density or pressure right after a reset).
    const FluidView f = fluid.view();
    const float rho0 = params_.rest_density;
    B::for_each(n, [=] TP_HD(uint i) {
      f.density[i] = rho0;
      f.pressure[i] = 0.0f;
    });
  }

  sorted_ = density_valid_ = pending_measure_ = false;
  record_.resize(1);
  written_ = 0;
  step_saved_ = verdict_pending_ = false;
  guard_halvings_ = 0;
  guard_found_ = 0;
  time_debt_ = 0.0;
  stats_ = RunStats{};
  error_sum_ = 0.0;
  measured_ = 0;
  iteration_sum_ = iteration_steps_ = 0;
  previous_solver_ = -1;
  solver_dt_limit_ = 1e-3f;
  phases_.clear();
  pending_phases_.clear();
  mouse_ = MouseForce{};
  guard_note_.clear();
  inject_attempts_ = 0;
  dt_cap_ = INFINITY;
  diffuse_.clear();
  diffuse_time_ = 0.0;
  stats_.diffuse.capacity = diffuse_capacity();
  setup_scene_objects(s);
  place_boundary_samples(s, lattice_sum);
  refresh_constants();
}

template <class B>
void SimulationImpl<B>::refresh_constants() {
  clamp_params(params_);
  constants_.p = params_;
  constants_.p.rest_density = rest_density_;
  constants_.dimensions = dimensions_;
  with_dimension(dimensions_, [&](auto d) {
    using D = decltype(d);
    const float h = 2.0f * spacing_;
    constants_.kernel = CubicKernel::make<D::value>(h);
    constants_.cohesion_norm = D::cohesion_norm(h);
    constants_.adhesion_norm = D::adhesion_norm(h);
    constants_.curvature_scale = D::curvature_scale;
  });
  if (dimensions_ == 2) constants_.p.gravity_z = 0.0f;  // the plane's gravity is its x and y
  constants_.spacing = spacing_;
  constants_.mass = mass_;
  constants_.lattice_grad2 = lattice_grad2_;
  // The Tait equation must stay subsonic: with the speed of sound below the flow's (strong
  // gravity, a low stiffness, a flung mouse), WCSPH forms shocks and throws particles at
  // several times the physical speed. The stiffness in use is raised, when needed, so that
  // c >= kMinSoundToFlow * v, with v the larger of the last step's top speed and the speed
  // of a fall across the tank along gravity. The user's value is kept and shown beside it.
  const Vec3 g{params_.gravity_x, params_.gravity_y, params_.gravity_z};
  const float g_len = length(g);
  const Vec3 extent = tank_hi_ - tank_lo_;
  const float fall = g_len > 0.0f ? fabsf(dot(extent, g)) / g_len : 0.0f;
  const float v_ref = std::max(float(stats_.last_max_speed), std::sqrt(2.0f * g_len * fall));
  const float c_floor = kMinSoundToFlow * v_ref;
  constants_.sound_speed = tait_sound_speed(constants_.p);
  if (constants_.sound_speed < c_floor) {
    constants_.sound_speed = c_floor;
    constants_.p.stiffness = constants_.p.rest_density * c_floor * c_floor / constants_.p.exponent;
  }
  stats_.stiffness_in_use = constants_.p.stiffness;
  constants_.tank_lo = tank_lo_;
  constants_.tank_hi = tank_hi_;
  constants_.mouse = mouse_;
  copy_obstacles_to_constants();
}

// Returns the simulated time the call advanced: the step's time step, less that of an
// earlier step its wait found had to be undone (step_guard.h; on a GPU only, rare).
template <class B>
double SimulationImpl<B>::step() {
  if (stats_.halted) return 0.0;  // the NaN guard stopped it: nothing moves until a reset
  undone_time_ = 0.0;
  collect_phase_times(pending_phases_.size() >= kMaxPendingPhases);
  clamp_params(params_);
  const double last_dt = stats_.steps ? stats_.last_dt : double(params_.dt_min);
  const float rate = float(std::exp2(last_dt / kRestDensityDoublingTime));
  rest_density_ = clampf(params_.rest_density, rest_density_ / rate, rest_density_ * rate);
  refresh_constants();
  phase("emit", [&] {
    remove_outflow();
    emit_particles();
    plan_obstacle_motion();
  });
  double dt = 0.0;
  if (fluid.n == 0) {  // an emitter's scene before its first layer: time passes
    dt = params_.dt_max;
    constants_.dt = float(dt);
    advance_obstacles();
    advance_emitters(dt);
    stats_.steps++;
    stats_.simulated_time += dt;
    stats_.last_dt = dt;
    return dt;
  }
  const int solver = params_.solver;
  dt = guarded_solve(solver);
  if (stats_.halted) return 0.0;
  previous_solver_ = solver;
  advance_emitters(dt);
  step_diffuse(dt);
  stats_.steps++;
  stats_.simulated_time += dt;
  stats_.last_dt = dt;
  return dt - undone_time_;
}

template <class B>
int SimulationImpl<B>::advance(double seconds, double budget_ms) {
  const auto t0 = std::chrono::steady_clock::now();
  time_debt_ += seconds;
  int steps = 0;
  while (time_debt_ > 0.0) {
    time_debt_ -= step();
    ++steps;
    if (stats_.halted) {
      time_debt_ = 0.0;
      break;
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (budget_ms > 0.0 && ms >= budget_ms) {
      time_debt_ = 0.0;  // fall behind real time rather than spiral: slow motion
      break;
    }
  }
  return steps;
}

template <class B>
void SimulationImpl<B>::sort_particles() {
  if (sorted_) return;
  grid_.build(fluid.position.data(), fluid.n);
  grid_.reorder(fluid.position, fluid.spare4);
  grid_.reorder(fluid.velocity, fluid.spare4);
  grid_.reorder(fluid.id, fluid.spare_id);
  grid_.reorder(fluid.pressure, fluid.spare_f);
  build_lists(fluid.position.data());
  sorted_ = true;
}

// On a device, a list that runs out of slots is reported through the record (settle()
// grows it and has the work redone): the build itself never waits. The CPU, which reads
// for free, checks at once and searches again with room, as before the record.
template <class B>
void SimulationImpl<B>::build_lists(const Vec4* positions, bool mark) {
  if (!B::kIsDevice) {
    lists_.build(positions, fluid.n, grid_.view(), boundary_view(), constants_.kernel.h, mark);
    return;
  }
  const RecordField bit = step_saved_ ? kOverDone : kOver;
  Max3* over = step_saved_ ? &record()->over_done : &record()->over;
  lists_.build(positions, fluid.n, grid_.view(), boundary_view(), constants_.kernel.h, mark,
               over, (written_ & bit) != 0);
  written_ |= bit;
}

template <class B>
SampleLists SimulationImpl<B>::sample_lists() {
  if (!B::kIsDevice) return lists_.samples(boundary_view());
  const RecordField bit = step_saved_ ? kOverDone : kOver;
  Max3* over = step_saved_ ? &record()->over_done : &record()->over;
  const bool had = (written_ & bit) != 0;
  bool wrote = false;
  const SampleLists s = lists_.samples(boundary_view(), over, had, &wrote);
  if (wrote) written_ |= bit;
  return s;
}

template <class B>
void SimulationImpl<B>::compute_density() {
  if (!density_valid_) {
    const FluidView f = fluid.view();
    const NeighborList nl = fluid_list();
    const BoundaryView b = boundary_view();
    const StepConstants c = constants_;
    B::for_each_lanes(f.n, TP_LANES(i) {
      const auto rho = sph_density(i, f.position, nl, b, c);
      store(f.density, i, rho);
      store(f.scratch, i, compression(rho, c));
    });
  }
  density_computed();
}

template <class B>
void SimulationImpl<B>::measure_pending() {
  if (!pending_measure_) return;
  if (fluid.n == 0) {  // the outflows took every particle
    pending_measure_ = false;
    return;
  }
  const float* err = fluid.scratch.data();
  pending_measure_ = false;
  if (solving_) {  // read at the step's wait (settle: add_measure)
    record_sum_max(&record()->error, kError, fluid.n, [=] TP_HD(uint i) { return err[i]; });
    error_n_ = fluid.n;
    return;
  }
  const auto sum_max = B::reduce_sum_max(fluid.n, [=] TP_HD(uint i) { return err[i]; });
  add_measure(sum_max.sum / fluid.n, sum_max.max);
}

template <class B>
void SimulationImpl<B>::add_measure(double mean, float max) {
  error_sum_ += mean;
  measured_++;
  stats_.last_density_error = mean;
  stats_.density_error_max = std::max(stats_.density_error_max, double(max));
  stats_.density_error_mean = error_sum_ / double(measured_);
}

template <class B>
void SimulationImpl<B>::nonpressure_accelerations() {
  const FluidView f = fluid.view();
  const NeighborList nl = fluid_list();
  const BoundaryView b = boundary_view();
  const StepConstants k = constants_;
  B::for_each(f.n, [=] TP_HD(uint i) {
    f.velocity_inv_density[i] = make_vec4(xyz(f.velocity[i]), 1.0f / f.density[i]);
  });
  B::for_each_lanes(f.n, TP_LANES(i) {
    store_xyz(f.acceleration, i, viscous_acceleration(i, f, nl, b, k) +
                                     body_acceleration(load_xyz(f.position, i), load_xyz(f.velocity, i), k));
  });
}

template <class B>
void SimulationImpl<B>::add_surface_forces(const Vec4* positions, Vec4* target, float scale) {
  const StepConstants k = constants_;
  if (!surface_forces_on(k)) return;
  const NeighborList nl = fluid_list();
  const BoundaryView b = boundary_view();
  const float* density = fluid.density.data();
  Vec4* normal_density = fluid.aux.data();
  const uint n = fluid.n;
  B::for_each_lanes(n, TP_LANES(i) {
    store_xyzw(normal_density, i, surface_normal(i, positions, density, nl, k), load(density, i));
  });
  B::for_each_lanes(n, TP_LANES(i) {
    store_xyz(target, i, load_xyz(target, i) +
                             surface_acceleration(i, positions, normal_density, nl, b, k) * scale);
  });
}

template <class B>
void SimulationImpl<B>::integrate() {
  advance_obstacles();
  const FluidView f = fluid.view();
  const StepConstants c = constants_;
  inject_nan(f.acceleration);
  // scratch is free here (the density error it held has been measured): it flags the
  // particles whose state was not finite, which the NaN guard counts.
  B::for_each(f.n, [=] TP_HD(uint i) {
    f.scratch[i] = integrate_particle(i, f.position, f.velocity, f.acceleration, c) ? 1.0f : 0.0f;
  });
  count_nonfinite();
  sorted_ = density_valid_ = false;
  pending_measure_ = true;
}

template <class B>
void SimulationImpl<B>::commit_predicted() {
  advance_obstacles();
  const FluidView f = fluid.view();
  const Vec4* target = fluid.predicted.data();
  const StepConstants c = constants_;
  inject_nan(fluid.predicted.data());
  B::for_each(f.n, [=] TP_HD(uint i) {
    f.scratch[i] = commit_particle(i, f.position, f.velocity, target, c) ? 1.0f : 0.0f;
  });
  count_nonfinite();
  sorted_ = density_valid_ = false;
}

template <class B>
void SimulationImpl<B>::sort_by_predicted() {
  grid_.build(fluid.predicted.data(), fluid.n);
  grid_.reorder(fluid.position, fluid.spare4);
  grid_.reorder(fluid.velocity, fluid.spare4);
  grid_.reorder(fluid.predicted, fluid.spare4);
  grid_.reorder(fluid.id, fluid.spare_id);
  grid_.reorder(fluid.pressure, fluid.spare_f);
  build_lists(fluid.predicted.data(), false);  // PBF has no use for the samples' marks
  sorted_ = density_valid_ = false;  // sorted for the predicted positions, not the current
}

template <class B>
void SimulationImpl<B>::record_iterations(int iterations, double error) {
  stats_.last_iterations = iterations;
  if (!std::isnan(error)) stats_.last_solver_error = error;  // NaN: from the record
  iteration_sum_ += iterations;
  iteration_steps_++;
  stats_.mean_iterations = double(iteration_sum_) / double(iteration_steps_);
}

template <class B>
typename SimulationImpl<B>::FlowMaxima SimulationImpl<B>::flow_maxima(bool density) {
  const Vec4* v = fluid.velocity.data();
  const Vec4* a = fluid.acceleration.data();
  const float* rho = fluid.density.data();
  const float inv_rest = density ? 1.0f / constants_.p.rest_density : 0.0f;
  record_max3(&record()->flow, kFlow, fluid.n, [=] TP_HD(uint i) {
    return Max3{length(xyz(v[i])), length(xyz(a[i])), density ? rho[i] * inv_rest : 0.0f};
  });
  settle(true);  // the wait (and the save point): may throw StepRetaken
  const Max3 m = seen_.flow;
  stats_.last_max_speed = m.a;
  stats_.max_speed = std::max(stats_.max_speed, double(m.a));
  return FlowMaxima{m.a, m.b, m.c};
}

}  // namespace tp
