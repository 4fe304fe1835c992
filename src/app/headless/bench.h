// --bench: a matrix of configurations (scene x solver x particle count or spacing x backend
// x threads), each run headless from a fresh start, reported as a table on standard output
// and, with --bench-json, as a JSON file (format in docs/bench-mode.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/headless/headless.h"
#include "app/start/start_plan.h"
#include "sim/water/simulation.h"

namespace tp {

// One configuration of the matrix, as requested.
struct BenchConfig {
  std::string scene;       ///< name or file, as for --scene
  std::string solver;      ///< "" = the scene's or the preset's
  std::string backend;     ///< auto | cpu | cuda
  uint64_t particles = 0;  ///< --particles item; 0 = none
  double spacing = 0.0;    ///< --spacing item [m]; 0 = none
  int threads = 0;         ///< --threads item; 0 = all cores
};

// What a --bench run asks beyond the start plan (whose scene, solver, backend, threads and
// size each configuration replaces) and the run's length.
struct BenchOptions {
  /// The configurations, scene outermost, then solver, particle count (or spacing), backend
  /// and threads (bench_matrix, src/app/mode_options.h).
  std::vector<BenchConfig> matrix;
  size_t configurations = 1;  ///< how many the command line asks for (bench_configurations)
  std::vector<int> cells;     ///< gas scenes: --cells items, each a row per scene; empty: the scene's
  std::string json;           ///< --bench-json FILE, or "-" for stdout; "" none
  bool mesh = true;           ///< --bench-mesh: time the surface mesh after each run
};

// One row of results. `status` is "ok", "skipped" (the backend is not available here:
// `reason` says why), "failed" (`reason` is the error) or "interrupted" (Ctrl-C; the
// figures cover the steps it ran).
struct BenchRow {
  BenchConfig config;
  std::string status = "ok";
  std::string reason;
  std::string scene;                ///< the scene's name
  std::string solver;               ///< the solver that ran
  std::string backend;              ///< "cpu" or "cuda": where it ran
  std::string backend_description;  ///< "CPU (OpenMP, 2 threads)"
  int threads = 0;                  ///< OpenMP threads (CPU); 0 on CUDA
  double spacing = 0.0;             ///< [m]
  uint64_t particles = 0;           ///< fluid particles at the start
  uint64_t particles_end = 0;       ///< at the end (emitters and outflows change it)
  uint64_t boundary = 0;            ///< boundary samples
  uint64_t steps = 0;               ///< steps run
  double simulated_seconds = 0.0;   ///< simulated in this run
  double wall_seconds = 0.0;        ///< spent stepping (set-up not included)
  RunStats stats;                   ///< the simulation's statistics at the end
  bool iterative = false;           ///< PCISPH or PBF: mean iterations apply
  // The surface mesh of the run's last state (its own phases, not part of a step): the
  // median of 5 builds after one to warm up, isotropic [0] and anisotropic [1].
  struct Mesh {
    bool measured = false;
    MeshTimes times;
    size_t triangles = 0, vertices = 0;
  } mesh[2];

  double ms_per_step() const { return steps ? 1000.0 * wall_seconds / double(steps) : 0.0; }
  double mean_dt_ms() const { return steps ? 1000.0 * simulated_seconds / double(steps) : 0.0; }
  double wall_per_simulated_second() const {
    return simulated_seconds > 0 ? wall_seconds / simulated_seconds : 0.0;
  }
};

// Fills row.mesh from the simulation's state now (--bench, after each run).
void measure_mesh(Simulation& sim, const MeshSettings& settings, BenchRow* row);

// The readable tables: one row per configuration, then the milliseconds per step of each
// phase per row, then the mesh's phases per row.
std::string bench_table(const std::vector<BenchRow>& rows);

// What the JSON records about the machine and the build.
struct MachineInfo {
  std::string cpu;       ///< model name from /proc/cpuinfo
  int cores = 0;         ///< logical processors OpenMP sees
  double memory_gb = 0;  ///< physical memory
  std::string compiler, build_type, flags, backends, version;
};
MachineInfo this_machine();

// The JSON document: {"tidepool_bench": 1, "complete", "machine", "settings", "runs"}.
// Its settings: `plan`'s --preset and --set, `run`'s length.
std::string bench_json(const std::vector<BenchRow>& rows, const StartPlan& plan, const HeadlessOptions& run,
                       const MachineInfo& machine, bool complete);

// Runs the matrix; returns the exit code: 0, 2 for a bad request (checked for every
// configuration before the first runs), 1 when a row failed or the JSON could not be
// written, 130 when interrupted.
int run_bench(const StartPlan& plan, const BenchOptions& bench, const HeadlessOptions& run);

}  // namespace tp
