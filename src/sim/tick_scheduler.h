// The fixed-tick scheduler of DESIGN.md "One frame": ticks of dt, a solve every n + 1 ticks with
// h = (n + 1) dt, and the interpolation factor alpha = k / (n + 1) for the k-th tick since the
// solve. Simulated (visual) time is always ticks × dt.
#pragma once

#include <cstdint>

namespace hooke {

// The `auto` rule for n: solve about 30 times per simulated second, never skipping more than
// kMaxAutoSkip ticks:  n = clamp(round((1/30 s) / dt) − 1, 0, kMaxAutoSkip).
// dt = 0.01 s gives n = 2 (h = 0.03 s); dt = 1/60 s gives n = 1; dt >= 0.05 s gives n = 0.
inline constexpr double kAutoSolveInterval = 1.0 / 30.0;
inline constexpr int kMaxAutoSkip = 10;
int autoSkip(double dt);

struct Tick {
  bool solve;    // this tick starts a solve interval: prev <- cur, cur <- step(h)
  double alpha;  // interpolation factor after this tick, in (0, 1]
};

class TickScheduler {
 public:
  TickScheduler(double dt, int skip);

  // Runs one tick.
  Tick next();

  // Feeds wall-clock seconds (already scaled by the user's time scale) into the accumulator and
  // returns how many ticks are due now, at most max_ticks. Time beyond the cap is dropped, so a
  // slow solver slows simulated time instead of freezing the frame.
  int ticksDue(double wall_seconds, int max_ticks);

  double dt() const { return dt_; }
  int skip() const { return skip_; }
  double h() const { return dt_ * (skip_ + 1); }
  int64_t ticks() const { return ticks_; }
  int64_t solves() const { return solves_; }
  double simTime() const { return static_cast<double>(ticks_) * dt_; }
  double droppedSeconds() const { return dropped_seconds_; }

 private:
  double dt_;
  int skip_;
  int64_t ticks_ = 0;
  int64_t solves_ = 0;
  double accumulator_ = 0.0;
  double dropped_seconds_ = 0.0;
};

}  // namespace hooke
