#include "app/headless/gas_headless.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/io/frame_recorder.h"
#include "util/paths.h"
#include "app/start/setup.h"
#include "util/stop_signals.h"
#include "sim/io/gas_vtk.h"
#include "sim/scene/gas_scene.h"
#include "util/atomic_file.h"

namespace tp {

namespace {

using json = nlohmann::ordered_json;

// The plan checked (options that mean particles are refused by name rather than ignored)
// and the backend chosen; false after saying why.
bool start(const StartPlan& plan, BackendChoice* choice) {
  if (const std::string why = gas_refusal(plan); !why.empty()) {
    std::fprintf(stderr, "tidepool: %s\n", why.c_str());
    return false;
  }
  try {
    *choice = start_backend(plan);
  } catch (const SetupError& e) {
    std::fprintf(stderr, "tidepool: %s\n", e.what());
    return false;
  }
  return true;
}

std::string grid_text(const GasGrid& g) {
  char text[128];
  std::snprintf(text, sizeof(text), "%dx%dx%d cells of %.4g m (%s)", g.n.x, g.n.y, g.n.z, g.dx,
                g.n.z == 1 ? "2D" : "3D");
  return text;
}

// Mean ms per phase over the steps summed in `sums`.
json phase_json(const std::vector<std::pair<std::string, double>>& sums, int64_t steps) {
  json phases = json::object();
  for (const auto& [name, ms] : sums) phases[name] = steps ? ms / double(steps) : 0.0;
  return phases;
}

void add_phases(std::vector<std::pair<std::string, double>>* sums, const GasStats& st) {
  for (const GasPhaseTime& p : st.phases) {
    auto it = std::find_if(sums->begin(), sums->end(), [&](const auto& e) { return e.first == p.name; });
    if (it == sums->end())
      sums->emplace_back(p.name, p.ms);
    else
      it->second += p.ms;
  }
}

}  // namespace

int run_gas_headless(const StartPlan& plan, const Scene& scene, const HeadlessOptions& o) {
  BackendChoice choice;
  if (!start(plan, &choice)) return 2;
  std::unique_ptr<GasSimulation> gas;
  try {
    gas = make_gas_simulation(choice.kind);
    start_gas(*gas, scene, plan.cells, plan.layers.sets, choice.kind);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tidepool: %s\n", e.what());
    return 2;
  }
  const GasGrid grid = gas->setup().grid;
  std::fprintf(stderr, "tidepool: %s; gas grid %s\n", choice.message.c_str(), grid_text(grid).c_str());
  std::string error;
  if (!o.report.empty() && o.report != "-" && !check_writable(o.report, &error)) {
    std::fprintf(stderr, "tidepool: --report: %s\n", error.c_str());
    return 2;
  }
  if (!o.export_dir.empty() && (!make_directories(o.export_dir, &error) ||
                                !check_writable(frame_file_name(o.export_dir, 0, RecordKind::GasVtk), &error))) {
    std::fprintf(stderr, "tidepool: --export: %s\n", error.c_str());
    return 2;
  }
  int64_t max_steps = o.steps;
  double max_time = o.time;
  if (max_steps == 0 && max_time == 0.0) max_time = 1.0;

  catch_stop_signals();
  const auto t0 = std::chrono::steady_clock::now();
  const auto wall_seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  int status = 0;
  std::string stop_reason;
  int frames = 0;
  double next_frame = 0.0;
  uint64_t bytes = 0;
  const auto export_frame = [&]() {
    if (o.export_dir.empty()) return true;
    const double t = gas->stats().simulated_time;
    if (t + 1e-9 < next_frame) return true;
    const std::string path = frame_file_name(o.export_dir, frames, RecordKind::GasVtk);
    if (!write_gas_vtk(path, *gas, t, &error)) {
      std::fprintf(stderr, "tidepool: --export: %s\n", error.c_str());
      stop_reason = "the export failed: " + error;
      status = 1;
      return false;
    }
    bytes += uint64_t(grid.cells()) * 32;
    ++frames;
    while (next_frame <= t + 1e-9) next_frame += 1.0 / o.export_fps;
    return true;
  };
  std::vector<std::pair<std::string, double>> phase_sums;
  float worst_divergence = 0.0f, worst_residual = 0.0f;
  int64_t iterations = 0, most_iterations = 0, steps = 0;
  double next_progress = 2.0;
  if (export_frame()) {
    while (!stop_signal()) {
      const GasStats before = gas->stats();
      if ((max_steps && steps >= max_steps) || (!max_steps && before.simulated_time >= max_time)) break;
      try {
        gas->step();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "tidepool: %s\n", e.what());
        stop_reason = std::string("the simulation failed: ") + e.what();
        status = 1;
        break;
      }
      ++steps;
      const GasStats st = gas->stats();
      add_phases(&phase_sums, st);
      worst_divergence = std::max(worst_divergence, st.divergence_after);
      worst_residual = std::max(worst_residual, st.pressure_residual);
      iterations += st.pressure_iterations;
      most_iterations = std::max<int64_t>(most_iterations, st.pressure_iterations);
      if (!export_frame()) break;
      if (wall_seconds() >= next_progress) {
        next_progress += 2.0;
        std::fprintf(stderr, "tidepool: t = %.3f s, step %lld, %.1f steps/s\n", st.simulated_time,
                     (long long)steps, double(steps) / wall_seconds());
      }
    }
  }
  const double wall = wall_seconds();
  const GasStats st = gas->stats();
  if (stop_signal() && stop_reason.empty()) stop_reason = signal_text(stop_signal());
  if (!o.export_dir.empty())
    std::fprintf(stderr, "tidepool: export: %d VTK frames, %.1f MB in %s (%g frames per simulated second)\n", frames,
                 double(bytes) / 1e6, o.export_dir.c_str(), o.export_fps);
  if (!o.report.empty()) {
    json r;
    r["scene"] = scene.name;
    r["kind"] = "gas";
    r["backend"] = choice.description;
    r["grid"] = {{"cells", {grid.n.x, grid.n.y, grid.n.z}}, {"dimensions", grid.n.z == 1 ? 2 : 3}, {"dx", grid.dx}};
    r["steps"] = steps;
    r["simulated_time"] = st.simulated_time;
    r["wall_seconds"] = wall;
    r["steps_per_second"] = wall > 0.0 ? double(steps) / wall : 0.0;
    r["pressure_solver"] = gas->params().pressure_solver == int(GasPressureSolver::Jacobi) ? "jacobi" : "mgpcg";
    r["pressure_tolerance"] = gas->params().pressure_tolerance;
    r["last_step"] = {{"dt", st.dt},
                      {"pressure_iterations", st.pressure_iterations},
                      {"pressure_residual", st.pressure_residual},
                      {"max_divergence_before", st.divergence_before},
                      {"max_divergence_after", st.divergence_after},
                      {"max_speed", st.max_speed}};
    r["run"] = {{"mean_pressure_iterations", steps ? double(iterations) / double(steps) : 0.0},
                {"most_pressure_iterations", most_iterations},
                {"worst_pressure_residual", worst_residual},
                {"worst_max_divergence_after", worst_divergence}};
    r["smoke_mass"] = st.smoke_mass;
    r["ms_per_phase"] = phase_json(phase_sums, steps);
    const std::string text = r.dump(2) + "\n";
    if (o.report == "-") {
      std::fputs(text.c_str(), stdout);
      std::fflush(stdout);
    } else if (!write_file_atomic(o.report, text, &error)) {
      std::fprintf(stderr, "tidepool: --report: %s\n", error.c_str());
      status = 1;
    }
  }
  if (!stop_reason.empty())
    std::fprintf(stderr, "%s\n", stopped_line(st.simulated_time, st.steps, stop_reason, "").c_str());
  return status ? status : stop_signal() ? 130 : 0;
}

int run_gas_bench(const StartPlan& plan, const std::vector<Scene>& scenes, const BenchOptions& bench,
                  const HeadlessOptions& o) {
  BackendChoice choice;
  if (!start(plan, &choice)) return 2;
  const std::vector<int> cells = bench.cells.empty() ? std::vector<int>{0} : bench.cells;
  const int64_t steps = o.steps > 0 ? o.steps : 30;
  json rows = json::array();
  std::printf("Gas benchmark (%s), %lld steps after 10 to warm up\n", choice.message.c_str(), (long long)steps);
  std::printf("%-16s %-26s %9s %8s %7s  ms per phase\n", "scene", "grid", "steps/s", "ms/step", "iters");
  for (const Scene& scene : scenes) {
    for (int c : cells) {
      std::unique_ptr<GasSimulation> gas;
      try {
        gas = make_gas_simulation(choice.kind);
        start_gas(*gas, scene, c, plan.layers.sets, choice.kind);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "tidepool: %s\n", e.what());
        return 2;
      }
      for (int k = 0; k < 10 && !stop_signal(); ++k) gas->step();
      std::vector<std::pair<std::string, double>> sums;
      int64_t iterations = 0;
      const auto t0 = std::chrono::steady_clock::now();
      for (int64_t k = 0; k < steps && !stop_signal(); ++k) {
        gas->step();
        add_phases(&sums, gas->stats());
        iterations += gas->stats().pressure_iterations;
      }
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const GasGrid g = gas->setup().grid;
      std::string phases;
      for (const auto& [name, ms] : sums) {
        char part[64];
        std::snprintf(part, sizeof(part), "%s%s %.2f", phases.empty() ? "" : ", ", name.c_str(), ms / double(steps));
        phases += part;
      }
      char dims[48];
      std::snprintf(dims, sizeof(dims), "%dx%dx%d (%dD)", g.n.x, g.n.y, g.n.z, g.n.z == 1 ? 2 : 3);
      std::printf("%-16s %-26s %9.1f %8.2f %7.1f  %s\n", scene.name.c_str(), dims, double(steps) / wall,
                  1000.0 * wall / double(steps), double(iterations) / double(steps), phases.c_str());
      std::fflush(stdout);
      json row;
      row["scene"] = scene.name;
      row["cells"] = {g.n.x, g.n.y, g.n.z};
      row["backend"] = choice.description;
      row["steps"] = steps;
      row["steps_per_second"] = double(steps) / wall;
      row["ms_per_step"] = 1000.0 * wall / double(steps);
      row["mean_pressure_iterations"] = double(iterations) / double(steps);
      row["last_pressure_residual"] = gas->stats().pressure_residual;
      row["ms_per_phase"] = phase_json(sums, steps);
      rows.push_back(row);
    }
  }
  if (!bench.json.empty()) {
    const std::string text = rows.dump(2) + "\n";
    std::string error;
    if (bench.json == "-")
      std::fputs(text.c_str(), stdout);
    else if (!write_file_atomic(bench.json, text, &error)) {
      std::fprintf(stderr, "tidepool: --bench-json: %s\n", error.c_str());
      return 1;
    }
  }
  return stop_signal() ? 130 : 0;
}

}  // namespace tp
