// Spray, foam and bubbles (issue 5) in a real window under Xvfb: the dam break's water
// hitting the far wall, drawn with and without diffuse particles (--set diffuse=1 / 0).
// The diffuse particles ride on the water without pushing it, so with the same fixed steps
// both runs simulate the same water and the frames differ only by what the diffuse pass
// draws. Run as the other window tests (see test_window.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "image.h"
#include "process.h"
#include "x11_frames.h"

using namespace tp::test;
#include "window_harness.h"

namespace {

// The dam break at 0.9 s (30 frames of 30 steps of 1 ms): the front has crossed the tank
// and runs up its far wall. --hide-panel: the scene fills the 960x600 window, the tank
// spans about x = 170..790, and the impact (the wall's splash and the fast water before
// it) lies in this rectangle.
const std::string kDamBreakImpact =
    "--scene dam_break --particles 2000 --size 960x600 --hide-panel --steps-per-frame 30 "
    "--set dt_min=0.001 --set dt_max=0.001 --frames 30 --gl-check";
const Rect kImpact{560, 100, 800, 420};

// Spray and foam are drawn near-white; the water, the floor and the background are not
// (the water's specular highlights are, in both frames alike).
bool near_white(const uint8_t* p) { return std::min({p[0], p[1], p[2]}) >= 185; }

struct DiffuseDifference {
  long differing = 0;  ///< pixels that differ at all
  long white_on = 0, white_off = 0;
  double brighter = 0.0;  ///< mean luminance gain over the differing pixels
};

DiffuseDifference compare(const Image& on, const Image& off, Rect rect) {
  DiffuseDifference d;
  rect = on.clip(rect);
  double gain = 0.0;
  for (int y = rect.y0; y < rect.y1; ++y)
    for (int x = rect.x0; x < rect.x1; ++x) {
      const uint8_t *p = on.at(x, y), *q = off.at(x, y);
      d.white_on += near_white(p);
      d.white_off += near_white(q);
      if (p[0] == q[0] && p[1] == q[1] && p[2] == q[2]) continue;
      ++d.differing;
      gain += luminance(p) - luminance(q);
    }
  d.brighter = d.differing > 0 ? gain / double(d.differing) : 0.0;
  return d;
}

// Runs the impact with and without diffuse particles in one render mode and checks that
// they show there, brighter than what they cover, drawn by a timed pass without GL errors.
void expect_diffuse_in_impact(const std::string& mode_args, const std::string& name) {
  const std::string dir = test_dir();
  const std::string args = kDamBreakImpact + " " + mode_args;
  const FinishedRun on = run_to_end(args + " --set diffuse=1", dir + "/" + name + "_on.png");
  ASSERT_RAN(on);
  const FinishedRun off = run_to_end(args + " --set diffuse=0", dir + "/" + name + "_off.png");
  ASSERT_RAN(off);
  expect_no_gl_errors(on.result);
  expect_no_gl_errors(off.result);
  EXPECT_EQ(on.exit.steps, off.exit.steps);
  double gpu = 0, cpu = 0;
  ASSERT_TRUE(pass_time(on.result.output, "diffuse", &gpu, &cpu))
      << "the diffuse pass is missing from the pass times:\n"
      << on.result.output;
  EXPECT_GT(gpu, 0.0) << "GPU time of the diffuse pass";
  ASSERT_EQ(on.shot.width, off.shot.width);
  ASSERT_EQ(on.shot.height, off.shot.height);

  const DiffuseDifference d = compare(on.shot, off.shot, kImpact);
  std::printf(
      "%s, impact region %dx%d: %ld pixels differ, near-white %ld with diffuse particles "
      "and %ld without, luminance %+.1f where they differ; diffuse pass %.2f ms GPU\n",
      name.c_str(), kImpact.width(), kImpact.height(), d.differing, d.white_on, d.white_off,
      d.brighter, gpu);
  EXPECT_GT(d.differing, 300) << "the diffuse particles change the impact region";
  EXPECT_GE(d.white_on, d.white_off + 100) << "spray and foam add near-white pixels there";
  EXPECT_GT(d.brighter, 5.0) << "they are lighter than the water and air they cover";
}

}  // namespace

// Over the screen-space surface: spray in the air, foam on the water (depth-tested against
// the smoothed surface, nearer by about a spacing), bubbles dimmed under it.
TEST(Window, DiffuseParticlesShowOverTheSurfaceWhereTheWaterHits) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  expect_diffuse_in_impact("--render surface", "surface");
}

// Over the spheres (one flat colour, so that fast water is not near-white itself).
TEST(Window, DiffuseParticlesShowOverTheSpheresWhereTheWaterHits) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  expect_diffuse_in_impact("--render spheres --color flat", "spheres");
}
