// The memory estimate that refuses a simulation too large for the machine, held against
// what a simulation really allocates (every allocation of this binary is counted, see
// alloc_counter.h), and the refusals up front: particle counts, spacings, the diffuse
// particle cap, state files.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <string>

#include "alloc_counter.h"
#include "sim/io/particle_io.h"
#include "sim/water/memory_need.h"
#include "sim/water/params.h"
#include "sim/scene/scene.h"
#include "sim/water/simulation.h"
#include "sim/io/state_file.h"

using namespace tp;

namespace {

const char* kScenes = TIDEPOOL_SOURCE_DIR "/assets/scenes";

struct Measured {
  long long peak = 0;     ///< the most bytes alive at once [bytes]
  uint64_t estimate = 0;  ///< estimate_memory_bytes for the same simulation
  unsigned fluid = 0;
};

// Builds `scene` at about `particles` particles, runs `steps` steps with `solver`, then
// writes a PLY frame and a state file as an export and --save-state would.
Measured measure(const std::string& name, int solver, uint64_t particles, int steps) {
  const Scene scene = find_scene(name, kScenes);
  const std::string dir = testing::TempDir();
  const long long base = test::live_bytes();
  test::reset_peak_bytes();
  Measured m;
  {
    auto sim = make_simulation(BackendKind::Cpu);
    apply_scene_params(scene, sim->params());
    sim->params().solver = solver;
    sim->params().diffuse = 1;
    const float spacing = spacing_for_count(scene, particles);
    const uint64_t diffuse = diffuse_cap_for(sim->params(), BackendKind::Cpu);
    {
      const InitialState st = build_initial_state(scene, spacing, 0, diffuse);
      sim->reset(st);
      m.estimate = estimate_memory_bytes(
          std::max<uint64_t>(st.fluid.size(), st.max_particles), sim->boundary_count(),
          uint64_t(grid_cells(scene.tank_lo, scene.tank_hi, spacing)), diffuse,
          !scene.emitters.empty());
    }
    for (int k = 0; k < steps; ++k) sim->step();
    std::string error;
    EXPECT_TRUE(write_ply(dir + "tp_memory_need.ply", sim->snapshot(), &error)) << error;
    EXPECT_TRUE(save_state_file(*sim, name, dir + "tp_memory_need.tpstate", &error)) << error;
    m.fluid = sim->particle_count();
  }
  m.peak = test::peak_bytes() - base;
  std::remove((dir + "tp_memory_need.ply").c_str());
  std::remove((dir + "tp_memory_need.tpstate").c_str());
  return m;
}

}  // namespace

// Every buffer counted: the estimate is never below what the simulation allocates, on any
// solver, and not so far above it that it would refuse what fits.
TEST(MemoryNeed, TheEstimateCoversWhatASimulationAllocates) {
  for (int solver = 0; solver < 3; ++solver) {
    SCOPED_TRACE(solver_name(solver));
    const Measured m = measure("dam_break", solver, 6000, 20);
    std::printf("%s: %u particles, peak %.1f MB, estimate %.1f MB\n", solver_name(solver), m.fluid,
                m.peak / 1e6, m.estimate / 1e6);
    EXPECT_LE(m.peak, (long long)m.estimate);
    EXPECT_LE((long long)m.estimate, 2 * m.peak);
  }
  // Obstacles add boundary samples of their own.
  const Measured m = measure("obstacles", 2, 6000, 10);
  std::printf("obstacles: %u particles, peak %.1f MB, estimate %.1f MB\n", m.fluid, m.peak / 1e6,
              m.estimate / 1e6);
  EXPECT_LE(m.peak, (long long)m.estimate);
}

// The cap the estimate counts is the one the simulation uses, for the default and a set one.
TEST(MemoryNeed, TheDiffuseCapIsTheSimulations) {
  const Scene scene = find_scene("pool", kScenes);
  for (int cap : {0, 1234}) {
    auto sim = make_simulation(BackendKind::Cpu);
    sim->params().diffuse_cap = cap;
    sim->reset(build_initial_state(scene, spacing_for_count(scene, 1000)));
    EXPECT_EQ(uint64_t(sim->stats().diffuse.capacity),
              diffuse_cap_for(sim->params(), BackendKind::Cpu));
  }
}

namespace {

// TIDEPOOL_MEMORY_MB for one test: the memory every check then sees.
struct MemoryLimit {
  explicit MemoryLimit(const char* mb) { setenv("TIDEPOOL_MEMORY_MB", mb, 1); }
  ~MemoryLimit() { unsetenv("TIDEPOOL_MEMORY_MB"); }
};

Scene block_scene(float spacing) {
  return parse_scene(R"({"tank": {"min": [0,0,0], "max": [1,1,1]}, "particle_spacing": )" +
                         std::to_string(spacing) +
                         R"(, "fluid_blocks": [{"min": [0,0,0], "max": [1,0.5,1]}]})",
                     "block.json");
}

std::string refusal(const Scene& scene, float spacing, uint64_t budget, uint64_t diffuse) {
  try {
    build_initial_state(scene, spacing, budget, diffuse);
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(MemoryNeed, TheMemoryLimitFromTheEnvironmentIsObeyed) {
  EXPECT_GT(available_memory_bytes(), 100'000'000u) << "this machine has less than 100 MB free";
  const MemoryLimit limit("64");
  EXPECT_EQ(available_memory_bytes(), 64'000'000u);
  EXPECT_EQ(memory_budget_bytes(BackendKind::Cpu), 64'000'000u);
}

// A scene's own spacing, --spacing and --particles all come down to a spacing: one too
// fine is refused before anything is allocated, with the memory it would need.
TEST(MemoryNeed, ASpacingTooFineIsRefusedWithTheMemoryItWouldNeed) {
  const Scene scene = block_scene(0.004f);  // 7.8 million particles
  const std::string why = refusal(scene, scene.spacing, 100'000'000, 0);
  EXPECT_NE(why.find("about 7,812,500 particles at spacing 0.004 m would need"), std::string::npos)
      << why;
  EXPECT_NE(why.find(" MB of memory, but only 100 MB is free; use fewer particles"),
            std::string::npos)
      << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  EXPECT_EQ(refusal(scene, 0.05f, 100'000'000, 0), "");  // 4,000 particles fit
  // The machine's own memory when no budget is given (here: the environment's limit).
  const MemoryLimit limit("100");
  EXPECT_NE(refusal(scene, scene.spacing, 0, 0).find("but only 100 MB is free"), std::string::npos);
}

TEST(MemoryNeed, TheDiffuseCapIsCountedUpFront) {
  const Scene scene = block_scene(0.05f);
  EXPECT_EQ(refusal(scene, scene.spacing, 100'000'000, 50'000), "");
  const std::string why = refusal(scene, scene.spacing, 100'000'000, 4'000'000);
  EXPECT_NE(why.find("with room for 4,000,000 spray, foam and bubble particles"), std::string::npos)
      << why;
  EXPECT_NE(why.find("or a smaller diffuse_cap"), std::string::npos) << why;
}

// The panel's slider (or a preset) raising the cap of a running simulation.
TEST(MemoryNeed, ARaisedDiffuseCapThatDoesNotFitIsPutBack) {
  SimParams p = default_params();
  p.diffuse_cap = 4'000'000;
  const std::string note = keep_diffuse_cap_in_memory(p, 0, BackendKind::Cpu, 100'000'000);
  EXPECT_EQ(p.diffuse_cap, 0);
  EXPECT_NE(note.find("diffuse_cap 4,000,000 (spray, foam and bubble particles) would need"),
            std::string::npos)
      << note;
  EXPECT_NE(note.find("kept 50,000"), std::string::npos) << note;
  p.diffuse_cap = 200'000;
  EXPECT_EQ(keep_diffuse_cap_in_memory(p, 0, BackendKind::Cpu, 100'000'000), "");
  EXPECT_EQ(p.diffuse_cap, 200'000);
  p.diffuse_cap = 1000;  // lowering it always fits
  EXPECT_EQ(keep_diffuse_cap_in_memory(p, 4'000'000, BackendKind::Cpu, 1'000'000), "");
  EXPECT_EQ(p.diffuse_cap, 1000);
}

// Lists that must grow past what memory holds stop the step with a sentence.
TEST(MemoryNeed, NeighbourListsThatWouldNotFitStopTheStepWithASentence) {
  const Scene scene = block_scene(0.05f);
  InitialState st = build_initial_state(scene, scene.spacing);
  // 600 particles packed into 2 cm: each sees all the others, 12 times the lists' slots.
  st.fluid.clear();
  for (int i = 0; i < 600; ++i)
    st.fluid.push_back(Vec4{0.5f + 0.002f * float(i % 10), 0.5f + 0.002f * float(i / 10 % 10),
                            0.5f + 0.002f * float(i / 100), 0.0f});
  st.velocity.assign(st.fluid.size(), Vec4{0, 0, 0, 0});
  auto sim = make_simulation(BackendKind::Cpu);
  sim->params().diffuse = 0;
  sim->reset(st);
  {
    const MemoryLimit limit("1");
    try {
      sim->step();
      FAIL() << "the lists grew past the memory limit";
    } catch (const SceneError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("the neighbour lists of 600 particles, with room for"), std::string::npos)
          << what;
      EXPECT_NE(what.find("MB of memory, but only 1 MB is free"), std::string::npos) << what;
    }
  }
  sim->reset(st);
  EXPECT_NO_THROW(sim->step());  // with the machine's memory they grow
}

TEST(MemoryNeed, AStateFileTooLargeForTheMemoryIsRefusedAndTheSimulationKept) {
  const Scene scene = block_scene(0.05f);
  auto saved = make_simulation(BackendKind::Cpu);
  saved->reset(build_initial_state(scene, 0.02f));  // 62,500 particles
  const std::string path = testing::TempDir() + "tp_memory_need_big.tpstate";
  std::string error;
  ASSERT_TRUE(save_state_file(*saved, "block", path, &error)) << error;
  auto sim = make_simulation(BackendKind::Cpu);
  sim->reset(build_initial_state(scene, 0.1f));
  const unsigned before = sim->particle_count();
  {
    const MemoryLimit limit("20");
    std::string name;
    EXPECT_FALSE(load_state_file(*sim, path, &name, &error));
    EXPECT_EQ(error.rfind("state file '" + path + "': 62,500 particles", 0), 0u) << error;
    EXPECT_NE(error.find("MB of memory, but only 20 MB is free"), std::string::npos) << error;
    EXPECT_EQ(sim->particle_count(), before);
  }
  std::string name;
  EXPECT_TRUE(load_state_file(*sim, path, &name, &error)) << error;
  EXPECT_EQ(sim->particle_count(), 62500u);
  std::remove(path.c_str());
}
