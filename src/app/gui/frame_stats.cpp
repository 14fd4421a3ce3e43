// Sliding-window frame statistics.
#include "app/gui/frame_stats.h"

namespace hooke {

void FrameStats::addFrame(double wall_seconds, double sim_seconds, bool running) {
  frames_.push_back({wall_seconds, sim_seconds, running});
  window_wall_ += wall_seconds;
  // keep about one second, and always the newest frame
  while (frames_.size() > 1 && window_wall_ - frames_.front().wall >= kWindowSeconds) {
    window_wall_ -= frames_.front().wall;
    frames_.pop_front();
  }
}

double FrameStats::fps() const {
  if (frames_.empty() || !(window_wall_ > 0.0)) return 0.0;
  return double(frames_.size()) / window_wall_;
}

double FrameStats::frameMs() const {
  if (frames_.empty()) return 0.0;
  return 1000.0 * window_wall_ / double(frames_.size());
}

std::optional<double> FrameStats::realTimeFactor() const {
  double wall = 0.0, sim = 0.0;
  for (const Frame& f : frames_) {
    if (!f.running) continue;
    wall += f.wall;
    sim += f.sim;
  }
  if (!(wall > 0.0)) return std::nullopt;
  return sim / wall;
}

}  // namespace hooke
