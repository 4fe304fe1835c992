// The panel's Bodies table laid out in a headless Dear ImGui context (no window, no GL) at the
// panel's width (26 em, as begin_panel fixes it): every row's last cell, the remove button,
// inside the panel with the widest rows a scene makes (a kinematic mesh, a wheel on an axle
// turning at -12.34 rad/s, a capsule with a four-digit density), and a draft shown beside a
// body with water around it. (The table had a position column: with a kinematic mesh the
// speeds and the remove buttons were cut off in the cup scene.)
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app/water/panel_bodies.h"
#include "headless_imgui.h"
#include "imgui.h"

using namespace tp;

namespace {

std::vector<BodySpec> widest_bodies() {
  std::vector<BodySpec> bodies(4);
  auto mesh = std::make_shared<BodyMesh>();
  mesh->name = "paddle_wheel.obj";
  mesh->lo = Vec3{-0.3f, -0.3f, -0.1f};
  mesh->hi = Vec3{0.3f, 0.3f, 0.1f};
  bodies[0].shape = int(BodyShapeKind::Mesh);
  bodies[0].mesh = mesh;
  bodies[0].kinematic = true;
  bodies[0].density = 2400.0f;
  bodies[0].pose.position = Vec3{-0.55f, 0.2f, -0.45f};
  bodies[1] = bodies[0];
  bodies[1].kinematic = false;
  bodies[1].axle = 2;
  bodies[1].density = 400.0f;
  bodies[1].mass = 12.3456f;
  bodies[1].motion.angular_velocity = Vec3{0.0f, 0.0f, -12.34f};
  bodies[2].shape = int(BodyShapeKind::Capsule);
  bodies[2].radius = 0.05f;
  bodies[2].half_height = 0.15f;
  bodies[2].density = 19999.0f;
  bodies[2].pose.position = Vec3{0.45f, -0.123f, 0.45f};
  bodies[2].motion.velocity = Vec3{-1.5f, -12.0f, 0.0f};
  bodies[3].shape = int(BodyShapeKind::Sphere);
  bodies[3].radius = 0.05f;
  bodies[3].density = 1200.0f;
  bodies[3].pose.position = Vec3{0.0f, 0.1f, 0.0f};
  return bodies;
}

TEST(PanelBodies, EveryRowFitsThePanelAndADraftIsShownWhereThereIsWater) {
  tp::test::create_headless_imgui(1280, 1000);
  // Water around the ball (body 3) and nowhere near the others: a layer at y 0.19.
  std::vector<Vec4> water;
  for (int i = -10; i <= 10; ++i)
    for (int k = -10; k <= 10; ++k) water.push_back(Vec4{0.02f * float(i), 0.19f, 0.02f * float(k), 0.0f});
  const std::vector<BodySpec> bodies = widest_bodies();
  BodyPanel panel;
  WidgetLog log;
  log.enabled = true;
  ImVec2 window_lo, window_hi;
  for (int frame = 0; frame < 3; ++frame) {  // (the first frame's window is laid out unplaced)
    ImGui::NewFrame();
    const float em = ImGui::GetFontSize();
    ImGui::SetNextWindowPos(ImVec2(10, 10));
    ImGui::SetNextWindowSizeConstraints(ImVec2(em * 26.0f, 0.0f), ImVec2(em * 26.0f, 900.0f));
    ImGui::Begin("panel", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
    bodies_section(bodies, 1, 3, BodyWater{water.data(), water.size(), 0.02f}, panel, log);
    window_lo = ImGui::GetWindowPos();
    window_hi = ImVec2(window_lo.x + ImGui::GetWindowWidth(), window_lo.y + ImGui::GetWindowHeight());
    ImGui::End();
    ImGui::Render();
  }
  const float inner_right = window_hi.x - ImGui::GetStyle().WindowPadding.x;
  for (size_t k = 0; k < bodies.size(); ++k) {
    const auto rect = log.rects.find("body remove " + std::to_string(k));
    ASSERT_NE(rect, log.rects.end()) << "row " << k << " has its remove button";
    std::printf("row %zu: remove button from x %d to %d, the panel's inside ends at %.0f\n", k, rect->second.x,
                rect->second.x + rect->second.width, double(inner_right));
    EXPECT_LE(float(rect->second.x + rect->second.width), inner_right) << "row " << k << " fits the panel";
  }
  // Water beside the ball (body 3) alone: its draft is shown, the others' cells say "-".
  EXPECT_TRUE(log.rects.count("body draft 3")) << "the ball's draft is shown";
  for (int k = 0; k < 3; ++k)
    EXPECT_TRUE(log.rects.count("body no draft " + std::to_string(k))) << "no water beside body " << k;
  ASSERT_EQ(panel.lines.size(), bodies.size());
  EXPECT_TRUE(panel.lines[3].found);
  EXPECT_NEAR(panel.lines[3].depth, 0.19f + 0.01f - (0.1f - 0.05f), 1e-4f) << "the layer's top plus half a spacing";
  ImGui::DestroyContext();
}

}  // namespace
