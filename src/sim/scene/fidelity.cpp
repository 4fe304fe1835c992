#include "sim/scene/fidelity.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>

namespace tp {

namespace {

constexpr float kGaugeWidth = 2.0f;  ///< [spacings] wall_height's strip

// The particle with the largest key among `candidates` (indices into s.position) that has
// two others within 1.5 spacings; -1 when none does. Looks at the 200 largest at most.
int top_connected(const Snapshot& s, float spacing, std::vector<uint>& candidates,
                  const std::vector<float>& key) {
  const size_t look = std::min<size_t>(200, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + look, candidates.end(),
                    [&](uint a, uint b) { return key[a] > key[b]; });
  const float r2 = 2.25f * spacing * spacing;
  for (size_t k = 0; k < look; ++k) {
    const Vec3 x = xyz(s.position[candidates[k]]);
    int near = 0;
    for (const Vec4& y : s.position) near += length2(xyz(y) - x) < r2;
    if (near >= 3) return int(candidates[k]);  // itself and two others
  }
  return -1;
}

}  // namespace

float surge_front(const Snapshot& s, float spacing) {
  if (s.position.empty()) return 0.0f;
  std::vector<uint> all(s.position.size());
  std::vector<float> key(s.position.size());
  for (uint i = 0; i < all.size(); ++i) {
    all[i] = i;
    key[i] = s.position[i].x;
  }
  const int top = top_connected(s, spacing, all, key);
  // None connected (a spray): the farthest particle.
  const float x = top >= 0 ? s.position[top].x : key[all[0]];
  return x + 0.5f * spacing;  // its own half-width
}

float wall_height(const Snapshot& s, float spacing, float wall_x, float direction) {
  if (s.position.empty()) return 0.0f;
  // The water's extent across the strip (the tank's depth in z, or one spacing in 2D,
  // where every particle lies in one plane).
  float z_lo = s.position[0].z, z_hi = z_lo;
  size_t in_strip = 0;
  for (const Vec4& p : s.position) {
    z_lo = std::min(z_lo, p.z);
    z_hi = std::max(z_hi, p.z);
    in_strip += (p.x - wall_x) * direction < kGaugeWidth * spacing;
  }
  const double across = double(z_hi - z_lo) + spacing;
  // Each particle stands for a cube of the lattice's spacing.
  return float(double(in_strip) * spacing * spacing * spacing / (kGaugeWidth * spacing * across));
}

float wall_top(const Snapshot& s, float spacing, float wall_x, float direction) {
  std::vector<uint> near_wall;
  std::vector<float> key(s.position.size());
  for (uint i = 0; i < s.position.size(); ++i) {
    key[i] = s.position[i].y;
    if ((s.position[i].x - wall_x) * direction < kGaugeWidth * spacing) near_wall.push_back(i);
  }
  if (near_wall.empty()) return 0.0f;
  const int top = top_connected(s, spacing, near_wall, key);
  return top >= 0 ? s.position[top].y + 0.5f * spacing : 0.0f;
}

DamBreakRun run_dam_break(Simulation& sim, float spacing, float wall_x, double seconds) {
  DamBreakRun run;
  run.particles = sim.particle_count();
  struct Point {
    double t, front, height, top;
  };
  const auto measure = [&](double t) {
    const Snapshot s = sim.snapshot();
    return Point{t, double(surge_front(s, spacing)) - wall_x, double(wall_height(s, spacing, wall_x)),
                 double(wall_top(s, spacing, wall_x))};
  };
  // stats_as_stepped(), not stats(): stats() brings the densities up to date, a
  // neighbour search after every PBF step that the window does not make.
  const double t0 = sim.simulated_time();
  std::vector<Point> points{measure(0.0)};
  while (points.back().t < seconds && !sim.halted()) {
    const auto start = std::chrono::steady_clock::now();
    sim.step();
    const RunStats stepped = sim.stats_as_stepped();  // (on CUDA: waits for the step)
    run.wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double t = stepped.simulated_time - t0;
    if (!(t > points.back().t)) break;  // a step that did not advance: nothing to measure
    if (stepped.density_error_max > run.max_error) {
      run.max_error = stepped.density_error_max;
      run.max_error_at = t;
    }
    points.push_back(measure(t));
  }
  const RunStats stats = sim.stats_as_stepped();
  run.steps = stats.steps;
  run.simulated_s = points.back().t;
  run.mean_error = stats.density_error_mean;
  run.mean_iterations = stats.mean_iterations;
  run.max_speed = stats.max_speed;
  // Every 1/60 s, linearly between the steps around it.
  size_t k = 1;
  for (int frame = 0;; ++frame) {
    const double t = frame / 60.0;
    if (t > run.simulated_s + 1e-9 || t > seconds + 1e-9) break;
    while (k + 1 < points.size() && points[k].t < t) ++k;
    DamBreakSample sample{t, points[0].front, points[0].height, points[0].top};
    if (points.size() > 1) {
      const Point& a = points[k - 1];
      const Point& b = points[k];
      const double w = std::clamp((t - a.t) / (b.t - a.t), 0.0, 1.0);
      sample.front = a.front + (b.front - a.front) * w;
      sample.height = a.height + (b.height - a.height) * w;
      sample.top = a.top + (b.top - a.top) * w;
    }
    run.samples.push_back(sample);
  }
  return run;
}

double ranked_speed(const std::vector<Vec4>& velocity, size_t rank) {
  if (rank >= velocity.size()) return 0.0;
  std::vector<float> speed2(velocity.size());
  for (size_t k = 0; k < velocity.size(); ++k) speed2[k] = length2(xyz(velocity[k]));
  std::nth_element(speed2.begin(), speed2.begin() + rank, speed2.end(), std::greater<float>());
  return std::sqrt(double(speed2[rank]));
}

RestingRun run_resting(Simulation& sim, double settle, double until) {
  RestingRun run;
  while (sim.stats().simulated_time < settle && !sim.halted()) sim.step();
  while (sim.stats().simulated_time < until && !sim.halted()) {
    sim.step();
    run.fastest = std::max(run.fastest, sim.stats().last_max_speed);
    run.error = std::max(run.error, sim.stats().last_density_error);
    const Snapshot s = sim.snapshot();
    double sum = 0.0;
    for (const Vec4& v : s.velocity) sum += length2(xyz(v));
    if (!s.velocity.empty()) {
      run.rms = std::max(run.rms, std::sqrt(sum / double(s.velocity.size())));
      // The speed a thousandth of the particles exceed (the 8th fastest of 8,000).
      run.fastest_thousandth = std::max(run.fastest_thousandth, ranked_speed(s.velocity, s.velocity.size() / 1000));
    }
    ++run.steps;
  }
  return run;
}

Deviation rms_deviation(const DamBreakRun& run, const DamBreakRun& reference) {
  const size_t n = std::min(run.samples.size(), reference.samples.size());
  double front2 = 0.0, height2 = 0.0, top2 = 0.0;
  size_t counted = 0;
  for (size_t k = 1; k < n; ++k) {
    const DamBreakSample& a = run.samples[k];
    const DamBreakSample& r = reference.samples[k];
    const auto rel = [](double v, double ref) { return ref > 0.0 ? (v - ref) / ref : 0.0; };
    front2 += std::pow(rel(a.front, r.front), 2);
    height2 += std::pow(rel(a.height, r.height), 2);
    top2 += std::pow(rel(a.top, r.top), 2);
    ++counted;
  }
  if (counted == 0) return {};
  return {std::sqrt(front2 / counted), std::sqrt(height2 / counted), std::sqrt(top2 / counted)};
}

}  // namespace tp
