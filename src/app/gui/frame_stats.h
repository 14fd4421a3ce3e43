// Frame-rate and real-time-factor measurements over the last second of frames, for the Stats
// panel and the "solver behind" warning. Fed one line per frame; no clocks or UI inside.
#pragma once

#include <deque>
#include <optional>

namespace hooke {

class FrameStats {
 public:
  // One frame: its wall-clock length, the simulated seconds it advanced, and whether the
  // simulation was meant to run (not paused, not diverged).
  void addFrame(double wall_seconds, double sim_seconds, bool running);

  double fps() const;      // frames per wall second over the window; 0 before two frames
  double frameMs() const;  // mean frame length, ms

  // Simulated over wall seconds across the running frames of the window; nullopt when none ran.
  std::optional<double> realTimeFactor() const;

  static constexpr double kWindowSeconds = 1.0;

 private:
  struct Frame {
    double wall, sim;
    bool running;
  };
  std::deque<Frame> frames_;
  double window_wall_ = 0.0;
};

}  // namespace hooke
