#include "app/water/panel_debug.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/window/panel_style.h"
#include "render/grid_overlay_pass.h"
#include "imgui.h"

namespace tp {

namespace {

// The density error view's histogram, from the published values (the CPU path, which
// copies them; on CUDA they go straight into the GL buffer).
void density_error_histogram(const PanelSim& sim, const RenderSettings& render) {
  if (render.color_mode != ColorMode::DensityError) return;
  if (!sim.particles || sim.particles->empty()) {
    ImGui::TextDisabled("Histogram: the CPU backend's (here the values stay on the GPU).");
    return;
  }
  constexpr int kBins = 20;
  const float top = std::max(render.color_range.y, 1e-3f);
  float bins[kBins] = {};
  double sum = 0.0;
  float most = 0.0f;
  int above = 0;
  for (const Vec4& p : *sim.particles) {
    const float e = std::isfinite(p.w) ? std::max(p.w, 0.0f) : 0.0f;
    bins[std::min(int(e / top * kBins), kBins - 1)] += 1.0f;
    sum += e;
    most = std::max(most, e);
    above += e > 1.0f;
  }
  const size_t n = sim.particles->size();
  ImGui::PlotHistogram("##density_error", bins, kBins, 0, nullptr, 0.0f, FLT_MAX, ImVec2(0, 70));
  tooltip("Particles by density error, 0 to the range's top in 20 bins (the last holds all "
          "above).");
  ImGui::Text("0 .. %.2g %%: mean %.3f %%, max %.2f %%, %.1f %% of particles above 1 %%", top,
              sum / double(n), most, 100.0 * above / double(n));
}

// The grid overlay: the neighbour grid's occupied cells, coloured by their particles.
void grid_overlay_section(const PanelSim& sim, RenderSettings& render) {
  ImGui::Separator();
  ImGui::Checkbox("Grid cells", &render.grid_overlay);
  tooltip("The neighbour grid's cells that hold fluid particles, their edges drawn over the "
          "water (depth-tested: the cells at its surface and in splashes show) and coloured "
          "by the particles in each. A cell is h = 2 spacings wide, so a full one holds "
          "2 x 2 x 2 (2 x 2 in 2D). Each particle's neighbours are searched in its cell "
          "and the cells around it.");
  if (!render.grid_overlay) return;
  const int full = full_cell_count(sim.dimensions);
  const auto swatch = [](const char* id, const float* c) {
    ImGui::ColorButton(id, ImVec4(c[0], c[1], c[2], 1.0f),
                       ImGuiColorEditFlags_NoTooltip | ImGuiColorEditFlags_NoPicker,
                       ImVec2(ImGui::GetFontSize(), ImGui::GetFontSize()));
    ImGui::SameLine();
  };
  swatch("##sparse", GridOverlayPass::kSparse);
  ImGui::Text("1  ");
  ImGui::SameLine();
  swatch("##half", GridOverlayPass::kHalf);
  ImGui::Text("%d  ", full / 2);
  ImGui::SameLine();
  swatch("##full", GridOverlayPass::kFull);
  ImGui::Text("%d+ particles per cell", full);
  if (sim.particle_count > 0 && (!sim.particles || sim.particles->empty())) {
    ImGui::TextDisabled("Not drawn: the CPU backend's (here the positions stay on the GPU).");
    return;
  }
  if (!sim.grid) return;
  const GridOccupancy& g = *sim.grid;
  ImGui::Text("%s cells occupied, %.1f particles each on average, at most %d",
              with_thousands(g.occupied).c_str(), g.mean, g.most);
  if (g.cells.size() < g.occupied)
    ImGui::TextWrapped("Drawing the first %s (the cap), in the grid's order: x, then y, then "
                       "z from the tank's low z side.", with_thousands(g.cells.size()).c_str());
}

// The particle inspector's values (shift + left click on a particle).
void inspector_section(PanelSim& sim) {
  ParticleInspector* in = sim.inspector;
  if (!in) return;
  ImGui::Separator();
  ImGui::TextUnformatted("Particle inspector");
  if (!in->active) {
    ImGui::TextWrapped("Shift + left click on a particle to inspect it.");
    return;
  }
  ImGui::Text("particle %u", in->id);
  ImGui::Text("position %.3f %.3f %.3f m", in->position.x, in->position.y, in->position.z);
  ImGui::Text("velocity %.3f %.3f %.3f m/s (%.3f)", in->velocity.x, in->velocity.y, in->velocity.z,
              length(in->velocity));
  ImGui::Text("density %.1f kg/m^3, error %.2f %%", in->density, in->density_error);
  if (sim.params.solver == int(SolverKind::Pbf))
    ImGui::TextDisabled("pressure: none (PBF moves positions to the constraint)");
  else
    ImGui::Text("pressure %.1f Pa", in->pressure);
  ImGui::Text("neighbours %d (fluid, within h; highlighted)", in->neighbours);
  if (ImGui::Button("Stop inspecting")) in->active = false;
}

// The debug views: colourings that show what the solver sees (each also a `--color` mode
// and in the Render section's list). Choosing one draws spheres, which carry the colours.
}  // namespace

void debug_section(PanelSim& sim, RenderSettings& render) {
  struct View {
    ColorMode mode;
    const char* label;
    const char* help;
  };
  const View views[] = {
      {ColorMode::Water, "Off", "The water's own colours."},
      {ColorMode::Neighbors, "Neighbour count",
       "Fluid particles and wall samples within the kernel's reach h (viridis, 0 to 40): about "
       "28 inside resting water and next to walls; the free surface and splashes have fewer."},
      {ColorMode::Vorticity, "Vorticity",
       "|curl v| in 1/s (inferno, 0 to 20): where the water turns, shears along a wall or "
       "breaks."},
      {ColorMode::DensityError, "Density error",
       "Compression max(rho/rho0 - 1, 0) in % as the statistics measure it (grey at 0 to red "
       "at 2 %): where the solver has not reached its tolerance."},
  };
  for (const View& v : views) {
    const bool active = render.mode == RenderMode::Spheres && render.color_mode == v.mode;
    if (ImGui::RadioButton(v.label, active) && !active) {
      render.mode = RenderMode::Spheres;
      render.color_mode = v.mode;
      render.color_range = default_color_range(v.mode, pressure_scale(sim.params, sim.setup.scene));
    }
    tooltip(v.help);
  }
  ImGui::TextDisabled("Range and map: Render > Colour by.");
  density_error_histogram(sim, render);
  grid_overlay_section(sim, render);
  inspector_section(sim);
}

}  // namespace tp
