#include "sim/scene/quality.h"

#include "kernels/solver_list.h"
#include "sim/water/params.h"

namespace tp {

namespace {

// A 60 Hz frame, rounded down so that a step never overshoots one.
constexpr double kFrameStep = 0.0166;
// The CPU's update interval of the spray, foam and bubbles: a 60 Hz frame, a little less,
// so that steps of a frame (kFrameStep, as float) update at every step.
constexpr double kDiffuseFrame = 0.016;
// Realtime PBF's longest step: an 80 Hz one (docs/realtime.md, "Fidelity").
constexpr double kPbfStep = 0.0125;

// The keys a quality governs, with their accurate values: the parameter table's defaults.
std::vector<std::pair<std::string, double>> accurate_values() {
  std::vector<std::pair<std::string, double>> values;
  for (const char* key : {"cfl", "dt_max", "pbf_iterations", "pbf_tolerance", "pbf_warm_start",
                          "pbf_final_weight", "pbf_vorticity", "pcisph_tolerance",
                          "pcisph_max_iterations", "dfsph_tolerance", "dfsph_divergence_tolerance",
                          "diffuse", "diffuse_interval"})
    values.emplace_back(key, find_param(key)->fallback);
  return values;
}

void set_value(std::vector<std::pair<std::string, double>>& values, const std::string& key,
               double value) {
  for (auto& [k, v] : values)
    if (k == key) v = value;
}

}  // namespace

const char* quality_name(Quality quality) {
  return quality == Quality::Realtime ? "realtime" : "accurate";
}

bool parse_quality(const std::string& name, Quality* quality) {
  if (name == "realtime") *quality = Quality::Realtime;
  else if (name == "accurate") *quality = Quality::Accurate;
  else return false;
  return true;
}

int realtime_solver() { return int(SolverKind::Pbf); }

QualityPreset quality_preset(Quality quality, int solver, BackendKind backend, int dimensions) {
  QualityPreset preset;
  preset.name = std::string(quality_name(quality)) + "-" + solver_name(solver);
  preset.values = accurate_values();
  if (quality == Quality::Accurate) return preset;
  // Real time: spray and foam on. The CPU updates them once a 60 Hz frame (every other
  // step of realtime PBF) instead of every 2.5 ms: with the vector search of the fluid at
  // each diffuse particle and spawning once a frame, that keeps them within a quarter of
  // the step in the window (docs/realtime.md, "Spray"); a GPU affords the accurate rate.
  set_value(preset.values, "diffuse", 1);
  if (backend != BackendKind::Cuda) set_value(preset.values, "diffuse_interval", kDiffuseFrame);
  if (solver == int(SolverKind::Pbf)) {
    // Macklin & Mueller's real-time setting, as the FleX demo runs it: three iterations,
    // CFL 1 (no particle moves more than a spacing in a step). With the warm start and the
    // damped last iteration, and steps of at most 12.5 ms, the default dam break's front and
    // water height at the left wall are the accurate quality's within 2 % (RMS), the mean
    // compression 0.6 % and the worst 8 %, and a resting pool rests; steps of a frame
    // without them left a mean of 1.2 %, a worst particle at 47 % and a pool trembling at
    // 0.2 m/s RMS for ever. Vorticity confinement is off: its pass cost as much as the
    // warm start's (0.5 ms of a 6 ms step in the window) and the figures did not change
    // beyond their noise (docs/realtime.md, "Fidelity").
    set_value(preset.values, "pbf_iterations", 3);
    set_value(preset.values, "pbf_tolerance", 0);
    set_value(preset.values, "pbf_warm_start", 0.5);
    set_value(preset.values, "pbf_final_weight", 0.5);
    set_value(preset.values, "pbf_vorticity", 0.0);
    set_value(preset.values, "dt_max", kPbfStep);
    set_value(preset.values, "cfl", 1.0);
  } else if (solver == int(SolverKind::Pcisph)) {
    // Its loop holds the tolerance at larger steps with more iterations.
    set_value(preset.values, "dt_max", kFrameStep);
    set_value(preset.values, "cfl", 1.0);
  } else if (solver == int(SolverKind::Dfsph)) {
    // Steps up to a frame at CFL 0.5, both solves to 0.5 %: the default dam break (8,000
    // particles, 1 s) then takes 218 steps of 5.3 iterations (both solves'), mean density
    // error 0.3 %, worst 17 %; at CFL 1 and 1 % it took 114 steps of 4.5, but the worst
    // particle reached 75 % (docs/realtime.md).
    set_value(preset.values, "dt_max", kFrameStep);
    set_value(preset.values, "cfl", 0.5);
    set_value(preset.values, "dfsph_tolerance", 0.5);
    set_value(preset.values, "dfsph_divergence_tolerance", 0.5);
  }
  // WCSPH: its step is bounded by its speed of sound; its accurate settings stay.
  if (dimensions == 2 && solver != int(SolverKind::Wcsph)) {
    // A 2D column holds as many particles in its height as a 3D block of its count has
    // along its side squared (8,000: 89 deep, against 20): three iterations at CFL 1 let
    // PBF's dam break compress 6 % on average and burst within 0.2 s, and PCISPH threw
    // spray at 26 m/s. CFL 0.5 with up to 5 iterations stopping at 1 % is the cheapest
    // stable setting measured (dam_break_2d, 7,921 particles, 1.5 s: 2.65 s of wall time,
    // mean error 0.6 %, top speed 7.1 m/s; CFL 0.4 and 3 iterations 3.88 s). A pool
    // deeper than the dam break's column is wide needs smaller steps still: pbf_predict
    // holds PBF's 2D step to what its iterations hold up (pbf_holding_step).
    set_value(preset.values, "cfl", 0.5);
    if (solver == int(SolverKind::Pbf)) {
      set_value(preset.values, "pbf_iterations", 5);
      set_value(preset.values, "pbf_tolerance", 1.0);
      // (The 3D preset's warm start, damped last iteration, shorter step and lack of
      // vorticity confinement are not measured in 2D: its own settings stay.)
      for (const char* key : {"pbf_warm_start", "pbf_final_weight", "pbf_vorticity"})
        set_value(preset.values, key, find_param(key)->fallback);
      set_value(preset.values, "dt_max", kFrameStep);
    }
  }
  return preset;
}

QualityFidelity realtime_fidelity(int solver, int dimensions) {
  // tp_bench_fidelity's rows for the realtime presets (docs/realtime.md, "Fidelity"). WCSPH's
  // realtime settings are its accurate ones.
  if (dimensions != 3) return {};
  switch (SolverKind(solver)) {
    case SolverKind::Pbf: return {true, 0.0097, 0.0170, 0.00614, 0.0843};  // 2026-12-05, the side walls' push
    case SolverKind::Pcisph: return {true, 0.0004, 0.0074, 0.00488, 0.1091};
    case SolverKind::Dfsph: return {true, 0.0039, 0.0155, 0.00380, 0.2378};  // 2026-12-03, its holding step
    case SolverKind::Wcsph: return {true, 0.0, 0.0, 0.00684, 0.2385};
    default: return {};
  }
}

void apply_quality(SimParams& params, Quality quality, BackendKind backend, int dimensions) {
  for (const auto& [key, value] : quality_preset(quality, params.solver, backend, dimensions).values)
    find_param(key)->set(params, value);
}

bool matches_quality(const SimParams& params, Quality quality, BackendKind backend, int dimensions,
                     bool water_only) {
  for (const auto& [key, value] : quality_preset(quality, params.solver, backend, dimensions).values) {
    if (water_only && key.rfind("diffuse", 0) == 0) continue;
    const ParamInfo* info = find_param(key);
    const double have = info->get(params);
    if (info->real ? float(have) != float(value) : have != value) return false;
  }
  return true;
}

}  // namespace tp
