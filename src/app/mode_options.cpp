#include "app/mode_options.h"

#include "render/render_types.h"

namespace tp {

namespace {

// The options only water scenes take, in the order a gas scene names the first one given
// (gas_refusal in app/start/start_plan.h).
constexpr const char* kWaterOnlyOptions[] = {"--particles", "--spacing",     "--solver",  "--preset",
                                             "--load-state", "--save-state", "--export-mesh", "--quality",
                                             "--render",    "--color"};

}  // namespace

StartPlan start_plan(const Options& o) {
  StartPlan plan;
  plan.scene = o.scene;
  plan.backend = o.backend;
  plan.threads = o.threads;
  plan.window = !o.headless && !o.bench;
  plan.quality = plan.window ? Quality::Realtime : Quality::Accurate;
  if (!o.quality.empty()) parse_quality(o.quality, &plan.quality);  // checked by the parser
  plan.layers.preset_file = o.preset;
  plan.layers.solver = o.solver;
  plan.layers.sets = o.sets;
  plan.particles = o.particles;
  plan.spacing = o.spacing;
  plan.cells = o.cells;
  plan.load_state = o.load_state;
  plan.replay = o.replay;
  // (Exact on the CPU only: a replay runs there unless --backend asks for the GPU, where it
  // is judged by the session's checks.)
  if (!plan.replay.empty() && !o.given.count("--backend")) {
    plan.backend = "cpu";
    plan.replay_on_cpu = true;
  }
  plan.steps_per_frame = o.steps_per_frame;
  for (const char* option : kWaterOnlyOptions)
    if (o.given.count(option)) plan.water_options.push_back(option);
  return plan;
}

WindowOptions window_options(const Options& o) {
  WindowOptions w;
  w.width = o.width;
  w.height = o.height;
  w.frames = o.frames;
  w.screenshot = o.screenshot;
  w.video = o.video;
  w.video_fps = o.video_fps;
  w.gl_check = o.gl_check;
  w.hide_panel = o.hide_panel;
  w.bench_window = o.bench_window;
  w.bench_drag = o.bench_drag;
  w.bench_json = o.bench_json;
  return w;
}

bool water_view_options(const Options& o, WaterViewOptions* view, std::string* error) {
  if (!parse_color_mode(o.color, &view->color)) {
    *error = "--color must be one of " + color_mode_names() + ", not '" + o.color + "'";
    return false;
  }
  if (!parse_render_mode(o.render, &view->render)) {
    *error = "--render must be spheres or surface, not '" + o.render + "'";
    return false;
  }
  view->surface_scale_auto = o.surface_scale_auto;
  view->surface_scale = o.surface_scale;
  view->surface_anisotropic = o.surface_anisotropic;
  view->grid_overlay = o.grid_overlay;
  view->mesh = o.mesh;
  view->record_fps = o.export_fps;
  view->replay_offline_fps = !o.replay.empty() && !o.video.empty() ? o.video_fps : 0.0;
  view->render_given = o.given.count("--render") > 0;
  view->color_given = o.given.count("--color") > 0;
  return true;
}

HeadlessOptions headless_options(const Options& o) {
  HeadlessOptions run;
  run.time = o.time;
  run.steps = o.steps;
  run.report = o.report;
  run.export_dir = o.export_dir;
  run.export_fps = o.export_fps;
  run.export_mesh_dir = o.export_mesh_dir;
  run.mesh_format = o.mesh_format;
  run.mesh = o.mesh;
  run.save_state = o.save_state;
  run.bench = o.bench;
  return run;
}

std::vector<BenchConfig> bench_matrix(const Options& o) {
  const std::vector<std::string> scenes =
      o.scene_list.empty() ? std::vector<std::string>{o.scene} : o.scene_list;
  const std::vector<std::string> solvers =
      o.solver_list.empty() ? std::vector<std::string>{o.solver} : o.solver_list;
  const std::vector<std::string> backends =
      o.backend_list.empty() ? std::vector<std::string>{o.backend} : o.backend_list;
  const std::vector<int> threads =
      o.threads_list.empty() ? std::vector<int>{o.threads} : o.threads_list;
  std::vector<std::pair<uint64_t, double>> sizes;  // (particles, spacing)
  for (uint64_t n : o.particles_list) sizes.emplace_back(n, 0.0);
  for (double s : o.spacing_list) sizes.emplace_back(0, s);
  if (sizes.empty()) sizes.emplace_back(o.particles, o.spacing);
  std::vector<BenchConfig> matrix;
  for (const std::string& scene : scenes)
    for (const std::string& solver : solvers)
      for (const auto& [particles, spacing] : sizes)
        for (const std::string& backend : backends)
          for (int t : threads)
            matrix.push_back(BenchConfig{scene, solver, backend, particles, spacing, t});
  return matrix;
}

BenchOptions bench_options(const Options& o) {
  BenchOptions bench;
  bench.matrix = bench_matrix(o);
  bench.configurations = bench_configurations(o);
  bench.cells = o.cells_list;
  bench.json = o.bench_json;
  bench.mesh = o.bench_mesh;
  return bench;
}

}  // namespace tp
