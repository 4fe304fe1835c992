// Output files: particle frames as binary PLY (ParaView, Blender) and the JSON run report.
// Files are written to a temporary name and renamed, so a reader never sees half a file.
#pragma once

#include <string>

#include "sim/water/simulation.h"
#include "util/atomic_file.h"

namespace tp {

// Writes ids, positions and velocities as a binary little-endian PLY point cloud, one row
// per particle in id order; `time` (simulated seconds, if >= 0) goes into a header comment.
// Returns false and a sentence in *error on failure.
bool write_ply(const std::string& path, const Snapshot& snapshot, std::string* error,
               double time = -1.0);

// The bodies of one frame as JSON, with the keys of a scene's `bodies` array (shape,
// size or radius and length, density, mass, kinematic, position, orientation as a
// quaternion [w, x, y, z], velocity, angular_velocity) and the frame's simulated time:
// {"time": 0.5, "bodies": [...]}. Written beside each exported frame (bodies_00042.json)
// for the Blender and ParaView scripts to place the bodies' shapes.
std::string bodies_frame_json(const std::vector<BodySpec>& bodies, double time);

struct ParticleCheck {
  uint64_t outside = 0;    ///< particles outside [tank_lo, tank_hi]
  uint64_t nonfinite = 0;  ///< particles with a NaN or infinite position, velocity or density
};
ParticleCheck check_particles(const Snapshot& snapshot, Vec3 tank_lo, Vec3 tank_hi);

struct RunReport {
  std::string backend, solver, scene;
  uint64_t particles = 0;
  double wall_seconds = 0.0;
  uint64_t steps_run = 0;  ///< steps in this run (a loaded state's steps come before it)
  RunStats stats;
  ParticleCheck check;
  std::vector<BodySpec> bodies;  ///< the bodies at the end (the report's `bodies`)
};
std::string report_json(const RunReport& report);

}  // namespace tp
