// Starting a helper program (ffmpeg: util/video_pipe.h, util/gif_export.h) in a process of
// its own: standard input from a given descriptor or /dev/null, standard output to
// /dev/null, standard error the app's (the helper's own words reach the terminal), and a
// process group of its own, so that Ctrl-C in the terminal stops the app, which then ends
// the helper itself, rather than reaching the helper too and cutting its file short.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace tp {

// args[0] is the program's path. `nice` > 0 lowers the helper's priority by that much.
// Returns its pid, or -1 with a sentence in *error.
pid_t spawn_helper(const std::vector<std::string>& args, int stdin_fd, int nice, std::string* error);

}  // namespace tp
