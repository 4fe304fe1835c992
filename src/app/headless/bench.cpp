#include "app/headless/bench.h"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "app/headless/headless.h"
#include "util/paths.h"
#include "app/start/setup.h"
#include "sim/backend/backend_select.h"
#include "sim/water/params.h"
#include "sim/scene/scene.h"
#include "util/atomic_file.h"

#ifndef TIDEPOOL_VERSION
#define TIDEPOOL_VERSION "unknown"
#endif
#ifndef TP_BUILD_TYPE
#define TP_BUILD_TYPE "unknown"
#endif
#ifndef TP_BUILD_FLAGS
#define TP_BUILD_FLAGS ""
#endif

namespace tp {

namespace {

// ---- formatting -----------------------------------------------------------------------------

std::string format(const char* pattern, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, v);
  return buffer;
}

// About three significant figures without exponents: 1234, 123.4, 12.34, 1.234, 0.123.
std::string figure(double v) {
  const double a = std::abs(v);
  if (a >= 100.0) return format("%.0f", v);
  if (a >= 10.0) return format("%.1f", v);
  if (a >= 1.0) return format("%.2f", v);
  return format("%.3f", v);
}

// 1234567 -> "1,234,567".
std::string grouped(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t k = 0; k < digits.size(); ++k) {
    if (k && (digits.size() - k) % 3 == 0) out += ',';
    out += digits[k];
  }
  return out;
}

// A table of text cells: the first row is the header; columns listed in `left` are
// left-aligned, the others right-aligned. A row shorter than the header ends in a note
// (its last cell) written after the cells before it, across the remaining columns.
std::string render(const std::vector<std::vector<std::string>>& table,
                   const std::vector<bool>& left) {
  const size_t columns = table.front().size();
  std::vector<size_t> width(columns, 0);
  for (const auto& row : table)
    if (row.size() == columns)
      for (size_t c = 0; c < columns; ++c) width[c] = std::max(width[c], row[c].size());
  std::string out;
  for (const auto& row : table) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const bool note = row.size() < columns && c + 1 == row.size();
      const std::string& cell = row[c];
      const std::string pad(note ? 0 : width[c] - std::min(width[c], cell.size()), ' ');
      line += (c ? "  " : "") + (note || left[c] ? cell + pad : pad + cell);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

double phase_ms(const BenchRow& row, const PhaseTime& phase) {
  return row.steps ? phase.total_ms / double(row.steps) : 0.0;
}

bool has_figures(const BenchRow& row) {
  return (row.status == "ok" || row.status == "interrupted") && row.steps > 0;
}

}  // namespace

// ---- the mesh -------------------------------------------------------------------------------

void measure_mesh(Simulation& sim, const MeshSettings& settings, BenchRow* row) {
  for (int aniso = 0; aniso < 2; ++aniso) {
    MeshSettings s = settings;
    s.anisotropic = aniso == 1;
    std::vector<MeshTimes> runs;
    TriangleMesh mesh;
    try {
      for (int k = 0; k < 6; ++k) {
        MeshTimes t;
        sim.build_mesh(s, k == 5 ? &mesh : nullptr, &t);
        if (k) runs.push_back(t);  // the first warms the buffers up
      }
    } catch (const std::exception& e) {
      // Settings the mesh cannot use, or memory: said, and the run's own figures stay.
      std::fprintf(stderr, "tidepool: bench: no %s mesh: %s\n", aniso ? "anisotropic" : "isotropic", e.what());
      continue;
    }
    std::sort(runs.begin(), runs.end(), [](const MeshTimes& a, const MeshTimes& b) { return a.total() < b.total(); });
    BenchRow::Mesh& m = row->mesh[aniso];
    m.measured = true;
    m.times = runs[runs.size() / 2];
    m.triangles = mesh.triangle_count();
    m.vertices = mesh.position.size();
  }
}

namespace {
std::string mesh_table(const std::vector<BenchRow>& rows) {
  std::vector<std::vector<std::string>> table = {
      {"#", "kernels", "particles", "triangles", "sort+shape", "field", "cubes", "ms", "Mparticles/s/core"}};
  std::vector<bool> left(table.front().size(), false);
  left[1] = true;
  for (size_t r = 0; r < rows.size(); ++r)
    for (int aniso = 0; aniso < 2; ++aniso) {
      const BenchRow::Mesh& m = rows[r].mesh[aniso];
      if (!m.measured) continue;
      const double ms = m.times.total();
      const double rate = ms > 0 && rows[r].threads ? double(rows[r].particles_end) / (ms / 1000.0) / rows[r].threads / 1e6 : 0.0;
      table.push_back({std::to_string(r + 1), aniso ? "anisotropic" : "isotropic", grouped(rows[r].particles_end),
                       grouped(m.triangles), figure(m.times.kernels_ms), figure(m.times.field_ms),
                       figure(m.times.cubes_ms), figure(ms), rows[r].threads ? format("%.3f", rate) : "-"});
    }
  if (table.size() == 1) return "";
  return "\nsurface mesh of the last state, ms (median of 5 builds; docs/mesh.md)\n" + render(table, left);
}
}  // namespace

// ---- the tables -----------------------------------------------------------------------------

std::string bench_table(const std::vector<BenchRow>& rows) {
  std::vector<std::vector<std::string>> table = {
      {"#", "scene", "solver", "backend", "threads", "particles", "boundary", "steps", "dt ms",
       "ms/step", "wall/sim", "rho err %", "max %", "nbrs", "bnd nbrs", "iters"}};
  std::vector<bool> left(table.front().size(), false);
  left[1] = left[2] = left[3] = true;
  for (size_t r = 0; r < rows.size(); ++r) {
    const BenchRow& row = rows[r];
    std::vector<std::string> cells = {std::to_string(r + 1), row.scene, row.solver, row.backend};
    if (!has_figures(row)) {
      // A reason is written once; the rows after it that share it point back to it.
      size_t same = 0;
      while (same < r && !(rows[same].status == row.status && rows[same].reason == row.reason))
        ++same;
      cells.push_back(row.status + (row.reason.empty() ? ""
                                    : same < r ? " (as row " + std::to_string(same + 1) + ")"
                                               : ": " + row.reason));
      table.push_back(cells);
      continue;
    }
    const std::vector<std::string> figures = {
        row.threads ? std::to_string(row.threads) : "-",
        grouped(row.particles),
        grouped(row.boundary),
        std::to_string(row.steps),
        figure(row.mean_dt_ms()),
        figure(row.ms_per_step()),
        figure(row.wall_per_simulated_second()),
        figure(100.0 * row.stats.density_error_mean),
        figure(100.0 * row.stats.density_error_max),
        format("%.1f", row.stats.neighbors_per_particle),
        format("%.1f", row.stats.boundary_neighbors_per_particle),
        row.iterative ? format("%.2f", row.stats.mean_iterations) : "-"};
    cells.insert(cells.end(), figures.begin(), figures.end());
    if (row.status != "ok") cells.back() += "  (" + row.status + ")";
    table.push_back(cells);
  }
  std::string out = render(table, left);
  out +=
      "dt ms: mean time step; ms/step: wall time per step; wall/sim: wall seconds per "
      "simulated second;\nrho err: density error, mean and max [%]; nbrs: fluid neighbours "
      "per particle (bnd: boundary samples);\niters: mean solver iterations per step "
      "(PCISPH, PBF)\n";

  // Per phase: the union of the rows' phases, in the order they first appear.
  std::vector<std::string> phases;
  for (const BenchRow& row : rows)
    if (has_figures(row))
      for (const PhaseTime& p : row.stats.phases)
        if (std::find(phases.begin(), phases.end(), p.name) == phases.end())
          phases.push_back(p.name);
  if (phases.empty()) return out;
  std::vector<std::vector<std::string>> by_phase = {{"#", "solver"}};
  by_phase.front().insert(by_phase.front().end(), phases.begin(), phases.end());
  by_phase.front().push_back("sum");
  by_phase.front().push_back("ms/step");
  std::vector<bool> phase_left(by_phase.front().size(), false);
  phase_left[1] = true;
  for (size_t r = 0; r < rows.size(); ++r) {
    const BenchRow& row = rows[r];
    if (!has_figures(row)) continue;
    std::vector<std::string> cells = {std::to_string(r + 1), row.solver};
    double sum = 0.0;
    for (const std::string& name : phases) {
      const auto p = std::find_if(row.stats.phases.begin(), row.stats.phases.end(),
                                  [&](const PhaseTime& q) { return q.name == name; });
      if (p == row.stats.phases.end()) {
        cells.push_back("-");
        continue;
      }
      sum += phase_ms(row, *p);
      cells.push_back(figure(phase_ms(row, *p)));
    }
    cells.push_back(figure(sum));
    cells.push_back(figure(row.ms_per_step()));
    by_phase.push_back(cells);
  }
  out += "\nms per step by phase (sum: of the phases; ms/step: wall time per step)\n";
  out += render(by_phase, phase_left);
  out += mesh_table(rows);
  return out;
}

// ---- JSON ---------------------------------------------------------------------------------------

MachineInfo this_machine() {
  MachineInfo m;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos || line.compare(0, 10, "model name") != 0) continue;
    m.cpu = line.substr(line.find_first_not_of(" \t", colon + 1) == std::string::npos
                            ? line.size()
                            : line.find_first_not_of(" \t", colon + 1));
    break;
  }
  if (m.cpu.empty()) m.cpu = "unknown";
  m.cores = omp_get_num_procs();
  m.memory_gb = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGESIZE)) / 1e9;
#if defined(__clang__)
  m.compiler = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  m.compiler = std::string("GCC ") + __VERSION__;
#else
  m.compiler = "unknown";
#endif
  m.build_type = TP_BUILD_TYPE;
  m.flags = TP_BUILD_FLAGS;
  for (const std::string& b : compiled_backends())
    m.backends += (m.backends.empty() ? "" : ", ") + b;
  m.version = TIDEPOOL_VERSION;
  return m;
}

std::string bench_json(const std::vector<BenchRow>& rows, const StartPlan& plan, const HeadlessOptions& o,
                       const MachineInfo& machine, bool complete) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["tidepool_bench"] = 1;
  j["complete"] = complete;  // false while the runs go on, or after Ctrl-C
  char date[32] = "";
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  if (gmtime_r(&now, &utc)) std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  j["date"] = date;
  j["machine"] = {{"cpu", machine.cpu},
                  {"cores", machine.cores},
                  {"memory_gb", std::round(machine.memory_gb * 10.0) / 10.0},
                  {"tidepool_version", machine.version},
                  {"compiler", machine.compiler},
                  {"build_type", machine.build_type},
                  {"flags", machine.flags},
                  {"backends", machine.backends}};
  ordered_json sets = ordered_json::object();
  for (const auto& [key, value] : plan.layers.sets) sets[key] = value;  // the last of a key wins
  j["settings"] = {{"steps", o.steps ? ordered_json(o.steps) : ordered_json()},
                   {"time_s", o.time > 0 ? ordered_json(o.time) : ordered_json()},
                   {"preset", plan.layers.preset_file.empty() ? ordered_json() : ordered_json(plan.layers.preset_file)},
                   {"set", sets}};
  if (!o.steps && o.time <= 0) j["settings"]["steps"] = 300;  // the bench's default
  ordered_json runs = ordered_json::array();
  for (const BenchRow& row : rows) {
    ordered_json r;
    r["scene"] = row.scene.empty() ? row.config.scene : row.scene;
    r["solver"] = row.solver.empty() ? row.config.solver : row.solver;
    r["backend"] = row.backend.empty() ? row.config.backend : row.backend;
    r["backend_requested"] = row.config.backend;
    r["status"] = row.status;
    if (!row.reason.empty()) r["reason"] = row.reason;
    const auto or_null = [](auto v) { return v ? ordered_json(v) : ordered_json(); };
    r["particles_requested"] = or_null(row.config.particles);
    r["spacing_requested_m"] = or_null(row.config.spacing);
    if (!has_figures(row)) {
      runs.push_back(r);
      continue;
    }
    r["backend_description"] = row.backend_description;
    r["threads"] = or_null(row.threads);
    r["spacing_m"] = row.spacing;
    r["particles"] = row.particles;
    r["particles_end"] = row.particles_end;
    r["boundary_samples"] = row.boundary;
    r["steps"] = row.steps;
    r["simulated_s"] = row.simulated_seconds;
    r["wall_s"] = row.wall_seconds;
    r["mean_dt_ms"] = row.mean_dt_ms();
    r["ms_per_step"] = row.ms_per_step();
    r["steps_per_s"] = row.wall_seconds > 0 ? double(row.steps) / row.wall_seconds : 0.0;
    r["wall_s_per_simulated_s"] = row.wall_per_simulated_second();
    r["density_error_mean_percent"] = 100.0 * row.stats.density_error_mean;
    r["density_error_max_percent"] = 100.0 * row.stats.density_error_max;
    r["neighbors_per_particle"] = row.stats.neighbors_per_particle;
    r["boundary_neighbors_per_particle"] = row.stats.boundary_neighbors_per_particle;
    r["mean_iterations"] = row.iterative ? ordered_json(row.stats.mean_iterations) : ordered_json();
    r["max_speed_m_s"] = row.stats.max_speed;
    for (int aniso = 0; aniso < 2; ++aniso) {
      const BenchRow::Mesh& m = row.mesh[aniso];
      if (!m.measured) continue;
      r["mesh"][aniso ? "anisotropic" : "isotropic"] = {
          {"triangles", m.triangles}, {"vertices", m.vertices}, {"sort_shape_ms", m.times.kernels_ms},
          {"field_ms", m.times.field_ms}, {"cubes_ms", m.times.cubes_ms}, {"total_ms", m.times.total()}};
    }
    ordered_json phases = ordered_json::object();
    double sum = 0.0;
    for (const PhaseTime& p : row.stats.phases) {
      phases[p.name] = phase_ms(row, p);
      sum += phase_ms(row, p);
    }
    r["phases"] = phases;  // ms per step
    r["phases_sum_ms_per_step"] = sum;
    runs.push_back(r);
  }
  j["runs"] = runs;
  return j.dump(2) + "\n";
}

// ---- running ------------------------------------------------------------------------------------

namespace {

// "dam_break, pcisph, cpu, 2 threads, 30000 particles": a configuration in messages.
std::string config_label(const BenchConfig& c) {
  std::string s =
      c.scene + ", " + (c.solver.empty() ? "the scene's solver" : c.solver) + ", " + c.backend;
  if (c.threads) s += ", " + std::to_string(c.threads) + " threads";
  if (c.particles) s += ", " + std::to_string(c.particles) + " particles";
  if (c.spacing > 0) s += ", spacing " + format("%g", c.spacing) + " m";
  return s;
}

// A row is ready to run when everything it needs was read and fits in memory.
struct Planned {
  BenchConfig config;
  std::optional<BackendChoice> backend;  ///< unset: skipped (reason in `skip`)
  std::string skip;
  double spacing = 0.0;  ///< resolved before any row runs
};

}  // namespace

int run_bench(const StartPlan& plan, const BenchOptions& bench, const HeadlessOptions& run) {
  std::string error;
  if (!bench.json.empty() && bench.json != "-" && !check_writable(bench.json, &error)) {
    std::fprintf(stderr, "tidepool: --bench-json: %s\n", error.c_str());
    return 2;
  }
  const int all_threads = omp_get_max_threads();
  auto use_threads = [&](int threads) {
    omp_set_num_threads(threads > 0 ? std::min(threads, omp_get_num_procs()) : all_threads);
  };
  const size_t size = bench.configurations;

  // Everything is checked before the first row runs, so that a typo or a configuration
  // that does not fit in memory stops the run now and not an hour into it.
  std::map<std::string, BackendChoice> choices;
  std::map<std::string, Scene> scenes;
  std::optional<Preset> preset;
  std::vector<Planned> planned;
  try {
    if (!plan.layers.preset_file.empty()) preset = load_preset_file(plan.layers.preset_file);
    for (const BenchConfig& config : bench.matrix) {
      if (!choices.count(config.backend)) {
        BackendRequest request = BackendRequest::Auto;
        parse_backend_request(config.backend, &request);
        choices[config.backend] = choose_backend(request, cuda_runtime());
      }
      const BackendChoice& choice = choices[config.backend];
      // Threads are the CPU's: a CUDA configuration runs once, whatever --threads lists.
      const bool on_cpu = choice.ok && choice.kind == BackendKind::Cpu;
      if (!on_cpu && config.threads != bench.matrix.front().threads) continue;  // the first --threads item
      Planned p{config, std::nullopt, "", 0.0};
      if (!choice.ok) {
        const std::string prefix = "--backend cuda: ";
        p.skip = choice.message.compare(0, prefix.size(), prefix) == 0
                     ? choice.message.substr(prefix.size())
                     : choice.message;
        planned.push_back(p);
        continue;
      }
      p.backend = choice;
      if (!scenes.count(config.scene)) scenes[config.scene] = find_scene(config.scene, scene_dir());
      const Scene& scene = scenes[config.scene];
      StartPlan row = plan;
      row.layers.solver = config.solver;
      row.particles = config.particles;
      row.spacing = config.spacing;
      start_params(scene, row.layers, preset ? &*preset : nullptr, BackendKind::Cpu, row.quality);  // a bad --set
      // Without a size, the count the app starts with on all cores: rows that differ only
      // in --threads simulate the same water.
      use_threads(0);
      p.spacing = start_spacing(scene, row, choice.kind);
      try {
        build_initial_state(scene, float(p.spacing));  // refuses what does not fit
      } catch (const SceneError& e) {
        throw SetupError(size > 1
                             ? "--bench configuration '" + config_label(config) + "': " + e.what()
                             : std::string(e.what()));
      }
      planned.push_back(p);
    }
  } catch (const SetupError& e) {
    std::fprintf(stderr, "tidepool: %s\n", e.what());
    return 2;
  } catch (const SceneError& e) {
    std::fprintf(stderr, "tidepool: %s\n", e.what());
    return 2;
  } catch (const PresetError& e) {
    std::fprintf(stderr, "tidepool: %s\n", e.what());
    return 2;
  }

  const MachineInfo machine = this_machine();
  std::vector<BenchRow> rows;
  int status = 0;
  bool interrupted = false;
  bool json_failed = false;
  auto write_json = [&](bool complete) {
    if (bench.json.empty() || bench.json == "-") return;
    if (!write_file_atomic(bench.json, bench_json(rows, plan, run, machine, complete), &error)) {
      std::fprintf(stderr, "tidepool: --bench-json: %s\n", error.c_str());
      json_failed = true;
    }
  };
  for (size_t k = 0; k < planned.size() && !interrupted; ++k) {
    const Planned& p = planned[k];
    BenchRow row;
    row.config = p.config;
    row.scene = p.config.scene;
    row.solver = p.config.solver;
    row.backend = p.config.backend;
    if (!p.backend) {
      row.status = "skipped";
      row.reason = p.skip;
      BenchConfig label = p.config;
      label.threads = 0;  // not the CPU's
      std::fprintf(stderr, "tidepool: bench %zu/%zu: %s: skipped (%s)\n", k + 1, planned.size(),
                   config_label(label).c_str(), p.skip.c_str());
      rows.push_back(row);
      continue;
    }
    StartPlan row_plan = plan;
    row_plan.scene = p.config.scene;
    row_plan.layers.solver = p.config.solver;
    row_plan.backend = p.config.backend;
    row_plan.threads = p.config.threads;
    row_plan.particles = 0;
    row_plan.spacing = p.spacing;
    use_threads(p.config.threads);
    try {
      SimSetup setup = make_setup(row_plan);
      Simulation& sim = *setup.sim;
      const RunStats before = sim.stats();
      row.scene = setup.scene.name;
      row.solver = solver_name(sim.params().solver);
      row.iterative = sim.params().solver != int(SolverKind::Wcsph);
      row.backend = sim.backend().kind == BackendKind::Cpu ? "cpu" : "cuda";
      row.backend_description = sim.backend().description;
      row.threads = sim.backend().kind == BackendKind::Cpu ? omp_get_max_threads() : 0;
      row.spacing = sim.spacing();
      row.particles = sim.particle_count();
      row.boundary = sim.boundary_count();
      std::fprintf(stderr, "tidepool: bench %zu/%zu: %s, %s, %s, %llu particles (spacing %.5g m)\n",
                   k + 1, planned.size(), row.scene.c_str(), row.solver.c_str(),
                   row.threads ? (std::to_string(row.threads) + " CPU threads").c_str()
                               : row.backend_description.c_str(),
                   (unsigned long long)row.particles, row.spacing);
      const int code = run_setup(setup, run, &row.wall_seconds);
      row.stats = sim.stats();
      // Phase times count from the reset, which already builds the grid once: keep this
      // run's steps only, so that the phases add up to the time per step.
      for (PhaseTime& phase : row.stats.phases)
        for (const PhaseTime& earlier : before.phases)
          if (earlier.name == phase.name) phase.total_ms -= earlier.total_ms;
      row.steps = row.stats.steps - before.steps;
      row.simulated_seconds = row.stats.simulated_time - before.simulated_time;
      row.particles_end = sim.particle_count();
      if (code == 0 && bench.mesh) measure_mesh(sim, run.mesh, &row);
      if (code == 2) return 2;  // one configuration's --report or --export was refused
      if (code == 130) {
        row.status = "interrupted";
        interrupted = true;
      } else if (code != 0) {
        status = 1;
      }
    } catch (const SetupError& e) {
      // Checked before the first row, except what only making it shows (a bad state file).
      std::fprintf(stderr, "tidepool: %s\n", e.what());
      if (planned.size() == 1) return 2;
      row.status = "failed";
      row.reason = e.what();
      status = 1;
    } catch (const std::exception& e) {
      // A failure of one configuration (a CUDA error, memory) does not lose the others.
      row.status = "failed";
      row.reason = e.what();
      std::fprintf(stderr, "tidepool: bench %zu/%zu: %s: failed: %s\n", k + 1, planned.size(),
                   config_label(p.config).c_str(), e.what());
      status = 1;
    }
    if (has_figures(row))
      std::fprintf(stderr,
                   "tidepool: bench %zu/%zu: %llu steps, %s ms/step, %s wall s per "
                   "simulated s\n",
                   k + 1, planned.size(), (unsigned long long)row.steps,
                   figure(row.ms_per_step()).c_str(),
                   figure(row.wall_per_simulated_second()).c_str());
    rows.push_back(row);
    write_json(false);
  }
  use_threads(0);

  const std::string table = bench_table(rows);
  // With the JSON on standard output, the table goes to standard error.
  std::fputs(table.c_str(), bench.json == "-" ? stderr : stdout);
  if (bench.json == "-") std::fputs(bench_json(rows, plan, run, machine, !interrupted).c_str(), stdout);
  json_failed = false;  // the final write is the one that counts
  write_json(!interrupted);
  if (!bench.json.empty() && bench.json != "-" && !json_failed)
    std::fprintf(stderr, "tidepool: bench results in %s\n", bench.json.c_str());
  return interrupted ? 130 : json_failed ? 1 : status;
}

}  // namespace tp
