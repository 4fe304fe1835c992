// Saving the frame on screen as a PNG.
#pragma once

#include <string>

namespace tp {

// Reads the current back buffer (call after drawing, before swapping) and writes it to
// `path` as an 8-bit RGB PNG. It writes `path.part` first and renames it, so a reader never
// sees a half-written file. On failure returns false with a sentence in *error.
bool save_screenshot(const std::string& path, int width, int height, std::string* error);

}  // namespace tp
