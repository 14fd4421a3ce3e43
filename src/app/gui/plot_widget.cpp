// Line plots drawn with ImDrawList: frame, grid, y labels, series clipped to the frame, legend.
#include "app/gui/plot_widget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <imgui.h>

namespace hooke {

namespace {

// a "nice" grid step (1, 2 or 5 × 10^k) giving about `count` lines over `span`
float niceStep(float span, int count) {
  const float raw = span / float(std::max(1, count));
  const float power = std::pow(10.0f, std::floor(std::log10(raw)));
  const float f = raw / power;
  return (f < 1.5f ? 1.0f : f < 3.5f ? 2.0f : f < 7.5f ? 5.0f : 10.0f) * power;
}

}  // namespace

void plotLines(const char* id, float height, const PlotAxes& axes,
               std::span<const PlotSeries> series) {
  ImGui::PushID(id);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::max(50.0f, ImGui::GetContentRegionAvail().x);
  ImGui::InvisibleButton("plot", ImVec2(width, height));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImGuiStyle& style = ImGui::GetStyle();

  // y range over the points inside the x range
  float y_min = INFINITY, y_max = -INFINITY;
  for (const PlotSeries& s : series) {
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (s.x[i] < axes.x_min || s.x[i] > axes.x_max || !std::isfinite(s.y[i])) continue;
      y_min = std::min(y_min, s.y[i]);
      y_max = std::max(y_max, s.y[i]);
    }
  }
  if (!(y_min <= y_max)) y_min = 0.0f, y_max = 1.0f;
  const float span = std::max(y_max - y_min, axes.min_y_span);
  const float mid = 0.5f * (y_min + y_max);
  y_min = mid - 0.55f * span;
  y_max = mid + 0.55f * span;

  // the frame: labels on the left, the plot area right of them
  const float label_width = ImGui::CalcTextSize("-0.000e+00").x * 0.8f;
  const float legend_height = ImGui::GetTextLineHeight() + 4.0f;
  const ImVec2 a(origin.x + label_width, origin.y + legend_height + 2.0f);
  const ImVec2 b(origin.x + width - 2.0f, origin.y + height - 2.0f);
  draw->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + height),
                      ImGui::GetColorU32(ImGuiCol_ChildBg), style.FrameRounding);
  auto toScreen = [&](float x, float y) {
    const float u = (x - axes.x_min) / std::max(1e-9f, axes.x_max - axes.x_min);
    const float v = (y - y_min) / (y_max - y_min);
    return ImVec2(a.x + u * (b.x - a.x), b.y - v * (b.y - a.y));
  };

  // horizontal grid lines with their values
  const ImU32 grid = IM_COL32(255, 255, 255, 28);
  const ImU32 label = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const float step = niceStep(y_max - y_min, 4);
  char text[48];
  for (float y = std::ceil(y_min / step) * step; y <= y_max; y += step) {
    const ImVec2 p = toScreen(axes.x_min, y);
    draw->AddLine(ImVec2(a.x, p.y), ImVec2(b.x, p.y), grid);
    std::snprintf(text, sizeof text, "%.3g%s", std::abs(y) < 1e-6f * step ? 0.0f : y, axes.y_unit);
    const ImVec2 size = ImGui::CalcTextSize(text);
    draw->AddText(ImVec2(a.x - size.x - 4.0f, p.y - 0.5f * size.y), label, text);
  }
  // vertical grid lines every nice number of seconds
  const float x_step = niceStep(axes.x_max - axes.x_min, 5);
  for (float x = std::ceil(axes.x_min / x_step) * x_step; x <= axes.x_max; x += x_step) {
    const ImVec2 p = toScreen(x, y_min);
    draw->AddLine(ImVec2(p.x, a.y), ImVec2(p.x, b.y), grid);
  }

  // the series, clipped to the plot area
  draw->PushClipRect(a, b, true);
  std::vector<ImVec2> points;
  for (const PlotSeries& s : series) {
    points.clear();
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (s.x[i] < axes.x_min - x_step || !std::isfinite(s.y[i])) continue;
      points.push_back(toScreen(s.x[i], s.y[i]));
    }
    if (points.size() >= 2) {
      draw->AddPolyline(points.data(), int(points.size()), s.color, 0, s.thickness);
    }
  }
  draw->PopClipRect();

  // the legend, in its own row above the plot area
  ImVec2 at(a.x + 2.0f, origin.y + 3.0f);
  for (const PlotSeries& s : series) {
    const float line_height = ImGui::GetTextLineHeight();
    draw->AddRectFilled(ImVec2(at.x, at.y + 0.35f * line_height),
                        ImVec2(at.x + 10.0f, at.y + 0.65f * line_height), s.color);
    draw->AddText(ImVec2(at.x + 14.0f, at.y), ImGui::GetColorU32(ImGuiCol_Text), s.label);
    at.x += 14.0f + ImGui::CalcTextSize(s.label).x + 12.0f;
  }
  ImGui::PopID();
}

}  // namespace hooke
