#include "app/water/panel_bodies.h"

#include <cstdio>

#include "app/window/panel_style.h"
#include "sim/bodies/body_waterline.h"

namespace tp {

namespace {

BodyRequest edit_request(BodyRequest::Kind kind, size_t body, float density = 0.0f) {
  BodyRequest request;
  request.kind = kind;
  request.index = int(body);
  request.density = density;
  return request;
}

}  // namespace

std::string body_shape_text(const BodySpec& body) {
  char text[96];
  if (body.shape == int(BodyShapeKind::Sphere))
    std::snprintf(text, sizeof(text), "sphere r %.2f m", body.radius);
  else if (body.shape == int(BodyShapeKind::Capsule))
    std::snprintf(text, sizeof(text), "capsule r %.2f m, %.2f m long", body.radius, 2.0f * body.half_height);
  else if (body.shape == int(BodyShapeKind::Mesh) && body.mesh)
    std::snprintf(text, sizeof(text), "mesh %s at scale %g, %.2f x %.2f x %.2f m", body.mesh->name.c_str(),
                  double(body.mesh->scale), body.mesh->hi.x - body.mesh->lo.x, body.mesh->hi.y - body.mesh->lo.y,
                  body.mesh->hi.z - body.mesh->lo.z);
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

void bodies_section(const std::vector<BodySpec>& bodies, int grabbed, int dimensions, const BodyWater& water,
                    BodyPanel& panel, WidgetLog& log) {
  panel.request = BodyRequest{};
  ImGui::TextDisabled("Ctrl + left drag on a body grabs it.");
  tooltip("The cursor's ray picks the body; while the button is held its point is pulled "
          "towards the cursor (in the plane through it facing the camera) by a soft spring, "
          "so the water and the other bodies still push it. Releasing lets it go. Kinematic "
          "bodies are not grabbed.");
  // Columns as wide as their contents: the panel is 26 em wide, and a row must fit it with
  // the widest values ("3 capsule", a kinematic mesh, a wheel's rad/s). The shape's size,
  // where the body is and whether it is kinematic are in the first cell's tooltip.
  if (!bodies.empty() && ImGui::BeginTable("bodies", 6, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
  ImGui::TableSetupColumn("Body");
  ImGui::TableSetupColumn("kg/m^3");
  ImGui::TableSetupColumn(dimensions == 2 ? "kg/m" : "kg");
  ImGui::TableSetupColumn("draft");
  ImGui::TableSetupColumn("speed");
  ImGui::TableSetupColumn("");
  ImGui::TableHeadersRow();
  // The drafts, read off the water four times a second (a pass over the particles per body:
  // at 64 bodies and 100,000 particles too much for every frame).
  const double now = ImGui::GetTime();
  if (panel.lines.size() != bodies.size() || !(now - panel.lines_at < 0.25)) {
    panel.lines.assign(bodies.size(), BodyWaterline{});
    if (water.particles)
      for (size_t k = 0; k < bodies.size(); ++k)
        panel.lines[k] = body_waterline(bodies[k], water.particles, water.count, water.spacing, dimensions);
    panel.lines_at = now;
  }
  for (size_t k = 0; k < bodies.size(); ++k) {
    const BodySpec& b = bodies[k];
    const bool held = int(k) == grabbed;
    ImGui::TableNextRow();
    // Held: the note colour; kinematic: greyed (the water and the mouse do not move it).
    if (held) ImGui::PushStyleColor(ImGuiCol_Text, kNoteColor);
    else if (b.kinematic) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TableNextColumn();
    ImGui::Text("%zu %s", k, shape_name(b));
    const Vec3 p = b.pose.position;
    char where[96];
    std::snprintf(where, sizeof(where), "; at %.2f %.2f %.2f m", p.x, p.y, p.z);
    const std::string about = body_shape_text(b) + where +
                              (held          ? "; held by the mouse"
                               : b.kinematic ? "; kinematic: moved by its velocity, never by the water or the mouse"
                                             : "");
    tooltip(about.c_str());
    ImGui::TableNextColumn();
    ImGui::PushID(int(k));
    // While the field is held (dragged or typed into) it shows the value being edited, which
    // the body takes only when it is let go: read from the body each frame, a drag moved the
    // value by one frame's motion and lost it the next, and letting go sent the old value.
    const bool editing = panel.editing == int(k);
    float density = editing ? panel.editing_density : body_density(b, dimensions);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 3.5f);
    ImGui::DragFloat("##density", &density, 5.0f, 50.0f, 20000.0f, "%.0f", ImGuiSliderFlags_AlwaysClamp);
    if (ImGui::IsItemActive()) {
      panel.editing = int(k);
      panel.editing_density = density;
    } else if (editing) {
      panel.editing = -1;
    }
    if (ImGui::IsItemDeactivatedAfterEdit()) panel.request = edit_request(BodyRequest::Density, k, density);
    note_widget(log, "body density " + std::to_string(k));
    tooltip("Drag or double-click to type: the body's density in kg/m^3 (water 1,000). It "
            "takes the new value when you let go.");
    ImGui::TableNextColumn();
    if (b.kinematic) ImGui::TextUnformatted("-");
    else ImGui::Text("%.3g", double(body_mass(b, dimensions).mass));  // (a scene's given mass, else from the density)
    tooltip(dimensions == 2 ? "Its mass per metre of depth (2D: the cut through the plane)." : "Its mass.");
    ImGui::TableNextColumn();
    const BodyWaterline line = k < panel.lines.size() ? panel.lines[k] : BodyWaterline{};
    if (!line.found) {
      ImGui::TextUnformatted("-");
      note_widget(log, "body no draft " + std::to_string(k));
      tooltip(water.particles ? "No water beside it." : "The water's positions stay on the GPU: not measured.");
    } else {
      ImGui::Text("%.3f", double(line.depth));
      char note[200];
      if (line.depth <= 0.0f)
        std::snprintf(note, sizeof(note), "Clear of the water: its lowest point %.3f m above the surface beside it.",
                      double(-line.depth));
      else if (line.depth < line.height)
        std::snprintf(note, sizeof(note), "Its draft: %.3f m of its %.3f m height under the water's surface "
                      "beside it (%.0f %%).", double(line.depth), double(line.height),
                      100.0 * double(line.depth / line.height));
      else
        std::snprintf(note, sizeof(note), "Wholly under water: its lowest point %.3f m and its top %.3f m under "
                      "the surface beside it.", double(line.depth), double(line.depth - line.height));
      note_widget(log, "body draft " + std::to_string(k));
      tooltip(note);
    }
    ImGui::TableNextColumn();
    // A body on an axle stays where it is and turns: its rate says how fast.
    if (b.axle >= 0 && b.axle < 3) {
      const Vec3 w = b.motion.angular_velocity;
      ImGui::Text("%.2f rad/s", double(b.axle == 0 ? w.x : b.axle == 1 ? w.y : w.z));
      tooltip("It turns on an axle through its centre: its rate about the axle.");
    } else {
      ImGui::Text("%.2f", double(length(b.motion.velocity)));
      tooltip("Its speed in m/s.");
    }
    ImGui::TableNextColumn();
    if (ImGui::SmallButton("x")) panel.request = edit_request(BodyRequest::Remove, k);
    note_widget(log, "body remove " + std::to_string(k));
    tooltip("Remove this body (Reset brings the scene's bodies back).");
    ImGui::PopID();
    if (held || b.kinematic) ImGui::PopStyleColor();
  }
  ImGui::EndTable();
  }
  // A new body above the water at the view's centre.
  const char* shapes = dimensions == 2 ? "disc\0rectangle\0stadium\0" : "sphere\0box\0capsule\0";
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.5f);
  ImGui::Combo("##shape", &panel.add_shape, shapes);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4.0f);
  ImGui::DragFloat("m##size", &panel.add_size, 0.005f, 0.02f, 1.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
  tooltip("Its size: a sphere's diameter, a box's side (half as tall), a capsule's length.");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4.0f);
  ImGui::DragFloat("kg/m^3##add", &panel.add_density, 5.0f, 50.0f, 20000.0f, "%.0f", ImGuiSliderFlags_AlwaysClamp);
  ImGui::SameLine();
  if (ImGui::Button("Add")) {
    BodyRequest r;
    r.kind = BodyRequest::Add;
    r.density = panel.add_density;
    const float d = panel.add_size;
    r.body.shape = panel.add_shape == 0 ? int(BodyShapeKind::Sphere)
                   : panel.add_shape == 2 ? int(BodyShapeKind::Capsule)
                                          : int(BodyShapeKind::Box);
    r.body.radius = panel.add_shape == 2 ? 0.25f * d : 0.5f * d;
    r.body.half_height = 0.25f * d;
    r.body.half_extent = Vec3{0.5f * d, 0.25f * d, 0.5f * d};
    r.body.density = panel.add_density;
    panel.request = r;
  }
  note_widget(log, "body add");
  tooltip("Drops a new body into the tank above the water at the view's centre.");
  if (dimensions == 3) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 13.0f);
    ImGui::InputText("##mesh", panel.mesh_file, sizeof(panel.mesh_file));
    note_widget(log, "mesh path");
    tooltip("An OBJ or PLY file: a closed triangle mesh, in metres (scale it otherwise), "
            "relative to the folder Tidepool was started in or to its assets.");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 3.5f);
    ImGui::DragFloat("scale", &panel.mesh_scale, 0.01f, 0.001f, 100.0f, "%.3g", ImGuiSliderFlags_AlwaysClamp);
    ImGui::Checkbox("Collider (held still)", &panel.mesh_collider);
    note_widget(log, "mesh collider");
    tooltip("A collider stays where it is put (a kinematic body), standing on the tank's floor "
            "at the view's centre: the water and the bodies meet it, nothing moves it. "
            "Otherwise the mesh is a body of the density above, dropped from above the water.");
    ImGui::SameLine();
    if (ImGui::Button("Load mesh")) {
      BodyRequest r;
      r.kind = BodyRequest::LoadMesh;
      r.mesh_file = panel.mesh_file;
      r.mesh_scale = panel.mesh_scale;
      r.kinematic = panel.mesh_collider;
      r.density = panel.add_density;
      panel.request = r;
    }
    note_widget(log, "mesh load");
  }
  if (!panel.status.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    colored_text(panel.status_is_note ? kNoteColor : kErrorColor, panel.status);
    ImGui::PopTextWrapPos();
  }
}

}  // namespace tp
