#include "app/window/window_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace tp {

Vec3 ScriptedDrag::point(double t) const {
  const double u = std::clamp((t - start) / duration, 0.0, 1.0);
  const float a = float(u < 0.5 ? 2.0 * u : 2.0 - 2.0 * u);  // there and back
  return from + (to - from) * a;
}

ScriptedDrag default_drag(Vec3 tank_lo, Vec3 tank_hi, double seconds) {
  ScriptedDrag drag;
  drag.start = 0.5 * seconds;
  drag.duration = std::min(3.0, 0.4 * seconds);
  const Vec3 size = tank_hi - tank_lo;
  const float y = tank_lo.y + 0.08f * size.y;  // in the water that has spread over the floor
  const float z = 0.5f * (tank_lo.z + tank_hi.z);
  drag.from = Vec3{tank_lo.x + 0.2f * size.x, y, z};
  drag.to = Vec3{tank_lo.x + 0.8f * size.x, y, z};
  return drag;
}

void WindowBench::frame(double now, const RunStats& stats, uint64_t state_serial, uint particles) {
  if (!started_) {
    if (now < warmup_) return;
    started_ = true;
    start_time_ = last_time_ = now;
    start_stats_ = last_stats_ = stats;
    last_serial_ = state_serial;
    return;
  }
  frame_ms_.push_back(1000.0 * (now - last_time_));
  last_time_ = now;
  ++frames_;
  if (state_serial != last_serial_) ++states_;
  last_serial_ = state_serial;
  // A reset restarts the counters; keep what was measured up to it.
  if (stats.steps >= last_stats_.steps) last_stats_ = stats;
  last_particles_ = particles;
  diffuse_sum_ += double(stats.diffuse.total());
  diffuse_max_ = std::max(diffuse_max_, uint(stats.diffuse.total()));
}

namespace {

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double k = p * double(values.size() - 1);
  const size_t lo = size_t(std::floor(k)), hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (k - double(lo));
}

}  // namespace

WindowBenchResult WindowBench::result() const {
  WindowBenchResult r;
  r.warmup_seconds = warmup_;
  r.wall_seconds = started_ ? last_time_ - start_time_ : 0.0;
  r.frames = frames_;
  r.particles = last_particles_;
  r.diffuse_mean = frames_ ? diffuse_sum_ / double(frames_) : 0.0;
  r.diffuse_max = diffuse_max_;
  if (r.wall_seconds <= 0.0) return r;
  r.fps_mean = double(frames_) / r.wall_seconds;
  r.frame_ms_p50 = percentile(frame_ms_, 0.5);
  r.frame_ms_p95 = percentile(frame_ms_, 0.95);
  r.fps_p5 = r.frame_ms_p95 > 0.0 ? 1000.0 / r.frame_ms_p95 : 0.0;
  r.steps = last_stats_.steps - start_stats_.steps;
  r.states = states_;
  r.states_per_second = double(states_) / r.wall_seconds;
  r.simulated_seconds = last_stats_.simulated_time - start_stats_.simulated_time;
  r.realtime_ratio = r.simulated_seconds / r.wall_seconds;
  r.drag_latency_ms = latency_ >= 0.0 ? 1000.0 * latency_ : -1.0;
  if (r.steps > 0) {
    for (const PhaseTime& phase : last_stats_.phases) {
      double before = 0.0;
      for (const PhaseTime& old : start_stats_.phases)
        if (old.name == phase.name) before = old.total_ms;
      if (phase.total_ms > before)
        r.phase_ms.emplace_back(phase.name, (phase.total_ms - before) / double(r.steps));
    }
  }
  return r;
}

std::string window_bench_text(const WindowBenchResult& r) {
  char line[512];
  std::string text;
  std::snprintf(line, sizeof(line),
                "window benchmark: %s, %s, %s, %s quality, %u particles, %.1f s measured "
                "(after %.1f s of warm-up)\n",
                r.solver.c_str(), r.render.c_str(), r.backend.c_str(), r.quality.c_str(),
                r.particles, r.wall_seconds, r.warmup_seconds);
  text += line;
  std::snprintf(line, sizeof(line),
                "  frames/s %.1f mean, %.1f at the 5th percentile; frame ms %.1f p50, %.1f p95\n",
                r.fps_mean, r.fps_p5, r.frame_ms_p50, r.frame_ms_p95);
  text += line;
  std::snprintf(line, sizeof(line),
                "  %llu steps, %.1f states/s drawn, %.3f simulated s per wall s%s\n",
                static_cast<unsigned long long>(r.steps), r.states_per_second, r.realtime_ratio,
                r.drag_latency_ms >= 0.0 ? "" : " (no drag measured)");
  text += line;
  if (r.diffuse_max > 0) {
    std::snprintf(line, sizeof(line), "  spray, foam and bubbles: %.0f particles on average, %u at most\n",
                  r.diffuse_mean, r.diffuse_max);
    text += line;
  }
  if (r.video_frames > 0) {
    std::snprintf(line, sizeof(line), "  recording video (--video): %ld frames, %ld of them repeats for want of the encoder\n", r.video_frames,
                  r.video_repeats);
    text += line;
  }
  if (r.drag_latency_ms >= 0.0) {
    std::snprintf(line, sizeof(line), "  mouse press to the first state with its force: %.0f ms\n",
                  r.drag_latency_ms);
    text += line;
  }
  std::string phases, passes;
  double step_ms = 0.0;
  for (const auto& [name, ms] : r.phase_ms) {
    std::snprintf(line, sizeof(line), "%s%s %.2f", phases.empty() ? "" : ", ", name.c_str(), ms);
    phases += line;
    step_ms += ms;
  }
  for (const WindowBenchResult::Pass& p : r.pass_ms) {
    std::snprintf(line, sizeof(line), "%s%s %.2f/%.2f", passes.empty() ? "" : ", ",
                  p.name.c_str(), p.gpu_ms, p.cpu_ms);
    passes += line;
  }
  std::snprintf(line, sizeof(line), "  ms per step (%.2f): %s\n", step_ms, phases.c_str());
  text += line;
  text += "  ms per render pass (GPU/CPU): " + passes + "\n";
  return text;
}

std::string window_bench_json(const WindowBenchResult& r) {
  nlohmann::ordered_json j;
  j["solver"] = r.solver;
  j["render"] = r.render;
  j["backend"] = r.backend;
  j["quality"] = r.quality;
  j["particles"] = r.particles;
  j["wall_seconds"] = r.wall_seconds;
  j["warmup_seconds"] = r.warmup_seconds;
  j["frames"] = r.frames;
  j["fps_mean"] = r.fps_mean;
  j["fps_p5"] = r.fps_p5;
  j["frame_ms_p50"] = r.frame_ms_p50;
  j["frame_ms_p95"] = r.frame_ms_p95;
  j["steps"] = r.steps;
  j["states"] = r.states;
  j["states_per_second"] = r.states_per_second;
  j["simulated_seconds"] = r.simulated_seconds;
  j["realtime_ratio"] = r.realtime_ratio;
  j["diffuse_mean"] = r.diffuse_mean;
  j["diffuse_max"] = r.diffuse_max;
  if (r.drag_latency_ms >= 0.0) j["drag_latency_ms"] = r.drag_latency_ms;
  if (r.video_frames > 0) {
    j["video_frames"] = r.video_frames;
    j["video_repeats"] = r.video_repeats;
  }
  nlohmann::ordered_json phases = nlohmann::ordered_json::object();
  for (const auto& [name, ms] : r.phase_ms) phases[name] = ms;
  j["phase_ms_per_step"] = phases;
  nlohmann::ordered_json passes = nlohmann::ordered_json::object();
  for (const WindowBenchResult::Pass& p : r.pass_ms)
    passes[p.name] = {{"gpu_ms", p.gpu_ms}, {"cpu_ms", p.cpu_ms}};
  j["pass_ms_per_frame"] = passes;
  return j.dump(2) + "\n";
}

}  // namespace tp
