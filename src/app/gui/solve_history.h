// The per-solve measurements the Stats and spring1d plots draw: a rolling window of energies,
// strain and the driven particle's height, and the energy drift fitted over it. No UI here.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>

namespace hooke {

struct SolveSample {
  double time = 0.0;  // s, physics time of the solved state
  double kinetic = 0.0;
  double potential = 0.0;  // gravitational + spring
  double total = 0.0;
  double max_strain = 0.0;
  double height = 0.0;  // m, y of the driven particle (spring1d's mass); 0 without one
};

class SolveHistory {
 public:
  // keeps samples no older than `span_seconds` before the newest one
  explicit SolveHistory(double span_seconds = 60.0) : span_(span_seconds) {}

  void add(const SolveSample& sample);
  void clear() { samples_.clear(); }

  const std::deque<SolveSample>& samples() const { return samples_; }
  bool empty() const { return samples_.empty(); }
  const SolveSample& newest() const { return samples_.back(); }

  // The least-squares slope of the total energy over the samples of the last `window` seconds,
  // J/s; nullopt with fewer than 3 samples or less than 0.1 s of them.
  std::optional<double> totalEnergyDrift(double window) const;

 private:
  double span_;
  std::deque<SolveSample> samples_;
};

}  // namespace hooke
