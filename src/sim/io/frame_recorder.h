// Frames at a fixed rate of simulated time: --export DIR (particles) and --export-mesh DIR
// (the water's surface) headless, and the panel's Record toggle. Files are
// DIR/frame_00000.ply, frame_00001.ply, ... for particles and DIR/mesh_00000.ply (or .obj)
// for meshes (ParaView opens each numbered group as one time series), and, in a scene with
// rigid bodies, DIR/bodies_00000.json beside each frame; each written atomically.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>

#include "sim/water/simulation.h"

namespace tp {

// What a recording writes: the particles (binary PLY points), or the surface mesh built
// by Simulation::build_mesh (binary PLY with normals and velocities, or OBJ).
// (GasVtk: a gas scene's fields, written by the gas runner, src/app/gas_headless.cpp.)
enum class RecordKind { Points, MeshPly, MeshObj, GasVtk };

// "DIR/frame_00042.ply" (points), "DIR/mesh_00042.ply" or ".obj" (meshes).
std::string frame_file_name(const std::string& dir, int frame, RecordKind kind = RecordKind::Points);

// "DIR/bodies_00042.json": the bodies of frame 42 (particle_io.h's bodies_frame_json),
// written beside the frames of either kind when the scene has bodies.
std::string bodies_file_name(const std::string& dir, int frame);

// Creates `dir` and any missing parents. Returns false and a sentence on failure (including
// when `dir` exists and is not a directory).
bool make_directories(const std::string& dir, std::string* error);

// Whether `dir` already holds frames of this kind (a recording there would mix two runs).
bool holds_frames(const std::string& dir, RecordKind kind = RecordKind::Points);

// "tidepool-export-20261122-103015" for that local time: the panel's default directory.
std::string default_export_dir(std::time_t now);

class FrameRecorder {
 public:
  // Begins a recording into `dir` (created if missing) at `fps` frames per simulated
  // second, the first frame due at once. With `fresh_only`, a directory that already holds
  // frames is refused. Returns false and a sentence on failure (nothing is recording then).
  // Meshes are built with `mesh` (their vertices always carry the water's velocity).
  bool start(const std::string& dir, double fps, bool fresh_only, std::string* error,
             RecordKind kind = RecordKind::Points, const MeshSettings& mesh = MeshSettings{});
  void stop() { active_ = false; }

  bool active() const { return active_; }
  // Whether a frame is due at simulated time `t` [s].
  bool due(double t) const { return active_ && t >= next_time_; }
  // Writes the simulation's particles (or mesh) as the next frame if one is due; frame times that
  // fell inside the last step are skipped, not invented (each file records its own time).
  // On a write error the recording stops and the sentence goes to *error; returns false.
  bool record(Simulation& sim, std::string* error);

  const std::string& dir() const { return dir_; }
  RecordKind kind() const { return kind_; }
  const MeshSettings& mesh_settings() const { return mesh_; }
  const MeshTimes& mesh_times() const { return mesh_times_; }  ///< of the latest mesh frame
  size_t mesh_triangles() const { return mesh_triangles_; }   ///< of the latest mesh frame
  double fps() const { return fps_; }
  int frames() const { return frames_; }
  uint64_t bytes() const { return bytes_; }         ///< written so far
  int skipped() const { return skipped_; }          ///< frame times inside a step
  double first_time() const { return first_time_; }  ///< [s] simulated time of frame 0
  double last_time() const { return last_time_; }   ///< [s] of the latest frame

 private:
  bool active_ = false;
  RecordKind kind_ = RecordKind::Points;
  MeshSettings mesh_;
  MeshTimes mesh_times_;
  size_t mesh_triangles_ = 0;
  std::string dir_;
  double fps_ = 30.0;
  double next_time_ = 0.0;
  int frames_ = 0;
  uint64_t bytes_ = 0;
  int skipped_ = 0;
  double first_time_ = 0.0, last_time_ = 0.0;
};

// "12 frames, 3.4 MB": the recording so far.
std::string recording_summary(const FrameRecorder& recorder);

}  // namespace tp
