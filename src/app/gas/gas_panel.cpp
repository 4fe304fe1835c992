#include "app/gas/gas_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/window/panel_style.h"
#include "imgui.h"
#include "sim/gas/gas_params.h"
#include "sim/scene/gas_scene.h"
#include "sim/backend/memory.h"

namespace tp {

namespace {

constexpr int kMinCells = 8, kMaxCells = 256, kMaxCells2D = 1024;

void statistics_section(GasPanelSim& sim, const FrameStats& frame, GasControls& controls) {
  const GasStats& st = sim.stats;
  ImGui::Text("%.1f FPS   %.2f ms per frame", frame.frames_per_second(), frame.ms_per_frame());
  ImGui::Text("Simulation: %.2fx real time", frame.simulation_speed());
  tooltip("Simulated seconds per wall second: 1.00 when the gas moves at its real speed. "
          "The simulation steps in the frame, with the longest step the time step allows "
          "(dt max and the CFL number, Parameters).");
  ImGui::Text("Steps per frame: %.1f   dt: %.3g ms", frame.steps_per_frame(), double(st.dt) * 1000.0);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  ImGui::TextWrapped("%s", sim.device.c_str());
  ImGui::PopStyleColor();
  const GasGrid& g = sim.grid;
  ImGui::Text("Grid: %dx%dx%d (%s), cell %.3g m", g.n.x, g.n.y, g.n.z, g.n.z == 1 ? "2D" : "3D", double(g.dx));
  const char* solver = sim.params.pressure_solver == int(GasPressureSolver::Jacobi) ? "Jacobi" : "MGPCG";
  ImGui::Text("%s: %d iterations, residual %.1e", solver, st.pressure_iterations, double(st.pressure_residual));
  tooltip("The last step's projection: the iterations it took and its relative residual "
          "(largest residual over the largest right-hand side). MGPCG stops at the tolerance; "
          "Jacobi runs its fixed count whatever is left.");
  ImGui::Text("Divergence: %.3g -> %.3g 1/s", double(st.divergence_before), double(st.divergence_after));
  tooltip("The largest |div u| over the fluid cells before and after the last projection: "
          "after it the gas should neither gather nor thin out anywhere.");
  ImGui::Text("Smoke: %.4g %s   max speed %.3g m/s", st.smoke_mass, g.n.z == 1 ? "m^2" : "m^3",
              double(st.max_speed));
  if (!frame.phase_ms().empty() && ImGui::TreeNode("Time per step")) {
    for (const auto& [name, ms] : frame.phase_ms()) ImGui::Text("%-10s %7.2f ms", name.c_str(), ms);
    ImGui::TreePop();
  }
  if (!controls.common.render_pass_times.empty() && ImGui::TreeNode("Time per frame (render)")) {
    for (const PassTime& t : controls.common.render_pass_times)
      ImGui::Text("%-18s GPU %6.2f  CPU %6.2f ms", t.pass.c_str(), t.gpu_ms, t.cpu_ms);
    ImGui::TreePop();
  }
}

void simulation_section(GasPanelSim& sim, const FrameStats& frame, GasControls& controls) {
  WindowControls& common = controls.common;
  if (ImGui::Button(common.paused ? "Resume" : "Pause")) common.paused = !common.paused;
  ImGui::SameLine();
  if (ImGui::Button("Step")) common.step_requested = true;
  ImGui::SameLine();
  if (ImGui::Button("Reset")) common.reset_requested = true;
  note_widget(common.widgets, "reset");
  ImGui::SameLine();
  screenshot_button(common);
  // Up to 256^3 cells in all: 256 along a 3D grid's longest side, more in the plane.
  const int most = sim.grid.n.z == 1 ? kMaxCells2D : kMaxCells;
  ImGui::SliderInt("Grid cells", &controls.cells, kMinCells, most, "%d", ImGuiSliderFlags_AlwaysClamp);
  note_widget(common.widgets, "grid cells");
  tooltip("Cells along the tank's longest side (the cells are cubes). Reset applies it: the "
          "gas starts again from the scene on the new grid, with the parameters kept.");
  const std::string text = gas_grid_text(sim.scene, controls.cells, sim.backend);
  if (controls.cells != controls.running_cells) {
    colored_text(kNoteColor, "Reset for " + text);
    // What a step would cost, from this grid's: the window steps in its frame, so a slow
    // grid is a slow window (it answers once a step).
    const double ms = estimated_step_ms(sim.scene, controls.cells, sim.grid, frame.ms_per_step());
    if (ms > 1000.0 / 30.0) {
      char line[200];
      std::snprintf(line, sizeof(line), "about %.0f ms a step here: %s", ms,
                    ms > kWindowLongestStepMs ? "too slow for the window, Reset refuses it (--cells N starts it)"
                    : ms > 250.0              ? "the window would answer only every step, slowly"
                                              : "slower than real time");
      colored_text(ms > 250.0 ? kErrorColor : kNoteColor, line);
    }
  } else {
    ImGui::TextDisabled("%s", text.c_str());
  }
  if (!common.reset_error.empty()) colored_text(kErrorColor, common.reset_error);
  // F8 here (sessions are the water's): where it is seen, not in the closed Files section.
  if (!common.files.session_status.empty()) {
    colored_text(kNoteColor, common.files.session_status);
    note_widget(common.widgets, "session status");
  }
  scene_rows(sim.scene, common.files, common.widgets);
}

void parameters_section(GasParams& p, GasControls& controls) {
  const GasParams before = p;
  bool changed = false;
  for (const GasParamInfo& info : gas_param_table()) changed |= param_widget(info, p);
  if (changed) controls.param_notes = clamp_gas_params(p, before);
  if (ImGui::Button("Restore start values")) {
    p = controls.start_params;
    controls.param_notes.clear();
  }
  tooltip("Every gas parameter back to its value at start (defaults, then the scene's, then --set).");
  for (const std::string& note : controls.param_notes) colored_text(kNoteColor, note);
}

void mouse_section(GasMouse& m) {
  const char* modes[] = {"push", "stir"};
  ImGui::Combo("Left drag", &m.mode, modes, 2);
  tooltip("push: the drag adds smoke (ink in 2D) around the cursor and carries the gas with "
          "it; holding still keeps adding. stir: it only carries the gas.");
  ImGui::SliderFloat("Radius##mouse", &m.radius, 0.01f, 0.5f, "%.3f m", ImGuiSliderFlags_AlwaysClamp);
  ImGui::SliderFloat("Smoke added", &m.amount, 0.0f, 50.0f, "%.1f /s", ImGuiSliderFlags_AlwaysClamp);
  tooltip("Density added per second at the cursor (push).");
  ImGui::SliderFloat("Strength##mouse", &m.strength, 0.0f, 5.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
  tooltip("The gas around the cursor is pulled toward this times the cursor's velocity.");
  ImGui::ColorEdit3("Colour", &m.color.x, ImGuiColorEditFlags_NoInputs);
}

void render_section(GasPanelSim& sim, RenderSettings& render, GasControls& controls) {
  GasShade& shade = controls.shade;
  const char* views[] = {"smoke", "speed", "vorticity"};
  ImGui::Combo("View", &shade.view, views, kGasViews);
  note_widget(controls.common.widgets, "view");
  tooltip("smoke: the smoke or ink as it looks. speed: |u| on a colour map. vorticity: the "
          "curl (2D: signed, red counter-clockwise, blue clockwise; 3D: its magnitude).");
  if (shade.view != kGasViewSmoke) {
    ImGui::Checkbox("Auto##range", &controls.auto_range);
    tooltip("The colour map's top follows the flow: the largest speed (speed view), or that "
            "speed over four cells (vorticity view). Off: the slider sets it.");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9.0f);
    if (controls.auto_range) ImGui::BeginDisabled();
    ImGui::SliderFloat("Map top", &shade.view_range, 0.01f, 1000.0f, shade.view == kGasViewSpeed ? "%.3g m/s" : "%.3g 1/s",
                       ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    if (controls.auto_range) ImGui::EndDisabled();
  }
  GasLook& look = render.gas;
  if (sim.grid.n.z > 1) {
    ImGui::SliderFloat("Density look", &look.extinction, 1.0f, 400.0f, "%.0f /m",
                       ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    tooltip("How much light a unit of smoke density stops per metre: higher, thicker smoke "
            "and darker shadows.");
    shade.extinction = look.extinction;  // the shadow follows what the eye sees
    // The sun as elevation and azimuth, turned into the direction toward it.
    float elevation = std::atan2(shade.sun.y, std::hypot(shade.sun.x, shade.sun.z)) * 57.29578f;
    float azimuth = std::atan2(shade.sun.z, shade.sun.x) * 57.29578f;
    bool sun = ImGui::SliderFloat("Sun height", &elevation, 10.0f, 90.0f, "%.0f deg", ImGuiSliderFlags_AlwaysClamp);
    sun |= ImGui::SliderFloat("Sun direction", &azimuth, -180.0f, 180.0f, "%.0f deg", ImGuiSliderFlags_AlwaysClamp);
    if (sun) {
      const float e = elevation / 57.29578f, a = azimuth / 57.29578f;
      shade.sun = Vec3{std::cos(e) * std::cos(a), std::sin(e), std::cos(e) * std::sin(a)};
    }
    ImGui::SliderFloat("Sunlight", &shade.sun_light, 0.0f, 3.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
    ImGui::SliderFloat("Skylight", &shade.ambient, 0.0f, 2.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
    ImGui::SliderFloat("Volume resolution", &look.volume_scale, 0.25f, 1.0f, "%.2f x window",
                       ImGuiSliderFlags_AlwaysClamp);
    tooltip("The ray-march's resolution per axis as a fraction of the window's (the smoke is "
            "soft: half costs a quarter and looks the same).");
    ImGui::SliderFloat("Ray step", &look.step_cells, 0.5f, 4.0f, "%.2f cells", ImGuiSliderFlags_AlwaysClamp);
  } else {
    ImGui::SliderFloat("Ink opacity", &look.plane_opacity, 0.1f, 20.0f, "%.2f", ImGuiSliderFlags_Logarithmic |
                       ImGuiSliderFlags_AlwaysClamp);
  }
  ImGui::Checkbox("Walls", &render.show_walls);
  if (ImGui::Button("Reload shaders (F5)")) controls.common.reload_shaders_requested = true;
  if (!controls.common.shader_error.empty()) colored_text(kErrorColor, controls.common.shader_error);
}

}  // namespace

double estimated_step_ms(const Scene& scene, int cells, const GasGrid& running, double ms_per_step) {
  if (!(ms_per_step > 0.0)) return 0.0;
  try {
    return ms_per_step * double(gas_setup(scene, cells).grid.cells()) / double(std::max(running.cells(), 1u));
  } catch (const std::exception&) {
    return 0.0;
  }
}

int most_cells_within(const Scene& scene, double ms, const GasGrid& running, double ms_per_step) {
  int lo = kMinCells, hi = kMaxCells2D;  // (the estimate grows with the cells: halve the range)
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    const double t = estimated_step_ms(scene, mid, running, ms_per_step);
    if (t > 0.0 && t <= ms) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

float auto_view_range(int view, float max_speed, float dx) {
  const float speed = std::max(max_speed, 1e-3f);
  return view == kGasViewVorticity ? speed / (4.0f * std::max(dx, 1e-6f)) : speed;
}

std::string gas_grid_text(const Scene& scene, int cells, BackendKind backend) {
  try {
    const GasGrid g = gas_setup(scene, cells).grid;
    char text[160];
    std::snprintf(text, sizeof(text), "%dx%dx%d cells (%s), %.0f MB", g.n.x, g.n.y, g.n.z,
                  g.n.z == 1 ? "2D" : "3D", double(gas_memory_bytes(g)) / 1e6);
    const uint64_t budget = memory_budget_bytes(backend);
    if (budget > 0 && gas_memory_bytes(g) > budget) return std::string(text) + ": more than this machine holds";
    return text;
  } catch (const std::exception& e) {
    return e.what();
  }
}

PanelExtent draw_gas_panel(GasPanelSim& sim, const FrameStats& frame, RenderSettings& render,
                           GasControls& controls) {
  PanelExtent extent;
  const std::string title =
      std::string("Tidepool: gas (") + (sim.grid.n.z == 1 ? "2D" : "3D") + ")###Tidepool";
  if (!begin_panel(title, &extent, controls.common.widgets)) return extent;
  if (ImGui::CollapsingHeader("Statistics", ImGuiTreeNodeFlags_DefaultOpen))
    statistics_section(sim, frame, controls);
  const bool simulation = ImGui::CollapsingHeader("Simulation", ImGuiTreeNodeFlags_DefaultOpen);
  note_widget(controls.common.widgets, "section Simulation");
  if (simulation) simulation_section(sim, frame, controls);
  if (ImGui::CollapsingHeader("Mouse", ImGuiTreeNodeFlags_DefaultOpen)) mouse_section(controls.mouse);
  if (ImGui::CollapsingHeader("Render", ImGuiTreeNodeFlags_DefaultOpen)) render_section(sim, render, controls);
  if (ImGui::CollapsingHeader("Parameters")) parameters_section(sim.params, controls);
  const bool files = ImGui::CollapsingHeader("Files");
  note_widget(controls.common.widgets, "files");
  if (files) {
    state_rows(controls.common.files, controls.common.widgets,
               "A file with the whole gas: the grid, every field, the obstacles, the time and the "
               "parameters. Loading it continues exactly where it was saved.");
    ImGui::Separator();
    video_rows(controls.common.files, controls.common.widgets);
  }
  end_panel();
  return extent;
}

void draw_gas_help(const GasControls& controls, bool obstacles, bool two_d) {
  const char* modes[] = {"push smoke", "stir"};
  const int m = std::clamp(controls.mouse.mode, 0, 1);
  char mouse[192];
  std::snprintf(mouse, sizeof(mouse), "%sLeft drag: %s   %s%s   Wheel: zoom", controls.common.paused ? "PAUSED   " : "",
                modes[m], obstacles ? "Ctrl+left drag: move obstacle   " : "",
                two_d ? "Right or middle drag: pan" : "Right drag: orbit   Middle drag: pan");
  help_overlay(mouse,
               "Space: pause   S: step   R: reset   V: view   F5: shaders   F9: video   F12: screenshot   Tab: hide panel   "
               "Esc: quit");
}

}  // namespace tp
