// A Dear ImGui context with no window and no GL: ImGui lays out and computes a frame
// without drawing it, so a test can place a simulated mouse and read where widgets went.
#pragma once

#include "imgui.h"

namespace tp::test {

// Creates the context (the caller destroys it) with a display of `width` x `height`, 60
// frames a second, no ini file, and the default font's atlas built.
inline void create_headless_imgui(float width, float height) {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(width, height);
  io.DeltaTime = 1.0f / 60.0f;
  io.IniFilename = nullptr;
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);  // builds the font atlas
}

}  // namespace tp::test
