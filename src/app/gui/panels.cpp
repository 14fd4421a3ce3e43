// The panels, top to bottom as they look. Each section reads PanelState and the session, edits
// PanelState and raises PanelRequests; none of them touches the simulation directly.
//
// [SECTION] helpers
// [SECTION] controls: scene
// [SECTION] controls: solver
// [SECTION] controls: time
// [SECTION] controls: material
// [SECTION] controls: mouse and view
// [SECTION] stats and plots
// [SECTION] overlays on the view
// [SECTION] entry point
#include "app/gui/panels.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <vector>

#include <imgui.h>

#include "app/gui/compare_view.h"
#include "app/gui/plot_widget.h"
#include "app/gui/ui_style.h"

namespace hooke {

namespace {

// [SECTION] helpers

constexpr float kPlotSeconds = 10.0f;  // how much history the plots show
constexpr ImGuiWindowFlags kSidePanelFlags =
    ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
constexpr ImGuiWindowFlags kOverlayFlags =
    ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
    ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove;

const ImVec4 kWarningColor(1.00f, 0.72f, 0.30f, 1.0f);
const ImVec4 kErrorColor(1.00f, 0.45f, 0.40f, 1.0f);
const ImVec4 kGoodColor(0.55f, 0.85f, 0.55f, 1.0f);

void tooltip(const char* text) {
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", text);
}

// a label on the left and a value on the right of a two-column table row
void row(const char* label, const char* format, ...) IM_FMTARGS(2);
void row(const char* label, const char* format, ...) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextDisabled("%s", label);
  ImGui::TableNextColumn();
  va_list args;
  va_start(args, format);
  ImGui::TextV(format, args);
  va_end(args);
}

bool beginStatsTable(const char* id) {
  if (!ImGui::BeginTable(id, 2, ImGuiTableFlags_SizingStretchProp)) return false;
  ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed,
                          ImGui::CalcTextSize("solver ms / solve").x + 8.0f);
  ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
  return true;
}

// a small heading with a rule under it (ImGui 1.86 has no SeparatorText)
void sectionTitle(const char* text) {
  ImGui::Spacing();
  ImGui::TextColored(ImVec4(0.95f, 0.62f, 0.48f, 1.0f), "%s", text);
  ImGui::Separator();
}

// the plots' time axis: the last kPlotSeconds, growing from 0 until there is that much
PlotAxes timeAxes(float now) {
  PlotAxes axes;
  axes.x_max = std::max(now, 1.0f);
  axes.x_min = std::max(0.0f, axes.x_max - kPlotSeconds);
  return axes;
}

// a slider the width of the panel, label above it (reads better in a narrow sidebar)
void label(const char* text) {
  ImGui::TextUnformatted(text);
  ImGui::SetNextItemWidth(-FLT_MIN);
}

// [SECTION] controls: scene

void sceneSection(PanelState& state, const PanelFacts& facts, PanelRequests* requests) {
  if (!ImGui::CollapsingHeader("Scene", ImGuiTreeNodeFlags_DefaultOpen)) return;
  int kind = int(state.scene);
  bool chosen = false;
  chosen |= ImGui::RadioButton("cloth", &kind, int(SceneKind::kCloth));
  ImGui::SameLine();
  chosen |= ImGui::RadioButton("volume", &kind, int(SceneKind::kVolume));
  ImGui::SameLine();
  chosen |= ImGui::RadioButton("spring1d", &kind, int(SceneKind::kSpring1d));
  ImGui::SameLine();
  ImGui::RadioButton("file", &kind, int(SceneKind::kFile));
  const bool file_picked = kind == int(SceneKind::kFile) && state.scene != SceneKind::kFile;
  state.scene = SceneKind(kind);
  if (chosen) requests->load = sceneOptionsFor(state);

  // resolution of the built-in grids: applied when the slider is let go
  if (state.scene == SceneKind::kCloth || state.scene == SceneKind::kVolume) {
    int& res = state.scene == SceneKind::kCloth ? state.cloth_res : state.volume_res;
    label(state.scene == SceneKind::kCloth ? "resolution (N x N particles)"
                                           : "resolution (particles along the beam)");
    ImGui::SliderInt("##res", &res, 2, state.scene == SceneKind::kCloth ? 128 : 48, "%d",
                     ImGuiSliderFlags_AlwaysClamp);
    if (ImGui::IsItemDeactivatedAfterEdit()) requests->load = sceneOptionsFor(state);
  }

  // a scene file: .json (hooke scene) or .node (TetGen); dropping a file on the window works too
  if (state.scene == SceneKind::kFile) {
    label("scene file (.json or .node; or drop one on the window)");
    ImGui::SetNextItemWidth(-ImGui::CalcTextSize("Open").x -
                            2.0f * ImGui::GetStyle().FramePadding.x -
                            ImGui::GetStyle().ItemSpacing.x);
    const bool entered = ImGui::InputText("##path", state.file_path, sizeof state.file_path,
                                          ImGuiInputTextFlags_EnterReturnsTrue);
    if (file_picked) ImGui::SetKeyboardFocusHere(-1);
    ImGui::SameLine();
    if ((ImGui::Button("Open") || entered) && state.file_path[0] != '\0') {
      requests->load = sceneOptionsFor(state);
    }
  }

  const SimSession& session = *facts.session;
  ImGui::TextDisabled("%s: %zu particles, %zu springs", session.scene().name.c_str(),
                      session.model().particleCount(), session.model().springCount());
  if (!state.scene_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kErrorColor);
    ImGui::TextWrapped("%s", state.scene_error.c_str());
    ImGui::PopStyleColor();
  }
}

// [SECTION] controls: solver

void solverSection(PanelState& state, const PanelFacts& facts, PanelRequests* requests) {
  if (!ImGui::CollapsingHeader("Solver", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const Backend& backend = facts.session->backend();

  // the integrator: those the backend lacks are greyed out
  label("integrator");
  const std::string current(integratorName(state.solver.integrator));
  if (ImGui::BeginCombo("##integrator", current.c_str())) {
    for (Integrator integrator : kAllIntegrators) {
      const bool supported = backend.supports(integrator);
      ImGui::BeginDisabled(!supported);
      const std::string name(integratorName(integrator));
      if (ImGui::Selectable(name.c_str(), integrator == state.solver.integrator)) {
        state.solver.integrator = integrator;
        requests->solver_changed = true;
      }
      ImGui::EndDisabled();
      if (!supported) tooltip("the current backend does not implement this integrator");
    }
    ImGui::EndCombo();
  }

  // the backend: CUDA greyed out, with the reason, where it cannot run
  ImGui::TextUnformatted("backend");
  ImGui::SameLine();
  int use_cuda = state.backend == "cuda" ? 1 : 0;
  bool changed = ImGui::RadioButton("CPU", &use_cuda, 0);
  ImGui::SameLine();
  ImGui::BeginDisabled(!facts.cuda_unavailable.empty());
  changed |= ImGui::RadioButton("CUDA", &use_cuda, 1);
  ImGui::EndDisabled();
  if (!facts.cuda_unavailable.empty()) {
    tooltip(facts.cuda_unavailable.c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("CUDA: %s", facts.cuda_unavailable.c_str());
    ImGui::PopStyleColor();
  }
  if (changed) {
    state.backend = use_cuda ? "cuda" : "cpu";
    requests->backend_changed = true;
  }
  if (!state.backend_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kErrorColor);
    ImGui::TextWrapped("%s", state.backend_error.c_str());
    ImGui::PopStyleColor();
  }

  // the linear solve (and the Newton loop around it, for the integrators that have one)
  const bool implicit = state.solver.integrator != Integrator::kExplicit &&
                        state.solver.integrator != Integrator::kSymplectic;
  ImGui::BeginDisabled(!implicit);
  label("CG tolerance (relative residual)");
  requests->solver_changed |=
      ImGui::SliderFloat("##tolerance", &state.solver.tolerance, 1e-8f, 1e-1f, "%.0e",
                         ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
  label("CG iteration cap");
  requests->solver_changed |=
      ImGui::SliderInt("##iterations", &state.solver.max_iterations, 1, 5000, "%d",
                       ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
  ImGui::EndDisabled();
  if (state.solver.integrator == Integrator::kNewton ||
      state.solver.integrator == Integrator::kBdf2) {
    label("Newton tolerance");
    requests->solver_changed |=
        ImGui::SliderFloat("##newton_tolerance", &state.solver.newton_tolerance, 1e-6f, 1e-1f,
                           "%.0e", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    label("Newton iteration cap");
    requests->solver_changed |=
        ImGui::SliderInt("##newton_iterations", &state.solver.newton_max_iterations, 1, 50, "%d",
                         ImGuiSliderFlags_AlwaysClamp);
  }
}

// [SECTION] controls: time

void timeSection(PanelState& state, const PanelFacts& facts, PanelRequests* requests) {
  if (!ImGui::CollapsingHeader("Time", ImGuiTreeNodeFlags_DefaultOpen)) return;
  TimeSettings& time = state.time;

  label("dt (one tick)");
  const double dt_min = 1e-4, dt_max = 0.1;
  requests->time_changed |=
      ImGui::SliderScalar("##dt", ImGuiDataType_Double, &time.dt, &dt_min, &dt_max, "%.4f s",
                          ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);

  // skip n: solve every n + 1 ticks with h = (n + 1) dt
  requests->time_changed |= ImGui::Checkbox("auto skip", &time.auto_skip);
  tooltip("solve about 30 times per simulated second: n = round((1/30 s) / dt) - 1, 0..10");
  ImGui::SameLine();
  int shown_skip = time.skip();
  ImGui::BeginDisabled(time.auto_skip);
  ImGui::SetNextItemWidth(-FLT_MIN);
  if (ImGui::SliderInt("##skip", &shown_skip, 0, TimeSettings::kMaxManualSkip, "n = %d",
                       ImGuiSliderFlags_AlwaysClamp)) {
    time.manual_skip = shown_skip;
    requests->time_changed = true;
  }
  ImGui::EndDisabled();
  ImGui::TextDisabled("solve every %d tick%s: h = %.4g s", time.skip() + 1,
                      time.skip() == 0 ? "" : "s", (time.skip() + 1) * time.dt);

  label("time scale (simulated s per wall s)");
  const double scale_min = 0.05, scale_max = 4.0;
  requests->time_changed |=
      ImGui::SliderScalar("##scale", ImGuiDataType_Double, &time.time_scale, &scale_min, &scale_max,
                          "%.2fx", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
  (void)facts;
}

// [SECTION] controls: material

void materialSection(PanelState& state, const PanelFacts& facts, PanelRequests* requests) {
  if (!ImGui::CollapsingHeader("Material", ImGuiTreeNodeFlags_DefaultOpen)) return;
  MaterialSettings& m = state.material;
  const int flags = ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp;
  bool changed = false;
  label("stiffness k");
  changed |= ImGui::SliderFloat("##k", &m.stiffness, 10.0f, 1e7f, "%.3g N/m", flags);
  label("damping c");
  changed |= ImGui::SliderFloat("##c", &m.damping, 0.0f, 1e3f, "%.3g N s/m", flags);
  label("mass (whole body)");
  changed |= ImGui::SliderFloat("##m", &m.mass, 1e-3f, 1e3f, "%.3g kg", flags);
  label("gravity");
  changed |= ImGui::SliderFloat("##g", &m.gravity, 0.0f, 30.0f, "%.2f m/s^2",
                                ImGuiSliderFlags_AlwaysClamp);
  label("air drag (per particle)");
  changed |= ImGui::SliderFloat("##drag", &m.drag, 0.0f, 10.0f, "%.3g N s/m", flags);
  if (ImGui::Button("Scene defaults")) {
    m = facts.session->referenceMaterial();
    changed = true;
  }
  tooltip("the scene's own material, as it was loaded");
  ImGui::SameLine();
  ImGui::TextDisabled("(applied at the next solve)");
  requests->material_changed |= changed;
}

// [SECTION] controls: mouse and view

void mouseAndViewSection(PanelState& state, const PanelFacts& facts, PanelRequests* requests) {
  if (!ImGui::CollapsingHeader("Mouse and view")) return;
  const int flags = ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp;
  label("pull stiffness (cursor spring)");
  ImGui::SliderFloat("##pull_k", &state.pull.stiffness, 1e-2f, 1e7f, "%.3g N/m", flags);
  label("pull damping");
  ImGui::SliderFloat("##pull_c", &state.pull.damping, 0.0f, 1e4f, "%.3g N s/m", flags);
  ImGui::TextDisabled(facts.pulling ? "pulling a particle" : "drag a particle to pull it");

  ImGui::Separator();
  ImGui::Checkbox("springs (strain)", &state.draw.springs);
  ImGui::SameLine();
  ImGui::Checkbox("particles", &state.draw.particles);
  ImGui::Checkbox("ground", &state.draw.ground);
  ImGui::SameLine();
  ImGui::Checkbox("shadow", &state.draw.shadow);
  if (ImGui::Button("Reset view (F)")) requests->reset_view = true;
  ImGui::SameLine();
  if (ImGui::Button("Screenshot (F12)")) requests->screenshot = true;

  // the controls, as a table
  if (ImGui::BeginTable("controls", 2, ImGuiTableFlags_SizingStretchProp)) {
    const char* rows[][2] = {
        {"left drag", "pull a particle / orbit"},
        {"right drag", "pan"},
        {"wheel", "zoom"},
        {"Space", "pause / run"},
        {"S", "single step"},
        {"R", "reset"},
        {"1 2 3", "cloth, volume, spring1d"},
        {"F", "reset view"},
        {"H", "hide / show panels"},
        {"F12", "screenshot"},
    };
    for (const auto& r : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r[0]);
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", r[1]);
    }
    ImGui::EndTable();
  }
}

void controlsPanel(PanelState& state, const PanelFacts& facts, PanelRequests* requests) {
  ImGui::SetNextWindowPos(ImVec2(0.0f, 0.0f), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(controlsPanelWidth(), ImGui::GetIO().DisplaySize.y),
                           ImGuiCond_Always);
  if (!ImGui::Begin("hooke", nullptr, kSidePanelFlags)) {
    ImGui::End();
    return;
  }

  // run controls first: the buttons used most
  const float third =
      (ImGui::GetContentRegionAvail().x - 2.0f * ImGui::GetStyle().ItemSpacing.x) / 3.0f;
  if (ImGui::Button(state.paused ? "Run" : "Pause", ImVec2(third, 0.0f))) {
    state.paused = !state.paused;
    requests->pause_changed = true;
  }
  tooltip("Space");
  ImGui::SameLine();
  if (ImGui::Button("Step", ImVec2(third, 0.0f))) requests->step = true;
  tooltip("S: one new solve (h = (n + 1) dt), shown whole; pauses first");
  ImGui::SameLine();
  if (ImGui::Button("Reset", ImVec2(third, 0.0f))) requests->reset = true;
  tooltip("R: back to the scene's initial state, keeping every setting");

  sceneSection(state, facts, requests);
  solverSection(state, facts, requests);
  timeSection(state, facts, requests);
  materialSection(state, facts, requests);
  compareControls(state, facts, requests);
  mouseAndViewSection(state, facts, requests);
  ImGui::End();
}

// [SECTION] stats and plots

void energyPlot(const SimSession& session) {
  const auto& samples = session.history().samples();
  std::vector<float> t, kinetic, potential, total;
  t.reserve(samples.size());
  for (const SolveSample& s : samples) {
    t.push_back(float(s.time));
    kinetic.push_back(float(s.kinetic));
    potential.push_back(float(s.potential));
    total.push_back(float(s.total));
  }
  const float now = float(session.physicsTime());
  PlotAxes axes = timeAxes(now);
  axes.y_unit = " J";
  const PlotSeries series[] = {{"kinetic", ui_colors::kKinetic, t, kinetic},
                               {"potential", ui_colors::kPotential, t, potential},
                               {"total", ui_colors::kTotal, t, total, 2.0f}};
  plotLines("energy", 150.0f * ImGui::GetFontSize() / 15.0f, axes, series);
  if (std::optional<double> drift = session.history().totalEnergyDrift(kPlotSeconds)) {
    ImGui::TextDisabled("total energy drift over the plot: %+.4g J/s", *drift);
  } else {
    ImGui::TextDisabled("total energy drift: (needs a few solves)");
  }
}

void heightPlot(const SimSession& session) {
  // the simulated height, and the closed form since the last release
  const auto& samples = session.history().samples();
  std::vector<float> t, y, exact_t, exact_y;
  for (const SolveSample& s : samples) {
    t.push_back(float(s.time));
    y.push_back(float(s.height));
  }
  const float now = float(session.physicsTime());
  PlotAxes axes = timeAxes(now);
  axes.y_unit = " m";
  axes.min_y_span = 1e-3f;
  double worst = 0.0;
  if (const std::optional<OscillatorReference>& ref = session.oscillator()) {
    const double from = std::max(double(axes.x_min), ref->t0);
    constexpr int kPoints = 400;
    for (int i = 0; i <= kPoints && from < now; ++i) {
      const double time = from + (now - from) * double(i) / kPoints;
      exact_t.push_back(float(time));
      exact_y.push_back(float(ref->height(time)));
    }
    for (const SolveSample& s : samples) {
      if (s.time >= ref->t0) worst = std::max(worst, std::abs(s.height - ref->height(s.time)));
    }
  }
  const PlotSeries series[] = {{"simulated", ui_colors::kSimulated, t, y, 2.0f},
                               {"closed form", ui_colors::kExact, exact_t, exact_y, 1.5f}};
  plotLines("height", 150.0f * ImGui::GetFontSize() / 15.0f, axes, series);
  if (session.oscillator()) {
    ImGui::TextDisabled("largest |y - y_exact| since release: %.3g m", worst);
  } else {
    ImGui::TextDisabled("closed form: shown again after release");
  }
}

void statsPanel(const PanelState& state, const PanelFacts& facts, PanelRequests* requests) {
  // a column of its own, or (narrow windows) a collapsed window over the view's top right
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGuiWindowFlags flags = kSidePanelFlags;
  if (facts.stats_docked) {
    ImGui::SetNextWindowPos(ImVec2(display.x - statsPanelWidth(), 0.0f), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(statsPanelWidth(), display.y), ImGuiCond_Always);
  } else {
    const Viewport& v = facts.viewport;
    ImGui::SetNextWindowPos(ImVec2(v.x + v.width - 8.0f, v.y + 3.5f * ImGui::GetFontSize()),
                            ImGuiCond_Always, ImVec2(1.0f, 0.0f));
    ImGui::SetNextWindowSize(ImVec2(statsPanelWidth(), 0.0f), ImGuiCond_Always);
    ImGui::SetNextWindowCollapsed(true, ImGuiCond_Once);
    flags = (flags & ~ImGuiWindowFlags_NoCollapse) | ImGuiWindowFlags_AlwaysAutoResize;
  }
  if (!ImGui::Begin("Stats", nullptr, flags)) {
    ImGui::End();
    return;
  }
  const SimSession& session = *facts.session;
  const FrameStats& frames = *facts.frames;
  const std::optional<SolveReport>& solve = session.lastSolve();

  if (beginStatsTable("performance")) {
    row("FPS", "%.0f", frames.fps());
    row("frame", "%.1f ms", frames.frameMs());
    if (solve) {
      const StepStats& step = solve->step;
      row("solver ms / solve", "%.3g ms", step.force_ms + step.solve_ms + step.commit_ms);
    } else {
      row("solver ms / solve", "-");
    }
    const std::optional<double> rtf = frames.realTimeFactor();
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("real-time factor");
    ImGui::TableNextColumn();
    if (session.paused()) {
      ImGui::TextDisabled("paused");
    } else if (rtf) {
      const bool behind = *rtf < 0.9 * state.time.time_scale;
      ImGui::TextColored(behind ? kWarningColor : kGoodColor, "%.2fx%s", *rtf,
                         behind ? "  (solver behind)" : "");
    } else {
      ImGui::TextDisabled("-");
    }
    row("t", "%.3f s  (h %.4g s)", session.simTime(), session.h());
    row("solves", "%lld", static_cast<long long>(session.solves()));
    if (const int64_t capped = session.cgUnconverged(); capped > 0) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextDisabled("CG at its cap");
      ImGui::TableNextColumn();
      ImGui::TextColored(kWarningColor, "%lld solves", static_cast<long long>(capped));
    }
    ImGui::EndTable();
  }
  compareStats(facts, requests);

  sectionTitle("Last solve");
  if (beginStatsTable("solve")) {
    if (solve) {
      const StepStats& step = solve->step;
      row("CG iterations", "%d%s", step.cg_iterations, step.cg_converged ? "" : "  (hit the cap)");
      row("CG residual", "%.2e", double(step.cg_residual));
      if (step.newton_iterations > 1 || session.solver().integrator == Integrator::kNewton ||
          session.solver().integrator == Integrator::kBdf2) {
        row("Newton", "%d iterations, residual %.2e", step.newton_iterations,
            double(step.newton_residual));
      }
      row("max strain", "%.3g %%", 100.0 * solve->strain.max);
      row("energy", "%.4g J", solve->energy.total());
    } else {
      row("", "no solve yet");
    }
    ImGui::EndTable();
  }

  sectionTitle("Energy");
  energyPlot(session);
  if (session.isOscillator()) {
    sectionTitle("Mass height");
    heightPlot(session);
  }

  sectionTitle("Renderer");
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s; visual state by %s, backend %s", facts.gl_description.c_str(),
                     facts.visual_path.c_str(), std::string(session.backend().name()).c_str());
  ImGui::PopStyleColor();
  ImGui::End();
}

// [SECTION] overlays on the view

void statusOverlay(const PanelState& state, const PanelFacts& facts) {
  const SimSession& session = *facts.session;
  const Viewport& v = facts.viewport;
  ImGui::SetNextWindowPos(ImVec2(v.x + 10.0f, v.y + 10.0f), ImGuiCond_Always);
  ImGui::SetNextWindowBgAlpha(0.55f);
  if (ImGui::Begin("##status", nullptr, kOverlayFlags | ImGuiWindowFlags_NoInputs)) {
    ImGui::Text("%s   t = %.2f s   %s, %s", session.scene().name.c_str(), session.simTime(),
                std::string(integratorName(session.solver().integrator)).c_str(),
                std::string(session.backend().name()).c_str());
    if (session.paused()) {
      ImGui::SameLine();
      ImGui::TextColored(kWarningColor, "  PAUSED");
    }
    const std::optional<double> rtf = facts.frames->realTimeFactor();
    if (!session.paused() && rtf && *rtf < 0.9 * state.time.time_scale && session.solves() > 0) {
      ImGui::TextColored(kWarningColor, "solver behind: %.2fx real time (wanted %.2fx)", *rtf,
                         state.time.time_scale);
    }
  }
  ImGui::End();
}

void divergenceBanner(const PanelFacts& facts, PanelRequests* requests) {
  const SimSession& session = *facts.session;
  const std::optional<double> diverged = session.divergedAt();
  const std::optional<std::string>& failed = session.backendError();
  if (!diverged && !failed) return;
  const Viewport& v = facts.viewport;
  ImGui::SetNextWindowPos(ImVec2(v.x + 0.5f * v.width, v.y + 60.0f), ImGuiCond_Always,
                          ImVec2(0.5f, 0.0f));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.55f, 0.10f, 0.10f, 0.94f));
  if (ImGui::Begin("##diverged", nullptr, kOverlayFlags)) {
    if (diverged) {
      ImGui::Text("The simulation diverged at t = %.3f s (%s, h = %.4g s).", *diverged,
                  std::string(integratorName(session.solver().integrator)).c_str(), session.h());
      const Integrator integrator = session.solver().integrator;
      const bool explicit_method =
          integrator == Integrator::kExplicit || integrator == Integrator::kSymplectic;
      ImGui::TextUnformatted(explicit_method
                                 ? "Try a smaller dt, a softer material or an implicit integrator."
                                 : "Try a smaller dt, a softer material or a softer mouse pull.");
    } else {
      ImGui::Text("The %s backend failed: %s", std::string(session.backend().name()).c_str(),
                  failed->c_str());
    }
    if (diverged) {
      ImGui::Text("Paused; the last finite state (t = %.3f s) is kept.", *diverged - session.h());
      if (ImGui::Button("Revert to last finite state")) requests->revert = true;
      ImGui::SameLine();
    }
    if (ImGui::Button("Reset (R)")) requests->reset = true;
  }
  ImGui::End();
  ImGui::PopStyleColor();
}

void messageOverlay(PanelState& state, const PanelFacts& facts) {
  if (state.message.empty() || facts.now > state.message_until) return;
  const Viewport& v = facts.viewport;
  ImGui::SetNextWindowPos(ImVec2(v.x + 0.5f * v.width, v.y + v.height - 16.0f), ImGuiCond_Always,
                          ImVec2(0.5f, 1.0f));
  ImGui::SetNextWindowBgAlpha(0.75f);
  if (ImGui::Begin("##message", nullptr, kOverlayFlags | ImGuiWindowFlags_NoInputs)) {
    if (state.message_is_error) {
      ImGui::TextColored(kErrorColor, "%s", state.message.c_str());
    } else {
      ImGui::TextUnformatted(state.message.c_str());
    }
  }
  ImGui::End();
}

void pullHints(const PanelFacts& facts) {
  // over the 3D view, under every panel
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const ImU32 band = IM_COL32(255, 150, 60, 230);
  if (facts.pull_from && facts.pull_to) {
    const ImVec2 a(facts.pull_from->x, facts.pull_from->y), b(facts.pull_to->x, facts.pull_to->y);
    draw->AddLine(a, b, band, 2.0f);
    draw->AddCircleFilled(a, 4.0f, band);
    draw->AddCircle(b, 7.0f, band, 0, 2.0f);
  } else if (facts.hover) {
    draw->AddCircle(ImVec2(facts.hover->x, facts.hover->y), 9.0f, IM_COL32(255, 255, 255, 200), 0,
                    2.0f);
  }
}

void hiddenPanelsHint(const PanelFacts& facts) {
  const Viewport& v = facts.viewport;
  ImGui::SetNextWindowPos(ImVec2(v.x + v.width - 10.0f, v.y + 10.0f), ImGuiCond_Always,
                          ImVec2(1.0f, 0.0f));
  ImGui::SetNextWindowBgAlpha(0.4f);
  if (ImGui::Begin("##hint", nullptr, kOverlayFlags | ImGuiWindowFlags_NoInputs)) {
    ImGui::TextDisabled("H: show panels");
  }
  ImGui::End();
}

}  // namespace

// [SECTION] entry point

float controlsPanelWidth() {
  return 22.0f * ImGui::GetFontSize();
}

float statsPanelWidth() {
  return 21.0f * ImGui::GetFontSize();
}

SceneOptions sceneOptionsFor(const PanelState& state) {
  SceneOptions options;
  switch (state.scene) {
    case SceneKind::kCloth:
      options.scene = "cloth";
      options.res = state.cloth_res;
      break;
    case SceneKind::kVolume:
      options.scene = "volume";
      options.res = state.volume_res;
      break;
    case SceneKind::kSpring1d:
      options.scene = "spring1d";
      break;
    case SceneKind::kFile:
      options.scene = state.file_path;
      break;
  }
  return options;
}

void drawPanels(PanelState& state, const PanelFacts& facts, PanelRequests* requests) {
  pullHints(facts);
  if (state.show_panels) {
    controlsPanel(state, facts, requests);
    statsPanel(state, facts, requests);
  } else {
    hiddenPanelsHint(facts);
  }
  statusOverlay(state, facts);
  divergenceBanner(facts, requests);
  messageOverlay(state, facts);
}

}  // namespace hooke
