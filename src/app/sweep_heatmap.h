// The heatmap image of one integrator's sweep (dt × stiffness, log axes, labelled, with a legend)
// drawn into an RGB buffer with a built-in 5×7 bitmap font, and its PNG encoding. No files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/status.h"
#include "sim/sweep.h"

namespace hooke {

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgb;  // (height x width x 3), top row first
};

// statuses[row * dts.size() + col]: row indexes stiffnesses (ascending), col indexes dts
// (ascending). dt runs left to right, stiffness bottom to top.
RgbImage drawSweepHeatmap(const std::string& title, const std::vector<double>& dts,
                          const std::vector<double>& stiffnesses,
                          const std::vector<CellStatus>& statuses);

// 8-bit RGB PNG bytes.
Status encodeRgbPng(const RgbImage& image, std::string* png_bytes);

// A tick label such as 1e-4, 3.2e5 or 1e0.
std::string tickLabel(double value);

}  // namespace hooke
