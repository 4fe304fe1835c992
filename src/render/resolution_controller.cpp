#include "render/resolution_controller.h"

#include <algorithm>
#include <cmath>

namespace tp {

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  if (n == 0) return 0.0;
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace

ResolutionController::ResolutionController(const Config& config) : config_(config) {
  config_.min_scale = std::clamp(config_.min_scale, kMinSurfaceScale, 1.0f);
  config_.max_scale = std::clamp(config_.max_scale, config_.min_scale, 1.0f);
  config_.step = std::max(config_.step, 1e-3f);
  config_.window = std::max(config_.window, 1);
  config_.raise_frames = std::max(config_.raise_frames, 1);
  config_.max_raise_frames = std::max(config_.max_raise_frames, config_.raise_frames);
  reset(config_.max_scale);
}

void ResolutionController::reset(float scale) {
  change_to(scale);
  judged_scale_ = scale_;
  frame_ms_ = scaled_ms_ = 0.0;
  raised_from_ = 0.0f;
  since_raise_ = 0;
  failed_scale_ = 0.0f;
  failed_wait_ = 0;
}

void ResolutionController::change_to(float scale) {
  scale_ = std::clamp(scale, config_.min_scale, config_.max_scale);
  recent_.clear();  // what was measured belongs to the old scale
  headroom_frames_ = 0;
}

double ResolutionController::predicted_ms(float scale) const {
  const double ratio = double(scale) / double(judged_scale_);
  return frame_ms_ - scaled_ms_ + scaled_ms_ * ratio * ratio;
}

float ResolutionController::update(const ResolutionSample& sample) {
  // Frames drawn before the last change (reported late), and frames without the surface
  // (scale 0: the other render mode), say nothing about the present scale.
  if (std::abs(sample.scale - scale_) > 1e-4f) return scale_;
  recent_.push_back(sample);
  if (int(recent_.size()) > config_.window) recent_.erase(recent_.begin());
  if (int(recent_.size()) < config_.window) return scale_;
  std::vector<double> frames, scaled;
  for (const ResolutionSample& s : recent_) {
    frames.push_back(std::max(s.frame_ms, 0.0));
    scaled.push_back(std::clamp(s.scaled_ms, 0.0, std::max(s.frame_ms, 0.0)));
  }
  frame_ms_ = median(frames);
  scaled_ms_ = std::min(median(scaled), frame_ms_);
  judged_scale_ = scale_;
  if (raised_from_ > 0.0f) ++since_raise_;

  const double budget = config_.budget_ms;
  if (frame_ms_ > budget) {
    if (scale_ <= config_.min_scale) return scale_;
    // The largest scale a whole number of steps down that is predicted to fit, with a
    // margin; the smallest allowed when none is.
    float target = scale_ - config_.step;
    while (target > config_.min_scale && predicted_ms(target) > config_.lower_target * budget)
      target -= config_.step;
    if (raised_from_ > 0.0f && since_raise_ <= config_.failed_within) {
      // The step up did not fit: back to where it came from, which did, and wait longer
      // before trying this scale again.
      target = std::max(target, raised_from_);
      failed_scale_ = scale_;
      failed_wait_ =
          std::min(2 * std::max(failed_wait_, config_.raise_frames), config_.max_raise_frames);
    }
    raised_from_ = 0.0f;
    change_to(target);
    return scale_;
  }
  // A step up that held: the scale it reached is no longer suspect.
  if (raised_from_ > 0.0f && since_raise_ > config_.failed_within) {
    if (scale_ >= failed_scale_) failed_scale_ = 0.0f, failed_wait_ = 0;
    raised_from_ = 0.0f;
  }
  const float up = std::min(scale_ + config_.step, config_.max_scale);
  if (up > scale_ && predicted_ms(up) <= config_.raise_below * budget) {
    const bool suspect = failed_scale_ > 0.0f && up >= failed_scale_ - 1e-4f;
    if (++headroom_frames_ >= (suspect ? failed_wait_ : config_.raise_frames)) {
      raised_from_ = scale_;
      since_raise_ = 0;
      change_to(up);
    }
  } else {
    headroom_frames_ = 0;
  }
  return scale_;
}

}  // namespace tp
