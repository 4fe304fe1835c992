#include "app/headless_app.h"

#include <cstdio>
#include <string>
#include <vector>

#include "app/headless/bench.h"
#include "app/headless/gas_headless.h"
#include "app/headless/headless.h"
#include "app/headless/replay.h"
#include "app/mode_options.h"
#include "sim/scene/scene.h"
#include "util/paths.h"

namespace tp {

namespace {

// Gas scenes run on their own path (src/app/headless/gas_headless.cpp): 1 when all are gas, 0 when
// none is (or a name is wrong: the water path says so), -1 when they are mixed.
int gas_scenes(const Options& o, std::vector<Scene>* scenes) {
  const std::vector<std::string> names = o.scene_list.empty() ? std::vector<std::string>{o.scene} : o.scene_list;
  int gas = 0;
  for (const std::string& name : names) {
    try {
      scenes->push_back(find_scene(name, scene_dir()));
    } catch (const SceneError&) {
      return 0;
    }
    gas += scenes->back().is_gas ? 1 : 0;
  }
  return gas == 0 ? 0 : gas == int(names.size()) ? 1 : -1;
}

}  // namespace

int run_headless(const Options& o) {
  if (!o.replay.empty())
    return run_replay(o.replay, o.given.count("--threads") ? o.threads : 0, o.given.count("--backend") ? o.backend : "",
                      headless_options(o));
  const StartPlan plan = start_plan(o);
  const HeadlessOptions run = headless_options(o);
  std::vector<Scene> scenes;
  switch (gas_scenes(o, &scenes)) {
    case 1:
      return o.bench ? run_gas_bench(plan, scenes, bench_options(o), run) : run_gas_headless(plan, scenes.front(), run);
    case -1:
      std::fprintf(stderr, "tidepool: --bench runs gas scenes and water scenes separately; list one kind\n");
      return 2;
    default:
      break;
  }
  if (o.bench) return run_bench(plan, bench_options(o), run);
  return run_water_headless(plan, run);
}

}  // namespace tp
