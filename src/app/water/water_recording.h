// The water window's Record toggle: PLY frames (particles or the surface mesh) written at a
// fixed rate of simulated time while the simulation steps on the window's thread, so that
// a frame can follow any step (sim/io/frame_recorder.h writes them). Says what it did in
// the panel's Files section and on stderr.
#pragma once

#include <string>

#include "app/window/panel_files.h"
#include "sim/io/frame_recorder.h"
#include "sim/mesh/mesh.h"
#include "sim/water/simulation.h"

namespace tp {

class WaterRecording {
 public:
  bool active() const { return recorder_.active(); }
  // Starts writing into the panel's directory (a fresh timestamped one when it is
  // automatic), the state as it is now the first frame. The caller has stopped the
  // simulation's thread: a recording steps on the window's.
  void start(Simulation& sim, FileControls& files, const MeshSettings& mesh);
  // Stops a running recording; `why` (a reset, a new scene, a signal) goes into the panel.
  void stop(FileControls& files, const std::string& why);
  // One step, then a frame when one is due.
  void step_once(Simulation& sim, FileControls& files);
  // Simulation::advance's loop, with a look at the recording after every step; at most
  // `budget_ms` of wall time (then slow motion rather than a spiral).
  void advance(Simulation& sim, FileControls& files, double seconds, double budget_ms);
  // The closing line's part: "; N complete frames in DIR", or "" when none were written.
  std::string closing_words() const;

 private:
  void record_if_due(Simulation& sim, FileControls& files);

  FrameRecorder recorder_;
  double debt_ = 0.0;  ///< [s] simulated time owed to the clock while recording
};

}  // namespace tp
