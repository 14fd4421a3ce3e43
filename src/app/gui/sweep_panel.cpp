// The Sweep panel: settings, run controls and the heatmaps, drawn with ImDrawList rectangles.
//
// [SECTION] look
// [SECTION] one heatmap
// [SECTION] the panel
#include "app/gui/sweep_panel.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

#include <imgui.h>

#include "app/sweep_colours.h"

namespace hooke {

namespace {

// [SECTION] look

constexpr ImU32 colourOf(Rgb c) {
  return IM_COL32(c.r, c.g, c.b, 255);
}

// the colours of `hooke sweep`'s heatmap PNGs (app/sweep_colours.h)
constexpr ImU32 kStable = colourOf(kStableColour);
constexpr ImU32 kUnrealistic = colourOf(kUnrealisticColour);
constexpr ImU32 kDiverged = colourOf(kDivergedColour);
constexpr ImU32 kPending = IM_COL32(70, 74, 82, 255);  // not run yet
constexpr ImU32 kAxis = IM_COL32(200, 200, 205, 255);

ImU32 statusColor(CellStatus status) {
  return colourOf(statusColour(status));
}

float uiScale() {
  return ImGui::GetFontSize() / 15.0f;
}

// 1e-4, 3e5: a decade tick's label
std::string decadeLabel(double value) {
  const int e = int(std::lround(std::log10(value)));
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "1e%d", e);
  return buffer;
}

// a value with two significant digits, as a cell's coordinate
std::string shortNumber(double value) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "%.2g", value);
  return buffer;
}

// the decades inside [lo, hi]
std::vector<double> decades(double lo, double hi) {
  std::vector<double> out;
  for (int e = int(std::ceil(std::log10(lo) - 1e-9)); e <= int(std::floor(std::log10(hi) + 1e-9));
       ++e)
    out.push_back(std::pow(10.0, e));
  return out;
}

// where a value sits along an axis of n cells: cell centres at the grid values (log-spaced)
float axisOffset(double v, double lo, double hi, size_t n, float cell) {
  return 0.5f * cell + float(std::log(v / lo) / std::log(hi / lo)) * float(n - 1) * cell;
}

void legend() {
  const float box = ImGui::GetTextLineHeight() * 0.8f;
  const std::pair<ImU32, const char*> entries[] = {{kStable, "stable"},
                                                   {kUnrealistic, "unrealistic"},
                                                   {kDiverged, "diverged"},
                                                   {kPending, "not run"}};
  for (const auto& [color, name] : entries) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float dy = 0.5f * (ImGui::GetTextLineHeight() - box);
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + dy),
                                              ImVec2(p.x + box, p.y + dy + box), color, 2.0f);
    ImGui::Dummy(ImVec2(box, ImGui::GetTextLineHeight()));
    ImGui::SameLine();
    ImGui::TextUnformatted(name);
    ImGui::SameLine(0.0f, 14.0f * uiScale());
  }
  ImGui::NewLine();
}

// [SECTION] one heatmap

// The margins around a heatmap's cells: tick labels left and below, the title above.
struct Margins {
  float left, top, bottom, right;
};
Margins heatmapMargins() {
  const float s = uiScale();
  const float line = ImGui::GetTextLineHeight();
  const float label = ImGui::CalcTextSize("1e-10").x;
  return {label + 10.0f * s, line + 6.0f * s, 2.0f * line + 12.0f * s, 0.5f * label};
}

// Draws integrator n's heatmap at the cursor; returns the cell index under the mouse, or -1.
long long heatmap(const SweepJob::Snapshot& snap, size_t n, float cell, long long loaded_cell) {
  const size_t nx = snap.dts.size(), ny = snap.stiffnesses.size();
  const float s = uiScale();
  const float line = ImGui::GetTextLineHeight();
  const auto [left, top, bottom, right] = heatmapMargins();
  const float plot_w = float(nx) * cell, plot_h = float(ny) * cell;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::PushID(int(n));
  ImGui::InvisibleButton("heatmap", ImVec2(left + plot_w + right, top + plot_h + bottom));
  const bool hovered = ImGui::IsItemHovered();
  ImGui::PopID();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);

  // title
  const std::string title(integratorName(snap.integrators[n]));
  const ImVec2 title_size = ImGui::CalcTextSize(title.c_str());
  draw->AddText(ImVec2(origin.x + left + 0.5f * (plot_w - title_size.x), origin.y), text,
                title.c_str());

  // the cells: dt left to right, stiffness bottom to top, 1 px gaps
  const ImVec2 a(origin.x + left, origin.y + top);
  long long under = -1;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (size_t row = 0; row < ny; ++row) {
    for (size_t col = 0; col < nx; ++col) {
      const size_t i = snap.index(n, row, col);
      const ImVec2 p0(a.x + float(col) * cell, a.y + float(ny - 1 - row) * cell);
      const ImVec2 p1(p0.x + cell - 1.0f, p0.y + cell - 1.0f);
      draw->AddRectFilled(p0, p1,
                          snap.finished[i] ? statusColor(snap.results[i].status) : kPending);
      const bool inside =
          mouse.x >= p0.x && mouse.x < p0.x + cell && mouse.y >= p0.y && mouse.y < p0.y + cell;
      if (hovered && inside) under = (long long)(i);
      if ((long long)(i) == loaded_cell) {
        draw->AddRect(ImVec2(p0.x - 1.0f, p0.y - 1.0f), ImVec2(p1.x + 1.0f, p1.y + 1.0f),
                      IM_COL32(255, 255, 255, 255), 0.0f, 0, 2.0f * s);
      }
    }
  }
  if (under >= 0) {
    const size_t row = (size_t(under) / nx) % ny, col = size_t(under) % nx;
    const ImVec2 p0(a.x + float(col) * cell, a.y + float(ny - 1 - row) * cell);
    draw->AddRect(p0, ImVec2(p0.x + cell - 1.0f, p0.y + cell - 1.0f), IM_COL32(255, 255, 255, 200),
                  0.0f, 0, 1.5f * s);
  }

  // x axis: dt, log ticks at the decades (the ends when there are fewer than two)
  const double dt_lo = snap.dts.front(), dt_hi = snap.dts.back();
  std::vector<double> x_ticks = decades(dt_lo, dt_hi);
  const bool x_ends = x_ticks.size() < 2;
  if (x_ends) x_ticks = {dt_lo, dt_hi};
  const float axis_y = a.y + plot_h + 2.0f;
  draw->AddLine(ImVec2(a.x, axis_y), ImVec2(a.x + plot_w, axis_y), kAxis);
  float last_right = -1e9f;
  for (double v : x_ticks) {
    const float x = a.x + axisOffset(v, dt_lo, dt_hi, nx, cell);
    draw->AddLine(ImVec2(x, axis_y), ImVec2(x, axis_y + 4.0f * s), kAxis);
    const std::string label = x_ends ? shortNumber(v) : decadeLabel(v);
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    if (x - 0.5f * w < last_right + 4.0f * s) continue;
    draw->AddText(ImVec2(x - 0.5f * w, axis_y + 5.0f * s), dim, label.c_str());
    last_right = x + 0.5f * w;
  }
  const char* x_title = "dt (s)";
  draw->AddText(
      ImVec2(a.x + 0.5f * (plot_w - ImGui::CalcTextSize(x_title).x), axis_y + 5.0f * s + line),
      text, x_title);

  // y axis: stiffness
  const double k_lo = snap.stiffnesses.front(), k_hi = snap.stiffnesses.back();
  std::vector<double> y_ticks = decades(k_lo, k_hi);
  const bool y_ends = y_ticks.size() < 2;
  if (y_ends) y_ticks = {k_lo, k_hi};
  const float axis_x = a.x - 3.0f;
  draw->AddLine(ImVec2(axis_x, a.y), ImVec2(axis_x, a.y + plot_h), kAxis);
  float last_top = 1e9f;
  for (double v : y_ticks) {
    const float y = a.y + plot_h - axisOffset(v, k_lo, k_hi, ny, cell);
    draw->AddLine(ImVec2(axis_x - 4.0f * s, y), ImVec2(axis_x, y), kAxis);
    if (y + 0.5f * line > last_top - 1.0f) continue;
    const std::string label = y_ends ? shortNumber(v) : decadeLabel(v);
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    draw->AddText(ImVec2(axis_x - 6.0f * s - w, y - 0.5f * line), dim, label.c_str());
    last_top = y - 0.5f * line;
  }
  // the y title, one letter per line would be tall: a short label above the tick labels
  draw->AddText(ImVec2(origin.x, a.y - line - 2.0f * s), text, "k (N/m)");
  return under;
}

void cellTooltip(const SweepJob::Snapshot& snap, size_t i) {
  const SweepCell& c = snap.cells[i];
  ImGui::BeginTooltip();
  ImGui::Text("%s   dt = %.3g s   k = %.3g N/m", std::string(integratorName(c.integrator)).c_str(),
              c.dt, c.stiffness);
  if (!snap.finished[i]) {
    ImGui::TextDisabled("not run yet");
  } else {
    const CellResult& r = snap.results[i];
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(statusColor(r.status)));
    ImGui::TextUnformatted(std::string(cellStatusName(r.status)).c_str());
    ImGui::PopStyleColor();
    ImGui::Text("max strain     %.3g %%", 100.0 * r.max_strain);
    if (std::isfinite(r.energy_drift)) {
      ImGui::Text("energy drift   %+.3g %% of |E0|", 100.0 * r.energy_drift);
    }
    ImGui::Text("energy gain    %+.3g %% of |E0|", 100.0 * r.energy_gain);
    if (std::isfinite(r.realism_error)) {
      ImGui::Text("closed-form error  %.3g x amplitude", r.realism_error);
    }
    ImGui::Text("%lld solves in %.3g ms", static_cast<long long>(r.steps), r.wall_ms);
  }
  ImGui::TextDisabled("click: run the simulation at this dt (skip 0), k and integrator");
  ImGui::EndTooltip();
}

// a range as two fields side by side
bool rangeFields(const char* id, double* lo, double* hi, const char* unit) {
  ImGui::PushID(id);
  const float w = 5.5f * ImGui::GetFontSize();
  ImGui::SetNextItemWidth(w);
  bool changed = ImGui::InputDouble("##lo", lo, 0.0, 0.0, "%.3g");
  ImGui::SameLine();
  ImGui::TextUnformatted("..");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w);
  changed |= ImGui::InputDouble("##hi", hi, 0.0, 0.0, "%.3g");
  ImGui::SameLine();
  ImGui::TextDisabled("%s", unit);
  ImGui::PopID();
  return changed;
}

}  // namespace

// [SECTION] the panel

SweepRequest sweepRequestFor(const SweepPanelState& ui, const PanelState& state,
                             const SimSession& session) {
  SweepRequest r;
  r.scene = session.sceneOptions();
  r.reference = session.referenceMaterial();
  r.material = state.material;
  r.solver = state.solver;
  for (size_t i = 0; i < std::size(kAllIntegrators); ++i) {
    if (ui.integrators[i]) r.integrators.push_back(kAllIntegrators[i]);
  }
  r.dt_min = ui.dt_min;
  r.dt_max = ui.dt_max;
  r.k_min = ui.k_min;
  r.k_max = ui.k_max;
  r.dt_cells = ui.dt_cells;
  r.k_cells = ui.k_cells;
  r.duration = double(ui.duration);
  return r;
}

void drawSweepPanel(SweepPanelState& ui, SweepJob& job, PanelState& state, const PanelFacts& facts,
                    PanelRequests* requests) {
  if (!state.show_sweep) return;
  const SimSession& session = *facts.session;
  const Viewport& v = facts.viewport;
  const float s = uiScale();
  // along the bottom of the 3D view, as tall as its contents
  ImGui::SetNextWindowPos(ImVec2(v.x + 10.0f * s, v.y + v.height - 10.0f * s), ImGuiCond_Always,
                          ImVec2(0.0f, 1.0f));
  ImGui::SetNextWindowBgAlpha(0.94f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoMove;
  if (!ImGui::Begin("Sweep: dt x stiffness", &state.show_sweep, flags)) {
    ImGui::End();
    return;
  }
  const SweepJob::Snapshot snap = job.snapshot();
  const bool busy = job.busy();

  // settings: the scene as loaded, the live material and solver, the grid
  ImGui::TextDisabled("%s, %zu particles; live material and solver; each cell from the start",
                      session.scene().name.c_str(), session.model().particleCount());
  // the settings fold away once a sweep starts (the heatmaps need the room)
  ImGui::SetNextItemOpen(true, ImGuiCond_Once);
  if (ui.fold_settings) ImGui::SetNextItemOpen(false);
  ui.fold_settings = false;
  const bool settings_open = ImGui::CollapsingHeader("settings");
  ImGui::BeginDisabled(busy);
  if (settings_open) {
    ImGui::TextUnformatted("integrators");
    for (size_t i = 0; i < std::size(kAllIntegrators); ++i) {
      ImGui::SameLine();
      const std::string name(integratorName(kAllIntegrators[i]));
      ImGui::Checkbox(name.c_str(), &ui.integrators[i]);
    }
    ImGui::TextUnformatted("dt       ");
    ImGui::SameLine();
    rangeFields("dt", &ui.dt_min, &ui.dt_max, "s (step h, skip 0)");
    ImGui::TextUnformatted("stiffness");
    ImGui::SameLine();
    rangeFields("k", &ui.k_min, &ui.k_max, "N/m");
    ImGui::TextUnformatted("cells    ");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(5.5f * ImGui::GetFontSize());
    ImGui::SliderInt("##nx", &ui.dt_cells, 2, kMaxSweepCells, "%d dt",
                     ImGuiSliderFlags_AlwaysClamp);
    ImGui::SameLine();
    ImGui::TextUnformatted("x");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(5.5f * ImGui::GetFontSize());
    ImGui::SliderInt("##ny", &ui.k_cells, 2, kMaxSweepCells, "%d k", ImGuiSliderFlags_AlwaysClamp);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(6.5f * ImGui::GetFontSize());
    ImGui::SliderFloat("##duration", &ui.duration, 0.05f, 10.0f, "%.2f s each",
                       ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
  }
  ImGui::EndDisabled();

  // run, cancel, progress
  const float button = 6.0f * ImGui::GetFontSize();
  if (!busy) {
    if (ImGui::Button("Run sweep", ImVec2(button, 0.0f))) {
      const Status started = job.start(sweepRequestFor(ui, state, session));
      ui.error = started ? "" : started.message();
      ui.loaded_cell = -1;
      ui.fold_settings = bool(started);
    }
  } else {
    ImGui::BeginDisabled(job.phase() == SweepJob::Phase::kCancelling);
    if (ImGui::Button("Cancel", ImVec2(button, 0.0f))) job.cancel();
    ImGui::EndDisabled();
  }
  ImGui::SameLine();
  char overlay[96];
  if (snap.cells.empty()) {
    std::snprintf(overlay, sizeof overlay, "no sweep yet");
  } else {
    std::snprintf(overlay, sizeof overlay, "%zu / %zu cells, %.1f s  (%s)", snap.done,
                  snap.cells.size(), snap.wall_seconds, SweepJob::phaseName(snap.phase));
  }
  ImGui::ProgressBar(float(snap.progress()), ImVec2(-FLT_MIN, 0.0f), overlay);
  if (!ui.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.00f, 0.45f, 0.40f, 1.0f));
    ImGui::TextWrapped("%s", ui.error.c_str());
    ImGui::PopStyleColor();
  }
  if (snap.cells.empty()) {
    ImGui::End();
    return;
  }

  // the heatmaps, side by side while they fit over the view
  ImGui::Separator();
  if (snap.scene_name != session.scene().name) {
    ImGui::TextColored(ImVec4(1.00f, 0.72f, 0.30f, 1.0f), "these results are for %s",
                       snap.scene_name.c_str());
  }
  legend();
  const size_t nx = snap.dts.size(), ny = snap.stiffnesses.size();
  // one row of heatmaps when they fit over the view at a readable cell size, else rows of them
  const Margins m = heatmapMargins();
  const float gap = 14.0f * s;
  const float avail = std::max(200.0f * s, v.width - 48.0f * s);
  const float n_maps = float(snap.integrators.size());
  const float per_map = (avail - gap * (n_maps - 1.0f)) / n_maps - m.left - m.right;
  const float cell =
      std::clamp(std::floor(std::min(per_map / float(nx), 160.0f * s / float(std::max(nx, ny)))),
                 6.0f * s, 26.0f * s);
  const float heatmap_w = m.left + cell * float(nx) + m.right;
  const int per_row = std::max(1, int((avail + gap) / (heatmap_w + gap)));
  long long clicked = -1, hovered = -1;
  for (size_t n = 0; n < snap.integrators.size(); ++n) {
    if (n % size_t(per_row) != 0) ImGui::SameLine(0.0f, gap);
    const long long under = heatmap(snap, n, cell, ui.loaded_cell);
    if (under >= 0) {
      hovered = under;
      if (ImGui::IsItemClicked(ImGuiMouseButton_Left)) clicked = under;
    }
  }
  if (hovered >= 0) cellTooltip(snap, size_t(hovered));
  ImGui::TextDisabled(
      "%.2g s of simulated time per cell; hover a cell for its numbers, click "
      "to load it",
      snap.duration);

  // a click: the cell's dt (skip 0), stiffness and integrator, live from the next solve
  if (clicked >= 0) {
    const SweepCell& c = snap.cells[size_t(clicked)];
    const bool supported = session.backend().supports(c.integrator);
    SweepCell applied = c;
    if (!supported) applied.integrator = state.solver.integrator;
    const CellSettings set = settingsForCell(applied, state.time, state.material, state.solver);
    state.time = set.time;
    state.material = set.material;
    requests->time_changed = true;
    requests->material_changed = true;
    if (set.solver.integrator != state.solver.integrator) {
      state.solver = set.solver;
      requests->solver_changed = true;
    }
    ui.loaded_cell = clicked;
    char text[160];
    std::snprintf(text, sizeof text, "loaded %s, dt = %.3g s (skip 0), k = %.3g N/m%s",
                  std::string(integratorName(applied.integrator)).c_str(), c.dt, c.stiffness,
                  supported ? "" : " (integrator not on this backend)");
    state.message = text;
    state.message_is_error = false;
    state.message_until = facts.now + 4.0;
  }
  ImGui::End();
}

}  // namespace hooke
