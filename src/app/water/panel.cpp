#include "app/water/panel.h"
#include "app/start/realtime_count.h"

#include <algorithm>
#include <cmath>
#include <cfloat>
#include <cstdio>
#include <cstring>

#include "app/water/panel_bodies.h"
#include "app/water/panel_debug.h"
#include "app/window/panel_style.h"
#include "imgui.h"
#include "sim/water/memory_need.h"
#include "sim/water/params.h"

namespace tp {

namespace {

// Panel section of a shared parameter, by name only, so that a new field shows up on its
// own (in "Other" until it is given a group here). Per-solver parameters go by their
// table tag instead (see param_section).
const char* shared_group_of(const std::string& name) {
  if (name == "solver") return nullptr;  // the solver combo lives in the Simulation section
  if (name.rfind("gravity", 0) == 0 || name == "rest_density" || name == "viscosity")
    return "Fluid";
  if (name == "cfl" || name.rfind("dt_", 0) == 0) return "Time step";
  if (name.rfind("mouse_", 0) == 0) return "Mouse";
  if (name.rfind("wall_", 0) == 0 || name == "adhesion") return "Walls";
  if (name == "surface_tension") return "Fluid";
  if (name == "diffuse" || name.rfind("diffuse_", 0) == 0) return kDiffuseSection;
  return "Other";
}

// "1/2/3/4: WCSPH/PCISPH/PBF/DFSPH": the number keys pick the solvers in their list's order.
std::string solver_keys_help() {
  std::string numbers, labels;
  const int count = std::min(int(solver_names().size()), 9);
  for (int k = 0; k < count; ++k) {
    numbers += (k ? "/" : "") + std::to_string(k + 1);
    labels += std::string(k ? "/" : "") + solver_label(k);
  }
  return numbers + ": " + labels;
}

}  // namespace

const char* solver_label(int kind) {
  static const char* const labels[] = {
#define TP_SOLVER_LABEL(type, name, label) label,
      TP_SOLVERS(TP_SOLVER_LABEL)
#undef TP_SOLVER_LABEL
  };
  constexpr int count = int(sizeof(labels) / sizeof(labels[0]));
  return kind >= 0 && kind < count ? labels[kind] : "?";
}

const char* param_section(const ParamInfo& info, int active_solver) {
  // A solver's own parameters mean nothing to the others: they are shown only while it
  // runs, under its name, so the panel never offers a knob that does nothing.
  if (info.solver >= 0) return info.solver == active_solver ? solver_label(info.solver) : nullptr;
  return shared_group_of(info.name);
}

// The resolution of the surface's passes: automatic or fixed, and the scale in use.
void surface_resolution(SurfaceSettings& surface, float current) {
  // Switched off, it stays where the automatic choice had it: no jump in the picture.
  if (ImGui::Checkbox("Auto resolution", &surface.auto_scale) && !surface.auto_scale)
    surface.fixed_scale = current;
  tooltip(
      "The surface's passes are drawn at a fraction of the window's resolution, then "
      "brought back to it with its outline kept sharp. On: that fraction drops (to half "
      "the window at least) while the frames take too long and comes back when they "
      "have room. Off: the slider below fixes it.");
  if (!surface.auto_scale) {
    ImGui::SliderFloat("Resolution", &surface.fixed_scale, kMinSurfaceScale, 1.0f, "%.2f x window",
                       ImGuiSliderFlags_AlwaysClamp);
    tooltip(
        "The surface's resolution per axis as a fraction of the window's: 1 full, 0.5 "
        "a quarter of the pixels to smooth and shade.");
  }
  ImGui::Text("Surface resolution now: %.2f x window", current);
}

namespace {


// One line under the speed, always there (so that nothing below it moves): whether the
// simulation keeps real time, and when it falls below 0.9x (hidden again above 0.97x, no
// flicker at the edge) the particle count at which it would, with a button that resets to it.
void realtime_line(PanelSim& sim, const FrameStats& frame, AppControls& controls) {
  const double speed = frame.simulation_speed();
  const bool running = !controls.paused && !controls.lockstep && frame.steps_per_frame() > 0.0;
  controls.behind_shown = running && speed > 0.0 && speed < (controls.behind_shown ? 0.97 : 0.9);
  const uint64_t suggestion =
      controls.behind_shown ? realtime_particle_suggestion(speed, sim.particle_count, sim.dimensions) : 0;
  if (suggestion == 0) {
    ImGui::TextDisabled("%s", controls.lockstep ? "Lockstep (--steps-per-frame): no clock"
                              : controls.paused ? "Paused"
                              : running         ? "Keeps real time"
                                                : "");
    return;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, kNoteColor);
  ImGui::Text("About %s would keep real time", with_thousands(suggestion).c_str());
  ImGui::PopStyleColor();
  tooltip((std::string(solver_label(sim.params.solver)) + " runs slower than real time with " +
           with_thousands(sim.particle_count) + " particles" +
           (sim.params.solver == int(SolverKind::Wcsph) ? " (its steps are small)" : "") +
           ". With about " + with_thousands(suggestion) +
           " it would keep real time (the cost of a simulated second grows as the count to the "
           "power 4/3; 10 % to spare). Reset resets the scene with that count.")
              .c_str());
  ImGui::SameLine();
  if (ImGui::SmallButton("Reset")) {
    controls.particle_target = int(suggestion);
    controls.reset_requested = true;
  }
}

std::string format_percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", 100.0 * fraction);
  return text;
}

// Beside the real-time ratio, always there: how far the running settings are from the
// accurate water (docs/realtime.md, "Fidelity"; the density error is further down).
void fidelity_line(const PanelSim& sim) {
  const SimParams& p = sim.params;
  // (Spray on or off changes nothing of the water: its keys are left out.)
  if (matches_quality(p, Quality::Accurate, sim.backend, sim.dimensions, true)) {
    ImGui::TextDisabled("Water: accurate");
    tooltip("The accurate quality's settings for this solver: the ones every validation "
            "test runs (docs/realtime.md).");
    return;
  }
  const QualityFidelity f = realtime_fidelity(p.solver, sim.dimensions);
  const bool realtime = matches_quality(p, Quality::Realtime, sim.backend, sim.dimensions, true);
  if (realtime && !f.measured) {
    ImGui::TextDisabled("Water: the realtime quality, not measured%s", sim.dimensions == 2 ? " in 2D" : "");
    tooltip("The realtime quality's settings, unedited; their fidelity to the accurate water is "
            "measured on the 3D dam break only (docs/realtime.md, \"Fidelity\").");
    return;
  }
  if (!f.measured || !realtime) {
    ImGui::TextDisabled("Water: edited settings, not measured");
    tooltip("These time step and iteration settings have not been measured against the "
            "accurate water. bench/realtime_fidelity.cpp (tp_bench_fidelity) measures any "
            "settings on the default dam break: docs/realtime.md, \"Fidelity\".");
    return;
  }
  ImGui::TextDisabled("Water: the accurate water within %.1f %%",
                      100.0 * std::max(f.front, f.height));
  tooltip(("The realtime quality's " + std::string(solver_label(p.solver)) +
           " against the accurate quality's, on the default dam break at 8,000 particles: "
           "the surge front within " + format_percent(f.front) + " and the water's height at "
           "the left wall within " + format_percent(f.height) + " (RMS over the first second), "
           "mean density error " + format_percent(f.mean_error) + ", the worst particle " +
           format_percent(f.max_error) + " compressed. docs/realtime.md has the table.")
              .c_str());
}

void statistics_section(PanelSim& sim, const RunStats& stats, const FrameStats& frame,
                        AppControls& controls) {
  const SimSetup& setup = sim.setup;
  ImGui::Text("%.1f FPS   %.2f ms per frame", frame.frames_per_second(), frame.ms_per_frame());
  ImGui::Text("Simulation: %.2fx real time, %.0f states/s", frame.simulation_speed(),
              frame.states_per_second());
  tooltip("Simulated seconds per wall second (1.00: the water moves at its real speed; the "
          "simulation never runs ahead of the clock), and the distinct simulation states "
          "drawn per second. The simulation steps on its own thread: the frame rate above "
          "is the display's.");
  realtime_line(sim, frame, controls);
  fidelity_line(sim);
  ImGui::Text("Steps per frame: %.1f   dt: %.3g ms", frame.steps_per_frame(),
              stats.last_dt * 1000.0);
  ImGui::Text("Particles: %s fluid, %s boundary%s", with_thousands(sim.particle_count).c_str(),
              with_thousands(sim.boundary_count).c_str(), sim.dimensions == 2 ? "   2D" : "");
  if (sim.dimensions == 2)
    tooltip("A 2D simulation: the water moves in the plane z = const, seen square-on; the "
            "particles are drawn as discs. Right or middle drag pans, the wheel zooms about "
            "the cursor (docs/2d.md).");
  if (!setup.count_note.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextWrapped("%s", setup.count_note.c_str());
    ImGui::PopStyleColor();
    tooltip("At the realtime quality the window sizes the water to this machine: a short "
            "measurement of the step's cost before it opened. Reset with another count below "
            "(or --particles N) to change it.");
  }
  if (!setup.scene.emitters.empty() || !setup.scene.outflows.empty()) {
    ImGui::TextUnformatted(flow_counts_text(stats).c_str());
    tooltip("Fluid particles the emitters added and the outflows removed since the last "
            "reset. Emitted particles get new ids; removed ones leave gaps.");
  }
  if (stats.emitters_paused)
    colored_text(kNoteColor,
                 "Emitters paused: the scene's particle limit (max_particles) is reached; they "
                 "go on when outflows make room.");
  ImGui::Text("Density error: %.2f %% now, %.2f %% mean", stats.last_density_error * 100.0,
              stats.density_error_mean * 100.0);
  ImGui::Text("Max speed: %.2f m/s now, %.2f m/s since reset", stats.last_max_speed,
              stats.max_speed);
  // What the active solver is doing to hold the density: WCSPH only says when it had to
  // raise its stiffness (the statistic is stale under the other solvers); the iterative
  // solvers show their work per step, which is what their parameters trade against.
  const int solver = sim.params.solver;
  if (solver == int(SolverKind::Wcsph)) {
    if (stats.stiffness_in_use > 1.001 * double(sim.params.stiffness)) {
      ImGui::PushStyleColor(ImGuiCol_Text, kNoteColor);
      ImGui::TextWrapped("Stiffness in use: %.3g Pa (raised to keep the flow subsonic)",
                         stats.stiffness_in_use);
      ImGui::PopStyleColor();
    }
  } else {
    ImGui::Text("Iterations: %d (error %.2f %%), mean %.1f", stats.last_iterations,
                stats.last_solver_error * 100.0, stats.mean_iterations);
    tooltip(
        "Iterations of the last step (PCISPH: pressure corrections, PBF: constraint "
        "projections) and the mean predicted compression they reached; the mean is over "
        "the PCISPH and PBF steps since the last reset.");
  }
  if (!stats.guard_note.empty()) {  // the NaN guard (src/sim/water/step_guard.h)
    ImGui::PushStyleColor(ImGuiCol_Text, kErrorColor);
    ImGui::TextWrapped("%s", stats.guard_note.c_str());
    if (stats.nonfinite_steps > 1)
      ImGui::TextWrapped("%llu steps so far were taken again at a smaller time step",
                         static_cast<unsigned long long>(stats.nonfinite_steps));
    ImGui::PopStyleColor();
  }
  ImGui::TextWrapped("%s", setup.backend_message.c_str());
  ImGui::TextWrapped("Device: %s", sim.device.c_str());
  if (!frame.phase_ms().empty() && ImGui::TreeNodeEx("Phases", ImGuiTreeNodeFlags_DefaultOpen)) {
    if (ImGui::BeginTable("phases", 2, ImGuiTableFlags_SizingStretchProp)) {
      for (const auto& [name, ms] : frame.phase_ms()) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(name.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%.3f ms", ms);
      }
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted("step");
      ImGui::TableNextColumn();
      ImGui::Text("%.3f ms", frame.ms_per_step());
      ImGui::EndTable();
      // Room for 7 rows (PBF's 6 and the density that recorded frames add; WCSPH's and
      // PCISPH's 7), or as many as it has held (DFSPH's 8): the widgets below stay put when
      // rows come and go. (Every row held in reserve is a row less above the fold.)
      constexpr size_t kPhaseRows = 7;
      const size_t missing = std::max(frame.most_phase_rows(), kPhaseRows) - frame.phase_ms().size();
      // (less the spacing the Dummy adds after itself, which a row does not)
      if (missing > 0)
        ImGui::Dummy(ImVec2(1.0f, float(missing) * (ImGui::GetTextLineHeight() + 2.0f * ImGui::GetStyle().CellPadding.y) -
                                      ImGui::GetStyle().ItemSpacing.y));
    }
    ImGui::TreePop();
  }
}

void simulation_section(PanelSim& sim, AppControls& controls) {
  if (ImGui::Button(controls.paused ? "Resume" : "Pause")) controls.paused = !controls.paused;
  ImGui::SameLine();
  if (ImGui::Button("Step")) controls.step_requested = true;
  ImGui::SameLine();
  if (ImGui::Button("Reset")) controls.reset_requested = true;
  ImGui::SameLine();
  screenshot_button(controls);

  // The solver and the quality on one line (the panel's height is precious: everything
  // below must stay above an 800-pixel window's fold).
  const float combo_width = ImGui::GetFontSize() * 6.0f;
  if (const ParamInfo* solver = find_param("solver")) {
    SimParams& p = sim.params;
    const SimParams before = p;
    ImGui::SetNextItemWidth(combo_width);
    if (param_widget(*solver, p)) controls.param_notes = clamp_params(p, before);
    ImGui::SameLine();
  }
  ImGui::SetNextItemWidth(combo_width);
  if (ImGui::BeginCombo("Quality", quality_name(controls.quality))) {
    for (const Quality q : {Quality::Realtime, Quality::Accurate}) {
      if (ImGui::Selectable(quality_name(q), q == controls.quality)) {
        controls.quality = q;
        controls.quality_chosen = true;  // applied even when it is the same one again
      }
      note_widget(controls.widgets, std::string("quality:") + quality_name(q));
    }
    ImGui::EndCombo();
  }
  note_widget(controls.widgets, "quality");
  tooltip("realtime: the clock first. PBF with 3 iterations (warm-started, the last one "
          "damped) and steps of a 60 Hz frame, PCISPH and DFSPH with steps of a frame, spray "
          "and foam off on the CPU, and a particle count measured to keep real time. accurate: each solver's paper-grade settings (the "
          "ones the validation tests run); it may run slower than real time. Switching keeps "
          "the water; it sets the time step, iterations and spray for the running solver, "
          "and again when you switch solver.");
  if (!matches_quality(sim.params, controls.quality, sim.backend, sim.dimensions)) {
    ImGui::SameLine();
    ImGui::TextDisabled("*");
    tooltip("Edited: the time step, iteration or spray settings differ from this quality's "
            "preset for the running solver (a --set, a scene's or a preset's value, or the "
            "sliders). Choosing the quality again, or another solver, applies the preset.");
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9.0f);
  ImGui::InputInt("##particles", &controls.particle_target, 1000, 10000);
  if (controls.particle_target < 1) controls.particle_target = 1;
  ImGui::SameLine();
  if (ImGui::Button("Reset with this count")) controls.reset_requested = true;
  tooltip("Rebuilds the scene with about this many fluid particles (parameters are kept).");
  if (!controls.reset_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kErrorColor);
    ImGui::TextWrapped("%s", controls.reset_error.c_str());
    ImGui::PopStyleColor();
  }  scene_rows(sim.setup.scene, controls.files, controls.widgets);
}

}  // namespace

// Whether a note of clamp_params ("gravity_y: -1e+09 is below the minimum; ...") is about
// parameter `name`.
static bool note_names_param(const std::string& note, const char* name) {
  const size_t n = std::strlen(name);
  return note.size() > n && note.compare(0, n, name) == 0 && note[n] == ':';
}

static void param_note(const std::string& note) {
  ImGui::PushStyleColor(ImGuiCol_Text, kNoteColor);
  ImGui::TextWrapped("%s", note.c_str());
  ImGui::PopStyleColor();
}

void parameters_section(SimParams& p, AppControls& controls) {
  // The active solver's section sits between the fluid and the time step, where the
  // WCSPH constants always were.
  const int solver = p.solver;
  const char* groups[] = {"Fluid", solver_label(solver), "Time step", "Walls", "Mouse", "Other"};
  const SimParams before = p;  // what a NaN or infinity typed into a slider goes back to
  bool changed = false;
  for (const char* group : groups) {
    const auto in_group = [&](const ParamInfo& info) {
      const char* section = param_section(info, solver);
      return section && std::strcmp(section, group) == 0;
    };
    bool any = false;
    for (const ParamInfo& info : param_table()) any |= in_group(info);
    if (!any) continue;
    ImGui::Separator();
    ImGui::TextDisabled("%s", group);
    for (const ParamInfo& info : param_table()) {
      if (!in_group(info)) continue;
      changed |= param_widget(info, p);
      // A value clamped says so under its own slider, where the eye is (at the section's
      // foot, below Restore start values, it was out of sight while typing).
      for (const std::string& note : controls.param_notes)
        if (note_names_param(note, info.name)) param_note(note);
    }
  }
  if (changed) controls.param_notes = clamp_params(p, before);
  if (ImGui::Button("Restore start values")) {
    // Keep the mouse settings and the solver: they are the user's choices, not the
    // fluid's, and the values restored include the active solver's own.
    const SimParams old = p;
    p = controls.start_params;
    p.solver = old.solver;
    p.mouse_mode = old.mouse_mode;
    p.mouse_radius = old.mouse_radius;
    p.mouse_strength = old.mouse_strength;
    controls.param_notes.clear();
  }
  tooltip(
      "Every fluid parameter back to its value at start (defaults, then the scene's "
      "values, then --set). The solver and the mouse settings stay as they are.");
  for (const std::string& note : controls.param_notes) {
    if (note.rfind("diffuse", 0) == 0) continue;  // shown in the Spray and foam section
    bool placed = false;  // under its slider, above
    for (const ParamInfo& info : param_table())
      placed |= note_names_param(note, info.name) && param_section(info, solver) != nullptr;
    if (!placed) param_note(note);
  }
}

namespace {

void render_color_settings(PanelSim& sim, RenderSettings& render);

void surface_settings(SurfaceSettings& surface) {
  ImGui::SliderFloat("Filter size", &surface.filter_size, 0.5f, 12.0f, "%.1f radii");
  tooltip("Radius of the depth smoothing on the water, in particle radii; it shrinks on "
          "screen with distance. Larger: smoother, rounder water.");
  ImGui::SliderFloat("Thickness scale", &surface.thickness_scale, 0.1f, 4.0f, "%.2f x");
  tooltip("Multiplies the water's thickness for absorption and refraction.");
  ImGui::DragFloat3("Absorption", &surface.absorption.x, 0.02f, 0.0f, 20.0f, "%.2f");
  tooltip("Beer-Lambert absorption per metre of water, red, green, blue: the colour it "
          "takes away. The default absorbs red most, so deep water looks blue-green.");
  ImGui::SliderFloat("Reflectivity", &surface.reflectivity, 0.0f, 3.0f, "%.2f x");
  tooltip("Multiplies the Fresnel reflection of the sky.");
  ImGui::SliderFloat("Refraction", &surface.refraction, 0.0f, 3.0f, "%.2f");
  tooltip("How strongly the water bends the view of what lies behind it: 0 not at all, 1 as "
          "water does (index 1.33), more exaggerates it.");
}

void mesh_settings(AppControls& controls) {
  MeshSettings& m = controls.mesh;
  ImGui::Checkbox("Anisotropic kernels", &m.anisotropic);
  tooltip("Yu & Turk 2013: each particle's kernel stretched along its neighbourhood, which "
          "flattens the surface and sharpens its edges (about twice the time of spheres).");
  ImGui::SliderFloat("Mesh cell", &m.cell, 0.25f, 2.0f, "%.2f spacings");
  tooltip("The marching-cubes lattice's cell in particle spacings: smaller is finer and "
          "slower (half the cell, 8 times the work).");
  ImGui::SliderFloat("Iso level", &m.iso, 0.1f, 0.9f, "%.2f");
  tooltip("Where the surface lies, as a level of the water's field (1 inside water at rest): "
          "lower makes the water fatter, higher thinner. 0.5 keeps its volume.");
  if (!controls.mesh_status.empty()) {
    if (controls.mesh_failed) ImGui::PushStyleColor(ImGuiCol_Text, kErrorColor);
    ImGui::TextWrapped("%s", controls.mesh_status.c_str());
    if (controls.mesh_failed) ImGui::PopStyleColor();
  }
}

void render_section(PanelSim& sim, RenderSettings& render, AppControls& controls) {
  const bool two_d = sim.dimensions == 2;
  if (ImGui::BeginCombo("Draw as", render_mode_name(render.mode))) {
    for (int k = 0; k < kRenderModeCount; ++k) {
      // 2D: no mesh (marching cubes needs water with a depth): greyed out.
      const ImGuiSelectableFlags flags =
          two_d && RenderMode(k) == RenderMode::Mesh ? ImGuiSelectableFlags_Disabled : 0;
      if (ImGui::Selectable(render_mode_name(RenderMode(k)), k == int(render.mode), flags))
        render.mode = RenderMode(k);
    }
    ImGui::EndCombo();
  }
  tooltip(two_d ? "spheres: one disc per particle, coloured by a quantity. surface: the water, "
                  "smoothed from the particles, with refraction and reflection. mesh: not in "
                  "2D (a surface built by marching cubes needs water with a depth)."
                : "spheres: one ball per particle, coloured by a quantity. surface: the water's "
                  "surface, smoothed from the particles, with refraction and reflection. mesh: a "
                  "triangle surface built from the particles each displayed step (marching cubes, "
                  "docs/mesh.md), shaded as the surface.");
  if (render.mode == RenderMode::Mesh) mesh_settings(controls);
  if (render.mode == RenderMode::Surface || render.mode == RenderMode::Mesh) {
    surface_settings(render.surface);
    if (render.mode == RenderMode::Surface) {
      ImGui::Checkbox("Anisotropic particles", &render.surface.anisotropic);
      tooltip("On: each particle is drawn as an ellipsoid stretched along its neighbourhood "
              "(the mesh's Yu & Turk kernels): flat water looks flat and thin sheets thin. "
              "Off: spheres, cheaper (no kernels to build each frame), bumpier.");
      surface_resolution(render.surface, controls.surface_scale);
    }
  }
  if (render.mode == RenderMode::Spheres) render_color_settings(sim, render);
  ImGui::SliderFloat("Particle size", &render.size_scale, 0.2f, 2.0f, "%.2f x");
  tooltip("Drawn sphere radius as a multiple of half the particle spacing.");
  ImGui::SliderFloat("Spray and foam size", &render.diffuse_size, 0.1f, 1.5f, "%.2f radii");
  tooltip("Radius of the spray, foam and bubble sprites in particle radii (half the particle "
          "spacing). Sprites smaller than a pixel or so are drawn at that size, fainter.");
  ImGui::ColorEdit3("Background", &render.background.x);
  ImGui::Checkbox("Tank walls", &render.show_walls);
  if (ImGui::Button("Reload shaders (F5)")) controls.reload_shaders_requested = true;
  if (!controls.shader_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kErrorColor);
    ImGui::TextWrapped("%s", controls.shader_error.c_str());
    ImGui::PopStyleColor();
  }
  if (!controls.render_pass_times.empty() &&
      ImGui::TreeNodeEx("Time per pass", ImGuiTreeNodeFlags_DefaultOpen)) {
    tooltip("GPU: time the pass runs on the GPU (timer queries, a few frames late). CPU: "
            "time this thread spends issuing its GL calls.");
    if (ImGui::BeginTable("passes", 3, ImGuiTableFlags_SizingStretchProp)) {
      ImGui::TableSetupColumn("pass");
      ImGui::TableSetupColumn("GPU");
      ImGui::TableSetupColumn("CPU");
      ImGui::TableHeadersRow();
      for (const PassTime& t : controls.render_pass_times) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(t.pass.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%.2f ms", t.gpu_ms);
        ImGui::TableNextColumn();
        ImGui::Text("%.2f ms", t.cpu_ms);
      }
      ImGui::EndTable();
    }
    ImGui::TreePop();
  }
}

void render_color_settings(PanelSim& sim, RenderSettings& render) {
  int mode = int(render.color_mode);
  if (ImGui::BeginCombo("Colour by", color_mode_name(render.color_mode))) {
    for (int k = 0; k < kColorModeCount; ++k) {
      if (ImGui::Selectable(color_mode_name(ColorMode(k)), k == mode)) {
        render.color_mode = ColorMode(k);
        render.color_range = default_color_range(render.color_mode, pressure_scale(sim.params, sim.setup.scene));
      }
    }
    ImGui::EndCombo();
  }
  if (render.color_mode == ColorMode::Pressure && sim.params.solver == int(SolverKind::Pbf)) {
    // (A user saw one flat colour and no reason.)
    ImGui::PushStyleColor(ImGuiCol_Text, kNoteColor);
    ImGui::TextWrapped("PBF has no pressure (it moves positions to the constraint): one flat colour. "
                       "density or density_error show its compression.");
    ImGui::PopStyleColor();
  }
  const char* units[kColorModeCount] = {"m/s", "m/s", "rho/rho0", "Pa", "", "neighbours", "1/s", "%"};
  if (render.color_mode != ColorMode::Flat) {
    ImGui::InputFloat2("Range", &render.color_range.x, "%g");
    tooltip("Values mapped to the two ends of the colour map.");
    ImGui::SameLine();
    ImGui::TextDisabled("%s", units[int(render.color_mode)]);
    if (ImGui::Button("Default range"))
      render.color_range = default_color_range(render.color_mode, pressure_scale(sim.params, sim.setup.scene));
  } else {
    ImGui::ColorEdit3("Colour", &render.flat_color.x);
  }
}

}  // namespace

std::string diffuse_counts_text(const DiffuseCounts& counts) {
  std::string text = "Spray " + with_thousands(counts.spray) + "  Foam " +
                     with_thousands(counts.foam) + "  Bubbles " + with_thousands(counts.bubbles);
  if (counts.capacity > 0) text += "  of " + with_thousands(counts.capacity);
  return text;
}

void diffuse_section(SimParams& p, const DiffuseCounts& counts, AppControls& controls,
                     BackendKind backend) {
  const int previous_cap = p.diffuse_cap;
  const SimParams before = p;
  bool on = p.diffuse != 0;
  if (ImGui::Checkbox("Spray, foam and bubbles", &on)) p.diffuse = on ? 1 : 0;
  if (const ParamInfo* info = find_param("diffuse")) tooltip(info->help);
  ImGui::TextWrapped("%s", diffuse_counts_text(counts).c_str());
  tooltip("Diffuse particles alive now, by kind, and the most there can be (the cap). "
          "Spray flies in the air, foam floats on the surface, bubbles rise under it.");
  bool changed = false;
  for (const ParamInfo& info : param_table()) {
    const char* section = param_section(info, p.solver);
    const bool switch_itself = info.integer == &SimParams::diffuse;  // the checkbox above
    if (section && std::strcmp(section, kDiffuseSection) == 0 && !switch_itself)
      changed |= param_widget(info, p);
  }
  if (changed) {
    controls.param_notes = clamp_params(p, before);
    // A cap raised beyond the memory goes back, with the reason.
    const std::string note = keep_diffuse_cap_in_memory(p, previous_cap, backend);
    if (!note.empty()) controls.param_notes.push_back(note);
  }
  for (const std::string& note : controls.param_notes) {
    if (note.rfind("diffuse", 0) != 0) continue;  // the others show under Parameters
    ImGui::PushStyleColor(ImGuiCol_Text, kNoteColor);
    ImGui::TextWrapped("%s", note.c_str());
    ImGui::PopStyleColor();
  }
}

uint64_t realtime_particle_suggestion(double speed, uint64_t particles, int dimensions) {
  if (!(speed > 0.0) || speed >= 1.0 || particles == 0) return 0;
  const double count = 0.9 * double(particles) * std::pow(speed, count_exponent(dimensions));
  return std::max<uint64_t>(100, uint64_t(std::llround(count / 100.0)) * 100);
}

std::string flow_counts_text(const RunStats& stats) {
  return "Emitted " + with_thousands(stats.emitted) + ", removed " + with_thousands(stats.removed);
}

PanelExtent draw_panel(PanelSim& sim, const RunStats& stats, const FrameStats& frame,
                       RenderSettings& render, AppControls& controls) {
  // The title names the active solver, so it shows even with the panel collapsed or
  // scrolled; "###" keeps the window's identity (position, size) across the switch.
  PanelExtent extent;
  if (!begin_panel(std::string("Tidepool: ") + solver_label(sim.params.solver) +
                       (sim.dimensions == 2 ? " (2D)" : "") + "###Tidepool",
                   &extent, controls.widgets))
    return extent;
  if (ImGui::CollapsingHeader("Statistics", ImGuiTreeNodeFlags_DefaultOpen))
    statistics_section(sim, stats, frame, controls);
  const bool simulation = ImGui::CollapsingHeader("Simulation", ImGuiTreeNodeFlags_DefaultOpen);
  note_widget(controls.widgets, "section Simulation");
  if (simulation) simulation_section(sim, controls);
  // The rigid bodies (held by ctrl + left drag), open when the scene has any; adding one
  // and loading a mesh are there too.
  const bool bodies =
      sim.bodies && ImGui::CollapsingHeader("Bodies", sim.bodies->empty() ? 0 : ImGuiTreeNodeFlags_DefaultOpen);
  if (sim.bodies) note_widget(controls.widgets, "section Bodies");
  if (bodies)
    bodies_section(*sim.bodies, sim.grabbed_body, sim.dimensions,
                   BodyWater{sim.particles && !sim.particles->empty() ? sim.particles->data() : nullptr,
                             sim.particles ? sim.particles->size() : 0, sim.setup.spacing},
                   controls.bodies_panel, controls.widgets);
  if (ImGui::CollapsingHeader("Files", ImGuiTreeNodeFlags_DefaultOpen))
    files_section(controls.files, controls.widgets);
  if (ImGui::CollapsingHeader("Parameters", ImGuiTreeNodeFlags_DefaultOpen))
    parameters_section(sim.params, controls);
  if (ImGui::CollapsingHeader(kDiffuseSection))
    diffuse_section(sim.params, stats.diffuse, controls, sim.backend);
  if (ImGui::CollapsingHeader("Render")) render_section(sim, render, controls);
  // Open when a debug colouring starts the window, and whenever a particle is picked.
  const bool debug_color = int(render.color_mode) >= int(ColorMode::Neighbors);
  if (debug_color || render.grid_overlay) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
  if (sim.inspector && sim.inspector->just_picked) {
    ImGui::SetNextItemOpen(true, ImGuiCond_Always);
    sim.inspector->just_picked = false;
  }
  if (ImGui::CollapsingHeader("Debug views")) debug_section(sim, render);
  end_panel();
  return extent;
}

void draw_help_overlay(const AppControls& controls, const SimParams& params, int dimensions) {
  const char* modes[] = {"push", "pull", "drag"};
  const int m = params.mouse_mode;
  char mouse[256], keys[256];
  std::snprintf(mouse, sizeof(mouse), "%sLeft drag: %s water   %s%s   Wheel: zoom",
                controls.paused ? "PAUSED   " : "", m >= 0 && m < 3 ? modes[m] : "move",
                controls.obstacles && controls.bodies ? "Ctrl+left drag: move obstacle or body   Shift+click: inspect   "
                : controls.obstacles                  ? "Ctrl+left drag: move obstacle   Shift+click: inspect   "
                : controls.bodies                     ? "Ctrl+left drag: grab body   Shift+click: inspect   "
                                                      : "Shift+click: inspect   ",
                dimensions == 2 ? "Right or middle drag: pan" : "Right drag: orbit   Middle drag: pan");
  std::snprintf(keys, sizeof(keys),
                "Space: pause   S: step   R: reset   %s   V: draw as   F5: shaders   F9: video   "
                "F12: screenshot   Tab: hide panel   Esc: quit",
                solver_keys_help().c_str());
  help_overlay(mouse, keys);
}

}  // namespace tp
