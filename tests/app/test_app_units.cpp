// The app's pieces without a window: the orbit camera's picking ray, the panel's windowed
// statistics and the mouse tool's force (on a fake simulation).
#include <gtest/gtest.h>

#include <cmath>
#include <glm/glm.hpp>

#include "app/window/camera.h"
#include "app/window/frame_stats.h"
#include "app/water/grid_overlay.h"
#include "app/water/mouse_tool.h"
#include "render/render_types.h"

using namespace tp;

TEST(OrbitCamera, YawZeroLooksAlongMinusZ) {
  CameraSetup setup;
  setup.yaw = 0;
  setup.pitch = 0;
  const glm::vec3 f = OrbitCamera(setup).forward();
  EXPECT_NEAR(f.z, -1.0f, 1e-5f);
  EXPECT_NEAR(f.x, 0.0f, 1e-5f);
  EXPECT_NEAR(f.y, 0.0f, 1e-5f);
}

// The ray through the pixel where a point is drawn passes through the point, for any
// aspect ratio and with the image centre shifted beside the panel either way.
TEST(OrbitCamera, RayThroughTheProjectedPointHitsIt) {
  CameraSetup setup;
  setup.target = {0.3f, 0.5f, -0.2f};
  setup.distance = 3;
  setup.yaw = 30;
  setup.pitch = 25;
  OrbitCamera camera(setup);
  const double height = 800;
  for (float shift : {0.0f, 0.3f, -0.4f}) {
    for (double width : {1280.0, 600.0}) {
      SCOPED_TRACE(testing::Message() << "shift " << shift << ", width " << width);
      camera.set_screen_shift(shift);
      const glm::vec3 p(0.7f, 0.2f, 0.1f);
      const glm::vec4 clip = camera.projection(float(width / height)) * camera.view() * glm::vec4(p, 1);
      const glm::vec3 ndc = glm::vec3(clip) / clip.w;
      const double cx = (ndc.x + 1) * 0.5 * width, cy = (1 - ndc.y) * 0.5 * height;
      glm::vec3 origin, direction;
      camera.ray(cx, cy, width, height, &origin, &direction);
      const glm::vec3 to = p - origin;
      const float along = glm::dot(to, direction);
      EXPECT_LT(glm::length(to - direction * along), 1e-4f) << "the ray misses the point";
      EXPECT_GT(along, 0.0f) << "the point is in front of the eye";
      EXPECT_NEAR(glm::length(direction), 1.0f, 1e-5f);
      EXPECT_LT(glm::length(origin - camera.eye()), 1e-5f) << "the ray starts at the eye";
    }
  }
}

// 2D: square-on to the plane (orbiting does nothing), the whole tank in view beside the
// panel, and a wheel step about the cursor keeps the plane point under it there.
TEST(OrbitCamera, PlaneViewIsSquareOnFitsTheTankAndZoomsAboutTheCursor) {
  CameraSetup setup;
  setup.target = {0.0f, 1.0f, 0.4f};
  setup.distance = 2;
  setup.yaw = 30;
  setup.pitch = 25;
  OrbitCamera camera(setup);
  camera.set_plane(0.1f, glm::vec3(-2, 0, 0.1f), glm::vec3(2, 2, 0.1f));
  camera.orbit(200, 100);
  EXPECT_NEAR(camera.forward().z, -1.0f, 1e-6f) << "square-on, after an orbit attempt";
  const double width = 1280, height = 800;
  camera.set_screen_shift(0.3f);
  camera.fit_plane(float(width / height));
  const glm::mat4 vp = camera.projection(float(width / height)) * camera.view();
  for (glm::vec3 corner : {glm::vec3(-2, 0, 0.1f), glm::vec3(2, 2, 0.1f), glm::vec3(-2, 2, 0.1f), glm::vec3(2, 0, 0.1f)}) {
    const glm::vec4 clip = vp * glm::vec4(corner, 1);
    const glm::vec3 ndc = glm::vec3(clip) / clip.w;
    EXPECT_LE(std::abs(ndc.y), 1.0f) << "corner " << corner.x << ", " << corner.y;
    EXPECT_GE(ndc.x, -1.0f + 0.0f) << "corner " << corner.x;
    EXPECT_LE(ndc.x, 1.0f);
  }
  const double cx = 900, cy = 300;
  glm::vec3 origin, direction, before, after;
  camera.ray(cx, cy, width, height, &origin, &direction);
  ASSERT_TRUE(ray_plane_z(origin, direction, 0.1f, &before));
  EXPECT_EQ(before.z, 0.1f);
  camera.zoom_at(3, cx, cy, width, height);
  camera.ray(cx, cy, width, height, &origin, &direction);
  ASSERT_TRUE(ray_plane_z(origin, direction, 0.1f, &after));
  EXPECT_LT(glm::length(after - before), 1e-3f) << "the point under the cursor moved";
  // Parallel to the plane, or pointing away: no hit.
  EXPECT_FALSE(ray_plane_z(glm::vec3(0, 0, 1), glm::vec3(1, 0, 0), 0.1f, &after));
  EXPECT_FALSE(ray_plane_z(glm::vec3(0, 0, 1), glm::vec3(0, 0, 1), 0.1f, &after));
}

namespace {

// 101 frames 50 ms apart (20 FPS), 2 steps of 1 ms simulated per frame, phases "a" and "b"
// costing 1 and 0.5 ms per step.
FrameStats steady_frames(RunStats* r) {
  FrameStats stats(1.0);
  r->phases = {{"a", 0}, {"b", 0}};
  for (int i = 0; i <= 100; ++i) {
    r->steps = 2 * uint64_t(i);
    r->simulated_time = 0.002 * i;
    r->phases[0].total_ms = 1.0 * 2 * i;
    r->phases[1].total_ms = 0.5 * 2 * i;
    stats.add(i * 0.05, *r);
  }
  return stats;
}

}  // namespace

TEST(FrameStats, WindowedMeans) {
  RunStats r;
  const FrameStats stats = steady_frames(&r);
  EXPECT_NEAR(stats.frames_per_second(), 20.0, 1e-6);
  EXPECT_NEAR(stats.ms_per_frame(), 50.0, 1e-6);
  EXPECT_NEAR(stats.steps_per_frame(), 2.0, 1e-6);
  EXPECT_NEAR(stats.simulation_speed(), 0.04, 1e-6);
  ASSERT_EQ(stats.phase_ms().size(), 2u);
  EXPECT_EQ(stats.phase_ms()[0].first, "a");
  EXPECT_NEAR(stats.phase_ms()[0].second, 1.0, 1e-9);
  EXPECT_NEAR(stats.phase_ms()[1].second, 0.5, 1e-9);
  EXPECT_NEAR(stats.ms_per_step(), 1.5, 1e-9);
}

TEST(FrameStats, RecentRatesNotSinceStart) {
  RunStats r;
  FrameStats stats = steady_frames(&r);  // 20 FPS until t = 5 s
  // Then 2 s at 10 FPS: after a full window only the new rate shows.
  for (int i = 1; i <= 20; ++i) {
    r.steps += 2;
    r.simulated_time += 0.002;
    stats.add(5.0 + 0.1 * i, r);
  }
  EXPECT_NEAR(stats.frames_per_second(), 10.0, 1e-6);
}

TEST(FrameStats, AResetGivesNoNonsense) {
  RunStats r;
  FrameStats stats = steady_frames(&r);
  r.steps = 1;  // a reset restarts the simulation's counters
  r.simulated_time = 0.001;
  stats.add(5.1, r);
  EXPECT_TRUE(std::isfinite(stats.frames_per_second()));
  EXPECT_GE(stats.frames_per_second(), 0.0);
  EXPECT_TRUE(std::isfinite(stats.steps_per_frame()));
  EXPECT_GE(stats.steps_per_frame(), 0.0);
  EXPECT_TRUE(std::isfinite(stats.ms_per_step()));
}

// After a solver switch the simulation still lists the old solver's phases, no longer
// growing: the panel shows only the phases a step runs now.
TEST(FrameStats, PhasesThatStoppedRunningAreLeftOut) {
  RunStats r;
  FrameStats stats = steady_frames(&r);
  r.last_solver = 1;
  r.phases.push_back({"c", 0.0});  // a new solver's phase; "b" stops
  for (int i = 1; i <= 40; ++i) {
    r.steps += 2;
    r.simulated_time += 0.002;
    r.phases[0].total_ms += 2.0;
    r.phases[2].total_ms += 4.0;
    stats.add(5.0 + 0.05 * i, r);
  }
  ASSERT_EQ(stats.phase_ms().size(), 2u);
  EXPECT_EQ(stats.phase_ms()[0].first, "a");
  EXPECT_EQ(stats.phase_ms()[1].first, "c");
  EXPECT_NEAR(stats.phase_ms()[1].second, 2.0, 1e-9);
  EXPECT_NEAR(stats.ms_per_step(), 3.0, 1e-9);
}

// The same at the switch itself: from the first frames after it, the table shows the new
// solver's phases alone, each per step of the new solver (the window restarts at the
// switch; before, for a second the old solver's phases showed beside the new ones and
// each was divided by every step of the window).
TEST(FrameStats, ASolverSwitchShowsTheNewSolversPhasesAtOnce) {
  RunStats r;
  r.last_solver = 2;
  FrameStats stats = steady_frames(&r);
  r.last_solver = 3;  // "b" stops, "c" starts at 3 ms a step, "a" goes on at 1 ms
  r.phases.push_back({"c", 0.0});
  for (int i = 1; i <= 3; ++i) {
    r.steps += 2;
    r.simulated_time += 0.002;
    r.phases[0].total_ms += 2.0;
    r.phases[2].total_ms += 6.0;
    stats.add(5.0 + 0.05 * i, r);
  }
  ASSERT_EQ(stats.phase_ms().size(), 2u);
  EXPECT_EQ(stats.phase_ms()[0].first, "a");
  EXPECT_NEAR(stats.phase_ms()[0].second, 1.0, 1e-9);
  EXPECT_EQ(stats.phase_ms()[1].first, "c");
  EXPECT_NEAR(stats.phase_ms()[1].second, 3.0, 1e-9);
  EXPECT_NEAR(stats.ms_per_step(), 4.0, 1e-9);
  EXPECT_NEAR(stats.frames_per_second(), 20.0, 1e-6);
}

// Within one solver the rows stay: a phase that runs every other step (the spray's) or
// only for a while (the density, while frames are recorded) keeps its row, at 0 ms where it
// did not run in the window, so that the widgets below the table do not move under the
// pointer.
TEST(FrameStats, APhaseKeepsItsRowWhenItSkipsAWindow) {
  RunStats r;
  FrameStats stats(1.0);
  r.last_solver = 2;
  r.phases = {{"a", 0}, {"spray", 0}};
  size_t fewest = 99, most = 0;
  for (int i = 0; i <= 200; ++i) {  // 1 frame a second, 1 step a frame: spray every other step
    r.steps = uint64_t(i);
    r.simulated_time = 0.01 * i;
    r.phases[0].total_ms = 1.0 * i;
    r.phases[1].total_ms = 0.5 * ((i + 1) / 2);
    if (i == 100) r.phases.push_back({"density", 0.0});
    if (i >= 100 && i < 150) r.phases[2].total_ms += 0.25;  // frames recorded for 50 steps
    stats.add(i * 1.0, r);
    if (i >= 2) {
      fewest = std::min(fewest, stats.phase_ms().size());
      most = std::max(most, stats.phase_ms().size());
    }
    if (i >= 101) {
      ASSERT_EQ(stats.phase_ms().size(), 3u) << "frame " << i;
    }
  }
  EXPECT_EQ(fewest, 2u);
  EXPECT_EQ(most, 3u);
  EXPECT_EQ(stats.phase_ms()[2].first, "density");
  EXPECT_EQ(stats.phase_ms()[2].second, 0.0) << "no longer running: its row stays at 0";
  r.last_solver = 1;  // a switch: the rows are the new solver's alone
  r.phases[0].total_ms += 1.0;
  r.steps += 1;
  r.simulated_time += 0.01;
  stats.add(201.0, r);
  ASSERT_EQ(stats.phase_ms().size(), 1u);
  EXPECT_EQ(stats.phase_ms()[0].first, "a");
}

// A body added from the panel rebuilds the simulation: its phase timers start again from
// zero while the step count goes on. The panel keeps the last figures for every phase (no
// row vanishes and moves the widgets below it) and then shows the new rates.
TEST(FrameStats, RestartedPhaseTimersKeepTheTableWhole) {
  RunStats r;
  FrameStats stats = steady_frames(&r);
  r.phases[0].total_ms = 0.0;
  r.phases[1].total_ms = 0.0;
  r.steps += 2;
  r.simulated_time += 0.002;
  stats.add(5.05, r);
  ASSERT_EQ(stats.phase_ms().size(), 2u) << "the last figures stay until new ones are measured";
  EXPECT_NEAR(stats.phase_ms()[0].second, 1.0, 1e-9);
  for (int i = 2; i <= 40; ++i) {
    r.steps += 2;
    r.simulated_time += 0.002;
    r.phases[0].total_ms += 6.0;
    r.phases[1].total_ms += 1.0;
    stats.add(5.0 + 0.05 * i, r);
    ASSERT_EQ(stats.phase_ms().size(), 2u) << "frame " << i;
  }
  EXPECT_NEAR(stats.phase_ms()[0].second, 3.0, 1e-9);
  EXPECT_NEAR(stats.phase_ms()[1].second, 0.5, 1e-9);
}

namespace {

// A simulation that answers pick() with whatever the test says.
struct FakeSim : Simulation {
  SimParams p{};
  std::optional<Vec3> hit;
  void reset(const InitialState&) override {}
  double step() override { return 0; }
  int advance(double, double) override { return 0; }
  SimParams& params() override { return p; }
  void set_mouse(const MouseForce&) override {}
  std::optional<Vec3> pick(const Ray&) const override { return hit; }
  void publish(PublishTarget&, ColorField) override {}
  void publish_diffuse(PublishTarget&) override {}
  uint diffuse_count() const override { return 0; }
  std::vector<DiffuseParticle> diffuse_snapshot() override { return {}; }
  void add_diffuse(const std::vector<DiffuseParticle>&) override {}
  Snapshot snapshot() override { return {}; }
  void build_mesh(const MeshSettings&, TriangleMesh*, MeshTimes*) override {}
  void build_splats(const MeshSettings&, std::vector<Vec4>*) override {}
  void publish_mesh(MeshTarget&) override {}
  void publish_splats(PublishTarget&) override {}
  void release_mesher() override {}
  RunStats stats() override { return {}; }
  double simulated_time() const override { return 0.0; }
  std::vector<ObstacleShape> obstacles() const override { return {}; }
  bool move_obstacle(int, Vec3) override { return false; }
  std::vector<Emitter> emitters() const override { return {}; }
  std::vector<Outflow> outflows() const override { return {}; }
  SimState capture() override { return {}; }
  void restore(const SimState&) override {}
  uint particle_count() const override { return 0; }
  uint boundary_count() const override { return 0; }
  float spacing() const override { return 0.05f; }
  Vec3 tank_lo() const override { return {0, 0, 0}; }
  Vec3 tank_hi() const override { return {1, 1, 1}; }
  int dimensions() const override { return 3; }
  GridGeometry grid_geometry() const override { return {}; }
  float mass() const override { return 1; }
  BackendInfo backend() const override { return {}; }
};

float norm(const Vec3& v) { return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }

const glm::vec3 kEye(0, 0, 5), kForward(0, 0, -1);

}  // namespace

TEST(MouseTool, NoForceWithoutTheButton) {
  FakeSim sim;
  sim.hit = Vec3{0, 0, 1};
  MouseTool tool;
  EXPECT_FALSE(tool.update(sim, false, kEye, kForward, kEye, kForward, 0.016).active);
  EXPECT_FALSE(tool.active());
}

TEST(MouseTool, PushActsWhereTheRayMeetsTheFluidAndAMissGivesNoForce) {
  FakeSim sim;
  sim.p.mouse_mode = int(MouseMode::Push);
  MouseTool tool;
  sim.hit.reset();
  EXPECT_FALSE(tool.update(sim, true, kEye, kForward, kEye, kForward, 0.016).active) << "a miss";
  sim.hit = Vec3{0, 0, 1};
  const MouseForce f = tool.update(sim, true, kEye, kForward, kEye, kForward, 0.016);
  EXPECT_TRUE(f.active);
  EXPECT_NEAR(f.point.z, 1.0f, 1e-6f);
  EXPECT_TRUE(tool.active());
}

TEST(MouseTool, DragKeepsItsDepthAndCarriesTheCursorVelocity) {
  FakeSim sim;
  sim.p.mouse_mode = int(MouseMode::Drag);
  sim.hit = Vec3{0, 0, 1};  // 4 m in front of the eye
  MouseTool tool;
  ASSERT_TRUE(tool.update(sim, true, kEye, kForward, kEye, kForward, 0.016).active) << "the grab";
  // The cursor leaves the fluid: the grabbed point follows it on the plane 4 m deep.
  sim.hit.reset();
  const glm::vec3 dir = glm::normalize(glm::vec3(0.1f, 0, -1));
  const MouseForce f = tool.update(sim, true, kEye, dir, kEye, kForward, 0.1);
  EXPECT_TRUE(f.active);
  EXPECT_NEAR(f.point.z, 1.0f, 1e-5f);
  EXPECT_NEAR(f.point.x, 0.4f, 1e-5f);
  EXPECT_NEAR(f.velocity.x, 4.0f, 1e-3f) << "0.4 m in 0.1 s";
}

TEST(MouseTool, DragVelocityIsClampedTo20MetresPerSecond) {
  FakeSim sim;
  sim.p.mouse_mode = int(MouseMode::Drag);
  sim.hit = Vec3{0, 0, 1};
  MouseTool tool;
  tool.update(sim, true, kEye, kForward, kEye, kForward, 0.016);
  const glm::vec3 dir = glm::normalize(glm::vec3(10, 0, -1));  // 40 m sideways in 10 ms
  const MouseForce f = tool.update(sim, true, kEye, dir, kEye, kForward, 0.01);
  EXPECT_NEAR(norm(f.velocity), MouseTool::kMaxDragSpeed, 1e-3f);
  EXPECT_FLOAT_EQ(MouseTool::kMaxDragSpeed, 20.0f);
}

TEST(MouseTool, DragMissWithoutAGrabGivesNoForce) {
  FakeSim sim;
  sim.p.mouse_mode = int(MouseMode::Drag);
  MouseTool tool;
  sim.hit.reset();
  EXPECT_FALSE(tool.update(sim, true, kEye, kForward, kEye, kForward, 0.016).active);
  // Sweeping into the water with the button held grabs it then.
  sim.hit = Vec3{0, 0, 1};
  EXPECT_TRUE(tool.update(sim, true, kEye, kForward, kEye, kForward, 0.016).active);
  // Releasing ends the grab.
  EXPECT_FALSE(tool.update(sim, false, kEye, kForward, kEye, kForward, 0.016).active);
  sim.hit.reset();
  EXPECT_FALSE(tool.update(sim, true, kEye, kForward, kEye, kForward, 0.016).active);
}

TEST(RenderMode, NamesRoundTripAndSpheresIsTheDefault) {
  EXPECT_EQ(tp::RenderSettings{}.mode, tp::RenderMode::Spheres);
  for (int k = 0; k < tp::kRenderModeCount; ++k) {
    tp::RenderMode mode = tp::RenderMode::Spheres;
    ASSERT_TRUE(tp::parse_render_mode(tp::render_mode_name(tp::RenderMode(k)), &mode));
    EXPECT_EQ(int(mode), k);
  }
  tp::RenderMode mode = tp::RenderMode::Surface;
  EXPECT_FALSE(tp::parse_render_mode("water", &mode));
  EXPECT_EQ(mode, tp::RenderMode::Surface) << "left alone on failure";
}

// The grid overlay's cells: each particle in the cell the simulation's grid gives it (one
// outside the grid in the nearest edge cell), the occupied cells in the grid's order with
// their counts, and the cap keeping the first of them.
TEST(GridOverlay, CountsParticlesPerCellInTheGridsOrderUpToTheCap) {
  using tp::Vec4;
  const tp::GridGeometry grid{tp::Vec3{-1, 0, 0}, 0.5f, tp::Int3{4, 3, 2}};
  const std::vector<Vec4> particles = {
      {-0.9f, 0.1f, 0.1f, 0}, {-0.6f, 0.4f, 0.2f, 0}, {-0.8f, 0.2f, 0.3f, 0},  // cell (0, 0, 0)
      {0.7f, 1.2f, 0.8f, 0},                                                  // cell (3, 2, 1)
      {5.0f, -3.0f, 0.1f, 0},                                                 // outside: (3, 0, 0)
      {0.1f, 0.6f, 0.6f, 0}, {0.2f, 0.7f, 0.9f, 0}};                          // cell (2, 1, 1)
  std::vector<uint32_t> scratch;
  tp::GridOccupancy cells;
  tp::count_grid_cells(particles, grid, 100, &scratch, &cells);
  ASSERT_EQ(cells.cells.size(), 4u);
  EXPECT_EQ(cells.occupied, 4u);
  EXPECT_EQ(cells.most, 3);
  EXPECT_NEAR(cells.mean, 7.0 / 4.0, 1e-12);
  const float expected[4][4] = {{-1, 0, 0, 3}, {0.5f, 0, 0, 1}, {0, 0.5f, 0.5f, 2}, {0.5f, 1, 0.5f, 1}};
  for (int k = 0; k < 4; ++k) {
    EXPECT_FLOAT_EQ(cells.cells[k].x, expected[k][0]) << k;
    EXPECT_FLOAT_EQ(cells.cells[k].y, expected[k][1]) << k;
    EXPECT_FLOAT_EQ(cells.cells[k].z, expected[k][2]) << k;
    EXPECT_FLOAT_EQ(cells.cells[k].w, expected[k][3]) << k;
  }
  for (uint32_t c : scratch) EXPECT_EQ(c, 0u) << "the counts are all zero again";
  // The cap: the first two cells drawn, all four counted.
  tp::count_grid_cells(particles, grid, 2, &scratch, &cells);
  ASSERT_EQ(cells.cells.size(), 2u);
  EXPECT_EQ(cells.occupied, 4u);
  EXPECT_FLOAT_EQ(cells.cells[1].w, 1.0f);
  EXPECT_EQ(tp::full_cell_count(3), 8);
  EXPECT_EQ(tp::full_cell_count(2), 4);
}
