// The simulation off the window's critical path (issue 21, section 3).
//
// Threaded (the window, on either backend): the runner's own thread steps the simulation on
// the wall clock and publishes every completed state (particles with their colour value,
// diffuse particles, statistics, obstacles, rigid bodies) into a triple buffer. The window thread takes
// the newest state without waiting, hands its inputs (parameters, the mouse force, obstacle
// moves, body grabs, pause, single steps) to a mailbox that the thread empties before each step, and
// reaches the simulation itself (a reset, a scene or state load or save) only through
// exclusive(), which parks the thread between two steps. A frame therefore never waits
// for a step, except for such a request, which waits for at most the step under way.
//
// Which states: where a publish's copies (the particles', the spray's) cost more than
// cheap_publish() of a step's time (a GPU's steps: a million particles' copy from the
// device cost 36 % of a step), the thread copies out only the states a frame will take.
// latest() marks each take; from the last take and the time between takes (a running
// mean, held at or under the last gap) the thread predicts the next, and after a step it
// publishes only when the next step (its wait for the clock, its time, its copies) would
// not be done before that take; once a take is due, every step. The frame's state is
// still at most about a step old. A mesh or splats are built, as before, at the first step
// after a take, and go on with the newer states. Cheaper copies (the CPU's steps), and
// every state until two takes have come, are all published: with uneven frames an early
// one would otherwise find no new state (1 frame in 10 under a software OpenGL). A pause,
// a halt, a park or a stop publishes what was not.
//
// Clock: the thread steps while the state after the step would not be ahead of the wall
// clock (since the last resume), and sleeps otherwise; when stepping falls behind by more
// than kMaxLagSeconds the clock is moved up to it, so the water plays slower rather than
// catching up in a burst.
//
// On CUDA the thread uses the device of the thread that started it, and each published
// state's particles are copied to the host there (the window then uploads them, as on the
// CPU); the CUDA-GL interop, which must stay on the GL thread, serves the inline path.
//
// Inline (--steps-per-frame, which must be deterministic; recording, which needs every
// step's time; a replay): no thread. The caller runs the frame's steps through
// step_inline() and the same mailbox, publishing and statistics.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "sim/water/simulation.h"

namespace tp {

// One completed state, as the window draws it.
struct PublishedState {
  uint64_t serial = 0;          ///< 1, 2, ... in publishing order; 0 = nothing published yet
  std::chrono::steady_clock::time_point published_at{};  ///< when it was completed
  std::vector<Vec4> particles;  ///< publish()'s values; empty when published straight to GL
  std::vector<Vec4> diffuse;    ///< publish_diffuse()'s values; empty with diffuse off
  RunStats stats;
  SimParams params{};           ///< as the latest step used them (clamped)
  std::vector<ObstacleShape> obstacles;
  std::vector<BodySpec> bodies;  ///< as after the step: shape, pose and motion of each
  int grabbed_body = -1;         ///< the body the mouse joint holds, -1 none
  uint particle_count = 0, boundary_count = 0;
  uint64_t input_serial = 0;    ///< the newest input (set_params, set_mouse, ...) applied
  uint64_t mouse_serial = 0;    ///< the newest active mouse force a step has felt
  // The water's mesh (set_mesh), built on the simulation's side when the window had taken
  // the state before (at most once per displayed state) and carried on to the newer states
  // until the window takes one; has_mesh false: none new (keep drawing the last one).
  bool has_mesh = false;
  // Inline without a particle copy (CUDA): the mesh and splats stay on the device, and the
  // window writes them into its buffers itself (Simulation::publish_mesh, publish_splats).
  bool mesh_on_device = false, splats_on_device = false;
  TriangleMesh mesh;
  MeshTimes mesh_times;
  std::string mesh_error;  ///< why the mesh could not be built (bad settings, memory)
  // The kernels as ellipsoid splats (set_splats; Simulation::build_splats), built and
  // carried on as the mesh is.
  bool has_splats = false;
  std::vector<Vec4> splats;
  std::string splats_error;  ///< why they could not be built: the window draws spheres
};

// The first point where `ray` meets the particles of a published state (xyz of each),
// as Simulation::pick finds it in the simulation's own arrays.
std::optional<Vec3> pick_points(const std::vector<Vec4>& particles, float spacing, const Ray& ray);

// The body `ray` meets first in a published state's bodies, as Simulation::pick_body finds
// it in the simulation's own.
std::optional<Simulation::BodyHit> pick_bodies(const std::vector<BodySpec>& bodies, const Ray& ray);

// What a session recorder (src/sim/session/session_recorder.h) is told of everything that
// changes the simulation, on the thread that changes it (the runner's, or the caller's
// inline): the inputs applied before a step, as applied, and the edits made through
// exclusive_edit() (before and after). Steps are counted by the simulation itself
// (RunStats::steps).
class RunnerObserver {
 public:
  virtual ~RunnerObserver() = default;
  virtual void before_inputs(Simulation& sim) = 0;  // the mailbox is about to be applied
  virtual void params(const SimParams& params) = 0;
  virtual void mouse(const MouseForce& force) = 0;
  virtual void move_obstacle(int index, Vec3 center) = 0;
  virtual void grab_body(int index, Vec3 local, Vec3 target) = 0;
  virtual void move_grab(Vec3 target) = 0;
  virtual void release_body() = 0;
  virtual void before_edit(Simulation& sim) = 0;
  virtual void after_edit(Simulation& sim) = 0;
};

class SimRunner {
 public:
  // Behind more: slow motion. Four 60 Hz frames: at 1/30 s the dam break lost 1 % of real
  // time to an occasional slow frame; a catch-up of at most this much is not a burst.
  static constexpr double kMaxLagSeconds = 1.0 / 15.0;
  // Takes further apart than this count as this far apart: a window that takes a state
  // only now and then gets one at most this old.
  static constexpr double kMaxTakePeriod = 0.1;

  explicit SimRunner(Simulation& sim);
  ~SimRunner();  ///< stops the thread
  SimRunner(const SimRunner&) = delete;
  SimRunner& operator=(const SimRunner&) = delete;

  // Starts or stops (joins) the thread; both are no-ops when already so. Stopping parks
  // at the end of the step under way. `threads`: the OpenMP threads the steps use (the
  // CPU backend; 0 = the OpenMP default). Never more than the simulation was made with.
  void start(int threads = 0);
  void stop();
  bool threaded() const { return thread_.joinable(); }
  // The backend as the steps run it: on the thread, with its OpenMP thread count ("CPU
  // (OpenMP, 1 thread, ...)" in a 2-core window), else as the simulation says.
  std::string backend_description() const;

  // Inputs, from the window thread: the thread (or step_inline) applies them before the
  // next step. Each returns the serial of the input, which PublishedState::input_serial
  // reaches once a step has had it. Parameters and the mouse coalesce to the newest, but
  // an active mouse force is felt by at least one step even when released before it.
  uint64_t set_params(const SimParams& params);
  uint64_t set_mouse(const MouseForce& force);
  uint64_t move_obstacle(int index, Vec3 center);
  // The mouse joint on a rigid body (Simulation::grab_body, move_grab, release_body),
  // applied in the order asked before the next step; consecutive moves coalesce to the
  // newest. PublishedState::grabbed_body says which body is held once a step has had it.
  uint64_t grab_body(int index, Vec3 local, Vec3 target);
  uint64_t move_grab(Vec3 target);
  uint64_t release_body();
  void set_color_field(ColorField field);
  // Whether states carry the water's mesh, and built how (the mesh render mode).
  void set_mesh(bool on, const MeshSettings& settings = MeshSettings{});
  // Whether states carry the kernels as ellipsoid splats (the surface mode's anisotropic
  // option), shaped by the settings given to set_mesh.
  void set_splats(bool on);
  void set_paused(bool paused);
  // While paused: advance by `seconds` of simulated time once (the S key); while running,
  // ignored.
  void request_advance(double seconds);
  // The newest completed state (threaded or inline). The reference stays valid and
  // unchanged until the next call from the same (window) thread. Each call is a take: the
  // thread times its publishing by them, so a window calls it once a frame, and shown()
  // for the state taken last.
  const PublishedState& latest();
  // The state the last latest() returned (the window thread's; no take).
  const PublishedState& shown() const { return states_[front_]; }
  // The fraction of a step's wall time that a publish may cost and still be made after
  // every step (the default: 5 %); 0 times every publish by the takes. Set before start().
  static constexpr double kCheapPublish = 0.05;
  void set_cheap_publish(double fraction) { cheap_publish_ = fraction; }
  double cheap_publish() const { return cheap_publish_; }

  // Runs fn(simulation) with the thread parked between steps (waiting for the step under
  // way, if any); at once when there is no thread. Then publishes the state as it is.
  // For a look (a pick, a snapshot, a publish): what changes the simulation goes through
  // exclusive_edit.
  template <class F>
  decltype(auto) exclusive(F&& fn) {
    Park park(*this);
    return fn(sim_);
  }
  // The same for an edit (a reset, a load, a body added): the observer, if any, is told
  // before and after (a session records the state it leaves).
  template <class F>
  decltype(auto) exclusive_edit(F&& fn) {
    Park park(*this);
    struct After {
      SimRunner& runner;
      ~After() {
        if (runner.observer_) runner.observer_->after_edit(runner.sim_);
      }
    };
    if (observer_) observer_->before_edit(sim_);
    const After after{*this};
    return fn(sim_);
  }
  // Sets (or, with nullptr, removes) the observer, with the thread parked. `start`, if
  // given, runs then too (a recorder writes the state it starts from).
  void set_observer(RunnerObserver* observer, const std::function<void(Simulation&)>& start = {});
  // The OpenMP threads the steps run on (start's `threads`, else this thread's count).
  int step_threads() const;

  // Inline mode: applies the mailbox, runs `steps` on this thread, and publishes the
  // state (with the particles' values when `copy_particles`; else the caller publishes
  // them to its own target, e.g. CUDA-GL interop). Must not be called while threaded.
  void step_inline(const std::function<void(Simulation&)>& steps, bool copy_particles);

 private:
  struct Mailbox {
    bool has_params = false;
    SimParams params{};
    bool has_mouse = false;
    MouseForce mouse{};
    uint64_t mouse_serial = 0;
    bool pending_press = false;  ///< an active force that no step has felt yet
    MouseForce press{};
    uint64_t press_serial = 0;
    std::vector<std::pair<int, Vec3>> moves;
    struct Grab {
      enum Kind { Take, Move, Release } kind = Take;
      int index = -1;
      Vec3 local{0, 0, 0}, target{0, 0, 0};
    };
    std::vector<Grab> grabs;  ///< in the order asked
    uint64_t serial = 0;  ///< newest input
  };
  // Parks the thread for its lifetime (a no-op without a thread).
  class Park {
   public:
    explicit Park(SimRunner& runner);
    ~Park();

   private:
    SimRunner& runner_;
    bool parked_ = false;
  };

  void loop();
  // Takes the mailbox (mutex_ held) and applies it to the simulation (mutex_ released).
  Mailbox take_mailbox();
  void apply(const Mailbox& inputs);
  // Into states_[back_], then swaps it to ready_. The mesh is built when the window took
  // the state before, or when `force_mesh`; otherwise an untaken mesh is carried forward.
  void publish(bool copy_particles, bool force_mesh = false);
  void after_step_inputs(const Mailbox& inputs);
  // The thread, after a step at `now` (mutex_ held): whether this state is the last one
  // done before the window's next take. `next_wait`: the clock's wait before the next step;
  // `step_seconds`: this step's wall time.
  bool publish_due(std::chrono::steady_clock::time_point now, double next_wait, double step_seconds) const;

  Simulation& sim_;
  RunnerObserver* observer_ = nullptr;  // (changed only with the thread parked)
  int step_threads_ = 0;
  std::thread thread_;
  std::string thread_description_;  ///< backend().description with the thread's count
  std::mutex mutex_;
  std::condition_variable wake_;    ///< the thread: input, park, stop, pause
  std::condition_variable parked_cv_;  ///< the window: the thread parked
  Mailbox mailbox_;
  ColorField color_field_ = ColorField::Speed;
  bool mesh_on_ = false, splats_on_ = false;
  // The simulated time of the last mesh and splats built: a publish with no step since
  // (the inline path while paused) builds none again; the window keeps the last ones.
  double mesh_built_at_ = -1.0, splats_built_at_ = -1.0;
  // exclusive() inline (no thread to park): the next publish builds the mesh and splats
  // even with nothing stepped (a reset, a load, new settings while paused).
  bool force_next_mesh_ = false;
  MeshSettings mesh_settings_;
  bool paused_ = false;
  double advance_request_ = 0.0;
  bool quit_ = false;
  int park_requests_ = 0;
  bool parked_ = false;
  bool clock_reset_ = true;
  bool halted_ = false;  ///< the NaN guard stopped the simulation: the thread waits
  bool republish_ = false;  ///< the colour field changed: publish even without a step
  uint64_t applied_serial_ = 0, felt_mouse_serial_ = 0;
  // Triple buffer: back_ is the publisher's, ready_ the newest complete one, front_ the
  // window's. fresh_: ready_ is newer than front_.
  PublishedState states_[3];
  int back_ = 0, ready_ = 1, front_ = 2;
  bool fresh_ = false;
  uint64_t published_ = 0;
  // The takes (latest()): when the last came, and the time between takes, a running mean
  // held at or under the last gap (0: fewer than two takes yet). A state stepped but not
  // published (unpublished_) goes out before a pause, a halt or a stop.
  std::chrono::steady_clock::time_point last_take_{};
  double take_period_ = 0.0, last_take_gap_ = 0.0;
  double copy_seconds_ = 0.0;  ///< a publish's copies (not its mesh), a running mean
  double cheap_publish_ = kCheapPublish;
  bool unpublished_ = false;
  std::vector<Vec4> scratch_particles_;
};

}  // namespace tp
