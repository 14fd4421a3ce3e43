// Fixed-timestep accumulator and solve cadence.
#include "sim/tick_scheduler.h"

#include <algorithm>
#include <cmath>

namespace hooke {

int autoSkip(double dt) {
  double ratio = std::round(kAutoSolveInterval / dt);
  return static_cast<int>(std::clamp(ratio - 1.0, 0.0, double(kMaxAutoSkip)));
}

TickScheduler::TickScheduler(double dt, int skip) : dt_(dt), skip_(skip) {}

Tick TickScheduler::next() {
  const int64_t period = skip_ + 1;
  const int64_t k = ticks_ % period;  // ticks since the last solve, before this one
  Tick tick;
  tick.solve = k == 0;
  if (tick.solve) ++solves_;
  ++ticks_;
  tick.alpha = static_cast<double>(k + 1) / static_cast<double>(period);
  return tick;
}

int TickScheduler::ticksDue(double wall_seconds, int max_ticks) {
  accumulator_ += wall_seconds;
  int due = static_cast<int>(std::floor(accumulator_ / dt_));
  if (due > max_ticks) {
    dropped_seconds_ += (due - max_ticks) * dt_;
    due = max_ticks;
    accumulator_ = std::fmod(accumulator_, dt_);
  } else {
    accumulator_ -= due * dt_;
  }
  return due;
}

}  // namespace hooke
