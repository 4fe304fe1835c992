// The shipped water scenes crossed with the solvers, for the parameterised tests that run
// every scene (the default run's share of them, and the rest on request).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "sim/scene/scene.h"
#include "sim/water/params.h"

namespace tp::test {

inline const std::string kShippedSceneDir = TIDEPOOL_SOURCE_DIR "/assets/scenes";

inline std::vector<std::tuple<std::string, int>> every_scene_and_solver() {
  std::vector<std::tuple<std::string, int>> all;
  for (const std::string& scene : list_scenes(kShippedSceneDir, SceneKind::Water))
    for (int solver = 0; solver < int(solver_names().size()); ++solver) all.emplace_back(scene, solver);
  return all;
}

// The default run's share of every_scene_and_solver(): each scene on one solver (taking
// turns down the sorted list, so each solver gets a third of the scenes) and the dam break
// on all three; `rest` gives the others (the whole matrix: ./test.sh -L validation).
// `first_turn` shifts the turns, so that two suites' default shares cover different pairs.
inline std::vector<std::tuple<std::string, int>> scene_solver_share(bool rest, int first_turn = 0) {
  std::vector<std::tuple<std::string, int>> share;
  const int solvers = int(solver_names().size());
  int turn = first_turn;
  for (const std::string& scene : list_scenes(kShippedSceneDir, SceneKind::Water)) {
    for (int solver = 0; solver < solvers; ++solver) {
      const bool core = scene == "dam_break" || solver == turn % solvers;
      if (core != rest) share.emplace_back(scene, solver);
    }
    ++turn;
  }
  return share;
}

inline std::string scene_solver_name(const testing::TestParamInfo<std::tuple<std::string, int>>& info) {
  return std::get<0>(info.param) + "_" + solver_name(std::get<1>(info.param));
}

}  // namespace tp::test
