#include "app/headless.h"

#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>

#include "app/setup.h"
#include "sim/io.h"
#include "sim/params.h"

namespace tp {

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop = true; }

bool make_dirs(const std::string& dir, std::string* error) {
  std::string path;
  for (size_t i = 0; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      if (!path.empty() && mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
        *error = "cannot create directory '" + path + "': " + std::strerror(errno);
        return false;
      }
    }
    if (i < dir.size()) path += dir[i];
  }
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *error = "'" + dir + "' is not a directory";
    return false;
  }
  return true;
}

std::string frame_name(const std::string& dir, int frame) {
  char name[32];
  std::snprintf(name, sizeof(name), "/frame_%05d.ply", frame);
  return dir + name;
}

void print_bench(const SimSetup& s, const RunStats& st, double wall) {
  const Simulation& sim = *s.sim;
  std::printf("tidepool bench: scene %s, solver %s, %s\n", s.scene.name.c_str(),
              solver_name(s.sim->params().solver), sim.backend().description.c_str());
  std::printf("particles %u (boundary samples %u), spacing %.5f m\n", sim.particle_count(),
              sim.boundary_count(), sim.spacing());
  const double steps = double(st.steps);
  std::printf("steps %llu in %.2f s: %.1f steps/s, %.2f ms/step, mean dt %.3f ms, "
              "%.3f s simulated (%.1f wall s per simulated s)\n",
              (unsigned long long)st.steps, wall, steps / wall, 1000.0 * wall / steps,
              1000.0 * st.simulated_time / steps, st.simulated_time, wall / st.simulated_time);
  for (const PhaseTime& p : st.phases)
    std::printf("  %-10s %8.3f ms\n", p.name.c_str(), p.total_ms / steps);
  std::printf("density error mean %.3f %%, max %.3f %%; max speed %.2f m/s\n",
              100.0 * st.density_error_mean, 100.0 * st.density_error_max, st.max_speed);
  // The iterative solvers' cost per step is their iteration count: the figure that their
  // tolerance and iteration parameters trade against speed.
  if (s.sim->params().diffuse)
    std::printf("diffuse particles: %u spray, %u foam, %u bubbles (cap %u), %llu spawned\n",
                st.diffuse.spray, st.diffuse.foam, st.diffuse.bubbles, st.diffuse.capacity,
                (unsigned long long)st.diffuse.spawned);
  if (s.sim->params().solver != int(SolverKind::Wcsph))
    std::printf("solver iterations: mean %.2f per step; last step %d, error %.3f %%\n",
                st.mean_iterations, st.last_iterations, 100.0 * st.last_solver_error);
}

}  // namespace

int run_headless(const Options& o) {
  SimSetup setup;
  try {
    setup = make_setup(o);
  } catch (const SetupError& e) {
    std::fprintf(stderr, "tidepool: %s\n", e.what());
    return 2;
  }
  Simulation& sim = *setup.sim;
  std::fprintf(stderr, "tidepool: %s; %u particles, spacing %.4f m\n", setup.backend_message.c_str(),
               sim.particle_count(), sim.spacing());

  std::string error;
  if (!o.export_dir.empty() && !make_dirs(o.export_dir, &error)) {
    std::fprintf(stderr, "tidepool: --export: %s\n", error.c_str());
    return 2;
  }
  // Find out now, not after a long run, whether the report can be written.
  if (!o.report.empty() && o.report != "-" && !check_writable(o.report, &error)) {
    std::fprintf(stderr, "tidepool: --report: %s\n", error.c_str());
    return 2;
  }
  // How long: --steps, --time, or for a plain headless run one simulated second; a bench
  // without either runs 300 steps.
  int64_t max_steps = o.steps;
  double max_time = o.time;
  if (max_steps == 0 && max_time == 0.0) {
    if (o.bench) max_steps = 300;
    else max_time = 1.0;
  }

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  const auto t0 = std::chrono::steady_clock::now();
  int frame = 0;
  double next_export = 0.0;
  int status = 0;
  int skipped_frames = 0;
  auto export_frame = [&]() {
    const double t = sim.stats().simulated_time;
    if (!write_ply(frame_name(o.export_dir, frame), sim.snapshot(), &error, t)) {
      std::fprintf(stderr, "tidepool: --export: %s\n", error.c_str());
      status = 1;
      return false;
    }
    ++frame;
    // One frame per step at most: when a step is longer than a frame interval, the frames
    // it spans are not invented; each file records its own time instead.
    next_export += 1.0 / o.export_fps;
    while (next_export <= t) {
      next_export += 1.0 / o.export_fps;
      ++skipped_frames;
    }
    return true;
  };
  if (!o.export_dir.empty() && !export_frame()) return status;
  double next_progress = 2.0;
  for (int64_t step = 0; !g_stop; ++step) {
    const double t = sim.stats().simulated_time;
    if ((max_steps && step >= max_steps) || (!max_steps && t >= max_time)) break;
    sim.step();
    const double now = sim.stats().simulated_time;
    if (!o.export_dir.empty() && now >= next_export && !export_frame()) break;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (wall >= next_progress) {
      next_progress += 2.0;
      std::fprintf(stderr, "tidepool: t = %.3f s, step %lld, %.1f steps/s%s\n", now,
                   (long long)step + 1, double(step + 1) / wall,
                   o.export_dir.empty() ? "" : (", " + std::to_string(frame) + " frames exported").c_str());
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const RunStats stats = sim.stats();
  if (g_stop)
    std::fprintf(stderr, "tidepool: interrupted at t = %.3f s after %llu steps; %d complete frames written\n",
                 stats.simulated_time, (unsigned long long)stats.steps, frame);
  if (skipped_frames)
    std::fprintf(stderr, "tidepool: --export-fps %g is finer than the time step (%.3g ms): %d frame "
                 "times fell inside a step and were not written; each file's header records its "
                 "time\n", o.export_fps, 1000.0 * stats.last_dt, skipped_frames);
  if (o.bench) print_bench(setup, stats, wall);
  if (!o.report.empty()) {
    RunReport r;
    r.backend = sim.backend().description;
    r.solver = solver_name(sim.params().solver);
    r.scene = setup.scene.name;
    r.particles = sim.particle_count();
    r.wall_seconds = wall;
    r.stats = stats;
    r.check = check_particles(sim.snapshot(), sim.tank_lo(), sim.tank_hi());
    const std::string json = report_json(r);
    if (o.report == "-") {
      std::fputs(json.c_str(), stdout);
    } else if (!write_file_atomic(o.report, json, &error)) {
      std::fprintf(stderr, "tidepool: --report: %s\n", error.c_str());
      status = 1;
    }
  }
  return g_stop ? 130 : status;
}

}  // namespace tp
