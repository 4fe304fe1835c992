// What the panel's source files share: the colours of its notes and a tooltip helper.
// Needs imgui.h; for the panel's .cpp files only.
#pragma once

#include <string>

#include "imgui.h"

namespace tp {

inline const ImVec4 kErrorColor(1.0f, 0.35f, 0.3f, 1.0f);  ///< something failed
inline const ImVec4 kNoteColor(1.0f, 0.8f, 0.3f, 1.0f);    ///< worth knowing (a clamp)
inline const ImVec4 kDoneColor(0.45f, 0.95f, 0.5f, 1.0f);  ///< something was saved

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
