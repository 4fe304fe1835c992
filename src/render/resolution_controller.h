// Dynamic resolution of the surface mode: the scale (a fraction of the window per axis) its
// passes up to the shading are drawn at, chosen from what the frames measurably cost. Plain
// arithmetic, no GL: fed one measured frame at a time, it answers the scale for the next.
//
// The measure is the GPU time of the frame's render passes (timer queries, PassProbe), not
// the time between frames: that one also holds the simulation, the panel, the swap and the
// waits of a paused window, none of which a smaller surface makes shorter.
//
// Model: the passes drawn at the scale cost in proportion to their pixels, so a frame
// measured at scale s with `scaled_ms` of them costs at scale t about
//   frame_ms - scaled_ms + scaled_ms * (t / s)^2
// (optimistic going down where part of a pass's cost is per particle, not per pixel: the
// next measurement then takes another step; pessimistic going up, which errs the safe way).
//
// Hysteresis, so that the picture does not pump between two sizes:
//  - it judges the median of the last few frames drawn at the present scale (one slow frame
//    of a busy machine moves nothing; frames still in flight from before a change, which
//    the timer queries report a few frames late, are not counted at the new scale);
//  - over budget it goes down at once, to the largest scale predicted to fit with a margin
//    (one jump, not a slow walk while every frame is late);
//  - it goes up one step at a time, and only once the step up is predicted to fit well
//    inside the budget for a run of frames (about a second);
//  - a step up that has to be taken back soon after goes back to where it came from (which
//    was measured to fit), and the next try at that scale waits twice as long (up to about
//    20 s): a model that keeps promising a fit that is not there makes ever rarer, short
//    tries instead of an oscillation.
#pragma once

#include <vector>

#include "render/render_types.h"

namespace tp {

// One drawn frame, as measured.
struct ResolutionSample {
  double frame_ms = 0.0;   ///< GPU time of all the frame's render passes [ms]
  double scaled_ms = 0.0;  ///< the part spent in the passes drawn at `scale` [ms]
  float scale = 0.0f;      ///< the scale that frame was drawn at
};

class ResolutionController {
 public:
  struct Config {
    /// [ms] GPU time of a frame's passes to stay under: 20 ms, half of a frame at 24
    /// frames/s, leaves the other half to the rest of the frame (the simulation's
    /// hand-off, the panel, the swap) on a machine where all of it shares the same cores.
    double budget_ms = 20.0;
    double lower_target = 0.85;  ///< going down aims at budget * this
    double raise_below = 0.7;    ///< a step up must be predicted under budget * this
    int window = 5;              ///< frames whose median is judged
    int raise_frames = 24;       ///< judged frames of headroom in a row before a step up
    int max_raise_frames = 480;  ///< the longest that wait grows to after failed steps
    int failed_within = 48;      ///< a step down this soon after a step up: it failed
    float step = 0.0625f;        ///< the finest change of scale (1/16)
    float min_scale = kMinSurfaceScale;
    float max_scale = 1.0f;
  };

  ResolutionController() : ResolutionController(Config{}) {}
  explicit ResolutionController(const Config& config);

  // Takes one measured frame and returns the scale to draw the next one at.
  float update(const ResolutionSample& sample);
  float scale() const { return scale_; }
  // Starts over at `scale` (clamped), e.g. the fixed scale while the automatic one is off,
  // so that switching it back on goes on from the picture on screen.
  void reset(float scale);
  // The frame time predicted at `scale` from the median of the last frames judged.
  double predicted_ms(float scale) const;
  const Config& config() const { return config_; }

 private:
  void change_to(float scale);
  Config config_;
  float scale_ = 1.0f;
  std::vector<ResolutionSample> recent_;     ///< the last frames drawn at scale_, oldest first
  double frame_ms_ = 0.0, scaled_ms_ = 0.0;  ///< their medians,
  float judged_scale_ = 1.0f;                ///< measured at this scale
  int headroom_frames_ = 0;                  ///< judged frames in a row with room for a step up
  float raised_from_ = 0.0f;   ///< the scale before the last step up, while on trial; else 0
  int since_raise_ = 0;        ///< judged frames since that step up
  float failed_scale_ = 0.0f;  ///< the lowest scale a step up to failed at; 0: none
  int failed_wait_ = 0;        ///< judged frames of headroom a step up to it waits for
};

}  // namespace tp
