// How far a quality's water is from the accurate water, and what it costs: not a test, a
// table (docs/realtime.md, "Fidelity"). Runs the default dam break (assets/scenes/
// dam_break.json, 8,000 particles) for a second at each candidate setting and at the
// accurate quality of the candidate's solver, and prints per candidate: steps and solver
// iterations per simulated second, wall seconds per simulated second (steps only, on
// OMP_NUM_THREADS threads), the RMS deviation of the surge front, of the water's height at
// the left wall (a gauge) and of its surface there (the highest particle) from the
// accurate run's (sampled every 1/60 s), and the mean and worst density
// errors; then a resting pool (assets/scenes/pool.json at the same count) from 3 to 4 s
// (--pool-from S: from S to S + 1):
// its fastest particle and its RMS speed [m/s], and its largest mean density error. src/sim/scene/fidelity.h
// measures.
//
//   tp_bench_fidelity [--scene FILE] [--particles N] [--seconds S] [--repeat N] [--curves]
//                     [--pool-from S] [CANDIDATE ...]
//
// CANDIDATE: SOLVER/QUALITY[:KEY=VALUE,...], e.g. pbf/realtime or
// dfsph/realtime:cfl=1,dfsph_tolerance=1 (the quality's preset, then the keys). Without
// candidates: the realtime quality of every solver. --repeat runs each candidate that many
// times and keeps the fastest wall time (this machine's timings vary by a third); --curves
// prints each candidate's front and height beside the accurate run's every 0.05 s.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "sim/scene/fidelity.h"
#include "sim/scene/quality.h"
#include "sim/scene/scene.h"
#include "sim/water/params.h"

namespace {

using namespace tp;

struct Candidate {
  std::string label;
  int solver = 0;
  Quality quality = Quality::Realtime;
  std::vector<std::pair<std::string, std::string>> keys;  ///< as written, checked on parsing
};

bool parse_candidate(const std::string& text, Candidate* c, std::string* error) {
  c->label = text;
  const size_t slash = text.find('/'), colon = text.find(':');
  const std::string solver = text.substr(0, slash);
  const std::string quality =
      slash == std::string::npos ? "realtime" : text.substr(slash + 1, colon - slash - 1);
  if (!parse_solver(solver, &c->solver)) return *error = "no solver '" + solver + "'", false;
  if (!parse_quality(quality, &c->quality)) return *error = "no quality '" + quality + "'", false;
  if (colon == std::string::npos) return true;
  std::stringstream keys(text.substr(colon + 1));
  SimParams check = default_params();
  for (std::string item; std::getline(keys, item, ',');) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return *error = "'" + item + "' is not KEY=VALUE", false;
    c->keys.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    if (!set_param_from_text(check, c->keys.back().first, c->keys.back().second, error)) return false;
  }
  return true;
}

std::unique_ptr<Simulation> make(const Scene& scene, float spacing, const Candidate& c) {
  auto sim = make_simulation(BackendKind::Cpu);
  SimParams& p = sim->params();
  p.solver = c.solver;
  apply_quality(p, c.quality, BackendKind::Cpu, scene.dimensions);
  apply_scene_params(scene, p);
  p.diffuse = 0;  // the water's cost alone (spray has its own table)
  std::string unused;
  for (const auto& [key, value] : c.keys) set_param_from_text(p, key, value, &unused);
  sim->reset(build_initial_state(scene, spacing));
  return sim;
}

DamBreakRun run(const Scene& scene, float spacing, const Candidate& c, double seconds) {
  return run_dam_break(*make(scene, spacing, c), spacing, scene.tank_lo.x, seconds);
}

}  // namespace

int main(int argc, char** argv) {
  std::string scene_path = "assets/scenes/dam_break.json", pool_path = "assets/scenes/pool.json";
  uint64_t particles = 8000;
  double seconds = 1.0;
  int repeat = 1;
  bool curves = false;
  double pool_from = 3.0;  // the pool's measured second starts here
  std::vector<Candidate> candidates;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--scene") && has_value) {
      scene_path = argv[++i];
    } else if (!std::strcmp(argv[i], "--particles") && has_value) {
      particles = std::strtoull(argv[++i], nullptr, 10);
    } else if (!std::strcmp(argv[i], "--seconds") && has_value) {
      seconds = std::atof(argv[++i]);
    } else if (!std::strcmp(argv[i], "--pool-from") && has_value) {
      pool_from = std::max(0.0, std::atof(argv[++i]));
    } else if (!std::strcmp(argv[i], "--curves")) {
      curves = true;
    } else if (!std::strcmp(argv[i], "--repeat") && has_value) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else {
      Candidate c;
      std::string error;
      if (!parse_candidate(argv[i], &c, &error)) {
        std::fprintf(stderr, "tp_bench_fidelity: %s: %s\n", argv[i], error.c_str());
        return 2;
      }
      candidates.push_back(c);
    }
  }
  if (candidates.empty())
    for (const char* name : solver_names()) {
      Candidate c;
      std::string error;
      parse_candidate(std::string(name) + "/realtime", &c, &error);
      candidates.push_back(c);
    }
  Scene scene, pool;
  try {
    scene = load_scene_file(scene_path);
    pool = load_scene_file(pool_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tp_bench_fidelity: %s\n", e.what());
    return 2;
  }
  const float spacing = spacing_for_count(scene, particles);
  const float pool_spacing = spacing_for_count(pool, particles);
  std::printf("%s, %.4f m spacing, %.2f s, %d threads; deviations from the same solver's "
              "accurate run\n",
              scene_path.c_str(), spacing, seconds, omp_get_max_threads());
  std::printf("%-44s %6s %7s %7s %7s %7s %7s %8s %8s %6s %7s %7s %8s %8s %8s\n", "candidate", "steps",
              "iter/st", "wall/s", "front%", "height%", "top%", "mean_err%", "max_err%", "at s", "vmax",
              "pool_v", "pool_rms", "pool_err%", "pool_v1k");
  std::map<int, DamBreakRun> reference;
  const auto row = [&](const std::string& label, const DamBreakRun& r, const Deviation& d,
                       const Candidate& c) {
    const RestingRun rest = run_resting(*make(pool, pool_spacing, c), pool_from, pool_from + 1.0);
    std::printf("%-44s %6llu %7.2f %7.3f %7.2f %7.2f %7.2f %8.3f %8.2f %6.3f %7.2f %7.3f %8.4f %8.3f %8.3f\n",
                label.c_str(), (unsigned long long)r.steps, r.mean_iterations,
                r.wall_per_simulated(), 100.0 * d.front, 100.0 * d.height, 100.0 * d.top, 100.0 * r.mean_error,
                100.0 * r.max_error, r.max_error_at, r.max_speed, rest.fastest, rest.rms, 100.0 * rest.error,
                rest.fastest_thousandth);
    std::fflush(stdout);
  };
  for (const Candidate& c : candidates) {
    if (!reference.count(c.solver)) {
      Candidate accurate{std::string(solver_name(c.solver)) + "/accurate", c.solver,
                         Quality::Accurate, {}};
      reference[c.solver] = run(scene, spacing, accurate, seconds);
      row(accurate.label, reference[c.solver], {}, accurate);
    }
    DamBreakRun best = run(scene, spacing, c, seconds);
    for (int k = 1; k < repeat; ++k) {
      DamBreakRun again = run(scene, spacing, c, seconds);
      if (again.wall_s < best.wall_s) best = again;
    }
    row(c.label, best, rms_deviation(best, reference[c.solver]), c);
    if (curves) {
      const DamBreakRun& r = reference[c.solver];
      std::printf("    t      front  (accurate)   height  (accurate)   top  (accurate)\n");
      for (size_t k = 0; k < std::min(best.samples.size(), r.samples.size()); k += 3)
        std::printf("  %5.3f  %6.3f  %6.3f       %6.3f  %6.3f    %6.3f  %6.3f\n", best.samples[k].t,
                    best.samples[k].front, r.samples[k].front, best.samples[k].height,
                    r.samples[k].height, best.samples[k].top, r.samples[k].top);
    }
  }
  return 0;
}
