// Where the app finds its shaders and assets: ../share/tidepool relative to the running
// executable (the layout of both the build tree and an installation), so that it runs
// from any working directory. TIDEPOOL_DATA_DIR overrides it.
#pragma once

#include <string>

namespace tp {

std::string executable_dir();
std::string data_dir();  ///< e.g. /usr/local/share/tidepool
std::string shader_dir();
std::string scene_dir();
// A path as the user can find it: absolute, from the working directory.
std::string full_path(const std::string& path);
// The file name's extension in lower case, without the dot ("x/Duck.OBJ" -> "obj"); "" when
// the name has none (a dot in a directory's name does not count).
std::string lower_extension(const std::string& path);

}  // namespace tp
