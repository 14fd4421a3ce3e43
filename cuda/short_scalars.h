// Item 32's scalar operations (cuda/whole_cg_kernels.cu) against the plain ones, on the device:
// the check that they give the same bits. For tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hooke::cuda {

struct ShortScalarsCheck {
  std::vector<double> quotient;  // x[k] / y[k] through the reciprocal of y[k] formed first
  std::vector<double> divided;   // x[k] / y[k]
  std::vector<uint8_t> passes;   // the bounds' decision for |r|² = x[k] against target y[k]
  std::vector<uint8_t> rooted;   // sqrt(x[k]) <= y[k]
};

// Runs both forms on device 0 for every pair (x[k], y[k]). False, with `why`, where there is no
// device or a CUDA call fails (x and y of different sizes: false too).
bool compareShortScalars(const std::vector<double>& x, const std::vector<double>& y,
                         ShortScalarsCheck* out, std::string* why);

}  // namespace hooke::cuda
