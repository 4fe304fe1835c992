// Presets: the simulation parameters (every field of the parameter table, by name) in a
// small JSON file, {"tidepool_preset": 1, "params": {"viscosity": 0.01, "solver": "pbf", ...}},
// saved from the panel and loaded in the panel or with --preset FILE.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/sim_params.h"

namespace tp {

// A preset file that cannot be used: one line naming the file and the key,
// "preset file 'x.json': params.viscosity: 5 is outside its valid range [0, 0.1] m^2/s".
class PresetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr int kPresetVersion = 1;                    ///< the "tidepool_preset" value written
constexpr size_t kMaxPresetBytes = size_t(1) << 20;  ///< larger files are refused unread
constexpr int kMaxPresetDepth = 8;                   ///< arrays and objects inside each other

// A parsed preset: the parameters it sets, in file order, each value as the text that
// set_param_from_text takes (numbers written so that they read back to the same float).
// Keys the file leaves out are not in it: applying it keeps their current values.
struct Preset {
  std::string source;  ///< the file it came from, for messages
  std::vector<std::pair<std::string, std::string>> params;
};

// Parses preset text; `source` names it in messages. Every key and value is checked on its
// own (type, range, known key). Throws PresetError.
Preset parse_preset(const std::string& json_text, const std::string& source);
// Reads and parses a file. Throws PresetError.
Preset load_preset_file(const std::string& path);

// Applies every value of the preset to `params`, or none: when a value or a combination
// (dt_min above dt_max) is refused, `params` is left as it was. Throws PresetError.
void apply_preset(const Preset& preset, SimParams& params);

// The preset file's text for these parameters: every table field in table order, choices
// by name, numbers with the fewest digits that read back to the same float.
std::string preset_json(const SimParams& params);

// Writes preset_json(params) to `path` atomically (a reader never sees half a file).
// Returns false and a sentence in *error on failure.
bool save_preset_file(const std::string& path, const SimParams& params, std::string* error);

}  // namespace tp
