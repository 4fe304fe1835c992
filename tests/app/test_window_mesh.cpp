// The mesh render mode (--render mesh) in a real window under Xvfb: the simulation's
// triangle mesh, shaded as the surface mode, draws water where the spheres do, smooth and
// shaded, with no OpenGL error; its passes are timed. Run as the other window tests (see
// test_window.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "image.h"
#include "process.h"
#include "x11_frames.h"

using namespace tp::test;
#include "window_harness.h"

namespace {

// At --size 960x600 the panel covers x < 348; the scene is drawn beside it.
const Rect kMeshScene{360, 0, 960, 540};

// The pixels of a sphere-mode shot well inside its water (blue with all 24 neighbours
// blue) and well away from it (none blue, above the pool: tank and background).
void water_and_dry(const Image& spheres, std::vector<std::pair<int, int>>* water,
                   std::vector<std::pair<int, int>>* dry) {
  const Rect scene = spheres.clip(kMeshScene);
  for (int y = scene.y0 + 2; y < scene.y1 - 2; ++y)
    for (int x = scene.x0 + 2; x < scene.x1 - 2; ++x) {
      bool all = true, none = true;
      for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) {
          const bool blue = is_water_blue(spheres.at(x + dx, y + dy));
          all = all && blue, none = none && !blue;
        }
      if (all) water->emplace_back(x, y);
      if (none && y < 200) dry->emplace_back(x, y);
    }
}

// Over `pixels`: the mean luminance difference to the right-hand neighbour (grain).
double grain(const Image& shot, const std::vector<std::pair<int, int>>& pixels) {
  double sum = 0.0;
  for (const auto& [x, y] : pixels) sum += std::abs(luminance(shot.at(x + 1, y)) - luminance(shot.at(x, y)));
  return sum / double(std::max<size_t>(pixels.size(), 1));
}

}  // namespace

TEST(Window, MeshModeDrawsSmoothShadedWaterWhereTheSpheresAre) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  const std::string& args = kSmallPoolFrames;
  const FinishedRun spheres = run_to_end(args, dir + "/spheres.png");
  ASSERT_RAN(spheres);
  const FinishedRun mesh = run_to_end(args + " --render mesh", dir + "/mesh.png");
  ASSERT_RAN(mesh);
  const FinishedRun surface = run_to_end(args + " --render surface", dir + "/surface.png");
  ASSERT_RAN(surface);
  expect_no_gl_errors(mesh.result);
  for (const char* pass : {"mesh thickness", "mesh surface", "surface shade", "surface composite"}) {
    double gpu = 0, cpu = 0;
    EXPECT_TRUE(pass_time(mesh.result.output, pass, &gpu, &cpu)) << pass << " missing from: " << mesh.result.output;
  }
  // The spheres' water, and the pixels well away from it (above the pool: tank and background).
  std::vector<std::pair<int, int>> water, dry;
  water_and_dry(spheres.shot, &water, &dry);
  ASSERT_GT(water.size(), 20000u) << "the sphere mode's water";
  ASSERT_GT(dry.size(), 20000u);
  // Where the spheres show water, the mesh shows water too (blue, shaded) ...
  size_t blue = 0, surface_blue = 0;
  double sum = 0, sum2 = 0, to_surface = 0;
  for (const auto& [x, y] : water) {
    blue += is_water_blue(mesh.shot.at(x, y)) ? 1 : 0;
    surface_blue += is_water_blue(surface.shot.at(x, y)) ? 1 : 0;
    to_surface += std::abs(luminance(mesh.shot.at(x, y)) - luminance(surface.shot.at(x, y)));
    const double l = luminance(mesh.shot.at(x, y));
    sum += l, sum2 += l * l;
  }
  const double n = double(water.size());
  const double grain_mesh = grain(mesh.shot, water), grain_spheres = grain(spheres.shot, water);
  const double sd = std::sqrt(std::max(sum2 / n - (sum / n) * (sum / n), 0.0));
  // ... and where they show none, the mesh leaves the scene as it was.
  double dry_diff = 0;
  for (const auto& [x, y] : dry) dry_diff += std::abs(luminance(mesh.shot.at(x, y)) - luminance(spheres.shot.at(x, y)));
  dry_diff /= double(dry.size());
  std::printf("mesh over %zu sphere-water pixels: %.1f %% water blue (surface mode %.1f %%), |mesh - surface| %.1f, "
              "luminance sd %.1f, neighbour difference %.2f (spheres %.2f); away from the water |mesh - spheres| %.2f\n",
              water.size(), 100.0 * double(blue) / n, 100.0 * double(surface_blue) / n, to_surface / n, sd,
              grain_mesh, grain_spheres, dry_diff);
  EXPECT_GT(double(blue), 0.8 * double(surface_blue)) << "water, as the surface mode draws it";
  EXPECT_LT(to_surface / n, 25.0) << "shaded as the surface mode";
  EXPECT_GT(sd, 5.0) << "shaded, not one flat colour";
  EXPECT_LT(grain_mesh, 0.5 * grain_spheres) << "smooth: no particles show";
  EXPECT_LT(dry_diff, 3.0) << "no water drawn where there is none";
}

// The surface mode's anisotropic option (on by default): each particle an ellipsoid from
// the mesh's kernels. Water where the spheres mode has it, no GL error, and a picture of
// its own (the option is not ignored); the figures compare it with spheres.
TEST(Window, AnisotropicSurfaceDrawsEllipsoidsWhereTheSpheresAre) {
  require_display_and_tools();
  if (HasFatalFailure()) return;
  const std::string dir = test_dir();
  const std::string& args = kSmallPoolFrames;
  const FinishedRun spheres = run_to_end(args, dir + "/spheres.png");
  ASSERT_RAN(spheres);
  const FinishedRun on = run_to_end(args + " --render surface", dir + "/anisotropic.png");
  ASSERT_RAN(on);
  const FinishedRun off = run_to_end(args + " --render surface --surface-anisotropic off", dir + "/isotropic.png");
  ASSERT_RAN(off);
  expect_no_gl_errors(on.result);
  std::vector<std::pair<int, int>> water, dry;
  water_and_dry(spheres.shot, &water, &dry);
  ASSERT_GT(water.size(), 20000u) << "the sphere mode's water";
  size_t blue_on = 0, blue_off = 0;
  double between = 0.0;
  for (const auto& [x, y] : water) {
    blue_on += is_water_blue(on.shot.at(x, y)) ? 1 : 0;
    blue_off += is_water_blue(off.shot.at(x, y)) ? 1 : 0;
    between += std::abs(luminance(on.shot.at(x, y)) - luminance(off.shot.at(x, y)));
  }
  const double n = double(water.size());
  double dry_diff = 0.0;
  for (const auto& [x, y] : dry) dry_diff += std::abs(luminance(on.shot.at(x, y)) - luminance(spheres.shot.at(x, y)));
  dry_diff /= double(std::max<size_t>(dry.size(), 1));
  std::printf("over %zu sphere-water pixels: water blue %.1f %% ellipsoids, %.1f %% spheres; |ellipsoids - spheres| "
              "%.2f; grain %.2f vs %.2f; away from the water %.2f\n",
              water.size(), 100.0 * double(blue_on) / n, 100.0 * double(blue_off) / n, between / n,
              grain(on.shot, water), grain(off.shot, water), dry_diff);
  EXPECT_GT(double(blue_on), 0.9 * double(blue_off)) << "water where the spheres draw it";
  EXPECT_GT(between / n, 0.5) << "the ellipsoids change the picture: the option is not ignored";
  EXPECT_LT(dry_diff, 3.0) << "no water drawn where there is none";
}
