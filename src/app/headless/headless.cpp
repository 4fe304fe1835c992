#include "app/headless/headless.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "app/start/setup.h"
#include "sim/io/frame_recorder.h"
#include "sim/io/particle_io.h"
#include "sim/water/params.h"
#include "util/paths.h"
#include "util/stop_signals.h"

namespace tp {

bool HeadlessExports::start(const HeadlessOptions& o, const Simulation& sim) {
  fps_ = o.export_fps;
  exports_.reserve(2);
  std::string error;
  const RecordKind mesh_kind = o.mesh_format == "obj" ? RecordKind::MeshObj : RecordKind::MeshPly;
  for (const auto& [dir, kind, option] : {std::tuple{o.export_dir, RecordKind::Points, "--export"},
                                          std::tuple{o.export_mesh_dir, mesh_kind, "--export-mesh"}}) {
    if (dir.empty()) continue;
    if (kind != RecordKind::Points && sim.dimensions() == 2) {
      std::fprintf(stderr,
                   "tidepool: %s: the surface mesh is 3D only, and this scene is 2D; --export writes its "
                   "particles (docs/2d.md)\n",
                   option);
      return false;
    }
    exports_.push_back(Export{FrameRecorder{}, option});
    if (!exports_.back().recorder.start(dir, o.export_fps, false, &error, kind, o.mesh)) {
      std::fprintf(stderr, "tidepool: %s: %s\n", option, error.c_str());
      return false;
    }
  }
  return true;
}

bool HeadlessExports::due(double t) const {
  for (const Export& e : exports_)
    if (e.recorder.due(t)) return true;
  return false;
}

bool HeadlessExports::record(Simulation& sim, double wall, std::string* stop_reason) {
  std::string error;
  for (Export& e : exports_) {
    FrameRecorder& recorder = e.recorder;
    if (!recorder.due(sim.simulated_time())) continue;
    if (!recorder.record(sim, &error)) {
      std::fprintf(stderr, "tidepool: %s: %s\n", e.option, error.c_str());
      *stop_reason = "the export failed: " + error;
      return false;
    }
    if (wall < e.next_line) continue;
    e.next_line = wall + 1.0;
    std::string mesh;
    if (recorder.kind() != RecordKind::Points) {
      char text[96];
      std::snprintf(text, sizeof(text), ", %zu triangles in %.1f ms", recorder.mesh_triangles(),
                    recorder.mesh_times().total());
      mesh = text;
    }
    std::fprintf(stderr, "tidepool: export: frame %d (t = %.2f s)%s, %.1f MB in %s\n", recorder.frames() - 1,
                 recorder.last_time(), mesh.c_str(), double(recorder.bytes()) / 1e6, recorder.dir().c_str());
  }
  return true;
}

std::string HeadlessExports::finish(double last_dt) const {
  std::string frames_written;
  for (const Export& e : exports_) {
    const FrameRecorder& recorder = e.recorder;
    if (recorder.skipped())
      std::fprintf(stderr, "tidepool: --export-fps %g is finer than the time step (%.3g ms): %d frame "
                   "times fell inside a step and were not written; each file's header records its "
                   "time\n", fps_, 1000.0 * last_dt, recorder.skipped());
    std::fprintf(stderr, "tidepool: export: %s in %s (t = %.2f to %.2f s, %g frames per simulated "
                 "second)\n", recording_summary(recorder).c_str(), recorder.dir().c_str(),
                 recorder.first_time(), recorder.last_time(), fps_);
    frames_written += "; " + std::to_string(recorder.frames()) + " complete frames in " + recorder.dir();
  }
  return frames_written;
}

int run_water_headless(const StartPlan& plan, const HeadlessOptions& run) {
  SimSetup setup;
  try {
    setup = make_setup(plan);
  } catch (const SetupError& e) {
    std::fprintf(stderr, "tidepool: %s\n", e.what());
    return 2;
  }
  std::fprintf(stderr, "tidepool: %s; %u particles, spacing %.4f m\n",
               setup.backend_message.c_str(), setup.sim->particle_count(), setup.sim->spacing());
  double wall = 0.0;
  return run_setup(setup, run, &wall);
}

int run_setup(SimSetup& setup, const HeadlessOptions& o, double* wall_out) {
  *wall_out = 0.0;
  Simulation& sim = *setup.sim;
  std::string error;
  HeadlessExports exports;
  if (!exports.start(o, sim)) return 2;
  // Find out now, not after a long run, whether the report can be written.
  if (!o.report.empty() && o.report != "-" && !check_writable(o.report, &error)) {
    std::fprintf(stderr, "tidepool: --report: %s\n", error.c_str());
    return 2;
  }
  if (!o.save_state.empty() && !check_writable(o.save_state, &error)) {
    std::fprintf(stderr, "tidepool: --save-state: %s\n", error.c_str());
    return 2;
  }
  // How long: --steps, --time, or for a plain headless run one simulated second; a bench
  // without either runs 300 steps.
  int64_t max_steps = o.steps;
  double max_time = o.time;
  const uint64_t steps_before = sim.stats().steps;  // a loaded state's
  if (max_steps == 0 && max_time == 0.0) {
    if (o.bench) max_steps = 300;
    else max_time = sim.stats().simulated_time + 1.0;
  }

  catch_stop_signals();
  const auto t0 = std::chrono::steady_clock::now();
  const auto wall_seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  int status = 0;
  std::string stop_reason;  // why the run ended early, for the last line
  bool step_failed = false;
  auto export_frames = [&]() {
    if (exports.record(sim, wall_seconds(), &stop_reason)) return true;
    status = 1;
    return false;
  };
  if (!export_frames()) return status;
  double next_progress = 2.0;
  for (int64_t step = 0; !stop_signal(); ++step) {
    const double t = sim.simulated_time();
    if ((max_steps && step >= max_steps) || (!max_steps && t >= max_time)) break;
    try {
      sim.step();
    } catch (const std::exception& e) {  // e.g. memory for neighbour lists that grew
      std::fprintf(stderr, "tidepool: %s\n", e.what());
      stop_reason = std::string("the simulation failed: ") + e.what();
      step_failed = true;
      status = 1;
      break;
    }
    // The NaN guard's sentence, once; when it stopped the simulation, so does the run.
    if (const std::string note = sim.take_guard_note(); !note.empty())
      std::fprintf(stderr, "tidepool: %s\n", note.c_str());
    if (sim.halted()) {
      stop_reason = "the simulation stopped: NaN or infinite values";
      step_failed = true;
      status = 1;
      break;
    }
    const double now = sim.simulated_time();
    if (!export_frames()) break;
    const double wall = wall_seconds();
    if (wall >= next_progress) {
      next_progress += 2.0;
      std::fprintf(stderr, "tidepool: t = %.3f s, step %lld, %.1f steps/s\n", now,
                   (long long)step + 1, double(step + 1) / wall);
    }
  }
  // The statistics first: they may measure the last step's density (a timed phase), which
  // the wall time must then include, or the phases could add up to more than it.
  const RunStats stats = sim.stats();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  *wall_out = wall;
  if (stop_signal() && stop_reason.empty()) stop_reason = signal_text(stop_signal());
  const std::string frames_written = exports.finish(stats.last_dt);  // (for the last line of a run that ended early)
  if (!o.save_state.empty()) {
    if (step_failed)
      std::fprintf(stderr, "tidepool: --save-state: not saved, the last step failed\n");
    else if (save_state(setup, o.save_state, &error))
      std::fprintf(stderr, "tidepool: saved state at t = %.3f s to %s\n", stats.simulated_time,
                   o.save_state.c_str());
    else {
      std::fprintf(stderr, "tidepool: --save-state: %s\n", error.c_str());
      status = 1;
    }
  }
  if (!o.report.empty()) {
    RunReport r;
    r.backend = sim.backend().description;
    r.solver = solver_name(sim.params().solver);
    r.scene = setup.scene.name;
    r.particles = sim.particle_count();
    r.wall_seconds = wall;
    r.steps_run = stats.steps - steps_before;
    r.stats = stats;
    r.check = check_particles(sim.snapshot(), sim.tank_lo(), sim.tank_hi());
    r.bodies = sim.bodies();
    const std::string json = report_json(r);
    if (o.report == "-") {
      std::fputs(json.c_str(), stdout);
      std::fflush(stdout);  // before the last line on standard error
    } else if (!write_file_atomic(o.report, json, &error)) {
      std::fprintf(stderr, "tidepool: --report: %s\n", error.c_str());
      status = 1;
    }
  }
  // The last line says how the run ended when it ended early; what it wrote is complete.
  if (!stop_reason.empty()) {
    std::fprintf(stderr, "%s\n",
                 stopped_line(stats.simulated_time, stats.steps, stop_reason, frames_written).c_str());
  }
  return status ? status : stop_signal() ? 130 : 0;
}

}  // namespace tp
