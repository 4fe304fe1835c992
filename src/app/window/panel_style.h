// What the panel's source files share: the colours of its notes, a tooltip helper and
// counts with thousands separators.
// Needs imgui.h; for the panel's .cpp files only.
#pragma once

#include <cstdint>
#include <string>

#include "imgui.h"

namespace tp {

inline const ImVec4 kErrorColor(1.0f, 0.35f, 0.3f, 1.0f);  ///< something failed
inline const ImVec4 kNoteColor(1.0f, 0.8f, 0.3f, 1.0f);    ///< worth knowing (a clamp)
inline const ImVec4 kDoneColor(0.45f, 0.95f, 0.5f, 1.0f);  ///< something was saved

// 1234567 -> "1,234,567".
inline std::string with_thousands(uint64_t value) {
  std::string digits = std::to_string(value), out;
  for (size_t k = 0; k < digits.size(); ++k) {
    if (k > 0 && (digits.size() - k) % 3 == 0) out += ',';
    out += digits[k];
  }
  return out;
}

// A tooltip for the last item while the mouse is over it.
inline void tooltip(const char* text) {
  if (text && *text && ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 24.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

// Wrapped text in a colour.
inline void colored_text(const ImVec4& color, const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

}  // namespace tp
