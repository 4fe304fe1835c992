#include "sim/runner/sim_runner.h"

#include <omp.h>
#ifdef __linux__
#include <pthread.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <utility>

#include "gpu/cuda_runtime.h"
#include "kernels/particles.h"

namespace tp {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point origin, Clock::time_point now) {
  return std::chrono::duration<double>(now - origin).count();
}

// A running mean that starts at its first sample (0: none yet).
void add_to_mean(double* mean, double sample) { *mean = *mean > 0.0 ? 0.75 * *mean + 0.25 * sample : sample; }

// publish() and publish_diffuse() into a host vector.
class VectorTarget final : public PublishTarget {
 public:
  explicit VectorTarget(std::vector<Vec4>& out) : out_(out) {}
  Vec4* map_host(size_t count) override {
    out_.resize(count);
    return out_.data();
  }
  void unmap() override {}

 private:
  std::vector<Vec4>& out_;
};

}  // namespace

std::optional<Vec3> pick_points(const std::vector<Vec4>& particles, float spacing, const Ray& ray) {
  const float radius = kPickRadiusSpacings * spacing;
  float best = -INFINITY;
  for (const Vec4& p : particles)
    best = std::fmax(best, pick_entry(xyz(p), ray.origin, ray.direction, radius));
  if (!(best > -INFINITY)) return std::nullopt;
  return ray.origin + ray.direction * (-best);
}

std::optional<Simulation::BodyHit> pick_bodies(const std::vector<BodySpec>& bodies, const Ray& ray) {
  std::optional<Simulation::BodyHit> best;
  for (size_t k = 0; k < bodies.size(); ++k) {
    const float t = ray_hit(solid_of(bodies[k]), ray.origin, ray.direction);
    if (t < 0.0f || (best && t >= best->distance)) continue;
    const Vec3 p = ray.origin + ray.direction * t;
    best = Simulation::BodyHit{int(k), p, to_local(bodies[k].pose, p), t};
  }
  return best;
}

SimRunner::SimRunner(Simulation& sim) : sim_(sim) {
  mailbox_.params = sim.params();
  for (PublishedState& s : states_) s.params = sim.params();
}

SimRunner::~SimRunner() { stop(); }

void SimRunner::start(int threads) {
  if (thread_.joinable()) return;
  step_threads_ = threads > 0 ? threads : omp_get_max_threads();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = false;
    clock_reset_ = true;
    halted_ = sim_.halted();
  }
  // OpenMP's thread count is a setting of each thread: the new one starts from the
  // program's default, so it is set there. The description is taken here with the same
  // count (the thread does not exist yet: nothing to race with).
  const int here = omp_get_max_threads();
  if (threads > 0) omp_set_num_threads(threads);
  thread_description_ = sim_.backend().description;
  omp_set_num_threads(here);
  // CUDA's current device is a setting of each thread too: a new one starts on device 0,
  // where the simulation may not be (the window moves it to the GPU that runs OpenGL).
  const int device = sim_.backend().kind == BackendKind::Cuda ? cuda_runtime().current_device() : 0;
  thread_ = std::thread([this, threads, device] {
#ifdef __linux__
    // Named, for a profiler's list of threads and for the window's test that the software
    // driver's threads yield to this one (its OpenMP threads, made here, take the name).
    pthread_setname_np(pthread_self(), "tp-sim");
#endif
    if (threads > 0) omp_set_num_threads(threads);
    std::string error;
    if (device != 0 && !cuda_runtime().use_device(device, &error))
      std::fprintf(stderr, "tidepool: the simulation's thread could not use CUDA device %d: %s\n", device,
                   error.c_str());
    loop();
  });
}

int SimRunner::step_threads() const { return step_threads_ > 0 ? step_threads_ : omp_get_max_threads(); }

std::string SimRunner::backend_description() const {
  return threaded() ? thread_description_ : sim_.backend().description;
}

void SimRunner::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  thread_.join();
  step_threads_ = 0;
}

uint64_t SimRunner::set_params(const SimParams& params) {
  std::lock_guard<std::mutex> lock(mutex_);
  mailbox_.has_params = true;
  mailbox_.params = params;
  return ++mailbox_.serial;
}

uint64_t SimRunner::set_mouse(const MouseForce& force) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t serial = ++mailbox_.serial;
  mailbox_.has_mouse = true;
  mailbox_.mouse = force;
  mailbox_.mouse_serial = serial;
  if (force.active) {
    mailbox_.pending_press = true;
    mailbox_.press = force;
    mailbox_.press_serial = serial;
  }
  wake_.notify_all();
  return serial;
}

uint64_t SimRunner::move_obstacle(int index, Vec3 center) {
  std::lock_guard<std::mutex> lock(mutex_);
  mailbox_.moves.emplace_back(index, center);
  return ++mailbox_.serial;
}

uint64_t SimRunner::grab_body(int index, Vec3 local, Vec3 target) {
  std::lock_guard<std::mutex> lock(mutex_);
  mailbox_.grabs.push_back(Mailbox::Grab{Mailbox::Grab::Take, index, local, target});
  return ++mailbox_.serial;
}

uint64_t SimRunner::move_grab(Vec3 target) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& grabs = mailbox_.grabs;
  if (!grabs.empty() && grabs.back().kind == Mailbox::Grab::Move)
    grabs.back().target = target;  // only the newest target matters
  else
    grabs.push_back(Mailbox::Grab{Mailbox::Grab::Move, -1, Vec3{0, 0, 0}, target});
  return ++mailbox_.serial;
}

uint64_t SimRunner::release_body() {
  std::lock_guard<std::mutex> lock(mutex_);
  mailbox_.grabs.push_back(Mailbox::Grab{Mailbox::Grab::Release, -1, Vec3{0, 0, 0}, Vec3{0, 0, 0}});
  return ++mailbox_.serial;
}

void SimRunner::set_color_field(ColorField field) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (color_field_ == field) return;
    color_field_ = field;
    republish_ = true;  // paused, the next state would be a while: publish this one again
  }
  wake_.notify_all();
}

void SimRunner::set_paused(bool paused) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (paused_ == paused) return;
    paused_ = paused;
    clock_reset_ = true;
  }
  wake_.notify_all();
}

void SimRunner::request_advance(double seconds) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!paused_) return;
    advance_request_ += seconds;
  }
  wake_.notify_all();
}

const PublishedState& SimRunner::latest() {
  const Clock::time_point now = Clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  if (last_take_ != Clock::time_point{}) {
    last_take_gap_ = std::min(seconds_since(last_take_, now), kMaxTakePeriod);
    add_to_mean(&take_period_, last_take_gap_);
  }
  last_take_ = now;
  if (fresh_) {
    std::swap(front_, ready_);
    fresh_ = false;
  }
  return states_[front_];
}

SimRunner::Park::Park(SimRunner& runner) : runner_(runner) {
  if (!runner_.thread_.joinable()) {
    std::lock_guard<std::mutex> lock(runner_.mutex_);
    runner_.force_next_mesh_ = true;  // published by the next step_inline
    return;
  }
  std::unique_lock<std::mutex> lock(runner_.mutex_);
  ++runner_.park_requests_;
  runner_.wake_.notify_all();
  runner_.parked_cv_.wait(lock, [&] { return runner_.parked_; });
  parked_ = true;
}

SimRunner::Park::~Park() {
  if (!parked_) return;
  // The thread waits, so the simulation is this thread's: publish what the request left
  // (a new particle count, a loaded state) before the thread goes on. (A failure to
  // publish, out of memory, leaves the previous state shown: never an exception here.)
  try {
    runner_.publish(true, /*force_mesh=*/true);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tidepool: the new state could not be published: %s\n", e.what());
  }
  {
    std::lock_guard<std::mutex> lock(runner_.mutex_);
    --runner_.park_requests_;
    runner_.clock_reset_ = true;
    runner_.halted_ = runner_.sim_.halted();  // a reset or a load starts it again
  }
  runner_.wake_.notify_all();
}

SimRunner::Mailbox SimRunner::take_mailbox() {
  Mailbox inputs = mailbox_;
  mailbox_.has_params = false;
  mailbox_.moves.clear();
  mailbox_.grabs.clear();
  // The press, if any, is felt by the step these inputs are for.
  mailbox_.pending_press = false;
  return inputs;
}

void SimRunner::apply(const Mailbox& inputs) {
  RunnerObserver* o = observer_;
  if (o) o->before_inputs(sim_);
  if (inputs.has_params) {
    sim_.params() = inputs.params;
    if (o) o->params(inputs.params);
  }
  for (const auto& [index, center] : inputs.moves) {
    sim_.move_obstacle(index, center);
    if (o) o->move_obstacle(index, center);
  }
  for (const Mailbox::Grab& g : inputs.grabs) {
    if (g.kind == Mailbox::Grab::Take) {
      sim_.grab_body(g.index, g.local, g.target);
      if (o) o->grab_body(g.index, g.local, g.target);
    } else if (g.kind == Mailbox::Grab::Move) {
      sim_.move_grab(g.target);
      if (o) o->move_grab(g.target);
    } else {
      sim_.release_body();
      if (o) o->release_body();
    }
  }
  if (inputs.has_mouse) {
    // A press released before any step felt it is still felt by this one.
    const bool use_press = inputs.pending_press && !inputs.mouse.active;
    sim_.set_mouse(use_press ? inputs.press : inputs.mouse);
    if (o) o->mouse(use_press ? inputs.press : inputs.mouse);
  }
}

void SimRunner::set_observer(RunnerObserver* observer, const std::function<void(Simulation&)>& start) {
  Park park(*this);
  observer_ = observer;
  if (start) start(sim_);
}

void SimRunner::after_step_inputs(const Mailbox& inputs) {
  std::lock_guard<std::mutex> lock(mutex_);
  applied_serial_ = inputs.serial;
  if (inputs.pending_press) felt_mouse_serial_ = inputs.press_serial;
  if (inputs.has_mouse && inputs.mouse.active) felt_mouse_serial_ = inputs.mouse_serial;
}

void SimRunner::set_mesh(bool on, const MeshSettings& settings) {
  std::lock_guard<std::mutex> lock(mutex_);
  mesh_on_ = on;
  mesh_settings_ = settings;
}

void SimRunner::set_splats(bool on) {
  std::lock_guard<std::mutex> lock(mutex_);
  splats_on_ = on;
}

void SimRunner::publish(bool copy_particles, bool force_mesh) {
  ColorField field;
  int back = 0;
  bool mesh = false, splats = false, mesh_wanted = false, splats_wanted = false;
  MeshSettings mesh_settings;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    back = back_;
    field = color_field_;
    // A mesh only when the window has taken the state before: one it would skip (several
    // steps a frame) costs its mesh for nothing. (Forced after a reset, a load or a
    // change of settings: the mesh of the state before is not this one's.)
    force_mesh = force_mesh || force_next_mesh_;
    force_next_mesh_ = false;
    mesh = mesh_on_ && (!fresh_ || force_mesh);
    splats = splats_on_ && (!fresh_ || force_mesh);
    mesh_settings = mesh_settings_;
    mesh_wanted = mesh_on_;
    splats_wanted = splats_on_;
    states_[back].input_serial = applied_serial_;
    states_[back].mouse_serial = felt_mouse_serial_;
  }
  PublishedState& s = states_[back];
  // Densities brought up to date only when they are drawn: for PBF, whose next step sorts
  // by its predicted positions, that would be a neighbour search per step for nothing.
  s.stats = field == ColorField::Density ? sim_.stats() : sim_.stats_as_stepped();
  s.params = sim_.params();
  s.particle_count = sim_.particle_count();
  s.boundary_count = sim_.boundary_count();
  s.obstacles = sim_.obstacles();
  s.bodies = sim_.bodies();
  s.grabbed_body = sim_.grabbed_body();
  // The copies' time (the particles', the spray's), which publish_due weighs against a
  // step's: not the mesh's or the splats' builds, which come once a frame at most.
  double copy_seconds = 0.0;
  if (copy_particles) {
    const Clock::time_point copy_start = Clock::now();
    VectorTarget target(s.particles);
    sim_.publish(target, field);
    copy_seconds += seconds_since(copy_start, Clock::now());
  } else {
    s.particles.clear();
  }
  s.has_mesh = s.has_splats = false;
  s.mesh_on_device = s.splats_on_device = false;
  // Neither drawn: what the last ones held is given back, not kept for the next time.
  if (!mesh_wanted && s.mesh.index.capacity()) s.mesh = TriangleMesh{};
  if (!splats_wanted && s.splats.capacity()) std::vector<Vec4>().swap(s.splats);
  // And the mesher's own arrays (under the monkey, blocks of 25 and 13 MB stayed with the
  // dam break drawn as spheres after a finer water had been meshed).
  if (!mesh_wanted && !splats_wanted) sim_.release_mesher();
  s.mesh_error.clear();
  s.splats_error.clear();
  const double now = sim_.simulated_time();
  if (!force_mesh) {  // nothing stepped since the last ones: the window keeps those
    mesh = mesh && now != mesh_built_at_;
    splats = splats && now != splats_built_at_;
  }
  if (mesh) {
    try {  // settings it cannot use, or memory: said, not fatal
      // Without a particle copy the window publishes from the device (interop): so the mesh.
      sim_.build_mesh(mesh_settings, copy_particles ? &s.mesh : nullptr, &s.mesh_times);
      if (!copy_particles) s.mesh = TriangleMesh{};
      s.has_mesh = true;
      s.mesh_on_device = !copy_particles;
      mesh_built_at_ = now;
    } catch (const std::exception& e) {
      s.mesh_error = e.what();
    }
  }
  if (splats) {
    try {
      MeshSettings shaped = mesh_settings;
      shaped.anisotropic = true;  // (isotropic splats would be the spheres)
      sim_.build_splats(shaped, copy_particles ? &s.splats : nullptr);
      if (!copy_particles) s.splats.clear();
      s.has_splats = true;
      s.splats_on_device = !copy_particles;
      splats_built_at_ = now;
    } catch (const std::exception& e) {
      s.splats_error = e.what();
    }
  }
  if (s.params.diffuse) {
    const Clock::time_point copy_start = Clock::now();
    VectorTarget target(s.diffuse);
    sim_.publish_diffuse(target);
    copy_seconds += seconds_since(copy_start, Clock::now());
  } else {
    s.diffuse.clear();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (copy_particles) add_to_mean(&copy_seconds_, copy_seconds);
  // The window has not taken the state before, nor its mesh or splats: they go on with
  // this state (a step or a few older than its particles) rather than being dropped.
  PublishedState& skipped = states_[ready_];
  if (!mesh && mesh_on_ && fresh_) {
    std::swap(s.has_mesh, skipped.has_mesh);
    std::swap(s.mesh_on_device, skipped.mesh_on_device);
    std::swap(s.mesh, skipped.mesh);
    std::swap(s.mesh_times, skipped.mesh_times);
    std::swap(s.mesh_error, skipped.mesh_error);
  }
  if (!splats && splats_on_ && fresh_) {
    std::swap(s.has_splats, skipped.has_splats);
    std::swap(s.splats_on_device, skipped.splats_on_device);
    std::swap(s.splats, skipped.splats);
    std::swap(s.splats_error, skipped.splats_error);
  }
  s.serial = ++published_;
  s.published_at = Clock::now();
  unpublished_ = false;
  std::swap(back_, ready_);
  fresh_ = true;
}

bool SimRunner::publish_due(Clock::time_point now, double next_wait, double step_seconds) const {
  if (take_period_ <= 0.0) return true;  // fewer than two takes: no period yet
  // A copy this cheap beside the step: every state, and a frame that comes early (uneven
  // frames: a software OpenGL, a frame that waited for a mesh) still finds a new one.
  if (copy_seconds_ <= cheap_publish_ * step_seconds) return true;
  // The window took the last state and draws a mesh or splats: they are built now, right
  // after the take, and go on with the newer states (publish), rather than at the state
  // before the next take, which their build could make late.
  if ((mesh_on_ || splats_on_) && !fresh_) return true;
  // Held at or under the last gap: a period guessed short costs copies, one guessed long
  // leaves a frame that comes early the state it had.
  const double period = std::min(take_period_, last_take_gap_);
  const double next_take = seconds_since(last_take_, now) - period;  // < 0: still to come
  // When the next state would be done: a quarter more than this step, and half a
  // millisecond, for the steps' and the scheduler's unevenness.
  const double next_done = next_wait + 1.25 * step_seconds + copy_seconds_ + 5e-4;
  return next_take + next_done >= 0.0;
}

void SimRunner::step_inline(const std::function<void(Simulation&)>& steps, bool copy_particles) {
  Mailbox inputs;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    inputs = take_mailbox();
  }
  apply(inputs);
  steps(sim_);
  after_step_inputs(inputs);
  publish(copy_particles);
}

void SimRunner::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  Clock::time_point origin_wall = Clock::now();
  double origin_sim = 0.0, last_dt = 0.0;
  while (!quit_) {
    if (park_requests_ > 0) {
      parked_ = true;
      parked_cv_.notify_all();
      wake_.wait(lock, [&] { return park_requests_ == 0 || quit_; });
      parked_ = false;
      continue;
    }
    double advance = 0.0;
    if (halted_ || paused_) {
      // Paused, or stopped by the NaN guard (until a reset or a load): only a single step
      // (not when halted) or a new colour to publish wakes it. A step not yet published
      // goes out now: the window shows the state it stopped at.
      if ((republish_ || unpublished_) && (halted_ || advance_request_ <= 0.0)) {
        republish_ = false;
        lock.unlock();
        publish(true);
        lock.lock();
        continue;
      }
      if (halted_ || advance_request_ <= 0.0) {
        wake_.wait(lock);
        continue;
      }
      advance = advance_request_;
      advance_request_ = 0.0;
    } else {
      const Clock::time_point now = Clock::now();
      if (clock_reset_) {
        origin_wall = now;
        origin_sim = sim_.simulated_time();
        clock_reset_ = false;
      }
      const double wall = seconds_since(origin_wall, now);
      const double simulated = sim_.simulated_time() - origin_sim;
      // Never ahead of the clock: wait until the state after the next step is due.
      const double ahead = simulated + last_dt - wall;
      if (ahead > 1e-4) {
        wake_.wait_for(lock, std::chrono::duration<double>(ahead));
        continue;
      }
      // Behind by more than the lag allowed: slow motion from here, no burst.
      if (wall - simulated > kMaxLagSeconds) {
        origin_wall = now;
        origin_sim = sim_.simulated_time();
      }
    }
    const bool republish = republish_;
    republish_ = false;
    Mailbox inputs = take_mailbox();
    lock.unlock();
    apply(inputs);
    const Clock::time_point step_start = Clock::now();
    if (advance > 0.0) {
      sim_.advance(advance, 0.0);
    } else {
      last_dt = sim_.step();
    }
    const bool halted = sim_.halted();
    after_step_inputs(inputs);
    const Clock::time_point step_end = Clock::now();
    // The clock's wait before the next step, as the top of the loop will find it.
    const double next_wait = std::max(0.0, sim_.simulated_time() - origin_sim + last_dt - seconds_since(origin_wall, step_end));
    lock.lock();
    const bool due = advance > 0.0 || halted || republish || paused_ ||
                     publish_due(step_end, next_wait, seconds_since(step_start, step_end));
    if (due) {  // (publish clears unpublished_)
      lock.unlock();
      publish(true);
      lock.lock();
    } else {
      unpublished_ = true;
    }
    halted_ = halted;
  }
  if (unpublished_) {  // stopped: the window shows the last state stepped
    lock.unlock();
    try {
      publish(true);
    } catch (const std::exception& e) {  // (memory) the state before stays shown
      std::fprintf(stderr, "tidepool: the last state could not be published: %s\n", e.what());
    }
  }
}

}  // namespace tp
