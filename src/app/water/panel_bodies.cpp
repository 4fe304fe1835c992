#include "app/water/panel_bodies.h"

#include <cstdio>

#include "app/window/panel_style.h"

namespace tp {

std::string body_shape_text(const BodySpec& body) {
  char text[96];
  if (body.shape == int(BodyShapeKind::Sphere))
    std::snprintf(text, sizeof(text), "sphere r %.2f m", body.radius);
  else if (body.shape == int(BodyShapeKind::Capsule))
    std::snprintf(text, sizeof(text), "capsule r %.2f m, %.2f m long", body.radius, 2.0f * body.half_height);
  else
    std::snprintf(text, sizeof(text), "box %.2f x %.2f x %.2f m", 2.0f * body.half_extent.x,
                  2.0f * body.half_extent.y, 2.0f * body.half_extent.z);
  return text;
}

float body_density(const BodySpec& body, int dimensions) {
  if (!(body.mass > 0.0f)) return body.density;
  const float volume = body_mass(body, dimensions).volume;
  return volume > 0.0f ? body.mass / volume : body.density;
}

void bodies_section(const std::vector<BodySpec>& bodies, int grabbed, int dimensions) {
  ImGui::TextDisabled("Ctrl + left drag on a body grabs it.");
  tooltip("The cursor's ray picks the body; while the button is held its point is pulled "
          "towards the cursor (in the plane through it facing the camera) by a soft spring, "
          "so the water and the other bodies still push it. Releasing lets it go. Kinematic "
          "bodies are not grabbed.");
  // Columns as wide as their contents: the panel is 26 em wide. The shape's size is in
  // its tooltip.
  if (!ImGui::BeginTable("bodies", 4, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) return;
  ImGui::TableSetupColumn("Shape");
  ImGui::TableSetupColumn("kg/m^3");
  ImGui::TableSetupColumn("x, y, z [m]");
  ImGui::TableSetupColumn("m/s");
  ImGui::TableHeadersRow();
  for (size_t k = 0; k < bodies.size(); ++k) {
    const BodySpec& b = bodies[k];
    const bool held = int(k) == grabbed;
    ImGui::TableNextRow();
    if (held) ImGui::PushStyleColor(ImGuiCol_Text, kNoteColor);
    ImGui::TableNextColumn();
    const char* shape = b.shape == int(BodyShapeKind::Sphere)    ? "sphere"
                        : b.shape == int(BodyShapeKind::Capsule) ? "capsule"
                                                                 : "box";
    ImGui::Text("%zu %s%s", k, shape, held ? " (held)" : b.kinematic ? " (kin.)" : "");
    const std::string size = body_shape_text(b) + (b.kinematic ? "; kinematic: moved by its velocity, never by "
                                                                 "the water or the mouse"
                                                               : "");
    tooltip(size.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%.0f", body_density(b, dimensions));
    ImGui::TableNextColumn();
    const Vec3 p = b.pose.position;
    ImGui::Text("%5.2f %5.2f %5.2f", p.x, p.y, p.z);
    ImGui::TableNextColumn();
    ImGui::Text("%.2f", length(b.motion.velocity));
    if (held) ImGui::PopStyleColor();
  }
  ImGui::EndTable();
}

}  // namespace tp
