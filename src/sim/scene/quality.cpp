#include "sim/scene/quality.h"

#include "kernels/solver_list.h"
#include "sim/water/params.h"

namespace tp {

namespace {

// A 60 Hz frame, rounded down so that a step never overshoots one.
constexpr double kFrameStep = 0.0166;

// The keys a quality governs, with their accurate values: the parameter table's defaults.
std::vector<std::pair<std::string, double>> accurate_values() {
  std::vector<std::pair<std::string, double>> values;
  for (const char* key : {"cfl", "dt_max", "pbf_iterations", "pbf_tolerance", "pcisph_tolerance",
                          "pcisph_max_iterations", "dfsph_tolerance", "dfsph_divergence_tolerance",
                          "diffuse"})
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

QualityPreset quality_preset(Quality quality, int solver, BackendKind backend, int dimensions) {
  QualityPreset preset;
  preset.name = std::string(quality_name(quality)) + "-" + solver_name(solver);
  preset.values = accurate_values();
  if (quality == Quality::Accurate) return preset;
  // Real time: the CPU cannot afford spray and foam beside the water (in the 8,000-particle
  // dam break they took 12 ms of a 23 ms PBF step in the window); a GPU can.
  set_value(preset.values, "diffuse", backend == BackendKind::Cuda ? 1 : 0);
  if (solver == int(SolverKind::Pbf)) {
    // Macklin & Mueller's real-time setting, and the FleX demo's: a few iterations, steps
    // of a frame. CFL 1: no particle moves more than a spacing in a step.
    set_value(preset.values, "pbf_iterations", 3);
    set_value(preset.values, "pbf_tolerance", 0);
    set_value(preset.values, "dt_max", kFrameStep);
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
    }
  }
  return preset;
}

void apply_quality(SimParams& params, Quality quality, BackendKind backend, int dimensions) {
  for (const auto& [key, value] : quality_preset(quality, params.solver, backend, dimensions).values)
    find_param(key)->set(params, value);
}

bool matches_quality(const SimParams& params, Quality quality, BackendKind backend, int dimensions) {
  for (const auto& [key, value] : quality_preset(quality, params.solver, backend, dimensions).values) {
    const ParamInfo* info = find_param(key);
    const double have = info->get(params);
    if (info->real ? float(have) != float(value) : have != value) return false;
  }
  return true;
}

}  // namespace tp
