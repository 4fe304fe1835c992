// The window's asynchronous step, measured without a window: not a test, a table
// (docs/benchmarks.md, "The asynchronous step"). The simulation runs as the window runs it,
// twice:
//   thread  the runner's own thread steps it on the wall clock and publishes each state
//           with its particles copied to the host (src/sim/runner/sim_runner.h); each frame
//           takes the newest state and copies its particles out, as the window's upload does;
//   inline  each frame runs its own steps (a frame's worth of simulated time, at most 25 ms
//           of steps, as the window's inline path) and then copies the particles out.
// Frames come at --fps (60) on the wall clock. Printed per mode: frames/s, the frame's own
// work (taking the state and copying it; inline: the steps too) in ms, mean, 99th
// percentile and worst, new states per frame, states published per frame (each one a copy
// of the particles; the thread publishes only those a frame will take), the age of the
// state a frame takes (ms since it was published), steps/s, simulated seconds per wall
// second and ms per step. The frame's work in the thread mode is what "a frame never waits for
// a step" means: no step's time is in it.
//
//   tp_bench_async [--backend cpu|cuda] [--scene NAME] [--solver S] [--quality Q]
//                  [--particles N] [--seconds S] [--fps F] [--threads N] [--mode thread|inline|both]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gpu/cuda_runtime.h"
#include "sim/backend/backend_select.h"
#include "sim/runner/sim_runner.h"
#include "sim/scene/quality.h"
#include "sim/scene/scene.h"
#include "sim/water/params.h"

namespace {

using namespace tp;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string backend = "cuda", scene = "dam_break", solver = "", quality = "realtime", mode = "both";
  uint64_t particles = 30000;
  double seconds = 10.0, fps = 60.0;
  int threads = 0;
};

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

struct Result {
  int frames = 0;
  double wall = 0.0;
  std::vector<double> work_ms;
  uint64_t states = 0, steps = 0, published = 0;
  double age_ms = 0.0;  ///< summed over the frames that took a new state
  double simulated = 0.0;
  uint particles = 0;
};

std::unique_ptr<Simulation> make(const Options& o, BackendKind kind, const Scene& scene) {
  auto sim = make_simulation(kind);
  SimParams& p = sim->params();
  Quality quality = Quality::Realtime;
  parse_quality(o.quality, &quality);
  if (!o.solver.empty()) parse_solver(o.solver, &p.solver);
  apply_quality(p, quality, kind, scene.dimensions);
  apply_scene_params(scene, p);
  if (!o.solver.empty()) parse_solver(o.solver, &p.solver);
  sim->reset(build_initial_state(scene, spacing_for_count(scene, o.particles)));
  return sim;
}

Result run(const Options& o, BackendKind kind, const Scene& scene, bool threaded) {
  auto sim = make(o, kind, scene);
  SimRunner runner(*sim);
  Result r;
  r.particles = sim->particle_count();
  std::vector<Vec4> frame_copy;  // the window's GL buffer, as far as the copy goes
  const double frame_seconds = 1.0 / o.fps;
  const auto copy_out = [&](const PublishedState& s) {
    frame_copy.resize(s.particles.size());
    if (!s.particles.empty()) std::memcpy(frame_copy.data(), s.particles.data(), s.particles.size() * sizeof(Vec4));
  };
  // A second to warm up (the first steps allocate and, on CUDA, load the kernels).
  if (threaded) runner.start(o.threads);
  Clock::time_point taken;  // the newest frame's take
  const auto frame = [&](bool measure) {
    const Clock::time_point t = Clock::now();
    if (!threaded)
      runner.step_inline([&](Simulation& s) { s.advance(frame_seconds, 25.0); }, true);
    const PublishedState& s = runner.latest();
    taken = Clock::now();
    copy_out(s);
    if (measure) r.work_ms.push_back(ms_since(t));
    return &s;
  };
  for (const Clock::time_point until = Clock::now() + std::chrono::seconds(1); Clock::now() < until;) {
    frame(false);
    std::this_thread::sleep_for(std::chrono::duration<double>(frame_seconds));
  }
  const auto stats = [&] { return runner.exclusive([](Simulation& s) { return s.stats_as_stepped(); }); };
  const RunStats first = stats();
  uint64_t serial = frame(false)->serial;
  const uint64_t first_serial = serial;
  const Clock::time_point start = Clock::now();
  Clock::time_point next = start;
  while (std::chrono::duration<double>(Clock::now() - start).count() < o.seconds) {
    const PublishedState* s = frame(true);
    if (s->serial != serial) {
      ++r.states, serial = s->serial;
      r.age_ms += std::chrono::duration<double, std::milli>(taken - s->published_at).count();
    }
    ++r.frames;
    next += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(frame_seconds));
    if (next > Clock::now()) std::this_thread::sleep_until(next);
    else next = Clock::now();  // behind: the next frame at once, no burst
  }
  r.wall = std::chrono::duration<double>(Clock::now() - start).count();
  r.published = serial - first_serial;
  const RunStats last = stats();
  runner.stop();
  r.steps = last.steps - first.steps;
  r.simulated = last.simulated_time - first.simulated_time;
  return r;
}

void print(const char* mode, const Result& r) {
  std::vector<double> w = r.work_ms;
  std::sort(w.begin(), w.end());
  double mean = 0.0;
  for (double x : w) mean += x;
  mean = w.empty() ? 0.0 : mean / double(w.size());
  const double p99 = w.empty() ? 0.0 : w[std::min(w.size() - 1, size_t(0.99 * double(w.size())))];
  std::printf("%-7s %9u %8.1f %8.2f %8.2f %8.2f %8.2f %8.2f %7.2f %9.0f %9.3f %8.2f\n", mode, r.particles,
              double(r.frames) / r.wall, mean, p99, w.empty() ? 0.0 : w.back(),
              r.frames ? double(r.states) / double(r.frames) : 0.0,
              r.frames ? double(r.published) / double(r.frames) : 0.0, r.states ? r.age_ms / double(r.states) : 0.0,
              double(r.steps) / r.wall, r.simulated / r.wall,
              r.steps ? 1000.0 * r.wall / double(r.steps) : 0.0);
}

bool parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--backend" && (v = value())) o->backend = v;
    else if (a == "--scene" && (v = value())) o->scene = v;
    else if (a == "--solver" && (v = value())) o->solver = v;
    else if (a == "--quality" && (v = value())) o->quality = v;
    else if (a == "--mode" && (v = value())) o->mode = v;
    else if (a == "--particles" && (v = value())) o->particles = std::strtoull(v, nullptr, 10);
    else if (a == "--seconds" && (v = value())) o->seconds = std::atof(v);
    else if (a == "--fps" && (v = value())) o->fps = std::atof(v);
    else if (a == "--threads" && (v = value())) o->threads = std::atoi(v);
    else return false;
  }
  int solver = 0;
  Quality quality;
  return o->particles > 0 && o->seconds > 0 && o->fps > 0 && (o->solver.empty() || parse_solver(o->solver, &solver)) &&
         parse_quality(o->quality, &quality) && (o->mode == "both" || o->mode == "thread" || o->mode == "inline");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: tp_bench_async [--backend cpu|cuda] [--scene NAME] [--solver S] [--quality Q] "
                 "[--particles N] [--seconds S] [--fps F] [--threads N] [--mode thread|inline|both]\n");
    return 2;
  }
  BackendRequest request = BackendRequest::Cuda;
  if (!parse_backend_request(o.backend, &request)) {
    std::fprintf(stderr, "tp_bench_async: no backend '%s'\n", o.backend.c_str());
    return 2;
  }
  const BackendChoice choice = choose_backend(request, cuda_runtime());
  if (!choice.ok) {
    std::fprintf(stderr, "tp_bench_async: %s\n", choice.message.c_str());
    return 2;
  }
  try {
    const Scene scene = find_scene(o.scene, TIDEPOOL_SOURCE_DIR "/assets/scenes");
    auto probe = make(o, choice.kind, scene);
    std::printf("%s, %s, %s quality, %s; frames at %.0f/s for %.0f s\n", scene.name.c_str(),
                solver_name(probe->params().solver), o.quality.c_str(), probe->backend().description.c_str(), o.fps,
                o.seconds);
    probe.reset();
    std::printf("%-7s %9s %8s %8s %8s %8s %8s %8s %7s %9s %9s %8s\n", "mode", "particles", "frames/s", "work ms",
                "p99 ms", "max ms", "states/f", "copies/f", "age ms", "steps/s", "sim/wall", "ms/step");
    if (o.mode != "inline") print("thread", run(o, choice.kind, scene, true));
    if (o.mode != "thread") print("inline", run(o, choice.kind, scene, false));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tp_bench_async: %s\n", e.what());
    return 1;
  }
  return 0;
}
