// --bench-window SECONDS: the real window measured as a person sees it. The frame loop
// runs as always (same scene, options, panel, renderer, simulation thread); this records
// every frame and prints frames/s, frame times, simulated seconds per wall second, the
// distinct simulation states shown per second, the time per simulation phase and per
// render pass, and the latency from a mouse press to the first state that shows its force.
// With --bench-drag it replays a scripted left drag through the water half-way through.
// A benchmark: it prints figures (and JSON with --bench-json) and passes or fails nothing.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/water/simulation.h"

namespace tp {

// A left drag along a fixed path, at fixed times of the run: the cursor as a person would
// move it, through the same input path (ray, pick, mouse force) as a real mouse.
struct ScriptedDrag {
  double start = 0.0;     ///< [s] since the run began: the press
  double duration = 2.0;  ///< [s] held this long, moving along the path and back
  Vec3 from{0, 0, 0}, to{0, 0, 0};  ///< [m] the path in the world, projected each frame

  bool held(double t) const { return t >= start && t < start + duration; }
  // The point of the path at time t: from -> to in the first half, back in the second.
  Vec3 point(double t) const;
};

// A drag across the water of a tank: along x through its middle, a little above the floor,
// starting half-way through a run of `seconds`.
ScriptedDrag default_drag(Vec3 tank_lo, Vec3 tank_hi, double seconds);

// The figures of one run (see WindowBench::result).
struct WindowBenchResult {
  double wall_seconds = 0.0;      ///< measured (after the warm-up)
  double warmup_seconds = 0.0;    ///< left out at the start (shader compilation, first uploads)
  uint64_t frames = 0;
  double fps_mean = 0.0;
  double fps_p5 = 0.0;            ///< 5th percentile of the instantaneous frames/s
  double frame_ms_p50 = 0.0, frame_ms_p95 = 0.0;
  uint64_t steps = 0;
  uint64_t states = 0;            ///< distinct simulation states drawn
  double states_per_second = 0.0;
  double simulated_seconds = 0.0;
  double realtime_ratio = 0.0;    ///< simulated seconds per wall second
  uint particles = 0;
  double diffuse_mean = 0.0;      ///< spray, foam and bubble particles, mean over the frames
  uint diffuse_max = 0;           ///< and the most at one frame (0: spray off)
  double drag_latency_ms = -1.0;  ///< press to the first drawn state with its force; -1 none
  long video_frames = 0;          ///< --video: the video's frames (0: not recording)
  long video_repeats = 0;         ///< of them, repeats of the frame before where the encoder fell behind
  std::vector<std::pair<std::string, double>> phase_ms;  ///< per step, over the run
  struct Pass {
    std::string name;
    double gpu_ms = 0.0, cpu_ms = 0.0;
  };
  std::vector<Pass> pass_ms;      ///< per frame (recent means at the end of the run)
  std::string solver, render, backend, quality;
};

class WindowBench {
 public:
  explicit WindowBench(double seconds, double warmup_seconds = 1.0)
      : seconds_(seconds), warmup_(warmup_seconds) {}

  double seconds() const { return seconds_; }
  // One drawn frame at wall time `now` [s since the run began]: the simulation's
  // statistics, and the serial of the state drawn (a new one or the same as before).
  void frame(double now, const RunStats& stats, uint64_t state_serial, uint particles);
  // The scripted press was made at `now`, and (later) the first drawn state whose steps
  // had its force at `now`.
  void pressed(double now) { press_time_ = now; }
  void force_shown(double now) {
    if (press_time_ >= 0.0 && latency_ < 0.0) latency_ = now - press_time_;
  }
  bool done(double now) const { return now >= seconds_; }

  // The figures; pass times, names and the count are the caller's.
  WindowBenchResult result() const;

 private:
  double seconds_, warmup_;
  double press_time_ = -1.0, latency_ = -1.0;
  bool started_ = false;
  double start_time_ = 0.0, last_time_ = 0.0;
  RunStats start_stats_, last_stats_;
  uint64_t last_serial_ = 0, states_ = 0, frames_ = 0;
  uint last_particles_ = 0;
  double diffuse_sum_ = 0.0;
  uint diffuse_max_ = 0;
  std::vector<double> frame_ms_;
};

// The readable table of one result, and its JSON text.
std::string window_bench_text(const WindowBenchResult& r);
std::string window_bench_json(const WindowBenchResult& r);

}  // namespace tp
