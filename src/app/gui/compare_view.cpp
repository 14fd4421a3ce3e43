// The comparison's controls, its two-column stats and its labels over the view.
#include "app/gui/compare_view.h"

#include <cfloat>
#include <cstdio>
#include <string>

#include <imgui.h>

namespace hooke {

namespace {

const ImVec4 kPrimaryColor(0.95f, 0.62f, 0.48f, 1.0f);  // the section titles' warm tone
const ImVec4 kGhostColor(0.45f, 0.78f, 1.00f, 1.0f);    // the ghost's tint
const ImVec4 kBadColor(1.00f, 0.45f, 0.40f, 1.0f);

std::string nameOf(Integrator integrator) {
  return std::string(integratorName(integrator));
}

// one session's column values
struct Column {
  std::string integrator, solver_ms, cg, newton, strain, energy, status;
};

Column columnOf(const SimSession& s) {
  Column c;
  char buffer[64];
  c.integrator = nameOf(s.solver().integrator);
  if (const std::optional<SolveReport>& solve = s.lastSolve()) {
    const StepStats& step = solve->step;
    std::snprintf(buffer, sizeof buffer, "%.3g", step.force_ms + step.solve_ms + step.commit_ms);
    c.solver_ms = buffer;
    std::snprintf(buffer, sizeof buffer, "%d%s", step.cg_iterations,
                  step.cg_converged ? "" : " (cap)");
    c.cg = buffer;
    std::snprintf(buffer, sizeof buffer, "%d", step.newton_iterations);
    c.newton = buffer;
    std::snprintf(buffer, sizeof buffer, "%.3g %%", 100.0 * solve->strain.max);
    c.strain = buffer;
    std::snprintf(buffer, sizeof buffer, "%.4g J", solve->energy.total());
    c.energy = buffer;
  } else {
    for (std::string* field : {&c.solver_ms, &c.cg, &c.newton, &c.strain, &c.energy})
      field->assign(1, '-');
  }
  if (std::optional<double> at = s.divergedAt()) {
    std::snprintf(buffer, sizeof buffer, "diverged at %.2f s", *at);
    c.status = buffer;
  } else if (s.backendError()) {
    c.status = "backend failed";
  } else {
    c.status = "running";
  }
  return c;
}

// a small label at a point of the view (window pixels), `pivot` the part of it placed there
void label(const ImVec2& at, const ImVec2& pivot, const char* id, const char* text,
           const ImVec4& color) {
  ImGui::SetNextWindowPos(at, ImGuiCond_Always, pivot);
  ImGui::SetNextWindowBgAlpha(0.6f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                 ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav |
                                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoInputs;
  if (ImGui::Begin(id, nullptr, flags)) ImGui::TextColored(color, "%s", text);
  ImGui::End();
}

}  // namespace

void compareControls(PanelState& state, const PanelFacts& facts, PanelRequests* requests) {
  if (!ImGui::CollapsingHeader("Compare and sweep", ImGuiTreeNodeFlags_DefaultOpen)) return;
  CompareSettings& c = state.compare;
  const Backend& backend = facts.session->backend();
  requests->compare_changed |= ImGui::Checkbox("side by side with", &c.enabled);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "a second simulation of the same scene with another integrator: both "
        "restart from the scene's initial state and get the same mouse pull");
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-FLT_MIN);
  if (ImGui::BeginCombo("##compare_integrator", nameOf(c.integrator).c_str())) {
    for (Integrator integrator : kAllIntegrators) {
      ImGui::BeginDisabled(!backend.supports(integrator));
      if (ImGui::Selectable(nameOf(integrator).c_str(), integrator == c.integrator)) {
        c.integrator = integrator;
        requests->compare_changed = true;
      }
      ImGui::EndDisabled();
    }
    ImGui::EndCombo();
  }
  int view = int(c.view);
  ImGui::BeginDisabled(!c.enabled);
  bool changed = ImGui::RadioButton("overlay (ghost)", &view, int(CompareView::kOverlay));
  ImGui::SameLine();
  changed |= ImGui::RadioButton("split", &view, int(CompareView::kSplit));
  ImGui::EndDisabled();
  if (changed) {
    c.view = CompareView(view);
    requests->compare_changed = true;
  }
  if (ImGui::Button(state.show_sweep ? "Hide the Sweep panel" : "Sweep panel...",
                    ImVec2(-FLT_MIN, 0.0f))) {
    state.show_sweep = !state.show_sweep;
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("run a dt x stiffness sweep of this scene and load a cell with a click");
  }
}

void compareStats(const PanelFacts& facts, PanelRequests* requests) {
  if (!facts.compare || !facts.compare->second()) return;
  const Column a = columnOf(facts.compare->primary());
  const Column b = columnOf(*facts.compare->second());
  ImGui::Spacing();
  ImGui::TextColored(kPrimaryColor, "Side by side");
  ImGui::Separator();
  if (!ImGui::BeginTable("compare", 3, ImGuiTableFlags_SizingStretchSame)) return;
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed,
                          ImGui::CalcTextSize("solver ms").x + 8.0f);
  ImGui::TableSetupColumn("a");
  ImGui::TableSetupColumn("b");
  auto row = [](const char* name, const std::string& x, const std::string& y) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", name);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(x.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(y.c_str());
  };
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TableNextColumn();
  ImGui::TextColored(kPrimaryColor, "%s", a.integrator.c_str());
  ImGui::TableNextColumn();
  ImGui::TextColored(kGhostColor, "%s", b.integrator.c_str());
  row("solver ms", a.solver_ms, b.solver_ms);
  row("CG its", a.cg, b.cg);
  row("Newton its", a.newton, b.newton);
  row("max strain", a.strain, b.strain);
  row("energy", a.energy, b.energy);
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextDisabled("state");
  for (const Column* c : {&a, &b}) {
    ImGui::TableNextColumn();
    if (c->status == "running") {
      ImGui::TextDisabled("%s", c->status.c_str());
    } else {
      ImGui::TextColored(kBadColor, "%s", c->status.c_str());
    }
  }
  ImGui::EndTable();
  if (facts.compare->second()->divergedAt() && !facts.compare->primary().divergedAt()) {
    ImGui::TextColored(kBadColor, "The %s run diverged.", b.integrator.c_str());
    if (ImGui::Button("Revert it to its last finite state (pauses both)##compare")) {
      requests->revert = true;
    }
  }
}

void compareLabels(const PanelState& state, const PanelFacts& facts, const Viewport& left,
                   const Viewport& right) {
  if (!facts.compare || !facts.compare->second()) return;
  const float s = ImGui::GetFontSize() / 15.0f;
  const std::string a = nameOf(facts.compare->primary().solver().integrator);
  const std::string b = nameOf(facts.compare->second()->solver().integrator);
  if (state.compare.view == CompareView::kSplit) {
    // centred over each view, below the status line
    const float y = left.y + 10.0f * s + 2.6f * ImGui::GetFontSize();
    label(ImVec2(left.x + 0.5f * left.width, y), ImVec2(0.5f, 0.0f), "##compare_a", a.c_str(),
          kPrimaryColor);
    label(ImVec2(right.x + 0.5f * right.width, y), ImVec2(0.5f, 0.0f), "##compare_b", b.c_str(),
          kGhostColor);
    // the seam between the two views
    ImGui::GetBackgroundDrawList()->AddLine(ImVec2(right.x, right.y),
                                            ImVec2(right.x, right.y + right.height),
                                            IM_COL32(30, 32, 36, 255), 3.0f * s);
  } else {
    const std::string text = "solid: " + a + "    ghost: " + b;
    label(ImVec2(left.x + left.width - 10.0f * s, left.y + 10.0f * s), ImVec2(1.0f, 0.0f),
          "##compare_a", text.c_str(), kGhostColor);
  }
}

}  // namespace hooke
