#include "render/render_types.h"

#include <algorithm>
#include <cmath>

namespace tp {

namespace {
constexpr const char* kNames[kColorModeCount] = {"water", "speed",      "density",  "pressure",
                                                 "flat",  "neighbours", "vorticity", "density_error"};
}

const char* color_mode_name(ColorMode mode) {
  const int i = int(mode);
  return i >= 0 && i < kColorModeCount ? kNames[i] : "water";
}

bool parse_color_mode(const std::string& text, ColorMode* mode) {
  for (int i = 0; i < kColorModeCount; ++i) {
    if (text == kNames[i]) {
      *mode = ColorMode(i);
      return true;
    }
  }
  return false;
}

std::string color_mode_names() {
  std::string names;
  for (int i = 0; i < kColorModeCount; ++i) names += std::string(i ? ", " : "") + kNames[i];
  return names;
}

const char* render_mode_name(RenderMode mode) {
  return mode == RenderMode::Surface ? "surface" : mode == RenderMode::Mesh ? "mesh" : "spheres";
}

bool parse_render_mode(const std::string& text, RenderMode* mode) {
  for (int i = 0; i < kRenderModeCount; ++i) {
    if (text == render_mode_name(RenderMode(i))) {
      *mode = RenderMode(i);
      return true;
    }
  }
  return false;
}

glm::vec2 default_color_range(ColorMode mode, float pressure_scale) {
  switch (mode) {
    case ColorMode::Density:
      // WCSPH keeps density errors near 1 %; +-5 % shows them without saturating splashes.
      return {0.95f, 1.05f};
    case ColorMode::Pressure:
      return {0.0f, pressure_scale > 0.0f ? pressure_scale : 5000.0f};
    case ColorMode::Neighbors:
      // A full neighbourhood at h = 2 spacings: 26 on the lattice, about 28 in resting water.
      return {0.0f, 40.0f};
    case ColorMode::Vorticity:
      return {0.0f, 20.0f};
    case ColorMode::DensityError:
      // The solvers' tolerances are about 1 %: 2 % is red.
      return {0.0f, 2.0f};
    default:
      // Speeds of a stirred tank: a metre-scale dam break peaks around 3-4 m/s.
      return {0.0f, 2.5f};
  }
}

namespace {
// `value` clamped to [lo, hi]; NaN (which std::clamp passes through) becomes `fallback`.
float clamp_or(float value, float lo, float hi, float fallback) {
  return std::isnan(value) ? fallback : std::clamp(value, lo, hi);
}
}  // namespace

GasLook clamp_gas_look(const GasLook& look) {
  const GasLook defaults;
  GasLook out;
  out.extinction = clamp_or(look.extinction, 0.0f, 1e4f, defaults.extinction);
  out.plane_opacity = clamp_or(look.plane_opacity, 0.0f, 1e4f, defaults.plane_opacity);
  out.volume_scale = clamp_or(look.volume_scale, 0.25f, 1.0f, defaults.volume_scale);
  out.step_cells = clamp_or(look.step_cells, 0.5f, 4.0f, defaults.step_cells);
  return out;
}

}  // namespace tp
