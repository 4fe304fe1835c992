// State files (src/sim/io/state_file.h): a loaded state continues exactly as the saved run
// would have; damaged files are refused with a sentence and change nothing.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/io/state_file.h"
#include "sim_helpers.h"

namespace tp {
namespace {

std::string temp_path(const std::string& name) { return testing::TempDir() + "tidepool_state_" + name; }

// The obstacles scene (a channel with an inlet, an outlet, a ball and a box) at about
// 1,500 particles, with spray and foam on.
std::unique_ptr<Simulation> channel_sim(int solver) {
  const Scene scene = find_scene("obstacles", TIDEPOOL_SOURCE_DIR "/assets/scenes");
  auto sim = make_simulation(BackendKind::Cpu);
  apply_scene_params(scene, sim->params());
  sim->params().solver = solver;
  sim->params().diffuse = 1;
  sim->reset(build_initial_state(scene, spacing_for_count(scene, 1500)));
  return sim;
}

// The same sequence of user actions in both runs: the ball dragged along +z from step 60
// to step 180, across the save at step 120.
void step_with_actions(Simulation& sim, int steps) {
  for (int k = 0; k < steps; ++k) {
    const uint64_t step = sim.stats().steps;
    if (step >= 60 && step < 180) sim.move_obstacle(0, Vec3{-0.8f, 0.15f, 0.002f * float(step - 60)});
    sim.step();
  }
}

void expect_same(Simulation& a, Simulation& b) {
  const Snapshot sa = a.snapshot(), sb = b.snapshot();
  ASSERT_EQ(sa.id, sb.id);
  ASSERT_EQ(sa.position.size(), sb.position.size());
  EXPECT_EQ(std::memcmp(sa.position.data(), sb.position.data(), sa.position.size() * sizeof(Vec4)), 0);
  EXPECT_EQ(std::memcmp(sa.velocity.data(), sb.velocity.data(), sa.velocity.size() * sizeof(Vec4)), 0);
  const RunStats ra = a.stats(), rb = b.stats();
  EXPECT_EQ(ra.steps, rb.steps);
  EXPECT_EQ(ra.simulated_time, rb.simulated_time);
  EXPECT_EQ(ra.emitted, rb.emitted);
  EXPECT_EQ(ra.removed, rb.removed);
  EXPECT_EQ(ra.density_error_mean, rb.density_error_mean);
  const std::vector<DiffuseParticle> da = a.diffuse_snapshot(), db = b.diffuse_snapshot();
  ASSERT_EQ(da.size(), db.size());
  for (size_t k = 0; k < da.size(); ++k) {
    ASSERT_EQ(std::memcmp(&da[k].position, &db[k].position, sizeof(Vec3)), 0) << k;
    ASSERT_EQ(da[k].kind, db[k].kind);
  }
  ASSERT_EQ(a.obstacles().size(), b.obstacles().size());
  for (size_t k = 0; k < a.obstacles().size(); ++k)
    EXPECT_EQ(std::memcmp(&a.obstacles()[k], &b.obstacles()[k], sizeof(ObstacleShape)), 0);
}

class EachSolverState : public testing::TestWithParam<int> {};

// Run A: 120 steps, save, 120 more. Run B: load the file into a fresh simulation, 120
// steps. Every particle, diffuse particle, obstacle and statistic is bitwise the same.
TEST_P(EachSolverState, ALoadedStateContinuesExactly) {
  auto a = channel_sim(GetParam());
  step_with_actions(*a, 120);
  const std::string path = temp_path(std::string(solver_name(GetParam())) + ".tpstate");
  std::string error;
  ASSERT_TRUE(save_state_file(*a, "obstacles", path, &error)) << error;
  const uint n_saved = a->particle_count();
  step_with_actions(*a, 120);

  auto b = make_simulation(BackendKind::Cpu);  // defaults, another scene's worth of nothing
  std::string scene;
  ASSERT_TRUE(load_state_file(*b, path, &scene, &error)) << error;
  EXPECT_EQ(scene, "obstacles");
  EXPECT_EQ(b->particle_count(), n_saved);
  EXPECT_EQ(b->params().solver, GetParam());
  step_with_actions(*b, 120);
  const RunStats st = a->stats();
  std::printf("%s: %lu steps, t = %.4f s, %u particles (%lu emitted, %lu removed), %u diffuse\n",
              solver_name(GetParam()), st.steps, st.simulated_time, a->particle_count(), st.emitted,
              st.removed, a->diffuse_count());
  EXPECT_GT(st.emitted, 0u) << "the inlet ran across the save";
  expect_same(*a, *b);
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Solvers, EachSolverState, testing::Values(0, 1, 2),
                         [](const testing::TestParamInfo<int>& info) { return std::string(solver_name(info.param)); });

void write_all(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Whatever is wrong with the file, load_state_file says so in one sentence naming it, and
// the simulation it was to replace goes on untouched.
TEST(StateFile, DamagedFilesAreRefusedAndChangeNothing) {
  auto source = channel_sim(int(SolverKind::Pbf));
  step_with_actions(*source, 20);
  const std::string good = encode_state(source->capture(), "obstacles");
  auto target = make_simulation(BackendKind::Cpu);
  target->reset(build_initial_state(
      test::box_scene({0, 0, 0}, {1, 1, 1}, {0, 0, 0}, {0.5f, 0.5f, 0.5f}, 0.05f), 0.05f));
  const Snapshot before = target->snapshot();
  const std::string path = temp_path("damaged.tpstate");
  auto expect_refused = [&](const std::string& bytes, const std::string& why, const std::string& what) {
    SCOPED_TRACE(what);
    write_all(path, bytes);
    std::string error, scene;
    EXPECT_FALSE(load_state_file(*target, path, &scene, &error));
    EXPECT_EQ(error.rfind("state file '" + path + "'", 0), 0u) << error;
    EXPECT_NE(error.find(why), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << "one line: " << error;
    const Snapshot after = target->snapshot();
    ASSERT_EQ(after.position.size(), before.position.size());
    EXPECT_EQ(std::memcmp(after.position.data(), before.position.data(), before.position.size() * sizeof(Vec4)), 0);
  };
  expect_refused("{\"tank\": 1}", "is not a Tidepool state file", "a scene file");
  expect_refused("", "is not a Tidepool state file", "empty");
  expect_refused(good.substr(0, 30), "cut short", "cut in its header");
  expect_refused(good.substr(0, good.size() - 5), "cut short", "cut in its arrays");
  expect_refused(good + "extra", "bytes after its end", "trailing bytes");
  // The header edited as JSON, the file put back together around it.
  auto with_header = [&](auto edit) {
    const size_t magic = std::strlen("TIDEPOOL STATE 1\n");
    uint64_t length = 0;
    for (int k = 0; k < 8; ++k) length |= uint64_t(uint8_t(good[magic + k])) << (8 * k);
    nlohmann::json header = nlohmann::json::parse(good.substr(magic + 8, length));
    edit(header);
    const std::string text = header.dump();
    std::string out = good.substr(0, magic);
    for (int k = 0; k < 8; ++k) out.push_back(char((uint64_t(text.size()) >> (8 * k)) & 0xff));
    return out + text + good.substr(magic + 8 + length);
  };
  expect_refused(with_header([](nlohmann::json& h) { h["params"]["viscosity"] = -1.0; }),
                 "params.viscosity is outside its valid range [0, 0.1] m^2/s",
                 "a value out of its range");
  expect_refused(with_header([](nlohmann::json& h) { h.erase("mass"); }), "mass is missing", "a missing key");
  expect_refused(with_header([](nlohmann::json& h) { h["obstacles"][0]["center"] = "here"; }),
                 "obstacles[0].center must be an array of 3 numbers", "a wrong type");
  expect_refused(with_header([](nlohmann::json& h) { h["next_id"] = 3; }), "ids are not unique",
                 "ids that clash with the next one");
  // Cut anywhere: never accepted, never a crash (every 97th byte).
  for (size_t cut = 0; cut < good.size(); cut += 97) {
    write_all(path, good.substr(0, cut));
    std::string error, scene;
    ASSERT_FALSE(load_state_file(*target, path, &scene, &error)) << "cut at " << cut;
  }
  std::string error, scene;
  EXPECT_FALSE(load_state_file(*target, temp_path("no-such-file"), &scene, &error));
  EXPECT_NE(error.find("cannot be opened"), std::string::npos) << error;
  // A file saved before a parameter existed (the walls' coefficients) loads, the
  // parameter at its default: the run it holds had that behaviour.
  {
    write_all(path, with_header([](nlohmann::json& h) {
      h["params"].erase("wall_friction");
      h["params"].erase("wall_restitution");
    }));
    std::string old_error, old_scene;
    EXPECT_TRUE(load_state_file(*target, path, &old_scene, &old_error)) << old_error;
    EXPECT_EQ(target->params().wall_friction, default_params().wall_friction);
    EXPECT_EQ(target->params().wall_restitution, default_params().wall_restitution);
  }
  // And the good bytes load.
  write_all(path, good);
  EXPECT_TRUE(load_state_file(*target, path, &scene, &error)) << error;
  EXPECT_EQ(target->particle_count(), source->particle_count());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tp
