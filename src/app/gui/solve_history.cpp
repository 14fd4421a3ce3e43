// Rolling solve samples and the energy-drift fit.
#include "app/gui/solve_history.h"

#include <algorithm>

namespace hooke {

void SolveHistory::add(const SolveSample& sample) {
  // a sample from before the newest one means a restart: start over
  if (!samples_.empty() && sample.time < samples_.back().time) samples_.clear();
  samples_.push_back(sample);
  while (!samples_.empty() && samples_.front().time < sample.time - span_)
    samples_.pop_front();
}

std::optional<double> SolveHistory::totalEnergyDrift(double window) const {
  if (samples_.size() < 3) return std::nullopt;
  const double start = samples_.back().time - window;

  // slope = Σ (t − t̄)(E − Ē) / Σ (t − t̄)²
  double n = 0.0, sum_t = 0.0, sum_e = 0.0;
  for (const SolveSample& s : samples_) {
    if (s.time < start) continue;
    n += 1.0;
    sum_t += s.time;
    sum_e += s.total;
  }
  if (n < 3.0) return std::nullopt;
  const double mean_t = sum_t / n, mean_e = sum_e / n;
  double covariance = 0.0, variance = 0.0, first = samples_.back().time;
  for (const SolveSample& s : samples_) {
    if (s.time < start) continue;
    first = std::min(first, s.time);
    covariance += (s.time - mean_t) * (s.total - mean_e);
    variance += (s.time - mean_t) * (s.time - mean_t);
  }
  if (samples_.back().time - first < 0.1 || !(variance > 0.0)) return std::nullopt;
  return covariance / variance;
}

}  // namespace hooke
