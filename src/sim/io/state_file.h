// State files: the whole simulation (particles, obstacles, emitters, outflows, diffuse
// particles, parameters, time and statistics) saved so that a loaded state continues
// exactly as the saved run would have.
//
// Format: the line "TIDEPOOL STATE 1\n", an 8-byte little-endian length and a JSON
// header of every scalar and small list, then the arrays as raw blobs, each preceded by
// its 8-byte length: fluid positions and velocities (16 bytes each per particle), ids and
// pressures (4 bytes), the tank's boundary samples (16 bytes), diffuse positions and
// velocities (16 bytes), in the machine's byte order (the header says which; a file from
// a machine of the other order is refused). Floats in the header are written with enough digits to read
// back exactly.
#pragma once

#include <string>

#include "sim/water/simulation.h"

namespace tp {

// Serialises a state; `scene` (the scene's name) is kept for the app.
std::string encode_state(const SimState& state, const std::string& scene);
// Parses a state; throws std::runtime_error with a sentence (naming `source`) when the
// bytes are not a complete, consistent state file. Never allocates more than the bytes
// given could hold.
SimState decode_state(const std::string& bytes, const std::string& source, std::string* scene);

// Saves the simulation's state to `path` (atomically). Returns false with a sentence.
bool save_state_file(Simulation& sim, const std::string& scene, const std::string& path,
                     std::string* error);
// Replaces the simulation's state with the file's. On failure the simulation is untouched
// and *error says why, naming the file.
bool load_state_file(Simulation& sim, const std::string& path, std::string* scene,
                     std::string* error);

}  // namespace tp
