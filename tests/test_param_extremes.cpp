// Every SimParams field at the ends of its range, on every solver it applies to, in a small
// violent scene (a dam break of a few hundred particles with the mouse pushing, pulling or
// dragging in it): no NaN or infinity, no particle outside the tank, and no particle faster
// than what gravity, the mouse and the speed limit can give it. Half-way through, an absurd
// value (-1e30 in the minimum's run, 1e30 in the maximum's) is written straight into the
// live struct, which the simulation must clamp back to the same end. The fields come from
// param_table(), so a new field is run at its ends as soon as it exists.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim_helpers.h"

using namespace tp;
using namespace tp::test;

namespace {

constexpr float kSpacing = 0.02f;
const Vec3 kMouseVelocity{0.5f, 0.0f, 0.0f};  ///< [m/s] the drag mode's target velocity

Scene small_dam_break() {
  // 7 x 10 x 4 = 280 particles in a 0.4 x 0.3 x 0.08 m tank.
  return box_scene({0, 0, 0}, {0.4f, 0.3f, 0.08f}, {0, 0, 0}, {0.14f, 0.2f, 0.08f}, kSpacing);
}

// The fastest any particle may move: a fall across the whole tank along gravity, plus what
// the mouse can give (push or pull: an acceleration of at most `strength` over at most
// `radius`; drag: the mouse's own speed), each doubled for splashes (a jet thrown by a
// collapsing column reaches about twice the fall speed), and never beyond the speed limit.
double speed_bound(const SimParams& p, float tank_diagonal) {
  const double g = length(Vec3{p.gravity_x, p.gravity_y, p.gravity_z});
  const double fall = std::sqrt(2.0 * g * tank_diagonal);
  const double mouse = p.mouse_mode == int(MouseMode::Drag)
                           ? double(length(kMouseVelocity))
                           : std::sqrt(2.0 * p.mouse_strength * p.mouse_radius);
  return std::min(2.0 * (fall + mouse) + 0.5, double(p.speed_limit) * 1.0001);
}

struct Outcome {
  ParticleCheck check;
  uint64_t nonfinite_resets = 0, diffuse_nonfinite = 0, steps = 0;
  double max_speed = 0.0, bound = 0.0, simulated = 0.0, wall = 0.0;
  double value_after_absurd = 0.0;
};

// Runs the small dam break for `seconds` (or `max_steps`) with `info` at `value` (and
// `also` at `also_value`, if given) on `solver`; half-way, writes `absurd` into the field
// (the simulation clamps it).
Outcome run(SolverKind solver, const ParamInfo* info, double value, double absurd,
            double seconds, int max_steps, const ParamInfo* also = nullptr,
            double also_value = 0.0) {
  const auto t0 = std::chrono::steady_clock::now();
  const Scene scene = small_dam_break();
  auto sim = cpu_sim(scene, kSpacing);
  sim->params().solver = int(solver);
  if (also) also->set(sim->params(), also_value);
  if (info) info->set(sim->params(), value);
  sim->set_mouse(MouseForce{1, Vec3{0.07f, 0.1f, 0.04f}, kMouseVelocity});
  Outcome out;
  const float diagonal = length(sim->tank_hi() - sim->tank_lo());
  out.bound = speed_bound(sim->params(), diagonal);
  bool written = false;
  for (int k = 0; k < max_steps && sim->simulated_time() < seconds; ++k) {
    if (info && !written && (sim->simulated_time() >= 0.5 * seconds || k == max_steps / 2)) {
      info->set(sim->params(), absurd);
      written = true;
      sim->step();
      out.value_after_absurd = info->get(sim->params());
      // The clamped value is in force from here: a choice written out of range goes back
      // to its default (mouse_mode: drag -> push), so the bound is the larger of the two.
      out.bound = std::max(out.bound, speed_bound(sim->params(), diagonal));
      continue;
    }
    sim->step();
  }
  const RunStats stats = sim->stats();
  out.check = check(*sim);
  out.nonfinite_resets = stats.nonfinite_resets;
  for (const DiffuseParticle& d : sim->diffuse_snapshot())
    out.diffuse_nonfinite += !(std::isfinite(d.position.x) && std::isfinite(d.position.y) &&
                               std::isfinite(d.position.z) && std::isfinite(d.velocity.x) &&
                               std::isfinite(d.velocity.y) && std::isfinite(d.velocity.z));
  out.steps = stats.steps;
  out.max_speed = stats.max_speed;
  out.simulated = stats.simulated_time;
  out.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

const SolverKind kSolvers[] = {SolverKind::Wcsph, SolverKind::Pcisph, SolverKind::Pbf, SolverKind::Dfsph};

struct Case {
  SolverKind solver;
  const ParamInfo* info;
  double value, absurd;
};

// Every field at min and max, on every solver for the shared fields and on its own solver
// for the solver's fields; the solver field itself picks the solver.
std::vector<Case> extreme_cases() {
  std::vector<Case> cases;
  for (const ParamInfo& info : param_table()) {
    for (const bool at_max : {false, true}) {
      const double value = at_max ? info.max : info.min;
      const double absurd = at_max ? 1e30 : -1e30;
      if (info.integer == &SimParams::solver) {
        cases.push_back({SolverKind(int(value)), &info, value, absurd});
        continue;
      }
      for (SolverKind solver : kSolvers)
        if (info.solver < 0 || info.solver == int(solver))
          cases.push_back({solver, &info, value, absurd});
    }
  }
  return cases;
}

void check_extremes(double seconds, int max_steps) {
  const std::vector<Case> cases = extreme_cases();
  double wall = 0.0, worst_ratio = 0.0;
  std::string worst;
  for (const Case& c : cases) {
    const std::string what = std::string(solver_name(int(c.solver))) + " " + c.info->name +
                             "=" + std::to_string(c.value);
    const Outcome o = run(c.solver, c.info, c.value, c.absurd, seconds, max_steps);
    wall += o.wall;
    EXPECT_EQ(o.check.nonfinite, 0u) << what;
    EXPECT_EQ(o.nonfinite_resets, 0u) << what << ": NaN/inf particles were reset";
    EXPECT_EQ(o.diffuse_nonfinite, 0u) << what << ": diffuse particles";
    EXPECT_EQ(o.check.outside, 0u) << what;
    EXPECT_LE(o.max_speed, o.bound) << what << ": m/s";
    // The simulation's own clamp (for writes that bypass the panel) takes a number to the
    // nearer end; a choice that names none goes back to the default.
    const double stored = !c.info->choices.empty() ? c.info->fallback
                          : c.info->real           ? double(float(c.value))
                                                   : c.value;
    EXPECT_EQ(o.value_after_absurd, stored) << what << ": the absurd value was clamped";
    if (o.max_speed / o.bound > worst_ratio) {
      worst_ratio = o.max_speed / o.bound;
      worst = what;
    }
    if (std::getenv("TP_EXTREMES_VERBOSE"))
      std::printf("%-40s %5llu steps %.3f s  max %6.2f m/s (bound %6.2f)  %.2f s wall\n",
                  what.c_str(), (unsigned long long)o.steps, o.simulated, o.max_speed, o.bound,
                  o.wall),
          std::fflush(stdout);
  }
  std::printf("[ extremes ] %zu runs of %.2f s (at most %d steps): %.1f s wall; fastest "
              "relative to its bound: %s at %.2f of it\n",
              cases.size(), seconds, max_steps, wall, worst.c_str(), worst_ratio);
}

}  // namespace

TEST(ParamExtremes, CasesCoverEveryFieldAtBothEndsOnEverySolver) {
  const std::vector<Case> cases = extreme_cases();
  size_t shared = 0, own = 0;
  for (const ParamInfo& info : param_table()) (info.solver < 0 ? shared : own)++;
  // The solver field runs once per end; the other shared ones once per solver and end.
  EXPECT_EQ(cases.size(), 2 * ((shared - 1) * std::size(kSolvers) + own + 1));
}

TEST(ParamExtremes, EveryFieldAtEachEndOnEverySolverStaysFiniteInsideAndBounded) {
  check_extremes(0.2, 500);
}

// The same for two simulated seconds (the dam break hits the far wall and sloshes back).
TEST(Soak, ParamExtremesForTwoSecondsEach) { check_extremes(2.0, 40000); }

// Pairs of the fields that set the time step and the forces, both at an end, on every
// solver: the combinations most likely to break a step (the stiffest fluid at the longest
// smallest step, the strongest gravity at the largest CFL number, ...).
TEST(Soak, ParamExtremePairsOfStepAndForceFields) {
  const char* names[] = {"gravity_y", "rest_density", "viscosity", "stiffness", "exponent",
                         "alpha", "pcisph_tolerance", "pcisph_max_iterations", "pbf_iterations",
                         "pbf_relaxation", "pbf_scorr_k", "pbf_vorticity", "cfl", "dt_max",
                         "dt_min", "speed_limit", "mouse_radius", "mouse_strength"};
  size_t runs = 0;
  for (SolverKind solver : kSolvers) {
    for (size_t a = 0; a < std::size(names); ++a) {
      for (size_t b = a + 1; b < std::size(names); ++b) {
        const ParamInfo* fa = find_param(names[a]);
        const ParamInfo* fb = find_param(names[b]);
        ASSERT_TRUE(fa && fb);
        const auto applies = [&](const ParamInfo* f) {
          return f->solver < 0 || f->solver == int(solver);
        };
        if (!applies(fa) || !applies(fb)) continue;
        for (double va : {fa->min, fa->max}) {
          for (double vb : {fb->min, fb->max}) {
            const std::string what = std::string(solver_name(int(solver))) + " " + fa->name +
                                     "=" + std::to_string(va) + " " + fb->name + "=" +
                                     std::to_string(vb);
            const Outcome o = run(solver, fa, va, va, 0.3, 3000, fb, vb);
            EXPECT_EQ(o.check.nonfinite + o.nonfinite_resets, 0u) << what;
            EXPECT_EQ(o.check.outside, 0u) << what;
            EXPECT_LE(o.max_speed, o.bound) << what << ": m/s";
            if (std::getenv("TP_EXTREMES_VERBOSE"))
              std::printf("%-70s %5llu steps max %6.2f m/s (bound %6.2f)\n", what.c_str(),
                          (unsigned long long)o.steps, o.max_speed, o.bound),
                  std::fflush(stdout);
            ++runs;
          }
        }
      }
    }
  }
  std::printf("[ extremes ] %zu pair runs\n", runs);
}
