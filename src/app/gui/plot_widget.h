// A small line-plot widget for Dear ImGui (several series over one time axis, a legend and value
// labels), drawn with ImDrawList so it works on ImGui 1.86 without ImPlot. UI code only.
#pragma once

#include <span>
#include <string>

namespace hooke {

struct PlotSeries {
  const char* label;
  unsigned color;            // ImU32
  std::span<const float> x;  // ascending
  std::span<const float> y;  // as long as x
  float thickness = 1.5f;
};

struct PlotAxes {
  float x_min = 0.0f, x_max = 1.0f;  // the x range shown (time, s)
  const char* y_unit = "";           // appended to the y labels
  float min_y_span = 1e-6f;          // the y range is at least this tall (flat lines stay flat)
};

// Draws the plot into the current window at the cursor, `height` pixels tall and as wide as the
// content region; the y range fits every series' points inside the x range.
void plotLines(const char* id, float height, const PlotAxes& axes,
               std::span<const PlotSeries> series);

}  // namespace hooke
