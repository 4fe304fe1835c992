// Where the Save screenshot button (and F12) puts its picture: a timestamped PNG in the
// working directory, never over an existing file; and the videos (F9) beside them.
#pragma once

#include <ctime>
#include <string>

namespace tp {

// "tidepool-20261122-103015.png" for that local time; copy 2, 3, ... adds "-2", "-3", ...
// before ".png" (copy 1 is the plain name). `extension` ".mp4" names a video.
std::string screenshot_file_name(const std::tm& local_time, int copy, const std::string& extension = ".png");

// The first name of that series, for the local time of `now`, that names nothing in
// `directory` yet (not even a dangling link, nor the name + ".part" a write in progress
// uses), as "directory/name".
std::string free_screenshot_path(const std::string& directory, std::time_t now,
                                 const std::string& extension = ".png");

}  // namespace tp
